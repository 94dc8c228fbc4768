package task

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	_ "github.com/stactor/stactor/connectors/console"
	_ "github.com/stactor/stactor/connectors/fake"
	_ "github.com/stactor/stactor/connectors/sql"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// These tests drive one subtask's fused chain the way the actor does
// (poll → sourceRun.Emit → operators.push), without the actor system: the
// batch path whose allocations and recycling issue 17 is about.

// workload1 is benchmarks/cmd/peers' workload 1 on one subtask.
func workload1(rows int) string {
	return fmt.Sprintf(`env { parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = %d, schema = { fields { id = bigint, name = string, score = double } } } }
transform { Sql { plugin_input = "fake", plugin_output = "out", query = "SELECT id, name, score, score * 2 AS score2 FROM fake WHERE id %% 2 = 0" } }
sink { Console { plugin_input = "out", log.print.data = false } }`, rows)
}

// fusedTask is subtask 0 of the only chain of job, with its operators open
// and its reader holding every split.
func fusedTask(t testing.TB, job string) *Task {
	t.Helper()
	j, err := config.Parse("recycle.conf", []byte(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Resolve(context.Background(), j, "recycle")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Chains) != 1 {
		t.Fatalf("the job has %d chains, want one fused chain", len(p.Chains))
	}
	tk := &Task{loc: &messages.TaskLocation{JobId: "recycle"}, plan: p, chain: p.Chains[0], opts: DefaultOptions(), io: context.Background()}
	if tk.ops, err = buildOperators(tk); err != nil {
		t.Fatal(err)
	}
	if err := tk.ops.open(); err != nil {
		t.Fatal(err)
	}
	src, err := tk.chain.Head.NewSource()
	if err != nil {
		t.Fatal(err)
	}
	ec := &allSplits{}
	en, err := src.CreateEnumerator(ec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := en.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := en.Run(); err != nil {
		t.Fatal(err)
	}
	s := &sourceRun{t: tk, source: src}
	if s.reader, err = src.CreateReader(s); err != nil {
		t.Fatal(err)
	}
	if err := s.reader.AddSplits(ec.splits); err != nil {
		t.Fatal(err)
	}
	if err := s.reader.HandleNoMoreSplits(); err != nil {
		t.Fatal(err)
	}
	tk.src = s
	t.Cleanup(func() { tk.ops.close() })
	return tk
}

// pollOnce is one PollNext of the subtask's reader through its chain.
func pollOnce(t testing.TB, tk *Task) {
	if err := tk.src.reader.PollNext(tk.src); err != nil {
		t.Fatal(err)
	}
	if tk.src.err != nil {
		t.Fatal(tk.src.err)
	}
}

type allSplits struct{ splits []connectors.Split }

func (e *allSplits) Parallelism() int         { return 1 }
func (e *allSplits) RegisteredReaders() []int { return []int{0} }
func (e *allSplits) AssignSplits(_ int, splits ...connectors.Split) {
	e.splits = append(e.splits, splits...)
}
func (e *allSplits) SignalNoMoreSplits(int) {}

// TestWorkload1AllocatesNothingPerBatch: in steady state a batch of
// workload 1 (FakeSource → Sql with a computed column and a filter →
// Console) is generated, filtered, projected and discarded in recycled
// vectors, with no allocation at all (issue 17). It fails when any step
// of the path starts allocating per batch again.
func TestWorkload1AllocatesNothingPerBatch(t *testing.T) {
	tk := fusedTask(t, workload1(1<<30))
	for range 20 { // warm up the pool and the evaluators' buffers
		pollOnce(t, tk)
	}
	allocs := testing.AllocsPerRun(200, func() { pollOnce(t, tk) })
	if raceEnabled {
		t.Skipf("the race detector allocates; without it: go test -run %s ./actors/task/", t.Name())
	}
	if allocs != 0 {
		t.Fatalf("%.1f allocations per batch of workload 1, want 0", allocs)
	}
	// AllocsPerRun runs the function once more before it counts.
	read, sunk := tk.metrics.readRows, tk.ops.list[len(tk.ops.list)-1].rowsIn
	if read != 221*4096 || sunk < read*2/5 || sunk > read*3/5 {
		t.Fatalf("read %d rows and sank %d, want %d and about half", read, sunk, 221*4096)
	}
}

// keepingSink is a sink whose writer keeps every batch it is given (it is
// not a connectors.BatchBorrower), as a sink that buffers rows may: what
// it keeps must never be recycled under it.
type keepingSink struct{}

var kept struct {
	sync.Mutex // guards the fields
	batches    []*row.Batch
	copies     [][][]any // each batch's rows as Write saw them
}

func (keepingSink) CreateWriter(context.Context, connectors.TaskInfo, [][]byte) (connectors.Writer, error) {
	return keepingWriter{}, nil
}

type keepingWriter struct{}

func (keepingWriter) Write(b *row.Batch) error {
	rows := make([][]any, b.Len())
	for i := range rows {
		rows[i] = b.Row(i)
	}
	kept.Lock()
	kept.batches = append(kept.batches, b)
	kept.copies = append(kept.copies, rows)
	kept.Unlock()
	return nil
}
func (keepingWriter) PrepareCommit(int64) ([]byte, error)   { return nil, nil }
func (keepingWriter) SnapshotState(int64) ([][]byte, error) { return nil, nil }
func (keepingWriter) AbortPrepare() error                   { return nil }
func (keepingWriter) Close() error                          { return nil }

func init() {
	connectors.RegisterSink(connectors.SinkFactory{
		Name: "TaskKeepingSink",
		Create: func(*config.PluginConfig, []*row.Schema, []byte, connectors.JobContext) (connectors.Sink, error) {
			return keepingSink{}, nil
		},
	})
}

// TestBatchesKeptByAnOperatorAreNotRecycled: one source batch goes both
// to a Sql transform into a sink that keeps what it is given and straight
// to a Console that does not; the Sql output, which the keeping sink holds,
// and the source batch it was projected from stay as they were while many
// more batches are recycled around them.
func TestBatchesKeptByAnOperatorAreNotRecycled(t *testing.T) {
	kept.Lock()
	kept.batches, kept.copies = nil, nil
	kept.Unlock()
	tk := fusedTask(t, `env { parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 400000, schema = { fields { id = bigint, name = string, score = double } } } }
transform { Sql { plugin_input = "fake", plugin_output = "out", query = "SELECT id, name, score * 2 AS score2 FROM fake WHERE id > 0" } }
sink {
  TaskKeepingSink { plugin_input = "out" }
  Console { plugin_input = "fake", log.print.data = false }
}`)
	for !tk.src.noMore {
		pollOnce(t, tk)
	}
	kept.Lock()
	defer kept.Unlock()
	if len(kept.batches) < 50 {
		t.Fatalf("the keeping sink got %d batches", len(kept.batches))
	}
	for k, b := range kept.batches {
		for i, want := range kept.copies[k] {
			if got := b.Row(i); !reflect.DeepEqual(got, want) {
				t.Fatalf("kept batch %d row %d changed after Write: %v, was %v", k, i, got, want)
			}
		}
	}
}

// BenchmarkWorkload1 is one batch of 4096 rows of workload 1 through a
// subtask's fused chain, without the actor system (see
// TestWorkload1AllocatesNothingPerBatch).
func BenchmarkWorkload1(b *testing.B) {
	tk := fusedTask(b, workload1(1<<31-1))
	b.ReportAllocs()
	b.SetBytes(4096) // "MB/s" reads as millions of rows per second
	for b.Loop() {
		pollOnce(b, tk)
	}
}
