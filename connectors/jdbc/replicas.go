package jdbc

// multi_table_sink_replica: several writers of every table in one subtask.
//
// SeaTunnel's sink option runs that many writers of each table in a
// subtask, each with its own session, and routes a table's rows to them by
// primary key, so that every change of one key goes to one writer in the
// order it came (its KEYED replica mode; the Jdbc sink declares it except
// with is_exactly_once). Here a replicaWriter holds n writers, each a
// writer as a subtask without replicas has: a batch is split by the hash
// of its rows' keys, and when one writer holds batch_size rows, and at
// every checkpoint, all of them flush at the same time on their own
// sessions, so n round trips to the database overlap instead of queueing
// on one session.
//
// Why only without exactly-once, as SeaTunnel: a checkpoint's rows of
// one subtask are one prepared transaction (one commit info, one xid), and
// n sessions would make n of them, which the committer's recovery
// (commit or roll back by xid, marker rows) does not know how to join.
// Why a key is required: without it rows would be spread at random, and
// two changes of one row could apply out of order.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/stactor/stactor/row"
)

// replicaWriter is the writer of a sink with multi_table_sink_replica > 1.
type replicaWriter struct {
	ws   []*writer
	seed maphash.Seed
	idx  [][]int // per writer, the rows of the batch being split
}

func newReplicaWriter(ws []*writer) *replicaWriter {
	return &replicaWriter{ws: ws, seed: maphash.MakeSeed(), idx: make([][]int, len(ws))}
}

// Write splits b by key and hands each writer its rows; once one holds
// batch_size rows, every writer flushes, all at once.
func (rw *replicaWriter) Write(b *row.Batch) error {
	first := rw.ws[0]
	if _, ok := first.tables[b.Schema.TableID]; !ok {
		return fmt.Errorf("Jdbc: rows of table %s, which is not an input of this sink", b.Schema.TableID)
	}
	tw, err := first.writerOf(b)
	if err != nil {
		return err
	}
	if tw.t == nil || len(tw.t.KeyIdx) == 0 {
		// Resolve refuses replicas without keys; a schema change that
		// dropped the key columns is the case left.
		return fmt.Errorf("Jdbc: multi_table_sink_replica = %d: rows of %s have no key to route them by", len(rw.ws), b.Schema.TableID)
	}
	for k := range rw.idx {
		rw.idx[k] = rw.idx[k][:0]
	}
	var h maphash.Hash
	h.SetSeed(rw.seed)
	for i := range b.Len() {
		h.Reset()
		for _, j := range tw.t.KeyIdx {
			c := b.Col(j)
			if c.IsNull(i) {
				h.WriteByte(0)
				continue
			}
			h.WriteByte(1)
			switch c.Type.Storage() {
			case row.StoreInt:
				var v [8]byte
				binary.LittleEndian.PutUint64(v[:], uint64(c.Ints[i]))
				h.Write(v[:])
			case row.StoreString:
				h.WriteString(c.Str(i))
			default:
				h.WriteString(row.Text(c.Type, c.Value(i)))
			}
		}
		k := int(h.Sum64() % uint64(len(rw.ws)))
		rw.idx[k] = append(rw.idx[k], i)
	}
	full := false
	for k, w := range rw.ws {
		if len(rw.idx[k]) == 0 {
			continue
		}
		part := b
		if len(rw.idx[k]) < b.Len() {
			part = b.Take(rw.idx[k])
		}
		w.pending = append(w.pending, part)
		w.rows += part.Len()
		full = full || w.rows >= w.r.BatchSize
	}
	if !full {
		return nil
	}
	// Keys spread the rows evenly, so the others are nearly full too:
	// flushing them now makes their rounds overlap instead of queueing
	// one after another on later Writes.
	return each(rw.ws, (*writer).flush)
}

// PrepareCommit flushes every writer at once. Without exactly-once (the
// only way replicas run) there is nothing to commit afterwards.
func (rw *replicaWriter) PrepareCommit(checkpointID int64) ([]byte, error) {
	return nil, each(rw.ws, func(w *writer) error {
		_, err := w.PrepareCommit(checkpointID)
		return err
	})
}

func (rw *replicaWriter) SnapshotState(checkpointID int64) ([][]byte, error) { return nil, nil }

// AbortPrepare has nothing to abort: replicas prepare no transaction.
func (rw *replicaWriter) AbortPrepare() error { return nil }

// ApplySchemaChange flushes every writer (the rows before the change are
// written under the old schema), then the first writer runs the change's
// ALTER statements and the others only take the new schema: a MySQL
// MODIFY may rebuild the table, which should happen once.
func (rw *replicaWriter) ApplySchemaChange(c *row.SchemaChange) error {
	if err := each(rw.ws, (*writer).flush); err != nil {
		return err
	}
	for k, w := range rw.ws {
		if err := w.followSchemaChange(c, k == 0); err != nil {
			return err
		}
	}
	return nil
}

// Close closes every writer.
func (rw *replicaWriter) Close() error {
	var errs []error
	for _, w := range rw.ws {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}

// each runs fn on every writer of ws, at the same time when there are
// several, and joins their errors.
func each(ws []*writer, fn func(*writer) error) error {
	switch len(ws) {
	case 0:
		return nil
	case 1:
		return fn(ws[0])
	}
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for k, w := range ws {
		wg.Go(func() { errs[k] = fn(w) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
