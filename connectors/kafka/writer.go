package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/twmb/franz-go/pkg/kgo"
)

// closeWait bounds the flush or abort a writer does when it closes.
const closeWait = 10 * time.Second

// writer produces one subtask's rows. NON and AT_LEAST_ONCE share one
// idempotent producer; AT_LEAST_ONCE flushes it at every checkpoint
// barrier (PrepareCommit), NON only when it closes. EXACTLY_ONCE opens a
// transactional producer per transaction, under a transactional id of its
// own (txnPrefix, pipeline, attempt, subtask, sequence), and leaves the
// flushed transaction open for the committer.
type writer struct {
	cfg  *sinkConfig
	task connectors.TaskInfo
	ctx  context.Context

	cl  *kgo.Client
	seq int // EXACTLY_ONCE: the number of the next transaction
	// prepared is the last transaction PrepareCommit handed over, for
	// AbortPrepare.
	prepared *commitInfo

	mu      sync.Mutex // guards failure; produce callbacks run on kgo's goroutines
	failure error
	promise func(*kgo.Record, error)
}

var _ connectors.Writer = (*writer)(nil)

func newWriter(ctx context.Context, cfg *sinkConfig, task connectors.TaskInfo) (*writer, error) {
	w := &writer{cfg: cfg, task: task, ctx: ctx}
	w.promise = func(r *kgo.Record, err error) {
		if err != nil {
			w.mu.Lock()
			if w.failure == nil {
				w.failure = fmt.Errorf("Kafka sink: producing to %s: %w", r.Topic, err)
			}
			w.mu.Unlock()
		}
	}
	if cfg.semantics != semanticsExactlyOnce {
		cl, err := newClient(cfg.servers, cfg.client, cfg.producerOpts()...)
		if err != nil {
			return nil, fmt.Errorf("Kafka sink: %w", err)
		}
		w.cl = cl
	}
	return w, nil
}

// txnID is the transactional id of transaction seq of this writer: unique
// per job, sink, pipeline, attempt and subtask, so no two writers ever
// fence each other and a stale one is known by its attempt.
func txnID(prefix string, task connectors.TaskInfo, seq int) string {
	return fmt.Sprintf("%s-p%d-a%d-s%d-%d", prefix, task.Pipeline, task.Attempt, task.SubtaskIndex, seq)
}

func (w *writer) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failure
}

// begin opens the next transaction's producer.
func (w *writer) begin() error {
	id := txnID(w.cfg.txnPrefix, w.task, w.seq)
	opts := append(w.cfg.producerOpts(), kgo.TransactionalID(id), kgo.TransactionTimeout(w.cfg.txnTimeout))
	cl, err := newClient(w.cfg.servers, w.cfg.client, opts...)
	if err != nil {
		return fmt.Errorf("Kafka sink: %w", err)
	}
	if err := cl.BeginTransaction(); err != nil {
		cl.Close()
		return fmt.Errorf("Kafka sink: beginning transaction %s: %w", id, err)
	}
	w.cl = cl
	return nil
}

func (w *writer) Write(b *row.Batch) error {
	if err := w.err(); err != nil {
		return err
	}
	if w.cl == nil {
		if err := w.begin(); err != nil {
			return err
		}
	}
	for i := 0; i < b.Len(); i++ {
		r := &kgo.Record{Topic: w.cfg.topic, Value: w.cfg.encode(nil, b, i), Partition: w.cfg.partition}
		if w.cfg.topicField >= 0 {
			c := b.Cols[w.cfg.topicField]
			if c.IsNull(i) {
				return fmt.Errorf("Kafka sink: the topic field %s is null", b.Schema.Fields[w.cfg.topicField].Name)
			}
			r.Topic = row.Text(c.Type, c.Value(i))
		}
		switch {
		case w.cfg.keyField >= 0:
			if c := b.Cols[w.cfg.keyField]; !c.IsNull(i) {
				r.Key = []byte(c.Str(i))
			}
		case len(w.cfg.keyCols) > 0:
			r.Key = w.key(b, i)
		}
		w.cl.Produce(w.ctx, r, w.promise)
	}
	return nil
}

// key is SeaTunnel's record key: the key fields as a JSON object.
func (w *writer) key(b *row.Batch, i int) []byte {
	k := []byte{'{'}
	for n, j := range w.cfg.keyCols {
		if n > 0 {
			k = append(k, ',')
		}
		k = appendJSONString(k, w.cfg.keyNames[n])
		k = append(k, ':')
		c := b.Cols[j]
		k = appendJSON(k, c.Type, c.Value(i))
	}
	return append(k, '}')
}

func (w *writer) flush() error {
	if err := w.cl.Flush(w.ctx); err != nil {
		return fmt.Errorf("Kafka sink: flushing: %w", err)
	}
	return w.err()
}

// PrepareCommit: AT_LEAST_ONCE waits until every record is acknowledged;
// EXACTLY_ONCE also hands the flushed, still open transaction over as the
// commit info and starts the next one on the next Write.
func (w *writer) PrepareCommit(checkpointID int64) ([]byte, error) {
	switch {
	case w.cfg.semantics == semanticsNon:
		return nil, w.err()
	case w.cfg.semantics == semanticsAtLeastOnce:
		return nil, w.flush()
	case w.cl == nil:
		return nil, w.err() // nothing written since the last checkpoint
	}
	if err := w.flush(); err != nil {
		return nil, err
	}
	pid, epoch, err := w.cl.ProducerID(w.ctx)
	if err != nil {
		return nil, fmt.Errorf("Kafka sink: producer id of %s: %w", txnID(w.cfg.txnPrefix, w.task, w.seq), err)
	}
	info := &commitInfo{TxnID: txnID(w.cfg.txnPrefix, w.task, w.seq), ProducerID: pid, Epoch: epoch}
	// Closing the client leaves the transaction open on the broker: only
	// the committer (or an abort) ends it.
	w.cl.Close()
	w.cl = nil
	w.seq++
	w.prepared = info
	return json.Marshal(info)
}

func (w *writer) SnapshotState(int64) ([][]byte, error) { return nil, nil }

// AbortPrepare aborts the transaction the failed checkpoint prepared.
func (w *writer) AbortPrepare() error {
	info := w.prepared
	w.prepared = nil
	if info == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(w.ctx, closeWait)
	defer cancel()
	cl, err := newClient(w.cfg.servers, w.cfg.client)
	if err != nil {
		return err
	}
	defer cl.Close()
	return endTxn(ctx, cl, info, false)
}

// Close: NON flushes what it buffered; EXACTLY_ONCE aborts the open
// transaction (its rows come again after a restore); AT_LEAST_ONCE drops
// what was not flushed (likewise).
func (w *writer) Close() error {
	if w.cl == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), closeWait)
	defer cancel()
	var err error
	switch w.cfg.semantics {
	case semanticsNon:
		err = w.cl.Flush(ctx)
		err = errors.Join(err, w.err())
	case semanticsExactlyOnce:
		w.cl.AbortBufferedRecords(ctx)
		err = w.cl.EndTransaction(ctx, kgo.TryAbort)
	}
	w.cl.Close()
	w.cl = nil
	return err
}
