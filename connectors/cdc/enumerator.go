package cdc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/stactor/stactor/connectors"
)

// enumerator makes chunks lazily, one when a reader asks, table after
// table; records the chunks readers report finished; and once all have,
// hands the stream split to a reader that asks, starting at the lowest
// high watermark (doc.go).
type enumerator struct {
	ctx     connectors.EnumeratorContext
	src     *source
	d       Dialect
	st      enumState
	fresh   bool
	octx    context.Context
	waiting map[int]bool // readers that asked while chunks were still being read
	noMore  map[int]bool // readers told there are no more splits
	durable bool         // a completed checkpoint holds Start (enumState.Durable)
}

// enumState is the enumerator's checkpointed state.
type enumState struct {
	Version int           `json:"v"`
	Cursors []tableCursor `json:"cursors"`
	Table   int           `json:"table"` // the table chunks come from now
	Created int           `json:"created"`
	Pending []Chunk       `json:"pending,omitempty"`
	// Finished are the chunks known finished, by table and number.
	Finished []doneChunk `json:"finished,omitempty"`
	// Start and Stop are the stream's bounds when the startup or stop
	// mode fixes them (taken on the fresh start).
	// Without exactly_once the snapshot's stream also starts at Start,
	// taken on the fresh start (below).
	Start   Offset `json:"start,omitempty"`
	Stop    Offset `json:"stop,omitempty"`
	Started bool   `json:"started,omitempty"` // Start and Stop are taken
	// Durable is the first checkpoint taken after Start and Stop were;
	// without exactly_once no chunk goes out before it is complete
	// (startDurable), so every chunk a run may have written to the sink
	// was read after a Start that every restore keeps.
	Durable int64 `json:"durable,omitempty"`
	// Ready is the first checkpoint taken after every chunk finished,
	// whose barriers follow every chunk's rows; the stream split goes out
	// only once it is complete (StreamReady), so every chunk's rows are
	// in the sinks before any change of the stream (which comes through
	// other channels) can overtake them. As in Flink CDC.
	Ready       int64        `json:"ready,omitempty"`
	StreamReady bool         `json:"stream_ready,omitempty"`
	StreamOut   bool         `json:"stream_out,omitempty"`
	Stream      *streamSplit `json:"stream,omitempty"` // handed back on a restore, to assign again
}

// tableCursor is where a table's next chunk starts.
type tableCursor struct {
	Next *Key `json:"next,omitempty"`
	Seq  int  `json:"seq"`
	Done bool `json:"done,omitempty"`
}

const enumStateVersion = 1

func newEnumerator(ctx connectors.EnumeratorContext, src *source, d Dialect, state []byte) (*enumerator, error) {
	e := &enumerator{ctx: ctx, src: src, d: d, waiting: map[int]bool{}, noMore: map[int]bool{}}
	if state != nil {
		if err := json.Unmarshal(state, &e.st); err != nil || e.st.Version != enumStateVersion || len(e.st.Cursors) != len(src.tables) {
			return nil, fmt.Errorf("%s enumerator state: not this source's (%v)", src.spec.Name, err)
		}
		// The checkpoint restored from holds Ready: it is complete.
		e.st.StreamReady = e.st.StreamReady || e.st.Ready > 0
		e.durable = e.st.Durable > 0
		return e, nil
	}
	e.fresh = true
	e.st = enumState{Version: enumStateVersion, Cursors: make([]tableCursor, len(src.tables))}
	if src.o.Startup != StartupInitial {
		for i := range e.st.Cursors {
			e.st.Cursors[i].Done = true // no snapshot
		}
		e.st.Table = len(src.tables)
	}
	return e, nil
}

// Open prepares the server (PostgreSQL's slot) and, on a fresh start,
// takes the stream's start and stop offsets the modes ask for.
func (e *enumerator) Open(ctx context.Context) error {
	e.octx = ctx
	if err := e.d.Prepare(ctx, e.fresh); err != nil {
		return err
	}
	if e.st.Started {
		return nil
	}
	o := e.src.o
	switch {
	case o.Startup != StartupInitial:
		off, err := e.d.StartOffset(ctx, o.Startup)
		if err != nil {
			return fmt.Errorf("startup.mode %s: %w", o.Startup, err)
		}
		e.st.Start = off
	case !o.ExactlyOnce:
		// At-least-once: the stream replays every change from here,
		// none dropped for a chunk (doc.go).
		off, err := e.d.StartOffset(ctx, StartupLatest)
		if err != nil {
			return fmt.Errorf("the stream's start offset: %w", err)
		}
		e.st.Start = off
	}
	if o.Stop != StopNever {
		off, err := e.d.StopOffset(ctx, o.Stop)
		if err != nil {
			return fmt.Errorf("stop.mode %s: %w", o.Stop, err)
		}
		e.st.Stop = off
	}
	e.st.Started = true
	return nil
}

func (e *enumerator) Run() error { return nil }

func (e *enumerator) RegisterReader(subtask int) error {
	if e.noMore[subtask] {
		e.ctx.SignalNoMoreSplits(subtask)
	}
	return nil
}

func (e *enumerator) HandleSplitRequest(subtask int) error {
	if !e.startDurable() {
		e.waiting[subtask] = true
		return nil
	}
	c, err := e.next()
	if err != nil {
		return err
	}
	if c != nil {
		e.ctx.AssignSplits(subtask, splitState{Kind: kindChunk, Chunk: c}.encode())
		return nil
	}
	if !e.streamReady() {
		e.waiting[subtask] = true
		return nil
	}
	return e.streamOrEnd(subtask)
}

// streamOrEnd gives the stream split to subtask if it is not out, else
// tells subtask there are no more splits.
func (e *enumerator) streamOrEnd(subtask int) error {
	if e.st.StreamOut {
		e.noMore[subtask] = true
		e.ctx.SignalNoMoreSplits(subtask)
		return nil
	}
	s := e.st.Stream
	if s == nil {
		var err error
		if s, err = e.newStream(); err != nil {
			return err
		}
	}
	e.st.Stream, e.st.StreamOut = nil, true
	e.ctx.AssignSplits(subtask, splitState{Kind: kindStream, Stream: s}.encode())
	return nil
}

// newStream is the stream split: from the lowest high watermark of the
// chunks (or the startup offset), with the chunks to filter by.
func (e *enumerator) newStream() (*streamSplit, error) {
	s := &streamSplit{Pos: e.st.Start, Stop: e.st.Stop}
	if e.src.o.Startup != StartupInitial || !e.src.o.ExactlyOnce && e.st.Start != "" {
		return s, nil
	}
	for i, c := range e.st.Finished {
		if i == 0 {
			s.Pos, s.MaxHigh = c.High, c.High
			continue
		}
		lo, err := e.d.CompareOffsets(c.High, s.Pos)
		if err != nil {
			return nil, err
		}
		if lo < 0 {
			s.Pos = c.High
		}
		hi, err := e.d.CompareOffsets(c.High, s.MaxHigh)
		if err != nil {
			return nil, err
		}
		if hi > 0 {
			s.MaxHigh = c.High
		}
	}
	s.Chunks = append([]doneChunk{}, e.st.Finished...)
	return s, nil
}

// streamReady tells whether the stream split may go out (or readers be
// told there is nothing more): no snapshot, or the snapshot done and in a
// completed checkpoint.
func (e *enumerator) streamReady() bool {
	return e.src.o.Startup != StartupInitial || e.st.Stream != nil || e.st.StreamOut || (e.snapshotDone() && e.st.StreamReady)
}

// startDurable tells whether chunks may go out: with exactly_once at
// once, without only once a completed checkpoint holds Start. (Without
// exactly_once an upsert sink keeps what a killed run wrote; were Start
// taken afresh after a kill before any checkpoint, a delete between that
// run's read of a row and the new Start would never reach the sink.)
func (e *enumerator) startDurable() bool {
	return e.src.o.ExactlyOnce || e.src.o.Startup != StartupInitial || e.durable
}

func (e *enumerator) snapshotDone() bool {
	return e.st.Table >= len(e.src.tables) && len(e.st.Pending) == 0 && len(e.st.Finished) >= e.st.Created
}

// HandleSourceEvent records a chunk a reader finished; with the last one,
// the readers waiting get the stream split or the end.
func (e *enumerator) HandleSourceEvent(subtask int, data []byte) error {
	var d doneChunk
	if err := json.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("%s: event from reader %d: %w", e.src.spec.Name, subtask, err)
	}
	e.finished(d)
	return e.release()
}

// release answers the waiting readers once chunks may go out or the
// snapshot is done: each gets a chunk, the stream split or the end, or
// waits on.
func (e *enumerator) release() error {
	if !e.startDurable() || len(e.waiting) == 0 {
		return nil
	}
	ws := make([]int, 0, len(e.waiting))
	for w := range e.waiting {
		ws = append(ws, w)
	}
	sort.Ints(ws)
	e.waiting = map[int]bool{}
	for _, w := range ws {
		if err := e.HandleSplitRequest(w); err != nil {
			return err
		}
	}
	return nil
}

// finished records d once, keeping Finished sorted.
func (e *enumerator) finished(d doneChunk) {
	i := sort.Search(len(e.st.Finished), func(i int) bool {
		f := e.st.Finished[i]
		return f.Table > d.Table || (f.Table == d.Table && f.Seq >= d.Seq)
	})
	if i < len(e.st.Finished) && e.st.Finished[i].Table == d.Table && e.st.Finished[i].Seq == d.Seq {
		return
	}
	e.st.Finished = append(e.st.Finished, doneChunk{})
	copy(e.st.Finished[i+1:], e.st.Finished[i:])
	e.st.Finished[i] = d
}

// AddSplitsBack takes a failed or restored reader's splits: chunks to read
// again, finished markers to record, the stream split to assign again.
func (e *enumerator) AddSplitsBack(splits []connectors.Split, subtask int) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs, len(e.src.tables))
		if err != nil {
			return err
		}
		switch s.Kind {
		case kindChunk:
			e.st.Pending = append(e.st.Pending, *s.Chunk)
		case kindDone:
			e.finished(*s.Done)
		case kindStream:
			e.st.Stream, e.st.StreamOut = s.Stream, false
		}
	}
	return e.release()
}

func (e *enumerator) SnapshotState(checkpointID int64) ([]byte, error) {
	if e.st.Durable == 0 && e.st.Started {
		e.st.Durable = checkpointID
	}
	if e.st.Ready == 0 && e.snapshotDone() {
		e.st.Ready = checkpointID
	}
	return json.Marshal(e.st)
}

// NotifyCheckpointComplete lets chunks out once the checkpoint holding
// Start is complete, and the stream split once the checkpoint after the
// snapshot is.
func (e *enumerator) NotifyCheckpointComplete(checkpointID int64) error {
	changed := false
	if e.st.Durable > 0 && checkpointID >= e.st.Durable && !e.durable {
		e.durable, changed = true, true
	}
	if e.st.Ready > 0 && checkpointID >= e.st.Ready && !e.st.StreamReady {
		e.st.StreamReady, changed = true, true
	}
	if changed {
		return e.release()
	}
	return nil
}

func (e *enumerator) Close() error { return e.d.Close() }

// next is the next chunk to read, nil when every table is cut.
func (e *enumerator) next() (*Chunk, error) {
	if len(e.st.Pending) > 0 {
		c := e.st.Pending[0]
		e.st.Pending = e.st.Pending[1:]
		return &c, nil
	}
	for e.st.Table < len(e.src.tables) {
		ti := e.st.Table
		cur := &e.st.Cursors[ti]
		if cur.Done {
			e.st.Table++
			continue
		}
		t := e.src.tables[ti]
		c := &Chunk{Table: ti, Seq: cur.Seq, Lo: cur.Next}
		if t.ChunkKey != "" {
			hi, err := e.d.ChunkEnd(e.octx, t, cur.Next, e.src.o.SplitSize)
			if err != nil {
				return nil, fmt.Errorf("%s: chunking %s after key %s: %w", e.src.spec.Name, t.ID, cur.Next, err)
			}
			// A chunk end at or before its start would cut the same
			// empty chunk for ever.
			if hi != nil && cur.Next != nil && hi.Compare(t.Schema.Fields[t.KeyIndex()].Type, cur.Next) <= 0 {
				return nil, fmt.Errorf("%s: chunking %s: the chunk from key %s ends at %s, not after it (the database orders %s otherwise than the chunk key's type)",
					e.src.spec.Name, t.ID, cur.Next, hi, t.ChunkKey)
			}
			c.Hi = hi
		}
		cur.Seq++
		cur.Next = c.Hi
		cur.Done = c.Hi == nil
		e.st.Created++
		return c, nil
	}
	return nil, nil
}
