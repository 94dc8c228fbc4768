package localfile

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func createMultiSink(t *testing.T, body string, inputs ...*row.Schema) (connectors.Sink, error) {
	t.Helper()
	cfg, err := plugin(t, "sink LocalFile", SinkFactory.Options, body)
	if err != nil {
		t.Fatal(err)
	}
	return SinkFactory.Create(cfg, inputs, nil, connectors.JobContext{Mode: connectors.Batch, Parallelism: 1})
}

// TestMultiTableSink: a sink fed by two tables writes each into the folder
// its ${table_name} names, commits both with one checkpoint, and a writer
// restored from the bundled state goes on for each table.
func TestMultiTableSink(t *testing.T) {
	dir := t.TempDir()
	t1 := row.MustSchema("db.one", row.Field{Name: "a", Type: row.BigInt})
	t2 := row.MustSchema("db.two", row.Field{Name: "b", Type: row.String}, row.Field{Name: "c", Type: row.Int})
	s, err := createMultiSink(t, `path = "`+dir+`/${table_name}"
file_format_type = csv`, t1, t2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tk := task(0, 0)
	w, err := s.CreateWriter(ctx, tk, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*row.Batch{batchOf(t, t1, []any{int64(1)}, []any{int64(2)}), batchOf(t, t2, []any{"x", int64(3)}), batchOf(t, t1, []any{int64(4)})} {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(batchOf(t, row.MustSchema("db.three", row.Field{Name: "a", Type: row.BigInt}), []any{int64(1)})); err == nil || !strings.Contains(err.Error(), "db.three, which is not an input") {
		t.Fatalf("a batch of another table: %v", err)
	}
	info, err := w.PrepareCommit(1)
	if err != nil || info == nil {
		t.Fatalf("prepare: %v %v", info, err)
	}
	state, err := w.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.(connectors.SinkWithCommitter).CreateCommitter()
	cc := connectors.CommitContext{JobID: tk.JobID, Pipeline: tk.Pipeline, Attempt: tk.Attempt, CheckpointID: 1}
	if err := c.Commit(ctx, cc, [][]byte{info}); err != nil {
		t.Fatal(err)
	}
	read := func(table string) string {
		var all []string
		for _, f := range files(t, filepath.Join(dir, table)) {
			all = append(all, readFile(t, filepath.Join(dir, table, f)))
		}
		return strings.Join(all, "|")
	}
	if got := read("one"); got != "1\n2\n4\n" {
		t.Fatalf("table one: %q", got)
	}
	if got := read("two"); got != "x,3\n" {
		t.Fatalf("table two: %q", got)
	}
	w.Close()

	w2, err := s.CreateWriter(ctx, tk, state)
	if err != nil {
		t.Fatal(err)
	}
	w2.Write(batchOf(t, t2, []any{"y", int64(5)}))
	info, _ = w2.PrepareCommit(2)
	if err := c.Commit(ctx, connectors.CommitContext{JobID: tk.JobID, Pipeline: tk.Pipeline, CheckpointID: 2}, [][]byte{info}); err != nil {
		t.Fatal(err)
	}
	if got := read("two"); !strings.Contains(got, "x,3\n") || !strings.Contains(got, "y,5\n") || len(files(t, filepath.Join(dir, "two"))) != 2 {
		t.Fatalf("table two after the restored writer: %q", got)
	}

	_, err = createMultiSink(t, `path = "`+dir+`/same"`, t1, t2)
	if err == nil || !strings.Contains(err.Error(), "would both be written to") {
		t.Fatalf("two tables, one path: %v", err)
	}
}
