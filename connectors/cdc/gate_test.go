package cdc

import (
	"context"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// ddlDialect streams rows of db.t, a schema change adding a column, and
// rows of the new schema, each its own transaction; then waits.
type ddlDialect struct {
	*fakeDialect
	events []Event
}

func (d *ddlDialect) Stream(ctx context.Context, from Offset, emit func(Event) error) error {
	for _, ev := range d.events {
		if err := emit(ev); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return ctx.Err()
}

func (d *ddlDialect) Commit(Offset) {}

// gateCtx is a streaming reader's context that counts its checkpoint
// requests.
type gateCtx struct{ requests int }

func (c *gateCtx) Task() connectors.TaskInfo           { return connectors.TaskInfo{} }
func (c *gateCtx) Boundedness() connectors.Boundedness { return connectors.Unbounded }
func (c *gateCtx) SendSplitRequest()                   {}
func (c *gateCtx) SignalNoMoreElement()                {}
func (c *gateCtx) RequestCheckpoint(string)            { c.requests++ }

type gateOut struct {
	rows, changes int
	order         []string
}

func (o *gateOut) BatchSize() int { return 64 }
func (o *gateOut) Emit(b *row.Batch) {
	switch {
	case b.IsSchemaChange():
		o.changes++
		o.order = append(o.order, "change")
	case b != nil && b.Len() > 0:
		o.rows += b.Len()
		o.order = append(o.order, "rows of "+b.Schema.String())
	}
}

// A schema change waits for two checkpoints taken after the rows before
// it were emitted — the reader asks for the first at once and for the
// second when the first completed — and only then goes out, before the
// rows of the new schema.
func TestSchemaChangeIsACheckpointBoundary(t *testing.T) {
	wide := row.MustSchema("db.t", append(append([]row.Field{}, fakeSchema.Fields...), row.Field{Name: "extra", Type: row.Int, Nullable: true})...)
	wide.PrimaryKey = fakeSchema.PrimaryKey
	rowsOf := func(s *row.Schema, id int64) *row.Batch {
		b := row.NewBuilder(s, 1)
		b.Col(0).AppendInt(id)
		b.Col(1).AppendString("v")
		if s.Len() > 2 {
			b.Col(2).AppendInt(7)
		}
		b.EndRow(row.Insert)
		return b.Build()
	}
	d := &ddlDialect{fakeDialect: &fakeDialect{idx: 0}, events: []Event{
		{Table: 0, Rows: rowsOf(fakeSchema, 1), Tx: off(1), End: true},
		{Table: 0, Changed: &Table{ID: "db.t", Schema: wide, ChunkKey: "id"}, Columns: []row.ColumnChange{{Op: row.AddColumn, Field: wide.Fields[2]}}, Tx: off(2), End: true},
		{Table: 0, Rows: rowsOf(wide, 2), Tx: off(3), End: true},
	}}
	src := &source{o: &Options{Startup: StartupInitial, Stop: StopNever, FetchSize: 64, SchemaChanges: true},
		tables: []*Table{{ID: "db.t", Schema: fakeSchema, ChunkKey: "id"}}}
	rctx := &gateCtx{}
	r := newReader(rctx, src, d)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := r.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.AddSplits([]connectors.Split{splitState{Kind: kindStream, Stream: &streamSplit{Pos: off(0)}}.encode()}); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := &gateOut{}
	poll := func(until func() bool, what string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !until(); {
			if err := r.PollNext(out); err != nil {
				t.Fatal(err)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: emitted %v, %d checkpoint requests", what, out.order, rctx.requests)
			}
		}
	}
	poll(func() bool { return out.rows == 1 && rctx.requests == 1 }, "the rows before the change and a request")
	for range 5 {
		if err := r.PollNext(out); err != nil {
			t.Fatal(err)
		}
	}
	if out.changes != 0 {
		t.Fatalf("the change went out before any checkpoint: %v", out.order)
	}
	if _, err := r.SnapshotState(5); err != nil {
		t.Fatal(err)
	}
	if err := r.NotifyCheckpointComplete(5); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := r.PollNext(out); err != nil {
			t.Fatal(err)
		}
	}
	if out.changes != 0 || rctx.requests != 2 {
		t.Fatalf("after one checkpoint: emitted %v, %d requests (want none, and a second request)", out.order, rctx.requests)
	}
	if _, err := r.SnapshotState(6); err != nil {
		t.Fatal(err)
	}
	if err := r.NotifyCheckpointComplete(6); err != nil {
		t.Fatal(err)
	}
	poll(func() bool { return out.rows == 2 }, "the change and the rows after it")
	if want := []string{"rows of " + fakeSchema.String(), "change", "rows of " + wide.String()}; len(out.order) != 3 || out.order[1] != want[1] || out.order[2] != want[2] {
		t.Fatalf("emitted %v, want %v", out.order, want)
	}
}
