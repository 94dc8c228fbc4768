package conformance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// pipeline is one source running as the engine runs it: an enumerator
// and its readers, driven from one goroutine (the engine calls each from
// one actor at a time).
type pipeline struct {
	src     connectors.Source
	tables  []*row.Schema
	bounded connectors.Boundedness
	ec      *enumCtx
	en      connectors.SplitEnumerator
	readers []*readerRun
	ctx     context.Context
	cancel  context.CancelFunc
	batch   int
	bound   time.Duration
	// slowest PollNext seen, and where
	slowest     time.Duration
	slowestWhat string
	checkpoint  int64
	out         *collector
}

type readerRun struct {
	subtask int
	r       connectors.Reader
	ctx     *readerCtx
	noMore  bool // HandleNoMoreSplits was delivered
	ended   bool
}

// start makes the enumerator of parallelism p (from state, with back the
// splits readers hand back on a restore, by their old subtask), registers
// p readers and runs the enumerator.
func startPipeline(src connectors.Source, p, batch int, bound time.Duration, state []byte, back map[int][]connectors.Split) (*pipeline, error) {
	tables, err := guard(func() ([]*row.Schema, error) { return src.Tables(), nil })
	if err != nil {
		return nil, fmt.Errorf("Tables: %w", err)
	}
	bounded, err := guard(func() (connectors.Boundedness, error) { return src.Boundedness(), nil })
	if err != nil {
		return nil, fmt.Errorf("Boundedness: %w", err)
	}
	pl := &pipeline{src: src, tables: tables, bounded: bounded, ec: newEnumCtx(p), batch: batch, bound: bound}
	pl.ctx, pl.cancel = context.WithCancel(context.Background())
	pl.out = &collector{size: batch, want: pl.tables}
	en, err := guard(func() (connectors.SplitEnumerator, error) { return src.CreateEnumerator(pl.ec, state) })
	if err != nil {
		pl.cancel()
		return nil, fmt.Errorf("CreateEnumerator: %w", err)
	}
	pl.en = en
	if err := guardErr(func() error { return en.Open(pl.ctx) }); err != nil {
		pl.close()
		return nil, fmt.Errorf("enumerator Open: %w", err)
	}
	olds := make([]int, 0, len(back))
	for old := range back {
		olds = append(olds, old)
	}
	sort.Ints(olds)
	for _, old := range olds {
		if err := guardErr(func() error { return en.AddSplitsBack(back[old], old) }); err != nil {
			pl.close()
			return nil, fmt.Errorf("AddSplitsBack of reader %d: %w", old, err)
		}
	}
	for i := 0; i < p; i++ {
		rr, err := pl.newReader(i, nil)
		if err != nil {
			pl.close()
			return nil, err
		}
		pl.readers = append(pl.readers, rr)
		pl.ec.registered[i] = true
		if err := guardErr(func() error { return en.RegisterReader(i) }); err != nil {
			pl.close()
			return nil, fmt.Errorf("RegisterReader(%d): %w", i, err)
		}
	}
	if err := guardErr(en.Run); err != nil {
		pl.close()
		return nil, fmt.Errorf("enumerator Run: %w", err)
	}
	return pl, nil
}

// newReader makes and opens reader i, given splits (a restored reader's).
func (pl *pipeline) newReader(i int, splits []connectors.Split) (*readerRun, error) {
	ctx := &readerCtx{bounded: pl.bounded, task: connectors.TaskInfo{JobID: "conformance", Pipeline: 1, Attempt: 1, SubtaskIndex: i, Parallelism: pl.ec.parallelism, Node: "local"}}
	r, err := guard(func() (connectors.Reader, error) { return pl.src.CreateReader(ctx) })
	if err != nil {
		return nil, fmt.Errorf("CreateReader(%d): %w", i, err)
	}
	if err := guardErr(func() error { return r.Open(pl.ctx) }); err != nil {
		_ = guardErr(r.Close)
		return nil, fmt.Errorf("reader %d Open: %w", i, err)
	}
	rr := &readerRun{subtask: i, r: r, ctx: ctx}
	if len(splits) > 0 {
		if err := guardErr(func() error { return r.AddSplits(splits) }); err != nil {
			_ = guardErr(r.Close)
			return nil, fmt.Errorf("reader %d AddSplits of restored splits: %w", i, err)
		}
	}
	return rr, nil
}

// deliver hands reader rr what the enumerator sent it, as the engine's
// messages would: its splits, then "no more splits".
func (pl *pipeline) deliver(rr *readerRun) error {
	msgs := rr.ctx.outbox
	rr.ctx.outbox = nil
	for _, m := range msgs {
		if m.event == nil {
			if err := guardErr(func() error { return pl.en.HandleSplitRequest(rr.subtask) }); err != nil {
				return fmt.Errorf("HandleSplitRequest(%d): %w", rr.subtask, err)
			}
			continue
		}
		h, ok := pl.en.(connectors.SourceEventHandler)
		if !ok {
			return fmt.Errorf("reader %d sent a source event; its enumerator does not take them (connectors.SourceEventHandler)", rr.subtask)
		}
		if err := guardErr(func() error { return h.HandleSourceEvent(rr.subtask, m.event) }); err != nil {
			return fmt.Errorf("HandleSourceEvent(%d): %w", rr.subtask, err)
		}
	}
	if splits := pl.ec.take(rr.subtask); len(splits) > 0 {
		if err := guardErr(func() error { return rr.r.AddSplits(splits) }); err != nil {
			return fmt.Errorf("reader %d AddSplits: %w", rr.subtask, err)
		}
	}
	if !rr.noMore && pl.ec.noMore[rr.subtask] > 0 {
		rr.noMore = true
		if err := guardErr(rr.r.HandleNoMoreSplits); err != nil {
			return fmt.Errorf("reader %d HandleNoMoreSplits: %w", rr.subtask, err)
		}
	}
	return nil
}

// poll delivers and polls reader rr once, timing PollNext; it returns the
// rows emitted.
func (pl *pipeline) poll(rr *readerRun) (int, error) {
	if err := pl.deliver(rr); err != nil {
		return 0, err
	}
	before := pl.out.n
	start := time.Now()
	err := guardErr(func() error { return rr.r.PollNext(pl.out) })
	if d := time.Since(start); d > pl.slowest {
		pl.slowest, pl.slowestWhat = d, fmt.Sprintf("reader %d's PollNext took %v", rr.subtask, d.Round(time.Millisecond))
	}
	if err != nil {
		return 0, fmt.Errorf("reader %d PollNext: %w", rr.subtask, err)
	}
	if pl.out.bad != nil {
		return 0, fmt.Errorf("reader %d: %w", rr.subtask, pl.out.bad)
	}
	if rr.ctx.ended > 1 {
		return 0, fmt.Errorf("reader %d signalled no more elements %d times", rr.subtask, rr.ctx.ended)
	}
	if rr.ctx.ended == 1 && !rr.ended {
		rr.ended = true
		if pl.bounded != connectors.Bounded {
			return 0, fmt.Errorf("reader %d of an unbounded source signalled no more elements", rr.subtask)
		}
	}
	return pl.out.n - before, nil
}

// errStalled: a read made no progress for the stall time.
var errStalled = errors.New("no reader emitted a row or ended")

// readOpts say how far to read.
type readOpts struct {
	want int // an unbounded source is read until this many rows (0: bounded)
	// stopAfter, when > 0, stops after that many productive polls in all
	// (a partial read).
	stopAfter int
	// restartEachPoll snapshots a reader after each poll that emitted rows
	// and replaces it by a new reader made from the snapshot's splits.
	restartEachPoll bool
	stall           time.Duration
}

// read polls the readers round-robin until every bounded reader ended,
// an unbounded source gave want rows, or stopAfter productive polls.
func (pl *pipeline) read(o readOpts) error {
	if o.stall == 0 {
		o.stall = 20 * time.Second
	}
	productive := 0
	last, lastCheckpoint := time.Now(), time.Now()
	for {
		// Checkpoints complete as the engine's do, every so often: a
		// source may make progress only then (CDC hands out its stream
		// after the snapshot's chunks are covered by one; Kafka commits
		// its offsets).
		if time.Since(lastCheckpoint) > checkpointEvery {
			if err := pl.completeCheckpoint(); err != nil {
				return err
			}
			lastCheckpoint = time.Now()
		}
		done := true
		for _, rr := range pl.readers {
			if rr.ended {
				continue
			}
			done = false
			n, err := pl.poll(rr)
			if err != nil {
				return err
			}
			if n > 0 || rr.ended {
				last = time.Now()
			}
			if n > 0 {
				productive++
				if o.restartEachPoll && !rr.ended {
					if err := pl.restart(rr); err != nil {
						return err
					}
				}
			}
			if o.stopAfter > 0 && productive >= o.stopAfter {
				return nil
			}
		}
		if done || (o.want > 0 && len(pl.out.rows) >= o.want) {
			if o.want > 0 {
				// a few more polls: nothing more may come
				for _, rr := range pl.readers {
					for k := 0; k < 3; k++ {
						if _, err := pl.poll(rr); err != nil {
							return err
						}
					}
				}
			}
			return nil
		}
		if time.Since(last) > o.stall {
			return fmt.Errorf("%w for %v (%d rows so far)", errStalled, o.stall, len(pl.out.rows))
		}
	}
}

// restart replaces rr's reader by one made from its snapshot.
func (pl *pipeline) restart(rr *readerRun) error {
	pl.checkpoint++
	splits, err := guard(func() ([]connectors.Split, error) { return rr.r.SnapshotState(pl.checkpoint) })
	if err != nil {
		return fmt.Errorf("reader %d SnapshotState: %w", rr.subtask, err)
	}
	if err := guardErr(rr.r.Close); err != nil {
		return fmt.Errorf("reader %d Close: %w", rr.subtask, err)
	}
	nr, err := pl.newReader(rr.subtask, splits)
	if err != nil {
		return err
	}
	// what the old reader sent before its snapshot still reaches the
	// enumerator, as the engine's messages sent before a barrier do
	nr.ctx.outbox = append(rr.ctx.outbox, nr.ctx.outbox...)
	rr.r, rr.ctx = nr.r, nr.ctx
	if rr.noMore {
		if err := guardErr(rr.r.HandleNoMoreSplits); err != nil {
			return fmt.Errorf("restored reader %d HandleNoMoreSplits: %w", rr.subtask, err)
		}
	}
	return nil
}

// snapshot is a checkpoint of the whole source: the enumerator's state
// and each reader's splits.
func (pl *pipeline) snapshot() ([]byte, map[int][]connectors.Split, error) {
	// What the readers sent reaches the enumerator first, and what it
	// assigned reaches the readers: the engine delivers assignments before
	// the barrier that follows them, and an assignment made after the
	// enumerator's snapshot only after the reader's barrier (else a split
	// would be in both states and read twice after a restore).
	if err := pl.settle(); err != nil {
		return nil, nil, err
	}
	pl.checkpoint++
	state, err := guard(func() ([]byte, error) { return pl.en.SnapshotState(pl.checkpoint) })
	if err != nil {
		return nil, nil, fmt.Errorf("enumerator SnapshotState: %w", err)
	}
	back := map[int][]connectors.Split{}
	for _, rr := range pl.readers {
		splits, err := guard(func() ([]connectors.Split, error) { return rr.r.SnapshotState(pl.checkpoint) })
		if err != nil {
			return nil, nil, fmt.Errorf("reader %d SnapshotState: %w", rr.subtask, err)
		}
		back[rr.subtask] = splits
	}
	return state, back, nil
}

// settle delivers until nothing is in flight between the readers and the
// enumerator (one reader's message may make the enumerator assign splits
// to another).
func (pl *pipeline) settle() error {
	for round := 0; ; round++ {
		busy := false
		for _, rr := range pl.readers {
			busy = busy || len(rr.ctx.outbox) > 0 || len(pl.ec.assigned[rr.subtask]) > 0 ||
				(!rr.noMore && pl.ec.noMore[rr.subtask] > 0)
		}
		if !busy {
			return nil
		}
		if round == 1000 {
			return fmt.Errorf("readers and enumerator still exchanging messages after %d rounds", round)
		}
		for _, rr := range pl.readers {
			if err := pl.deliver(rr); err != nil {
				return err
			}
		}
	}
}

// checkpointEvery is how often a read completes a checkpoint.
const checkpointEvery = 200 * time.Millisecond

// completeCheckpoint takes a checkpoint of the whole source and tells the
// enumerator and every reader it completed.
func (pl *pipeline) completeCheckpoint() error {
	if _, _, err := pl.snapshot(); err != nil {
		return err
	}
	id := pl.checkpoint
	if err := guardErr(func() error { return pl.en.NotifyCheckpointComplete(id) }); err != nil {
		return fmt.Errorf("enumerator NotifyCheckpointComplete(%d): %w", id, err)
	}
	for _, rr := range pl.readers {
		if err := guardErr(func() error { return rr.r.NotifyCheckpointComplete(id) }); err != nil {
			return fmt.Errorf("reader %d NotifyCheckpointComplete(%d): %w", rr.subtask, id, err)
		}
	}
	return nil
}

// close closes every reader and the enumerator, reporting the first error.
func (pl *pipeline) close() error {
	var first error
	for _, rr := range pl.readers {
		if err := guardErr(rr.r.Close); err != nil && first == nil {
			first = fmt.Errorf("reader %d Close: %w", rr.subtask, err)
		}
	}
	if pl.en != nil {
		if err := guardErr(pl.en.Close); err != nil && first == nil {
			first = fmt.Errorf("enumerator Close: %w", err)
		}
	}
	pl.cancel()
	return first
}
