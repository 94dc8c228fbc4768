package cdc

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/row"
)

// fakeDB is an in-memory table (id bigint primary key, v string) with a
// change log: each transaction has the next offset. Its dialect reads a
// chunk with changes committed while it reads (some seen, some not), so
// the watermarks differ as on a live database.
type fakeDB struct {
	mu     sync.Mutex
	cond   *sync.Cond
	rows   map[int64]string
	log    []fakeTx // log[i] has offset i+1
	rng    *rand.Rand
	nextID int64
	schema *row.Schema
}

type fakeChange struct {
	kind    row.Kind // Insert, UpdateAfter (with before), Delete
	id      int64
	before  string
	after   string
	newID   int64 // an update of the key: the after-image's id
	changed bool  // newID differs
}

type fakeTx struct{ changes []fakeChange }

var fakeSchema = func() *row.Schema {
	s := row.MustSchema("db.t", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: row.String, Nullable: true})
	s.PrimaryKey = []string{"id"}
	return s
}()

func newFakeDB(n int, seed int64) *fakeDB {
	db := &fakeDB{rows: map[int64]string{}, rng: rand.New(rand.NewSource(seed)), nextID: int64(n), schema: fakeSchema}
	db.cond = sync.NewCond(&db.mu)
	for i := 0; i < n; i++ {
		db.rows[int64(i)] = "init-" + strconv.Itoa(i)
	}
	return db
}

// write commits one random transaction.
func (db *fakeDB) write() {
	db.mu.Lock()
	defer db.mu.Unlock()
	var tx fakeTx
	for k := 0; k < 1+db.rng.Intn(3); k++ {
		switch r := db.rng.Intn(10); {
		case r < 3:
			id := db.nextID
			db.nextID++
			v := fmt.Sprintf("ins-%d", id)
			db.rows[id] = v
			tx.changes = append(tx.changes, fakeChange{kind: row.Insert, id: id, after: v})
		case r < 9:
			id := db.rng.Int63n(db.nextID)
			old, ok := db.rows[id]
			if !ok {
				continue
			}
			v := fmt.Sprintf("upd-%d", db.rng.Int())
			c := fakeChange{kind: row.UpdateAfter, id: id, before: old, after: v, newID: id}
			if r == 8 { // move the row to a new key, maybe in another chunk
				c.newID, c.changed = db.nextID, true
				db.nextID++
				delete(db.rows, id)
			}
			db.rows[c.newID] = v
			tx.changes = append(tx.changes, c)
		default:
			id := db.rng.Int63n(db.nextID)
			old, ok := db.rows[id]
			if !ok {
				continue
			}
			delete(db.rows, id)
			tx.changes = append(tx.changes, fakeChange{kind: row.Delete, id: id, before: old})
		}
	}
	db.log = append(db.log, tx)
	db.cond.Broadcast()
}

func (db *fakeDB) offset() int { db.mu.Lock(); defer db.mu.Unlock(); return len(db.log) }

func (db *fakeDB) state() map[int64]string {
	db.mu.Lock()
	defer db.mu.Unlock()
	out := make(map[int64]string, len(db.rows))
	for k, v := range db.rows {
		out[k] = v
	}
	return out
}

// fakeDialect is the Dialect over a fakeDB, whose table is db.t; a source
// may capture other tables beside it (emptyTable: never any row or
// change) or not capture it at all (idx -1: its changes are not
// delivered, only heartbeats at their offsets).
type fakeDialect struct {
	db        *fakeDB
	committed *offsetLog
	idx       int // db.t's index among the source's tables, -1: not captured
}

var emptyTable = func() *Table {
	s := row.MustSchema("db.empty", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: row.String, Nullable: true})
	s.PrimaryKey = []string{"id"}
	return &Table{ID: "db.empty", Schema: s, ChunkKey: "id"}
}()

// offsetLog records commits, shared by every dialect of a test.
type offsetLog struct {
	mu   sync.Mutex
	offs []int
}

func off(i int) Offset { return Offset(strconv.Itoa(i)) }

func atoi(o Offset) (int, error) {
	if o == "" {
		return 0, nil
	}
	return strconv.Atoi(string(o))
}

func (d *fakeDialect) CompareOffsets(a, b Offset) (int, error) {
	x, err := atoi(a)
	if err != nil {
		return 0, err
	}
	y, err := atoi(b)
	if err != nil {
		return 0, err
	}
	return x - y, nil
}

func (d *fakeDialect) Prepare(context.Context, bool) error { return nil }

func (d *fakeDialect) StartOffset(context.Context, StartupMode) (Offset, error) {
	return off(d.db.offset()), nil
}

func (d *fakeDialect) StopOffset(context.Context, StopMode) (Offset, error) {
	return off(d.db.offset()), nil
}

func (d *fakeDialect) ChunkEnd(_ context.Context, t *Table, after *Key, size int) (*Key, error) {
	if t.ID != "db.t" {
		return nil, nil
	}
	d.db.mu.Lock()
	defer d.db.mu.Unlock()
	var keys []int64
	for k := range d.db.rows {
		if after == nil || k >= after.I {
			keys = append(keys, k)
		}
	}
	if len(keys) <= size {
		return nil, nil
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return &Key{I: keys[size]}, nil
}

func (d *fakeDialect) ReadChunk(_ context.Context, t *Table, c Chunk, fetch int, emit func(*row.Batch) error) (Offset, Offset, error) {
	if t.ID != "db.t" {
		o := off(d.db.offset())
		return o, o, nil
	}
	low := d.db.offset()
	d.db.write() // committed after the low watermark, seen by the read
	d.db.mu.Lock()
	b := row.NewBuilder(t.Schema, 16)
	k := Key{}
	for id, v := range d.db.rows {
		k.I = id
		if c.Contains(row.BigInt, &k) {
			if err := b.AppendRow(row.Insert, []any{id, v}); err != nil {
				d.db.mu.Unlock()
				return "", "", err
			}
		}
	}
	d.db.mu.Unlock()
	d.db.write() // committed after the read, before the high watermark
	high := d.db.offset()
	if batch := b.Build(); batch != nil {
		if err := emit(batch); err != nil {
			return "", "", err
		}
	}
	return off(low), off(high), nil
}

// events are transaction i's rows (offset i+1), as one event; a heartbeat
// at its offset when db.t is not captured.
func (d *fakeDialect) events(i int) Event {
	if d.idx < 0 {
		return Event{Table: -1, Tx: off(i + 1), End: true}
	}
	tx := d.db.log[i]
	b := row.NewBuilder(fakeSchema, 4)
	for _, c := range tx.changes {
		switch c.kind {
		case row.Insert:
			_ = b.AppendRow(row.Insert, []any{c.id, c.after})
		case row.UpdateAfter:
			_ = b.AppendRow(row.UpdateBefore, []any{c.id, c.before})
			_ = b.AppendRow(row.UpdateAfter, []any{c.newID, c.after})
		case row.Delete:
			_ = b.AppendRow(row.Delete, []any{c.id, c.before})
		}
	}
	rows := b.Build()
	if rows == nil {
		rows = row.NewBatch(fakeSchema, nil, nil)
	}
	return Event{Table: d.idx, Rows: rows, Tx: off(i + 1), End: true}
}

func (d *fakeDialect) ReadLog(_ context.Context, from, to Offset, emit func(Event) error) error {
	f, _ := atoi(from)
	t, _ := atoi(to)
	d.db.mu.Lock()
	var evs []Event
	for i := f; i < t && i < len(d.db.log); i++ {
		evs = append(evs, d.events(i))
	}
	d.db.mu.Unlock()
	for _, ev := range evs {
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

// Stream delivers the log after from in events split in two (so a
// checkpoint can fall inside a transaction), then waits for more.
func (d *fakeDialect) Stream(ctx context.Context, from Offset, emit func(Event) error) error {
	next, _ := atoi(from)
	stop := context.AfterFunc(ctx, func() { d.db.mu.Lock(); d.db.cond.Broadcast(); d.db.mu.Unlock() })
	defer stop()
	for {
		d.db.mu.Lock()
		for next >= len(d.db.log) && ctx.Err() == nil {
			d.db.cond.Wait()
		}
		if ctx.Err() != nil {
			d.db.mu.Unlock()
			return ctx.Err()
		}
		ev := d.events(next)
		d.db.mu.Unlock()
		next++
		if ev.Rows != nil && ev.Rows.Len() > 1 {
			n := ev.Rows.Len()
			first := ev
			first.Rows, first.End = ev.Rows.Slice(0, n/2), false
			if err := emit(first); err != nil {
				return err
			}
			ev.Rows, ev.Seq = ev.Rows.Slice(n/2, n), int64(n/2)
		}
		if err := emit(ev); err != nil {
			return err
		}
		if next%5 == 0 {
			if err := emit(Event{Table: -1, Tx: off(next), End: true}); err != nil {
				return err
			}
		}
	}
}

func (d *fakeDialect) Commit(o Offset) {
	n, _ := atoi(o)
	d.committed.mu.Lock()
	d.committed.offs = append(d.committed.offs, n)
	d.committed.mu.Unlock()
}

func (d *fakeDialect) Close() error { return nil }

// fakeSource is a source over db, as the factory would make it,
// capturing db.t or the tables given ("db.t", "db.empty").
func fakeSource(db *fakeDB, exactly bool, split int, commits *offsetLog, tables ...string) *source {
	o := &Options{Startup: StartupInitial, Stop: StopNever, SplitSize: split, FetchSize: 64, ExactlyOnce: exactly, Heartbeat: time.Second}
	spec := Spec{Name: "Fake-CDC", New: func(_ *config.PluginConfig, _ *Options, ts []*Table, _ []byte) (Dialect, error) {
		d := &fakeDialect{db: db, committed: commits, idx: -1}
		for i, t := range ts {
			if t.ID == "db.t" {
				d.idx = i
			}
		}
		return d, nil
	}}
	if len(tables) == 0 {
		tables = []string{"db.t"}
	}
	src := &source{spec: spec, o: o}
	for _, id := range tables {
		t := emptyTable
		if id == "db.t" {
			t = &Table{ID: "db.t", Schema: fakeSchema, ChunkKey: "id"}
		}
		src.tables = append(src.tables, t)
	}
	return src
}
