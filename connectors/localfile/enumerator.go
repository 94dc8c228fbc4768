package localfile

import (
	"context"
	"fmt"
	"sort"

	"github.com/stactor/stactor/connectors"
)

// enumerator is SeaTunnel's MultipleTableFileSourceSplitEnumerator: it cuts
// the listed files into splits once, orders them by split id and gives the
// k-th to reader k % parallelism as soon as that reader registers, followed
// by "no more splits". Unlike SeaTunnel's, a large uncompressed text, csv
// or json file is several splits (line-aligned blocks), so parallel readers
// share it.
type enumerator struct {
	ctx connectors.EnumeratorContext
	cfg *sourceConfig

	discovered bool
	pending    []*split // not assigned yet, in split-id order
}

var _ connectors.SplitEnumerator = (*enumerator)(nil)

func newEnumerator(ctx connectors.EnumeratorContext, cfg *sourceConfig, state []byte) (*enumerator, error) {
	e := &enumerator{ctx: ctx, cfg: cfg}
	if state == nil {
		return e, nil
	}
	discovered, splits, err := connectors.DecodeEnumeratorState(state)
	if err != nil {
		return nil, fmt.Errorf("LocalFile enumerator state: %w", err)
	}
	e.discovered = discovered
	for _, d := range splits {
		s, err := decodeSplit(connectors.Split{ID: "state", Data: d})
		if err != nil {
			return nil, fmt.Errorf("LocalFile enumerator state: %w", err)
		}
		e.pending = append(e.pending, s)
	}
	return e, nil
}

// Open cuts the files into splits (unless restored), reading around block
// boundaries to align them with records.
func (e *enumerator) Open(context.Context) error {
	if e.discovered {
		return nil
	}
	var all []*split
	for _, f := range e.cfg.files {
		ss, err := e.cfg.splitsOf(f)
		if err != nil {
			return fmt.Errorf("LocalFile: %w", err)
		}
		all = append(all, ss...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].id() < all[j].id() })
	n := max(e.ctx.Parallelism(), 1)
	for i, s := range all {
		s.owner = i % n
	}
	e.pending, e.discovered = all, true
	return nil
}

// Run assigns the splits of the readers registered so far.
func (e *enumerator) Run() error {
	for _, r := range e.ctx.RegisteredReaders() {
		e.assign(r)
	}
	return nil
}

// assign hands reader r its pending splits and tells it there are no more.
func (e *enumerator) assign(r int) {
	if !e.discovered {
		return
	}
	n := max(e.ctx.Parallelism(), 1)
	var mine []connectors.Split
	rest := e.pending[:0]
	for _, s := range e.pending {
		if s.owner%n == r {
			mine = append(mine, s.encode())
		} else {
			rest = append(rest, s)
		}
	}
	clear(e.pending[len(rest):])
	e.pending = rest
	if len(mine) > 0 {
		e.ctx.AssignSplits(r, mine...)
	}
	e.ctx.SignalNoMoreSplits(r)
}

func (e *enumerator) RegisterReader(subtask int) error {
	e.assign(subtask)
	return nil
}

func (e *enumerator) HandleSplitRequest(subtask int) error {
	e.assign(subtask)
	return nil
}

// AddSplitsBack takes back a failed reader's splits with their positions;
// they go to the reader of that index again (modulo the parallelism, after
// a rescale) when it registers.
func (e *enumerator) AddSplitsBack(splits []connectors.Split, subtask int) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		s.owner = subtask
		e.pending = append(e.pending, s)
	}
	sort.SliceStable(e.pending, func(i, j int) bool { return e.pending[i].id() < e.pending[j].id() })
	n := max(e.ctx.Parallelism(), 1)
	for _, r := range e.ctx.RegisteredReaders() {
		if r == subtask%n {
			e.assign(r)
		}
	}
	return nil
}

// SnapshotState encodes the unassigned splits; assigned ones are in their
// readers' state.
func (e *enumerator) SnapshotState(checkpointID int64) ([]byte, error) {
	splits := make([][]byte, len(e.pending))
	for i, s := range e.pending {
		splits[i] = s.encode().Data
	}
	return connectors.EncodeEnumeratorState(e.discovered, splits), nil
}

func (e *enumerator) NotifyCheckpointComplete(checkpointID int64) error { return nil }

func (e *enumerator) Close() error { return nil }
