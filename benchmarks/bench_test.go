package benchmarks

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/ceiling"
	"github.com/stactor/stactor/benchmarks/internal/inproc"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	_ "github.com/stactor/stactor/connectors/all"
	_ "github.com/stactor/stactor/connectors/localfile"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
	"github.com/stactor/stactor/sqlengine"
)

// batchRows is the engine's default batch size: one benchmark operation
// is one batch of this many rows unless a benchmark says otherwise.
const batchRows = 4096

// The queries of cmd/peers' workloads 1 and 2.
const (
	queryW1 = "SELECT id, name, score, score * 2 AS score2 FROM fake WHERE id % 2 = 0"
	queryW2 = "SELECT id, UPPER(name) AS name, score FROM fake WHERE score >= 50"
)

// reportRows adds rows/s, ns/row and CPU-ns/row (the whole process's user
// + system time per row, GC and every goroutine included: steadier than
// wall time on a shared machine).
func reportRows(b *testing.B, rows int64, cpu0 time.Duration) {
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(rows), "cpu-ns/row")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBatchEncode writes a batch of 4096 (id, name, score) rows with
// the batch codec (checkpoint channel state, batches between nodes).
func BenchmarkBatchEncode(b *testing.B) {
	batch := makeBatch(batchRows)
	buf := row.AppendBatch(nil, batch)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = row.AppendBatch(buf[:0], batch)
	}
	reportRows(b, int64(b.N)*batchRows, cpu0)
}

// BenchmarkBatchDecode reads it back.
func BenchmarkBatchDecode(b *testing.B) { benchDecode(b, row.NewDecoder(), false) }

// BenchmarkBatchDecodeRecycled decodes into recycled vectors and releases
// each batch, as a batch from another node goes through a subtask.
func BenchmarkBatchDecodeRecycled(b *testing.B) { benchDecode(b, row.NewDecoder().Recycle(), true) }

func benchDecode(b *testing.B, d *row.Decoder, release bool) {
	buf := row.AppendBatch(nil, makeBatch(batchRows))
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, rest, err := d.Decode(buf)
		if err != nil || len(rest) != 0 || out.Len() != batchRows {
			b.Fatalf("decode: %v, %d bytes left", err, len(rest))
		}
		if release {
			out.Release()
		}
	}
	reportRows(b, int64(b.N)*batchRows, cpu0)
}

// BenchmarkFusedChain drives one subtask's fused chain by hand, through
// the connector API as the task actor calls it but without the actor:
// FakeSource's reader → the transform → Console's writer (log.print.data
// = false, a discarding sink). It is the ceiling of what the engine can do
// on one core.
func BenchmarkFusedChain(b *testing.B) {
	for _, c := range []struct{ name, transform string }{
		{"none", ""},
		{"Sql", fmt.Sprintf(`transform { Sql { plugin_input = "fake", plugin_output = "out", query = %q } }`, queryW1)},
	} {
		b.Run(c.name, func(b *testing.B) {
			rows := int64(b.N) * batchRows
			p := buildPlan(b, fmt.Sprintf(`env { parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = %d, schema = { fields { id = bigint, name = string, score = double } } } }
%s
sink { Console { log.print.data = false } }`, rows, c.transform))
			ch := newChain(b, p)
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for !ch.ctx.ended {
				if err := ch.reader.PollNext(ch); err != nil {
					b.Fatal(err)
				}
				if ch.err != nil {
					b.Fatal(ch.err)
				}
			}
			b.StopTimer()
			if ch.read != rows {
				b.Fatalf("read %d rows, want %d", ch.read, rows)
			}
			reportRows(b, rows, cpu0)
		})
	}
}

// chain is a fused chain run by hand: it is the reader's Collector, and
// Emit runs the batch through the transforms into the writer.
type chain struct {
	ctx        *readerCtx
	reader     connectors.Reader
	transforms []connectors.Transform
	writer     connectors.Writer
	read       int64
	err        error
}

func (c *chain) BatchSize() int { return batchRows }

// Emit hands batches on by reference as the subtask does (actors/task):
// an operator that borrows its input has it released after the call, so
// recycled batches come back to the pool.
func (c *chain) Emit(b *row.Batch) {
	c.read += int64(b.Len())
	for _, t := range c.transforms {
		if _, ok := t.(connectors.BatchBorrower); !ok {
			b.Retain() // the transform may keep it
		}
		out, err := t.Process(b)
		if out != b {
			b.Release()
		}
		if err != nil {
			c.err = err
			return
		}
		if out == nil {
			return
		}
		b = out
	}
	if err := c.writer.Write(b); err != nil {
		c.err = err
	}
	if _, ok := c.writer.(connectors.BatchBorrower); ok {
		b.Release()
	}
}

type readerCtx struct{ ended bool }

func (r *readerCtx) Task() connectors.TaskInfo           { return connectors.TaskInfo{Parallelism: 1} }
func (r *readerCtx) Boundedness() connectors.Boundedness { return connectors.Bounded }
func (r *readerCtx) SendSplitRequest()                   {}
func (r *readerCtx) SignalNoMoreElement()                { r.ended = true }

// enumCtx hands a single reader whatever the enumerator assigns.
type enumCtx struct {
	splits []connectors.Split
}

func (e *enumCtx) Parallelism() int         { return 1 }
func (e *enumCtx) RegisteredReaders() []int { return []int{0} }
func (e *enumCtx) AssignSplits(_ int, splits ...connectors.Split) {
	e.splits = append(e.splits, splits...)
}
func (e *enumCtx) SignalNoMoreSplits(int) {}

func buildPlan(b *testing.B, job string) *plan.Plan {
	b.Helper()
	j, err := config.Parse("bench.conf", []byte(job), nil)
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.Resolve(context.Background(), j, "bench")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// newChain makes the plan's only chain by hand: the source's enumerator
// assigns its splits to reader 0, then each vertex gets its instance.
func newChain(b *testing.B, p *plan.Plan) *chain {
	b.Helper()
	c := &chain{ctx: &readerCtx{}}
	for _, v := range p.Vertices {
		switch v.Kind {
		case plan.SourceVertex:
			src, err := v.NewSource()
			if err != nil {
				b.Fatal(err)
			}
			ec := &enumCtx{}
			en, err := src.CreateEnumerator(ec, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := en.Open(context.Background()); err != nil {
				b.Fatal(err)
			}
			if err := en.Run(); err != nil {
				b.Fatal(err)
			}
			if c.reader, err = src.CreateReader(c.ctx); err != nil {
				b.Fatal(err)
			}
			if err := c.reader.Open(context.Background()); err != nil {
				b.Fatal(err)
			}
			if err := c.reader.AddSplits(ec.splits); err != nil {
				b.Fatal(err)
			}
			if err := c.reader.HandleNoMoreSplits(); err != nil {
				b.Fatal(err)
			}
		case plan.TransformVertex:
			t, err := v.NewTransform(v.InTables[0])
			if err != nil {
				b.Fatal(err)
			}
			c.transforms = append(c.transforms, t)
		case plan.SinkVertex:
			s, err := v.NewSink()
			if err != nil {
				b.Fatal(err)
			}
			if c.writer, err = s.CreateWriter(context.Background(), connectors.TaskInfo{Parallelism: 1}, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	return c
}

// BenchmarkChannel runs BenchSource → BenchSink jobs on the engine, where
// both connectors cost next to nothing: what is measured is the subtask
// actors, and for unequal parallelism the channel between them (a
// rebalance edge under credit-based flow control). One operation is one
// batch of 4096 rows through the job; a job's start and end are included.
func BenchmarkChannel(b *testing.B) {
	for _, c := range []struct {
		name         string
		source, sink int
	}{
		{"fused-1x1", 1, 1},
		{"fused-2x2", 2, 2},
		{"rebalance-1to2", 1, 2},
		{"rebalance-2to1", 2, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := inproc.Start(b)
			perSubtask := int64(b.N) * batchRows / int64(c.source)
			perSubtask = max(perSubtask, 1)
			rows := perSubtask * int64(c.source)
			sunk.Store(0)
			cpu0 := cpuTime()
			b.ResetTimer()
			written := inproc.Run(b, e, fmt.Sprintf(`env { job.mode = "BATCH" }
source { BenchSource { rows = %d, parallelism = %d } }
sink { BenchSink { parallelism = %d } }`, perSubtask, c.source, c.sink))
			b.StopTimer()
			if written != rows || sunk.Load() != rows {
				b.Fatalf("wrote %d (sink saw %d), want %d", written, sunk.Load(), rows)
			}
			reportRows(b, rows, cpu0)
		})
	}
}

// BenchmarkSqlEval measures the Sql transform alone on batches of 4096
// FakeSource-like rows: workload 1's query (a computed column and a
// filter) and workload 2's (UPPER, a projection and a filter).
func BenchmarkSqlEval(b *testing.B) {
	in := makeBatch(batchRows)
	for _, c := range []struct{ name, query string }{{"workload1", queryW1}, {"workload2", queryW2}} {
		b.Run(c.name, func(b *testing.B) {
			t, err := sqlengine.Compile(c.query, in.Schema, sqlengine.InputNames("fake"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, err := t.Process(in)
				if err != nil {
					b.Fatal(err)
				}
				out.Release() // as the subtask does: its vectors are recycled
			}
			reportRows(b, int64(b.N)*batchRows, cpu0)
		})
	}
}

// BenchmarkJob runs cmd/peers' workloads inside this process on the
// engine (no process start, no CLI): workload 1 (FakeSource → Sql →
// Console without printing, parallelism 1 and 2; one operation is 4096
// rows) and workload 2 (a CSV file of 1 M rows → Sql → JSON lines with
// LocalFile, parallelism 2; one operation is one job). Profile it with
// go tool task bench:profile.
func BenchmarkJob(b *testing.B) {
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("workload1-p%d", par), func(b *testing.B) {
			e := inproc.Start(b)
			perSubtask := max(int64(b.N)*batchRows/int64(par), 1)
			cpu0 := cpuTime()
			b.ResetTimer()
			inproc.Run(b, e, fmt.Sprintf(`env { job.mode = "BATCH", parallelism = %d }
source { FakeSource { plugin_output = "fake", row.num = %d, schema = { fields { id = bigint, name = string, score = double } } } }
transform { Sql { plugin_input = "fake", plugin_output = "out", query = %q } }
sink { Console { plugin_input = "out", log.print.data = false } }`, par, perSubtask, queryW1))
			b.StopTimer()
			reportRows(b, perSubtask*int64(par), cpu0)
		})
	}
	b.Run("workload2-p2", func(b *testing.B) {
		const rows = 1_000_000
		in := csvFile(b, rows)
		e := inproc.Start(b)
		out := b.TempDir()
		cpu0 := cpuTime()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			read := inproc.Run(b, e, fmt.Sprintf(`env { job.mode = "BATCH", parallelism = 2 }
source { LocalFile { plugin_output = "fake", path = %q, file_format_type = "csv", skip_header_row_number = 1,
  schema = { fields { id = bigint, name = string, score = double, city = string } } } }
transform { Sql { plugin_input = "fake", plugin_output = "out", query = %q } }
sink { LocalFile { plugin_input = "out", path = %q, file_format_type = "json" } }`, in, queryW2, filepath.Join(out, strconv.Itoa(i))))
			if read == 0 {
				b.Fatal("workload 2 wrote no rows")
			}
		}
		b.StopTimer()
		reportRows(b, int64(b.N)*rows, cpu0)
	})
}

// BenchmarkCeiling is workload 1 as a bare Go loop (benchmarks/internal/
// ceiling) on 1 and 2 goroutines, and workload 2's loop on 2 over the
// same 1 M-row CSV file as BenchmarkJob/workload2-p2 (one operation is
// one pass), in the same units as BenchmarkJob: run them together to
// compare stactor with its ceiling in one run.
func BenchmarkCeiling(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workload1-p%d", workers), func(b *testing.B) {
			rows := max(int64(b.N)*batchRows, int64(workers))
			cpu0 := cpuTime()
			b.ResetTimer()
			if _, kept := ceiling.Run(rows, workers); kept == 0 {
				b.Fatal("the loop kept no rows")
			}
			b.StopTimer()
			reportRows(b, rows, cpu0)
		})
	}
	b.Run("workload2-p2", func(b *testing.B) {
		const rows = 1_000_000
		in := csvFile(b, rows)
		out := b.TempDir()
		cpu0 := cpuTime()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := ceiling.CSVToJSON(in, out, 2)
			if err != nil {
				b.Fatal(err)
			}
			if res.Rows != rows || res.Kept == 0 {
				b.Fatalf("the loop read %d rows and kept %d, want %d and some", res.Rows, res.Kept, rows)
			}
		}
		b.StopTimer()
		reportRows(b, int64(b.N)*rows, cpu0)
	})
}

var csvOnce struct {
	sync.Mutex // guards path
	path       map[int]string
}

// TestMain removes the CSV files csvFile wrote, which outlive single
// benchmarks so that each size is written once.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range csvOnce.path {
		os.RemoveAll(filepath.Dir(p))
	}
	os.Exit(code)
}

// csvFile writes (once per size, for the whole test binary) a CSV file of
// id,name,score,city rows with a header, as cmd/peers' workload 2 reads.
func csvFile(b testing.TB, rows int) string {
	csvOnce.Lock()
	defer csvOnce.Unlock()
	if p, ok := csvOnce.path[rows]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", "stactor-bench-csv-")
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "in.csv")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("id,name,score,city\n")
	batch := makeBatch(batchRows)
	for i := 0; i < rows; i++ {
		k := i % batchRows
		fmt.Fprintf(w, "%d,%s,%.2f,%s\n", i, batch.Cols[1].Str(k), batch.Cols[2].Floats[k], [...]string{"Berlin", "Lyon", "Osaka"}[i%3])
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if csvOnce.path == nil {
		csvOnce.path = map[int]string{}
	}
	csvOnce.path[rows] = p
	return p
}
