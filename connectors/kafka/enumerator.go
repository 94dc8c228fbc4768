package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// enumerator hands each partition to one reader, the same one every time
// (SeaTunnel's owner: topic hash and partition modulo the readers). In
// BATCH it then says there are no more splits; in STREAMING a goroutine
// it owns looks for new partitions every partition-discovery interval,
// and the readers, which ask for splits at that interval, get them on
// HandleSplitRequest (the enumerator's context is only for its actor).
type enumerator struct {
	ctx connectors.EnumeratorContext
	cfg *sourceConfig

	known   map[string]bool // split ids ever known, assigned or not
	pending []*split

	stop context.CancelFunc
	wg   sync.WaitGroup
	mu   sync.Mutex // guards found
	// found: partitions the discovery goroutine saw that may be new.
	found []*split
}

var _ connectors.SplitEnumerator = (*enumerator)(nil)

// enumState is the enumerator's checkpoint state.
type enumState struct {
	Known   []string `json:"known"`
	Pending []*split `json:"pending"`
}

func newEnumerator(ctx connectors.EnumeratorContext, cfg *sourceConfig, start []*split, state []byte) (*enumerator, error) {
	e := &enumerator{ctx: ctx, cfg: cfg, known: map[string]bool{}}
	if state != nil {
		var st enumState
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("Kafka enumerator state: %w", err)
		}
		for _, id := range st.Known {
			e.known[id] = true
		}
		e.pending = st.Pending
		return e, nil
	}
	for _, s := range start {
		c := *s
		e.known[c.id()] = true
		e.pending = append(e.pending, &c)
	}
	return e, nil
}

func (e *enumerator) Open(ctx context.Context) error {
	if e.cfg.bounded || e.cfg.discovery <= 0 {
		return nil
	}
	cl, err := newClient(e.cfg.servers, e.cfg.client)
	if err != nil {
		return fmt.Errorf("Kafka partition discovery: %w", err)
	}
	ctx, e.stop = context.WithCancel(ctx)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer cl.Close()
		e.discover(ctx, kadm.NewClient(cl))
	}()
	return nil
}

// discover lists the tables' partitions every interval until ctx ends. A
// failed listing is tried again at the next tick: the readers go on.
func (e *enumerator) discover(ctx context.Context, adm *kadm.Client) {
	t := time.NewTicker(e.cfg.discovery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var found []*split
		for ti, tt := range e.cfg.tables {
			lctx, cancel := context.WithTimeout(ctx, e.cfg.discovery+connectTimeout)
			parts, err := listPartitions(lctx, adm, tt.topics, tt.pattern)
			var lo kadm.ListedOffsets
			if err == nil && len(parts) > 0 {
				lo, err = adm.ListStartOffsets(lctx, topicsOf(parts)...)
			}
			cancel()
			if err != nil {
				continue
			}
			for _, p := range parts {
				// A partition that appears later is read from its start.
				o, _ := lo.Lookup(p.Topic, p.Partition)
				found = append(found, &split{Table: ti, Topic: p.Topic, Partition: p.Partition, Offset: max(o.Offset, 0), End: -1})
			}
		}
		e.mu.Lock()
		e.found = found
		e.mu.Unlock()
	}
}

// owner is SeaTunnel's KafkaSourceSplitEnumerator.getSplitOwner.
func owner(s *split, n int) int {
	h := int32(0)
	for _, c := range s.Topic {
		h = 31*h + int32(c)
	}
	// in int64: Java's int sum could overflow into a negative owner
	return int((int64(h*31&0x7FFFFFFF) + int64(s.Partition)) % int64(max(n, 1)))
}

func (e *enumerator) Run() error {
	for _, r := range e.ctx.RegisteredReaders() {
		e.assign(r)
	}
	return nil
}

// assign hands reader r its pending splits; in BATCH it then tells r
// there will be no more.
func (e *enumerator) assign(r int) {
	n := e.ctx.Parallelism()
	var mine []connectors.Split
	rest := e.pending[:0]
	for _, s := range e.pending {
		if owner(s, n) == r {
			mine = append(mine, s.encode())
		} else {
			rest = append(rest, s)
		}
	}
	clear(e.pending[len(rest):])
	e.pending = rest
	e.ctx.AssignSplits(r, mine...)
	if e.cfg.bounded {
		e.ctx.SignalNoMoreSplits(r)
	}
}

func (e *enumerator) RegisterReader(subtask int) error {
	e.assign(subtask)
	return nil
}

// HandleSplitRequest takes what discovery found that is new and hands the
// registered readers their part of it.
func (e *enumerator) HandleSplitRequest(subtask int) error {
	e.mu.Lock()
	found := e.found
	e.found = nil
	e.mu.Unlock()
	added := false
	for _, s := range found {
		if !e.known[s.id()] {
			e.known[s.id()] = true
			e.pending = append(e.pending, s)
			added = true
		}
	}
	if added {
		for _, r := range e.ctx.RegisteredReaders() {
			e.assign(r)
		}
	}
	return nil
}

func (e *enumerator) AddSplitsBack(splits []connectors.Split, subtask int) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		e.pending = append(e.pending, s)
	}
	for _, r := range e.ctx.RegisteredReaders() {
		if r == subtask {
			continue // it failed; it gets them when it registers again
		}
		e.assign(r)
	}
	return nil
}

func (e *enumerator) SnapshotState(int64) ([]byte, error) {
	st := enumState{Pending: e.pending}
	for id := range e.known {
		st.Known = append(st.Known, id)
	}
	sort.Strings(st.Known)
	return json.Marshal(st)
}

func (e *enumerator) NotifyCheckpointComplete(int64) error { return nil }

func (e *enumerator) Close() error {
	if e.stop != nil {
		e.stop()
	}
	e.wg.Wait()
	return nil
}

// consumeOffsets is the kgo form of splits' positions.
func consumeOffsets(splits []*split) map[string]map[int32]kgo.Offset {
	m := map[string]map[int32]kgo.Offset{}
	for _, s := range splits {
		if m[s.Topic] == nil {
			m[s.Topic] = map[int32]kgo.Offset{}
		}
		m[s.Topic][s.Partition] = kgo.NewOffset().At(s.Offset)
	}
	return m
}
