package fake

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/stactor/stactor/connectors"
)

// enumerator is SeaTunnel's FakeSourceSplitEnumerator: it cuts every
// table's rows into splits once (on the first Run), and hands split k of a
// table to reader k % parallelism as soon as that reader is registered,
// followed by "no more splits".
type enumerator struct {
	ctx    connectors.EnumeratorContext
	tables []*tableConfig
	now    func() time.Time

	discovered bool
	pending    []*split // not assigned yet, in discovery order
	// noMore: readers told there are no more splits.
	noMore map[int]bool
}

var _ connectors.SplitEnumerator = (*enumerator)(nil)

func newEnumerator(ctx connectors.EnumeratorContext, tables []*tableConfig, state []byte) (*enumerator, error) {
	e := &enumerator{ctx: ctx, tables: tables, now: time.Now, noMore: map[int]bool{}}
	if state == nil {
		return e, nil
	}
	discovered, splits, err := connectors.DecodeEnumeratorState(state)
	if err != nil {
		return nil, fmt.Errorf("FakeSource enumerator state: %w", err)
	}
	e.discovered = discovered
	for _, d := range splits {
		s, err := decodeSplit(connectors.Split{ID: "state", Data: d})
		if err != nil {
			return nil, fmt.Errorf("FakeSource enumerator state: %w", err)
		}
		e.pending = append(e.pending, s)
	}
	return e, nil
}

func (e *enumerator) Open(context.Context) error { return nil }

// Run discovers the splits (unless restored) and assigns them to the
// readers registered so far.
func (e *enumerator) Run() error {
	if !e.discovered {
		e.discover()
	}
	for _, r := range e.ctx.RegisteredReaders() {
		e.assign(r)
	}
	return nil
}

// discover makes the splits as SeaTunnel does: per table and per reader i,
// splits i, i+n, i+2n, ... of ceil(row.num/split.num) rows until row.num
// rows are covered. A table with fixed rows emits all of them in each
// split.
func (e *enumerator) discover() {
	n := e.ctx.Parallelism()
	if n < 1 {
		n = 1
	}
	year := e.now().Year()
	for _, t := range e.tables {
		per := (t.rowNum + t.splitNum - 1) / t.splitNum
		for i := 0; i < n; i++ {
			index := i
			for num := 0; num < t.rowNum; num += per {
				rows := min(per, t.rowNum-num)
				if t.custom != nil {
					rows = t.custom.Len()
				}
				e.pending = append(e.pending, &split{table: t.schema.TableID, index: index, rows: rows, year: year})
				index += n
			}
		}
	}
	e.discovered = true
}

// assign hands reader r its pending splits and, once splits are known,
// tells it there will be no more.
func (e *enumerator) assign(r int) {
	if !e.discovered {
		return
	}
	n := e.ctx.Parallelism()
	if n < 1 {
		n = 1
	}
	var mine []connectors.Split
	rest := e.pending[:0]
	for _, s := range e.pending {
		if s.index%n == r {
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
	e.noMore[r] = true
}

func (e *enumerator) RegisterReader(subtask int) error {
	e.assign(subtask)
	return nil
}

// HandleSplitRequest answers with whatever is pending for the reader
// (SeaTunnel's FakeSource readers never ask; assignment is pushed).
func (e *enumerator) HandleSplitRequest(subtask int) error {
	e.assign(subtask)
	return nil
}

// AddSplitsBack takes back the splits of a failed reader, positions
// included, and assigns them again to their owners that are registered.
func (e *enumerator) AddSplitsBack(splits []connectors.Split, subtask int) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		e.pending = append(e.pending, s)
	}
	registered := e.ctx.RegisteredReaders()
	sort.Ints(registered)
	for _, r := range registered {
		e.assign(r)
	}
	return nil
}

// SnapshotState encodes the splits not yet assigned (with their positions)
// and whether discovery has happened; assigned splits are in the readers'
// state.
func (e *enumerator) SnapshotState(checkpointID int64) ([]byte, error) {
	splits := make([][]byte, len(e.pending))
	for i, s := range e.pending {
		splits[i] = s.encode().Data
	}
	return connectors.EncodeEnumeratorState(e.discovered, splits), nil
}

func (e *enumerator) NotifyCheckpointComplete(checkpointID int64) error { return nil }

func (e *enumerator) Close() error { return nil }
