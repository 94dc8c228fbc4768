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
	remap   []int        // the restored checkpoint's table index → the source's (nil: the same)
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
	// Tables are the captured tables' ids, in the order every table index
	// of this state and of the readers' splits of the same checkpoint
	// refers to (empty in states from before they were kept: the source's
	// tables then). A restore with other tables maps them (retable).
	Tables []string `json:"tables,omitempty"`
	// Added are tables a restore found in table-names that the checkpoint
	// did not capture, while their snapshot is under way: the stream,
	// which carries on from its position for the other tables, waits
	// until their chunks are read and in a completed checkpoint (Ready),
	// then filters their changes by those chunks' high watermarks.
	Added []string `json:"added,omitempty"`
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
		if err := json.Unmarshal(state, &e.st); err != nil || e.st.Version != enumStateVersion {
			return nil, fmt.Errorf("%s enumerator state: not this source's (%v)", src.spec.Name, err)
		}
		// The checkpoint restored from holds Ready: it is complete.
		e.st.StreamReady = e.st.StreamReady || e.st.Ready > 0
		e.durable = e.st.Durable > 0
		if err := e.retable(); err != nil {
			return nil, err
		}
		return e, nil
	}
	e.fresh = true
	e.st = enumState{Version: enumStateVersion, Cursors: make([]tableCursor, len(src.tables)), Tables: tableIDs(src.tables)}
	if src.o.Startup != StartupInitial {
		for i := range e.st.Cursors {
			e.st.Cursors[i].Done = true // no snapshot
		}
		e.st.Table = len(src.tables)
	}
	return e, nil
}

func tableIDs(ts []*Table) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// retable maps a restored state onto the tables the job captures now
// (`--restore ID -c job.conf` with another table-names): every table
// index of the state, and of the readers' splits handed back after it
// (AddSplitsBack), is the checkpoint's; remap takes it to the source's.
// A table the checkpoint captured must still be captured: dropping one
// would silently end its changes, so it is an error naming it. A table
// the checkpoint did not capture is added: with startup.mode initial it is
// snapshotted in chunks as on a fresh start while the stream waits
// (Added), else the stream just starts capturing it.
func (e *enumerator) retable() error {
	old := e.st.Tables
	if len(old) == 0 {
		old = tableIDs(e.src.tables)
	}
	if len(old) != len(e.st.Cursors) {
		return fmt.Errorf("%s enumerator state: not this source's (%d tables, %d cursors)", e.src.spec.Name, len(old), len(e.st.Cursors))
	}
	now := map[string]int{}
	for i, t := range e.src.tables {
		now[t.ID] = i
	}
	remap := make([]int, len(old))
	same := len(old) == len(e.src.tables)
	for i, id := range old {
		j, ok := now[id]
		if !ok {
			return fmt.Errorf("%s: table %s was captured when the checkpoint was taken but is not among the tables the job captures now; a restore cannot drop a captured table (its changes would end without a word): add it back, or start the job afresh", e.src.spec.Name, id)
		}
		remap[i] = j
		same = same && i == j
	}
	e.st.Tables = tableIDs(e.src.tables)
	if same {
		return nil
	}
	e.remap = remap
	cursors := make([]tableCursor, len(e.src.tables))
	known := make([]bool, len(e.src.tables))
	for i, c := range e.st.Cursors {
		cursors[remap[i]], known[remap[i]] = c, true
	}
	for j, t := range e.src.tables {
		if known[j] {
			continue
		}
		if e.src.o.Startup == StartupInitial {
			e.st.Added = append(e.st.Added, t.ID)
		} else {
			cursors[j].Done = true // no snapshot
		}
	}
	e.st.Cursors = cursors
	e.st.Table = 0 // next skips the tables already cut
	for i := range e.st.Pending {
		e.st.Pending[i].Table = remap[e.st.Pending[i].Table]
	}
	for i := range e.st.Finished {
		e.st.Finished[i].Table = remap[e.st.Finished[i].Table]
	}
	sortDone(e.st.Finished)
	if e.st.Stream != nil {
		e.remapStream(e.st.Stream)
	}
	if len(e.st.Added) > 0 {
		// The snapshot is not done again until the added tables' chunks
		// are read and a checkpoint after them completes.
		e.st.Ready, e.st.StreamReady = 0, false
	}
	return nil
}

// remapSplit takes a split of the restored checkpoint to the source's
// table indices (retable).
func (e *enumerator) remapSplit(s *splitState) {
	if e.remap == nil {
		return
	}
	switch {
	case s.Chunk != nil:
		s.Chunk.Table = e.remap[s.Chunk.Table]
	case s.Done != nil:
		s.Done.Table = e.remap[s.Done.Table]
	case s.Stream != nil:
		e.remapStream(s.Stream)
	}
}

func (e *enumerator) remapStream(s *streamSplit) {
	for i := range s.Chunks {
		s.Chunks[i].Table = e.remap[s.Chunks[i].Table]
	}
	sortDone(s.Chunks)
	for i := range s.Tables {
		s.Tables[i].T = e.remap[s.Tables[i].T]
	}
}

// sortDone sorts finished chunks by table and number (so by key).
func sortDone(cs []doneChunk) {
	sort.Slice(cs, func(i, j int) bool {
		return cs[i].Table < cs[j].Table || cs[i].Table == cs[j].Table && cs[i].Seq < cs[j].Seq
	})
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
	} else if err := e.addedChunks(s); err != nil {
		return err
	}
	e.st.Stream, e.st.StreamOut, e.st.Added = nil, true, nil
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

// addedChunks adds to a restored stream split the chunks of the tables
// the restore added (retable), with exactly_once: the stream, from its
// position, which is before any of those chunks was read, drops the
// changes their rows already hold. Without exactly_once it drops nothing
// for a chunk, as on a fresh start (doc.go).
func (e *enumerator) addedChunks(s *streamSplit) error {
	if len(e.st.Added) == 0 || !e.src.o.ExactlyOnce {
		return nil
	}
	added := map[int]bool{}
	for _, id := range e.st.Added {
		for i, t := range e.src.tables {
			if t.ID == id {
				added[i] = true
			}
		}
	}
	for _, c := range e.st.Finished {
		if !added[c.Table] {
			continue
		}
		s.Chunks = append(s.Chunks, c)
		if s.MaxHigh == "" {
			s.MaxHigh = c.High
			continue
		}
		hi, err := e.d.CompareOffsets(c.High, s.MaxHigh)
		if err != nil {
			return err
		}
		if hi > 0 {
			s.MaxHigh = c.High
		}
	}
	sortDone(s.Chunks)
	return nil
}

// streamReady tells whether the stream split may go out (or readers be
// told there is nothing more): no snapshot, or the snapshot done and in a
// completed checkpoint.
func (e *enumerator) streamReady() bool {
	if len(e.st.Added) > 0 {
		return e.snapshotDone() && e.st.StreamReady
	}
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

// AddSplitsBack takes a restored reader's splits (the engine restores a
// failed reader's pipeline from its checkpoint, so these are always of
// the checkpoint the enumerator was made from): chunks to read again,
// finished markers to record, the stream split to assign again.
func (e *enumerator) AddSplitsBack(splits []connectors.Split, subtask int) error {
	for _, cs := range splits {
		n := len(e.src.tables)
		if e.remap != nil {
			n = len(e.remap) // the checkpoint's tables
		}
		s, err := decodeSplit(cs, n)
		if err != nil {
			return err
		}
		e.remapSplit(&s)
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
