package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/stactor/stactor/connectors"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// commitInfo is one prepared transaction: what EndTxn needs to finish it
// from any process, as Flink's KafkaCommittable (its producer id and
// epoch) — the writer that opened it may be gone.
type commitInfo struct {
	TxnID      string `json:"txn"`
	ProducerID int64  `json:"pid"`
	Epoch      int16  `json:"epoch"`
}

// committer ends the writers' transactions. Its client is made on first
// use and kept; calls come one at a time from the committer actor.
type committer struct {
	cfg *sinkConfig

	mu sync.Mutex // guards cl against Close racing a late call
	cl *kgo.Client
}

var _ connectors.Committer = (*committer)(nil)

func (c *committer) client() (*kgo.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl == nil {
		cl, err := newClient(c.cfg.servers, c.cfg.client)
		if err != nil {
			return nil, fmt.Errorf("Kafka sink committer: %w", err)
		}
		c.cl = cl
	}
	return c.cl, nil
}

// Commit commits each prepared transaction. Committing one that is
// committed already succeeds (the broker tells a retried EndTxn), so a
// restore that commits the restored checkpoint's infos again is safe.
func (c *committer) Commit(ctx context.Context, _ connectors.CommitContext, infos [][]byte) error {
	return c.end(ctx, infos, true)
}

// Abort aborts prepared transactions that will never be committed.
func (c *committer) Abort(ctx context.Context, _ connectors.CommitContext, infos [][]byte) error {
	return c.end(ctx, infos, false)
}

func (c *committer) end(ctx context.Context, infos [][]byte, commit bool) error {
	for _, raw := range infos {
		if raw == nil {
			continue
		}
		if c.cfg.semantics != semanticsExactlyOnce {
			return connectors.Permanent(fmt.Errorf("Kafka sink: a %s sink prepares no commit info, got %d bytes", c.cfg.semantics, len(raw)))
		}
		var info commitInfo
		if err := json.Unmarshal(raw, &info); err != nil || info.TxnID == "" {
			return connectors.Permanent(fmt.Errorf("Kafka sink commit info %.40q is not one of this sink's transactions (%v)", raw, err))
		}
		cl, err := c.client()
		if err != nil {
			return err
		}
		if err := endTxn(ctx, cl, &info, commit); err != nil {
			return err
		}
	}
	return nil
}

// endTxn commits or aborts a transaction by its id, producer id and
// epoch. A broker that no longer knows it as open under that epoch (it
// timed out, or was fenced) cannot commit it: that is permanent, and its
// rows are lost, so the job fails saying so.
func endTxn(ctx context.Context, cl *kgo.Client, info *commitInfo, commit bool) error {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = info.TxnID
	req.ProducerID = info.ProducerID
	req.ProducerEpoch = info.Epoch
	req.Commit = commit
	what := "abort"
	if commit {
		what = "commit"
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("Kafka sink: %s of transaction %s: %w", what, info.TxnID, err)
	}
	err = kerr.ErrorForCode(resp.ErrorCode)
	switch {
	case err == nil:
		return nil
	case !commit && (errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerIDMapping) || errors.Is(err, kerr.InvalidTxnState)):
		return nil // ended already (aborted by timeout, or fenced): nothing is left to abort
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerIDMapping), errors.Is(err, kerr.InvalidTxnState), errors.Is(err, kerr.InvalidProducerEpoch):
		return connectors.Permanent(fmt.Errorf("Kafka sink: transaction %s cannot be committed any more (%w): the broker ended it, most likely after transaction.timeout.ms; its rows are lost", info.TxnID, err))
	}
	return fmt.Errorf("Kafka sink: %s of transaction %s: %w", what, info.TxnID, err)
}

// AbortStale aborts the open transactions of this sink's pipeline that
// attempts before cc.Attempt left: prepared for a checkpoint that never
// completed, or open when the process died. The restored checkpoint's own
// transactions were committed before this runs, so no open one of an
// earlier attempt will ever be committed. Without it they would hold back
// every read_committed consumer until their timeout.
func (c *committer) AbortStale(ctx context.Context, cc connectors.CommitContext) error {
	if c.cfg.semantics != semanticsExactlyOnce {
		return nil
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	adm := kadm.NewClient(cl)
	listed, err := adm.ListTransactions(ctx, nil, []string{"Ongoing"})
	if err != nil {
		return fmt.Errorf("Kafka sink: listing open transactions: %w", err)
	}
	prefix := fmt.Sprintf("%s-p%d-a", c.cfg.txnPrefix, cc.Pipeline)
	var stale []string
	for id := range listed {
		rest, ok := strings.CutPrefix(id, prefix)
		if !ok {
			continue
		}
		a, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(a); err == nil && n < cc.Attempt {
			stale = append(stale, id)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	described, err := adm.DescribeTransactions(ctx, stale...)
	if err != nil {
		return fmt.Errorf("Kafka sink: describing stale transactions: %w", err)
	}
	for _, d := range described {
		if d.Err != nil || d.State != "Ongoing" {
			continue
		}
		if err := endTxn(ctx, cl, &commitInfo{TxnID: d.TxnID, ProducerID: d.ProducerID, Epoch: d.ProducerEpoch}, false); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the client.
func (c *committer) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl != nil {
		c.cl.Close()
		c.cl = nil
	}
	return nil
}
