package cdc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// streamPos is the stream's position after a batch (streamSplit's Pos and
// Skip); end says the stop offset is reached.
type streamPos struct {
	Pos    Offset
	Skip   int64
	end    bool
	tables *tableSet // the tables as the stream describes them there
	// gate, on the position before a schema change, is what the fetch
	// goroutine waits on before it emits the change (ddlGate).
	gate chan struct{}
}

// tableSet is the stream's view of the captured tables: the plan's, with
// the schema changes it has passed (schema-changes.enabled), and each
// one's schema version (0: the plan's; each change one more). It is
// immutable: a change makes a new one, so the fetch goroutine can hand
// it to the reader's with a position.
type tableSet struct {
	list     []*Table
	versions []int64
}

// errStopped ends the fetch goroutine at the stop offset.
var errStopped = errors.New("stop offset reached")

func (r *reader) pollStream(out connectors.Collector) error {
	s := r.stream
	if r.ended {
		time.Sleep(idleWait)
		return nil
	}
	if r.fetch == nil {
		ts, err := r.streamTables(s, out)
		if err != nil {
			return err
		}
		f, err := newStreamFilter(ts.list, r.d, s)
		if err != nil {
			return err
		}
		r.fetch = connectors.StartFetcher(r.ctx, 8, r.streamFunc(*s, f, ts))
	}
	pos, got, err := r.fetch.Poll(out, pollWait, 8)
	if got && pos.gate != nil {
		r.gate = &ddlGate{open: pos.gate}
		r.requestCheckpoint()
	}
	if got {
		s.Pos, s.Skip = pos.Pos, pos.Skip
		if pos.tables != nil && pos.tables != r.tables {
			r.tables = pos.tables
			s.Tables = r.changedTables()
		}
		if s.Chunks != nil && s.Skip == 0 {
			if n, cerr := r.d.CompareOffsets(s.Pos, s.MaxHigh); cerr == nil && n >= 0 {
				s.Chunks, s.MaxHigh = nil, "" // every later change is after every chunk
			}
		}
	}
	switch {
	case errors.Is(err, connectors.ErrFetchDone):
		r.fetch.Close()
		r.fetch = nil
		if s.Stop != "" {
			r.ended = true
			r.rctx.SignalNoMoreElement()
			return nil
		}
		return fmt.Errorf("%s: the change stream ended at %s", r.src.spec.Name, s.Pos)
	case err != nil:
		r.fetch.Close()
		r.fetch = nil
		return fmt.Errorf("%s: streaming from %s: %w", r.src.spec.Name, s.Pos, err)
	}
	return nil
}

// streamTables are the tables the stream starts with: the plan's, and
// the descriptions split s keeps of those whose schema changed, which
// the dialect takes on and out announces again (a restore's operators
// are made from the plan; an announcement they have seen changes
// nothing).
func (r *reader) streamTables(s *streamSplit, out connectors.Collector) (*tableSet, error) {
	ts := &tableSet{list: append([]*Table(nil), r.src.tables...), versions: make([]int64, len(r.src.tables))}
	if len(s.Tables) > 0 {
		fo, ok := r.d.(SchemaFollower)
		if !ok {
			return nil, fmt.Errorf("%s: the stream's checkpoint holds schema changes, which this dialect does not follow", r.src.spec.Name)
		}
		for _, c := range s.Tables {
			sch, err := row.DecodeSchema(c.SchemaBytes)
			if err != nil {
				return nil, fmt.Errorf("%s: the checkpoint's schema of %s: %w", r.src.spec.Name, c.ID, err)
			}
			t := c.Table
			t.Schema = sch
			if err := fo.UseTable(c.T, &t); err != nil {
				return nil, fmt.Errorf("%s: table %s as the checkpoint describes it: %w", r.src.spec.Name, t.ID, err)
			}
			ts.list[c.T], ts.versions[c.T] = &t, c.Version
			if r.src.dbz == nil {
				out.Emit(row.NewSchemaChange(&row.SchemaChange{Version: c.Version, After: sch}))
			}
		}
	}
	r.tables = ts
	if r.src.o.SchemaChanges {
		s.Tables = r.changedTables()
	}
	return ts, nil
}

// changedTables are the stream split's record of the tables whose schema
// changed; with schema-changes.enabled, of every table: a restore that
// resolves the job afresh (a job file given) describes the tables as they
// are now, after DDL the stream has yet to read again, so the stream
// takes the tables as its checkpoint describes them, not the plan's.
func (r *reader) changedTables() []changedTable {
	var out []changedTable
	for i, t := range r.tables.list {
		if t != r.src.tables[i] || r.src.o.SchemaChanges {
			out = append(out, changedTable{T: i, Version: r.tables.versions[i], resolvedTable: resolvedTable{Table: *t, SchemaBytes: row.EncodeSchema(t.Schema)}})
		}
	}
	return out
}

// schemaChange takes a table's new description from the stream: ts with
// it and the change of the table's next version, nils when it changes
// nothing.
func (r *reader) schemaChange(ts *tableSet, f *streamFilter, ev Event) (*tableSet, *row.SchemaChange, error) {
	if ev.Table < 0 || ev.Table >= len(ts.list) {
		return nil, nil, fmt.Errorf("a schema change of table %d of %d", ev.Table, len(ts.list))
	}
	old := ts.list[ev.Table]
	if !r.src.o.SchemaChanges {
		return nil, nil, fmt.Errorf("table %s changed at %s; set schema-changes.enabled = true to carry it: %w", old.ID, ev.Tx, ErrSchemaChanged)
	}
	cols := ev.Columns
	if cols == nil {
		var err error
		if cols, err = row.Grow(old.Schema, ev.Changed.Schema); err != nil {
			return nil, nil, fmt.Errorf("at %s: %w: %v", ev.Tx, ErrSchemaChanged, err)
		}
	} else if got, err := row.Apply(old.Schema, cols); err != nil || !row.SameColumns(got, ev.Changed.Schema) {
		return nil, nil, fmt.Errorf("at %s: %w: table %s: the clauses make %v of %s, not %s", ev.Tx, ErrSchemaChanged, old.ID, got, old.Schema, ev.Changed.Schema)
	}
	if len(cols) == 0 {
		return nil, nil, nil
	}
	if err := f.changedDuringSnapshot(ev.Table, ev.Tx); err != nil {
		return nil, nil, err
	}
	next := &tableSet{list: append([]*Table(nil), ts.list...), versions: append([]int64(nil), ts.versions...)}
	next.list[ev.Table] = ev.Changed
	next.versions[ev.Table]++
	f.tables = next.list
	return next, &row.SchemaChange{Version: next.versions[ev.Table], Before: old.Schema, After: ev.Changed.Schema, Columns: cols}, nil
}

// streamFunc streams from s's position: it skips the rows of the first
// transaction a checkpoint holds, drops the changes the chunks hold, and
// ends at the stop offset. ts are the tables it starts with; a schema
// change goes out as a schema-change batch, in order.
func (r *reader) streamFunc(s streamSplit, f *streamFilter, ts *tableSet) connectors.FetchFunc[streamPos] {
	return func(ctx context.Context, sendPos func(*row.Batch, streamPos) bool) error {
		send := func(b *row.Batch, p streamPos) bool {
			p.tables = ts
			return sendPos(b, p)
		}
		pos := streamPos{Pos: s.Pos, Skip: s.Skip}
		cmp := r.d.CompareOffsets
		if s.Skip == 0 {
			if err := r.stopAt(s, s.Pos); err != nil {
				if errors.Is(err, errStopped) {
					return nil // started at or past the stop offset
				}
				return err
			}
		}
		err := r.d.Stream(ctx, s.Pos, func(ev Event) error {
			if n, err := cmp(ev.Tx, pos.Pos); err != nil || n <= 0 {
				return err // emitted before
			}
			if s.Stop != "" {
				if n, err := cmp(ev.Tx, s.Stop); err != nil {
					return err
				} else if n > 0 {
					return errStopped
				}
			}
			if ev.Changed != nil {
				next, c, err := r.schemaChange(ts, f, ev)
				if err != nil {
					return err
				}
				if next != nil && r.src.dbz == nil && r.rctx.Boundedness() == connectors.Unbounded {
					gate := make(chan struct{})
					p := pos
					p.gate = gate
					if !send(nil, p) {
						return ctx.Err()
					}
					select {
					case <-gate:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				if ev.End {
					pos = streamPos{Pos: ev.Tx}
				}
				var b *row.Batch
				if next != nil {
					ts = next
					if r.src.dbz == nil { // Debezium's events carry their columns
						b = row.NewSchemaChange(c)
					}
				}
				if !send(b, pos) {
					return ctx.Err()
				}
				if ev.End {
					return r.stopAt(s, ev.Tx)
				}
				return nil
			}
			if ev.Table < 0 || ev.Rows == nil {
				if pos.Skip == 0 {
					pos.Pos = ev.Tx
					if !send(nil, pos) {
						return ctx.Err()
					}
				}
				return r.stopAt(s, ev.Tx)
			}
			b := ev.Rows
			if skip := pos.Skip - ev.Seq; skip > 0 {
				if skip >= int64(b.Len()) {
					b = b.Slice(0, 0)
				} else {
					b = b.Slice(int(skip), b.Len())
				}
			}
			if ev.End {
				pos = streamPos{Pos: ev.Tx}
			} else {
				pos.Skip = max(pos.Skip, ev.Seq+int64(ev.Rows.Len()))
			}
			b, err := f.keep(ev.Table, ev.Tx, b)
			if err != nil {
				return err
			}
			if b != nil && b.Len() > 0 {
				if b, err = r.src.output(ts.list[ev.Table], b, false); err != nil {
					return err
				}
			} else {
				b = nil
			}
			if !send(b, pos) {
				return ctx.Err()
			}
			if ev.End {
				return r.stopAt(s, ev.Tx)
			}
			return nil
		})
		if errors.Is(err, errStopped) {
			return nil
		}
		return err
	}
}

// stopAt is errStopped once tx reaches the stop offset.
func (r *reader) stopAt(s streamSplit, tx Offset) error {
	if s.Stop == "" {
		return nil
	}
	n, err := r.d.CompareOffsets(tx, s.Stop)
	if err != nil {
		return err
	}
	if n >= 0 {
		return errStopped
	}
	return nil
}

// streamFilter drops the changes a finished chunk already holds: those
// to its keys at or before its high watermark.
type streamFilter struct {
	tables []*Table
	cmp    func(a, b Offset) (int, error)
	chunks [][]doneChunk // by table, sorted by key
	all    bool          // no chunk list: keep everything
}

func newStreamFilter(tables []*Table, d Dialect, s *streamSplit) (*streamFilter, error) {
	f := &streamFilter{tables: tables, cmp: d.CompareOffsets, chunks: make([][]doneChunk, len(tables)), all: len(s.Chunks) == 0}
	for _, c := range s.Chunks {
		if c.Table < 0 || c.Table >= len(tables) {
			return nil, fmt.Errorf("stream split names table %d of %d", c.Table, len(tables))
		}
		f.chunks[c.Table] = append(f.chunks[c.Table], c)
	}
	for _, cs := range f.chunks {
		sort.Slice(cs, func(i, j int) bool { return cs[i].Seq < cs[j].Seq })
	}
	return f, nil
}

// keep is b without the rows a chunk holds.
func (f *streamFilter) keep(table int, tx Offset, b *row.Batch) (*row.Batch, error) {
	if f.all || b.Len() == 0 {
		return b, nil
	}
	cs := f.chunks[table]
	t := f.tables[table]
	ki := t.KeyIndex()
	var idx []int
	for i := 0; i < b.Len(); i++ {
		c := f.chunkOf(t, cs, ki, b, i)
		if c != nil {
			n, err := f.cmp(tx, c.High)
			if err != nil {
				return nil, err
			}
			if n <= 0 {
				continue
			}
		}
		idx = append(idx, i)
	}
	if len(idx) == b.Len() {
		return b, nil
	}
	return b.Take(idx), nil
}

// changedDuringSnapshot is an error when table's schema changed at tx
// while a chunk of it was read (at or before its high watermark): the
// chunk's rows lack the new columns of changes the stream drops as the
// chunk's.
func (f *streamFilter) changedDuringSnapshot(table int, tx Offset) error {
	if f.all {
		return nil
	}
	for _, c := range f.chunks[table] {
		n, err := f.cmp(tx, c.High)
		if err != nil {
			return err
		}
		if n <= 0 {
			return fmt.Errorf("table %s changed at %s, while its snapshot was read (chunk %d, read up to %s): start the job anew (not from its checkpoint) for a snapshot with the new columns: %w", f.tables[table].ID, tx, c.Seq, c.High, ErrSchemaChanged)
		}
	}
	return nil
}

// chunkOf is the chunk holding row i's key, nil when none does.
func (f *streamFilter) chunkOf(t *Table, cs []doneChunk, ki int, b *row.Batch, i int) *doneChunk {
	if len(cs) == 0 {
		return nil
	}
	if ki < 0 {
		return &cs[0]
	}
	k := KeyOf(b.Cols[ki], i)
	if k == nil {
		return nil
	}
	ty := t.Schema.Fields[ki].Type
	// The last chunk whose Lo is at or below k.
	j := sort.Search(len(cs), func(j int) bool { return cs[j].Lo != nil && cs[j].Lo.Compare(ty, k) > 0 }) - 1
	if j < 0 || !cs[j].Contains(ty, k) {
		return nil
	}
	return &cs[j]
}

// output is b, table t's rows from the snapshot or the stream, in the
// source's format.
func (s *source) output(t *Table, b *row.Batch, snapshot bool) (*row.Batch, error) {
	if s.dbz == nil {
		return b, nil
	}
	return s.dbz.convert(t, b, snapshot)
}
