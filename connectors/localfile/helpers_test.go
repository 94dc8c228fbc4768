package localfile

import (
	"bytes"
	"context"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// plugin parses a plugin block body and validates it as the planner does.
func plugin(t testing.TB, where string, opts []config.Option, body string) (*config.PluginConfig, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg, _, err := config.Validate("job.conf", where, "LocalFile", root.Pos, root, opts, config.CommonPluginOptions)
	return cfg, err
}

// createSourceErr makes a source from a block body, returning the error.
func createSourceErr(t testing.TB, body string) (*source, error) {
	t.Helper()
	s, _, err := resolveAndCreate(t, body, 1)
	if err != nil {
		return nil, err
	}
	return s.(*source), nil
}

// resolveAndCreate resolves a source from a block body and creates it from
// what it resolved to, as the planner does on the master, returning the
// plugin's plan warnings too.
func resolveAndCreate(t testing.TB, body string, parallelism int) (connectors.Source, []config.Warning, error) {
	t.Helper()
	cfg, err := plugin(t, "source LocalFile", SourceFactory.Options, body)
	if err != nil {
		return nil, nil, err
	}
	job := connectors.JobContext{Mode: connectors.Batch, Parallelism: parallelism}
	res, err := SourceFactory.Resolve(context.Background(), cfg, job)
	if err != nil {
		return nil, nil, err
	}
	s, err := SourceFactory.Create(cfg, res, job)
	if err != nil {
		return nil, nil, err
	}
	return s, cfg.Warnings(), nil
}

func newTestSource(t testing.TB, body string) *source {
	t.Helper()
	s, err := createSourceErr(t, body)
	if err != nil {
		t.Fatalf("create source: %v", err)
	}
	return s
}

func createSinkErr(t testing.TB, body string, schema *row.Schema) (*sink, error) {
	t.Helper()
	cfg, err := plugin(t, "sink LocalFile", SinkFactory.Options, body)
	if err != nil {
		return nil, err
	}
	s, err := SinkFactory.Create(cfg, []*row.Schema{schema}, nil, connectors.JobContext{Mode: connectors.Batch, Parallelism: 1})
	if err != nil {
		return nil, err
	}
	return s.(*sink), nil
}

func newTestSink(t testing.TB, body string, schema *row.Schema) *sink {
	t.Helper()
	s, err := createSinkErr(t, body, schema)
	if err != nil {
		t.Fatalf("create sink: %v", err)
	}
	return s
}

// q quotes a path for a HOCON body.
func q(s string) string { return fmt.Sprintf("%q", s) }

// enumCtx records what an enumerator tells its readers.
type enumCtx struct {
	parallelism int
	registered  []int
	assigned    map[int][]connectors.Split
	noMore      map[int]int
}

func newEnumCtx(p int, registered ...int) *enumCtx {
	return &enumCtx{parallelism: p, registered: registered, assigned: map[int][]connectors.Split{}, noMore: map[int]int{}}
}

func (c *enumCtx) Parallelism() int               { return c.parallelism }
func (c *enumCtx) RegisteredReaders() []int       { return append([]int(nil), c.registered...) }
func (c *enumCtx) SignalNoMoreSplits(subtask int) { c.noMore[subtask]++ }
func (c *enumCtx) AssignSplits(subtask int, splits ...connectors.Split) {
	c.assigned[subtask] = append(c.assigned[subtask], splits...)
}

type readerCtx struct {
	ended int
	task  connectors.TaskInfo
}

func (c *readerCtx) Task() connectors.TaskInfo           { return c.task }
func (c *readerCtx) Boundedness() connectors.Boundedness { return connectors.Bounded }
func (c *readerCtx) SendSplitRequest()                   {}
func (c *readerCtx) SignalNoMoreElement()                { c.ended++ }

type collector struct {
	size    int
	batches []*row.Batch
}

func (c *collector) Emit(b *row.Batch) { c.batches = append(c.batches, b) }
func (c *collector) BatchSize() int    { return c.size }

func (c *collector) rows() [][]any {
	var out [][]any
	for _, b := range c.batches {
		for i := 0; i < b.Len(); i++ {
			out = append(out, b.Row(i))
		}
	}
	return out
}

// splitsFor runs an enumerator with p readers and returns what each got.
func splitsFor(t testing.TB, s connectors.Source, p int) map[int][]connectors.Split {
	t.Helper()
	regs := make([]int, p)
	for i := range regs {
		regs[i] = i
	}
	ec := newEnumCtx(p, regs...)
	en, err := s.CreateEnumerator(ec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := en.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := en.Run(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < p; i++ {
		if ec.noMore[i] == 0 {
			t.Fatalf("reader %d was not told there are no more splits", i)
		}
	}
	return ec.assigned
}

// readSplits reads splits with one reader until it ends.
func readSplits(t testing.TB, s *source, splits []connectors.Split, batch int) ([][]any, error) {
	t.Helper()
	r, rc := openReader(t, s, splits)
	out := &collector{size: batch}
	for i := 0; i < 1_000_000 && rc.ended == 0; i++ {
		if err := r.PollNext(out); err != nil {
			return out.rows(), err
		}
	}
	if rc.ended != 1 {
		t.Fatalf("reader did not end exactly once (%d)", rc.ended)
	}
	return out.rows(), nil
}

// openReader opens a reader of s with splits and no more to come; it is
// closed when the test ends.
func openReader(t testing.TB, s *source, splits []connectors.Split) (*reader, *readerCtx) {
	t.Helper()
	rc := &readerCtx{}
	rd, err := s.CreateReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	r := rd.(*reader)
	r.sleep = func(time.Duration) {}
	if err := r.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	r.AddSplits(splits)
	r.HandleNoMoreSplits()
	return r, rc
}

// readAll reads a source with p readers and returns all rows, in reader
// then file order.
func readAll(t testing.TB, s *source, p int) [][]any {
	t.Helper()
	rows, err := readAllErr(t, s, p)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return rows
}

func readAllErr(t testing.TB, s *source, p int) ([][]any, error) {
	t.Helper()
	assigned := splitsFor(t, s, p)
	var all [][]any
	for i := 0; i < p; i++ {
		rows, err := readSplits(t, s, assigned[i], 7)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	return all, nil
}

// task is a test writer's subtask.
func task(subtask, attempt int) connectors.TaskInfo {
	return connectors.TaskInfo{JobID: "job1", Pipeline: 1, Attempt: attempt, SubtaskIndex: subtask, Parallelism: 1}
}

// writeAndCommit writes batches with one writer, prepares checkpoint ckpt
// and commits it.
func writeAndCommit(t testing.TB, s *sink, tk connectors.TaskInfo, ckpt int64, batches ...*row.Batch) {
	t.Helper()
	w, err := s.CreateWriter(context.Background(), tk, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := w.Write(b); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	info, err := w.PrepareCommit(ckpt)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if info == nil {
		return
	}
	c, _ := s.CreateCommitter()
	if err := c.Commit(context.Background(), connectors.CommitContext{JobID: tk.JobID, Pipeline: tk.Pipeline, Attempt: tk.Attempt, CheckpointID: ckpt}, [][]byte{info}); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// batchOf builds a batch of boxed rows.
func batchOf(t testing.TB, s *row.Schema, rows ...[]any) *row.Batch {
	t.Helper()
	b := row.NewBuilder(s, len(rows))
	for _, r := range rows {
		if err := b.AppendRow(row.Insert, r); err != nil {
			t.Fatalf("row %v: %v", r, err)
		}
	}
	return b.Build()
}

// files lists the files under dir (relative, sorted), staging included.
func files(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// equalValue compares boxed values: decimals by value, floats exactly (NaN
// equal to NaN), times by instant, containers element by element.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || (math.IsNaN(x) && math.IsNaN(y)))
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case *row.MapValue:
		y, ok := b.(*row.MapValue)
		if !ok || len(x.Keys) != len(y.Keys) {
			return false
		}
		for i := range x.Keys {
			if !equalValue(x.Keys[i], y.Keys[i]) || !equalValue(x.Values[i], y.Values[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case []byte:
		return fmt.Sprintf("bytes(%q)", x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *row.MapValue:
		parts := make([]string, len(x.Keys))
		for i := range x.Keys {
			parts[i] = show(x.Keys[i]) + ":" + show(x.Values[i])
		}
		return "map[" + strings.Join(parts, " ") + "]"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprintf("%v(%T)", v, v)
}

// compareRows fails unless got and want hold the same rows in order.
func compareRows(t testing.TB, names []string, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			if !equalValue(got[i][j], want[i][j]) {
				t.Errorf("row %d field %s: got %s, want %s", i, names[j], show(got[i][j]), show(want[i][j]))
			}
		}
	}
}

// mutate runs parse on n damaged copies of orig (one to four bytes
// changed, every tenth also cut short), from a seeded generator, and fails
// the test on a panic: a damaged file must be an error or other values.
func mutate(t *testing.T, orig []byte, n int, seed uint64, parse func([]byte)) {
	t.Helper()
	r := mrand.New(mrand.NewPCG(seed, seed+1))
	for i := range n {
		bad := append([]byte(nil), orig...)
		for k := 0; k < 1+i%4; k++ {
			bad[r.IntN(len(bad))] = byte(r.IntN(256))
		}
		if i%10 == 0 {
			bad = bad[:r.IntN(len(bad))]
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("mutant %d panics: %v", i, p)
				}
			}()
			parse(bad)
		}()
	}
}
