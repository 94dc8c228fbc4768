package fake

import (
	"sort"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// plugin parses a FakeSource block body and validates it as the planner
// does.
func plugin(t testing.TB, body string) (*config.PluginConfig, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg, _, err := config.Validate("job.conf", "source FakeSource", "FakeSource", root.Pos, root, Factory.Options, config.CommonPluginOptions)
	return cfg, err
}

func newSource(t testing.TB, body string, mode connectors.JobMode) *source {
	t.Helper()
	cfg, err := plugin(t, body)
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	s, err := Factory.Create(cfg, nil, connectors.JobContext{Mode: mode, Parallelism: 1})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return s.(*source)
}

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

// readerCtx is a reader's view of the engine.
type readerCtx struct {
	bounded connectors.Boundedness
	ended   int
	task    connectors.TaskInfo
}

func (c *readerCtx) Task() connectors.TaskInfo           { return c.task }
func (c *readerCtx) Boundedness() connectors.Boundedness { return c.bounded }
func (c *readerCtx) SendSplitRequest()                   {}
func (c *readerCtx) SignalNoMoreElement()                { c.ended++ }

// collector keeps what a reader emits.
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

func (c *collector) count() int {
	n := 0
	for _, b := range c.batches {
		n += b.Len()
	}
	return n
}

// testReader is a reader whose clock never makes it wait.
func testReader(s *source, ctx *readerCtx) *reader {
	r, _ := s.CreateReader(ctx)
	rd := r.(*reader)
	rd.interval = 0
	return rd
}

// drain polls until the reader ends (or maxPolls is reached).
func drain(t testing.TB, r *reader, ctx *readerCtx, out *collector, maxPolls int) {
	t.Helper()
	for i := 0; i < maxPolls && ctx.ended == 0; i++ {
		if err := r.PollNext(out); err != nil {
			t.Fatalf("poll: %v", err)
		}
	}
	if ctx.ended != 1 {
		t.Fatalf("reader did not signal its end exactly once (%d)", ctx.ended)
	}
}

func splitIndexes(t testing.TB, splits []connectors.Split) ([]int, []int) {
	t.Helper()
	var idx, rows []int
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			t.Fatal(err)
		}
		idx = append(idx, s.index)
		rows = append(rows, s.rows)
	}
	order := make([]int, len(idx))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return idx[order[a]] < idx[order[b]] })
	si, sr := make([]int, len(idx)), make([]int, len(idx))
	for k, o := range order {
		si[k], sr[k] = idx[o], rows[o]
	}
	return si, sr
}
