// Package splitenum is the split enumerator of sources whose splits are
// all known up front and each belong to one reader: SeaTunnel's
// FakeSource and file sources deal their splits out once, push each
// reader its share when it registers, and then tell it there are no more
// (DESIGN §5: assigned splits live in their readers' state, unassigned
// ones in the enumerator's).
//
// A connector supplies how to list its splits, encode and decode them, and
// which reader owns each; Enumerator does the rest of
// connectors.SplitEnumerator: discovery once (in Open, or in Run when Open
// was not called), assignment on Run, RegisterReader and
// HandleSplitRequest, splits handed back on a restore (AddSplitsBack,
// across a different parallelism too: owners are taken modulo the
// parallelism) and the checkpointed state, in
// connectors.EncodeEnumeratorState's format. New connectors with a fixed
// split list use it instead of writing their own.
package splitenum

import (
	"context"
	"fmt"
	"sort"

	"github.com/stactor/stactor/connectors"
)

// Splits is what a connector tells the enumerator about its splits. S is
// the connector's own split type (usually a pointer).
type Splits[S any] struct {
	// Name is the connector's name, for errors ("LocalFile").
	Name string
	// Discover lists the splits, once per job (never after a restore of a
	// state that had discovered them). parallelism is the number of
	// readers (at least 1); a split's owner may depend on it. It may do
	// I/O (it runs in Open, with the enumerator's ctx).
	Discover func(ctx context.Context, parallelism int) ([]S, error)
	Encode   func(S) connectors.Split
	Decode   func(connectors.Split) (S, error)
	// Owner is the reader a split goes to, before the modulo by the
	// parallelism.
	Owner func(S) int
	// Returned, optional, is applied to a split a reader hands back
	// (AddSplitsBack) before it is pending again: LocalFile gives it to
	// the reader of the same index.
	Returned func(s S, subtask int) S
	// Less, optional, orders the pending splits after AddSplitsBack, so a
	// reader gets its returned splits in a fixed order.
	Less func(a, b S) bool
}

// Enumerator is a connectors.SplitEnumerator over a fixed split list.
type Enumerator[S any] struct {
	ctx connectors.EnumeratorContext
	sp  Splits[S]

	discovered bool
	pending    []S // not assigned yet, in discovery order (or Less order)
}

var _ connectors.SplitEnumerator = (*Enumerator[int])(nil)

// New makes an enumerator; state is nil on a fresh start or what
// SnapshotState returned.
func New[S any](ctx connectors.EnumeratorContext, sp Splits[S], state []byte) (*Enumerator[S], error) {
	e := &Enumerator[S]{ctx: ctx, sp: sp}
	if state == nil {
		return e, nil
	}
	discovered, splits, err := connectors.DecodeEnumeratorState(state)
	if err != nil {
		return nil, fmt.Errorf("%s enumerator state: %w", sp.Name, err)
	}
	e.discovered = discovered
	for _, d := range splits {
		s, err := sp.Decode(connectors.Split{ID: "state", Data: d})
		if err != nil {
			return nil, fmt.Errorf("%s enumerator state: %w", sp.Name, err)
		}
		e.pending = append(e.pending, s)
	}
	return e, nil
}

func (e *Enumerator[S]) parallelism() int { return max(e.ctx.Parallelism(), 1) }

// Open discovers the splits unless the state it was made from had.
func (e *Enumerator[S]) Open(ctx context.Context) error { return e.discover(ctx) }

func (e *Enumerator[S]) discover(ctx context.Context) error {
	if e.discovered {
		return nil
	}
	all, err := e.sp.Discover(ctx, e.parallelism())
	if err != nil {
		return fmt.Errorf("%s: %w", e.sp.Name, err)
	}
	e.pending, e.discovered = append(e.pending, all...), true
	return nil
}

// Run assigns the splits of the readers registered so far (discovering
// them first if Open did not).
func (e *Enumerator[S]) Run() error {
	if err := e.discover(context.Background()); err != nil {
		return err
	}
	for _, r := range e.ctx.RegisteredReaders() {
		e.assign(r)
	}
	return nil
}

// assign hands reader r its pending splits and, once splits are known,
// tells it there will be no more (again, for a reader registered anew).
func (e *Enumerator[S]) assign(r int) {
	if !e.discovered {
		return
	}
	n := e.parallelism()
	var mine []connectors.Split
	rest := e.pending[:0]
	for _, s := range e.pending {
		if e.sp.Owner(s)%n == r {
			mine = append(mine, e.sp.Encode(s))
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

// RegisterReader assigns the new reader's splits.
func (e *Enumerator[S]) RegisterReader(subtask int) error {
	e.assign(subtask)
	return nil
}

// HandleSplitRequest answers with whatever is pending for the reader
// (assignment is pushed; readers of these sources never need to ask).
func (e *Enumerator[S]) HandleSplitRequest(subtask int) error {
	e.assign(subtask)
	return nil
}

// AddSplitsBack takes back a reader's splits, positions included, and
// assigns them to their owners that are registered.
func (e *Enumerator[S]) AddSplitsBack(splits []connectors.Split, subtask int) error {
	for _, cs := range splits {
		s, err := e.sp.Decode(cs)
		if err != nil {
			return fmt.Errorf("%s: split handed back by reader %d: %w", e.sp.Name, subtask, err)
		}
		if e.sp.Returned != nil {
			s = e.sp.Returned(s, subtask)
		}
		e.pending = append(e.pending, s)
	}
	if e.sp.Less != nil {
		sort.SliceStable(e.pending, func(i, j int) bool { return e.sp.Less(e.pending[i], e.pending[j]) })
	}
	n := e.parallelism()
	owners := map[int]bool{}
	for _, s := range e.pending {
		owners[e.sp.Owner(s)%n] = true
	}
	for _, r := range e.ctx.RegisteredReaders() {
		if owners[r] {
			e.assign(r)
		}
	}
	return nil
}

// SnapshotState encodes the splits not yet assigned, with their positions,
// and whether discovery has happened; assigned splits are in their
// readers' state.
func (e *Enumerator[S]) SnapshotState(checkpointID int64) ([]byte, error) {
	splits := make([][]byte, len(e.pending))
	for i, s := range e.pending {
		splits[i] = e.sp.Encode(s).Data
	}
	return connectors.EncodeEnumeratorState(e.discovered, splits), nil
}

// NotifyCheckpointComplete does nothing: assignment does not wait for
// checkpoints.
func (e *Enumerator[S]) NotifyCheckpointComplete(checkpointID int64) error { return nil }

// Close does nothing: the enumerator holds no resources.
func (e *Enumerator[S]) Close() error { return nil }
