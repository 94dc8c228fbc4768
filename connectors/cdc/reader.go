package cdc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// PollNext's wait for something ready, and its pause with no split
// (variables for the tests of the algorithm, which poll often).
var (
	pollWait = 50 * time.Millisecond
	idleWait = 10 * time.Millisecond
)

// reader reads chunks one after the other, then (if it gets it) the
// stream. The blocking reads run in a goroutine it owns: a chunk's in
// chunkRun, whose whole result PollNext emits at once; the stream's in a
// connectors.Fetcher.
type reader struct {
	rctx connectors.ReaderContext
	src  *source
	d    Dialect
	ctx  context.Context

	chunks    []Chunk     // assigned, unfinished; the head is being read
	done      []doneChunk // finished markers, kept until no more splits
	stream    *streamSplit
	run       *chunkRun
	fetch     *connectors.Fetcher[streamPos]
	requested bool
	noMore    bool
	ended     bool
	commits   map[int64]Offset // checkpoint id: the stream offset it holds
	tables    *tableSet        // the stream's tables as of the position in stream
	gate      *ddlGate         // a schema change waiting for its checkpoints
}

func newReader(rctx connectors.ReaderContext, src *source, d Dialect) *reader {
	return &reader{rctx: rctx, src: src, d: d, commits: map[int64]Offset{}}
}

func (r *reader) Open(ctx context.Context) error {
	r.ctx = ctx
	return nil
}

func (r *reader) AddSplits(splits []connectors.Split) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs, len(r.src.tables))
		if err != nil {
			return err
		}
		switch s.Kind {
		case kindChunk:
			r.chunks = append(r.chunks, *s.Chunk)
		case kindDone:
			r.done = append(r.done, *s.Done)
		case kindStream:
			if r.stream != nil {
				return fmt.Errorf("%s: a second stream split", r.src.spec.Name)
			}
			r.stream = s.Stream
		}
	}
	r.requested = false
	return nil
}

// HandleNoMoreSplits: the enumerator has every finished chunk, so the
// markers can go.
func (r *reader) HandleNoMoreSplits() error {
	r.noMore = true
	r.done = nil
	return nil
}

func (r *reader) PollNext(out connectors.Collector) error {
	switch {
	case len(r.chunks) > 0:
		return r.pollChunk(out)
	case r.stream != nil:
		return r.pollStream(out)
	}
	switch {
	case r.noMore:
		if !r.ended {
			r.ended = true
			r.rctx.SignalNoMoreElement()
		}
	case !r.requested:
		r.requested = true
		r.rctx.SendSplitRequest()
	}
	time.Sleep(idleWait)
	return nil
}

// chunkRun reads one chunk (and its backfill) in a goroutine.
type chunkRun struct {
	cancel context.CancelFunc
	result chan chunkResult
}

type chunkResult struct {
	batches []*row.Batch
	high    Offset
	err     error
}

func (r *reader) pollChunk(out connectors.Collector) error {
	c := r.chunks[0]
	if r.run == nil {
		ctx, cancel := context.WithCancel(r.ctx)
		run := &chunkRun{cancel: cancel, result: make(chan chunkResult, 1)}
		r.run = run
		go func() { run.result <- r.readChunk(ctx, c) }() // ends with ctx; Close waits for it
	}
	timer := time.NewTimer(pollWait)
	defer timer.Stop()
	var res chunkResult
	select {
	case res = <-r.run.result:
	case <-timer.C:
		return nil
	}
	r.run.cancel()
	r.run = nil
	t := r.src.tables[c.Table]
	if res.err != nil {
		return fmt.Errorf("%s: snapshot of %s chunk %d [%s, %s): %w", r.src.spec.Name, t.ID, c.Seq, c.Lo, c.Hi, res.err)
	}
	for _, b := range res.batches {
		ob, err := r.src.output(t, b, true)
		if err != nil {
			return fmt.Errorf("%s: snapshot of %s: %w", r.src.spec.Name, t.ID, err)
		}
		out.Emit(ob)
	}
	d := doneChunk{Chunk: c, High: res.high}
	r.chunks = r.chunks[1:]
	r.done = append(r.done, d)
	ev, _ := json.Marshal(d) // plain fields: cannot fail
	sender, ok := r.rctx.(connectors.SourceEventSender)
	if !ok {
		return fmt.Errorf("%s: the engine does not carry source events", r.src.spec.Name)
	}
	sender.SendSourceEvent(ev)
	if len(r.chunks) == 0 && !r.requested {
		r.requested = true
		r.rctx.SendSplitRequest()
	}
	return nil
}

// readChunk reads chunk c between its watermarks and, with exactly_once,
// applies the log between them (doc.go).
func (r *reader) readChunk(ctx context.Context, c Chunk) chunkResult {
	t := r.src.tables[c.Table]
	im := newChunkImage(t, c)
	low, high, err := r.d.ReadChunk(ctx, t, c, r.src.o.FetchSize, func(b *row.Batch) error {
		im.add(b)
		return nil
	})
	if err != nil {
		return chunkResult{err: err}
	}
	if r.src.o.ExactlyOnce {
		same, err := r.d.CompareOffsets(low, high)
		if err != nil {
			return chunkResult{err: err}
		}
		if same != 0 {
			lr, ok := r.d.(LogReader)
			if !ok {
				return chunkResult{err: fmt.Errorf("watermarks %s and %s differ and the dialect reads no log between them", low, high)}
			}
			err := lr.ReadLog(ctx, low, high, func(ev Event) error {
				if ev.Table == c.Table && ev.Changed != nil {
					if n, err := r.d.CompareOffsets(ev.Tx, high); err != nil || n > 0 {
						return err
					}
					return fmt.Errorf("table %s changed at %s, while chunk %d was read: start the job anew for a snapshot with the new columns: %w", t.ID, ev.Tx, c.Seq, ErrSchemaChanged)
				}
				if ev.Table == c.Table && ev.Rows != nil {
					if n, err := r.d.CompareOffsets(ev.Tx, high); err != nil || n > 0 {
						return err // past high: not this chunk's
					}
					im.apply(ev.Rows)
				}
				return nil
			})
			if err != nil {
				return chunkResult{err: fmt.Errorf("reading the log from %s to %s: %w", low, high, err)}
			}
		}
	} else {
		// At-least-once: the stream replays every change from the
		// enumerator's start offset and drops none for a chunk.
		high = low
	}
	bs, err := im.batches(r.src.o.FetchSize)
	return chunkResult{batches: bs, high: high, err: err}
}

func (r *reader) SnapshotState(checkpointID int64) ([]connectors.Split, error) {
	var out []connectors.Split
	for i := range r.chunks {
		out = append(out, splitState{Kind: kindChunk, Chunk: &r.chunks[i]}.encode())
	}
	for i := range r.done {
		out = append(out, splitState{Kind: kindDone, Done: &r.done[i]}.encode())
	}
	if r.stream != nil {
		s := *r.stream
		out = append(out, splitState{Kind: kindStream, Stream: &s}.encode())
		if s.Pos != "" {
			r.commits[checkpointID] = s.Pos
		}
	}
	if r.gate != nil && r.gate.first == 0 {
		r.gate.first = checkpointID
	}
	return out, nil
}

// NotifyCheckpointComplete commits the stream offset the checkpoint holds.
func (r *reader) NotifyCheckpointComplete(checkpointID int64) error {
	off, ok := r.commits[checkpointID]
	for id := range r.commits {
		if id <= checkpointID {
			delete(r.commits, id)
		}
	}
	if ok {
		r.d.Commit(off)
	}
	switch g := r.gate; {
	case g == nil || g.first == 0 || checkpointID < g.first:
	case checkpointID == g.first:
		r.requestCheckpoint() // the second
	default:
		close(g.open)
		r.gate = nil
	}
	return nil
}

// requestCheckpoint asks for a checkpoint now, where the engine takes
// such requests.
func (r *reader) requestCheckpoint() {
	if c, ok := r.rctx.(connectors.CheckpointRequester); ok {
		c.RequestCheckpoint("a schema change of a captured table")
	}
}

// A schema change is a checkpoint boundary, as SeaTunnel's
// markSchemaChangeBeforeCheckpoint makes it: in a streaming job the
// fetch goroutine, at a schema change it is about to emit, hands the
// reader the position before it with a gate (streamPos.gate) and waits;
// the reader asks for a checkpoint at once (connectors.CheckpointRequester)
// and another when it completed, and opens the gate once the two have
// completed — the first holds every row before the change that the
// reader emitted, the second the ones the first recorded as channel
// state, which the sink processed after the first's barrier — so a sink
// applies the change with no rows of the old schema in an open
// transaction (the Jdbc sink with is_exactly_once: MySQL refuses DDL in
// an XA transaction, and a prepared one holds the table until its
// commit). The wait takes two checkpoints' time (each at least
// checkpoint.min-pause after the last); a failover meanwhile restores to
// before the change, which the stream reads again.
type ddlGate struct {
	open  chan struct{}
	first int64 // the first checkpoint taken since the gate came; 0: none yet
}

func (r *reader) Close() error {
	var errs []error
	if r.run != nil {
		r.run.cancel()
		<-r.run.result
		r.run = nil
	}
	if r.fetch != nil {
		errs = append(errs, r.fetch.Close())
		r.fetch = nil
	}
	errs = append(errs, r.d.Close())
	return errors.Join(errs...)
}
