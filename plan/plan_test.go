package plan_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// The test connectors, registered under names no real connector takes.
// Each can be told to fail its factory in one of three ways:
//
//	fail = plain   a plain error (the planner must place it at the plugin)
//	fail = placed  a *config.Error at the `fail` option
//	fail = wrapped that *config.Error wrapped with %w
func init() {
	opts := []config.Option{
		{Key: "table", Type: config.TypeString, Default: "t"},
		{Key: "fail", Type: config.TypeEnum, Enum: []string{"plain", "placed", "wrapped"}},
		{Key: "size", Type: config.TypeInt, Default: int64(1)},
	}
	connectors.RegisterSource(connectors.SourceFactory{Name: "PlanTestSource", Options: opts,
		Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
			if err := failure(cfg); err != nil {
				return nil, err
			}
			created = append(created, fmt.Sprintf("%s x%d", cfg.Where, job.Parallelism))
			return &testSource{table: row.MustSchema(cfg.String("table"), row.Field{Name: "id", Type: row.BigInt})}, nil
		}})
	connectors.RegisterSource(connectors.SourceFactory{Name: "PlanTestStrictSource",
		Options: []config.Option{{Key: "n", Type: config.TypeInt, Required: true}},
		Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
			return &testSource{table: row.MustSchema("strict", row.Field{Name: "id", Type: row.BigInt})}, nil
		}})
	connectors.RegisterSource(connectors.SourceFactory{Name: "PlanTestEmptySource",
		Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
			return &testSource{}, nil
		}})
	connectors.RegisterSource(connectors.SourceFactory{Name: "PlanTestWarnSource",
		Options: []config.Option{{Key: "files", Type: config.TypeString}},
		// Resolve finds two odd files (as LocalFile's plain files under
		// gzip) and tells them at the option.
		Resolve: func(_ context.Context, cfg *config.PluginConfig, _ connectors.JobContext) ([]byte, error) {
			cfg.Warnf("files", "file a is odd")
			cfg.Warnf("files", "file b is odd")
			return nil, nil
		},
		Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
			return &testSource{table: row.MustSchema("w", row.Field{Name: "id", Type: row.BigInt})}, nil
		}})
	connectors.RegisterTransform(connectors.TransformFactory{Name: "PlanTestTransform", Options: opts,
		Create: func(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
			if err := failure(cfg); err != nil {
				return nil, err
			}
			return &testTransform{out: input.WithTableID(input.TableID + "+" + cfg.Name)}, nil
		}})
	connectors.RegisterSink(connectors.SinkFactory{Name: "PlanTestSink", Options: opts,
		Create: func(cfg *config.PluginConfig, inputs []*row.Schema, _ []byte, job connectors.JobContext) (connectors.Sink, error) {
			if err := failure(cfg); err != nil {
				return nil, err
			}
			created = append(created, fmt.Sprintf("%s x%d", cfg.Where, job.Parallelism))
			return testSink{}, nil
		}})
}

// created records the sources and sinks made with their parallelism. Tests
// in this package do not run in parallel.
var created []string

func failure(cfg *config.PluginConfig) error {
	switch cfg.String("fail") {
	case "plain":
		return errors.New("cannot connect to the thing")
	case "placed":
		return cfg.Errorf("fail", "placed failure")
	case "wrapped":
		return fmt.Errorf("while creating: %w", cfg.Errorf("fail", "wrapped failure"))
	}
	return nil
}

type testSource struct{ table *row.Schema }

func (s *testSource) Tables() []*row.Schema {
	if s.table == nil {
		return nil
	}
	return []*row.Schema{s.table}
}
func (s *testSource) Boundedness() connectors.Boundedness { return connectors.Bounded }
func (s *testSource) CreateEnumerator(connectors.EnumeratorContext, []byte) (connectors.SplitEnumerator, error) {
	return nil, errors.New("not for running")
}
func (s *testSource) CreateReader(connectors.ReaderContext) (connectors.Reader, error) {
	return nil, errors.New("not for running")
}

type testTransform struct{ out *row.Schema }

func (t *testTransform) OutputSchema() *row.Schema                { return t.out }
func (t *testTransform) Process(b *row.Batch) (*row.Batch, error) { return b, nil }

type testSink struct{}

func (testSink) CreateWriter(context.Context, connectors.TaskInfo, [][]byte) (connectors.Writer, error) {
	return nil, errors.New("not for running")
}

var (
	_ connectors.Source    = (*testSource)(nil)
	_ connectors.Transform = (*testTransform)(nil)
	_ connectors.Sink      = testSink{}
)

func build(t *testing.T, src string) *plan.Plan {
	t.Helper()
	p, err := buildErr(t, src)
	if err != nil {
		t.Fatalf("Build: %v\n%s", err, src)
	}
	return p
}

func buildErr(t *testing.T, src string) (*plan.Plan, error) {
	t.Helper()
	job, err := config.Parse("job.conf", []byte(src), nil)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return plan.Resolve(context.Background(), job, "job-1")
}

// edges renders the plan's edges as "from->to" by vertex name.
func edges(p *plan.Plan) []string {
	var out []string
	for _, e := range p.Edges {
		out = append(out, e.From.Name+"->"+e.To.Name)
	}
	return out
}

func chains(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Chains {
		out = append(out, fmt.Sprintf("%d/p%d x%d: %s", c.ID, c.Pipeline.ID, c.Parallelism, c.Name()))
	}
	return out
}

func TestWiring(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		edges []string
	}{
		{"source to sink", `
source { PlanTestSource {} }
sink { PlanTestSink {} }`,
			[]string{"Source[0]-PlanTestSource->Sink[0]-PlanTestSink"}},
		{"default: previous transform", `
source { PlanTestSource {} }
transform {
  PlanTestTransform {}
  PlanTestTransform2 {}
}
sink { PlanTestSink {} }`, nil}, // replaced below: two transforms need distinct names
		{"default: all sources", `
source {
  PlanTestSource { table = a }
  PlanTestStrictSource { n = 1 }
}
sink { PlanTestSink {} }`,
			[]string{"Source[0]-PlanTestSource->Sink[0]-PlanTestSink", "Source[1]-PlanTestStrictSource->Sink[0]-PlanTestSink"}},
		{"default: every sink reads the last transform", `
source { PlanTestSource {} }
transform { PlanTestTransform {} }
sink {
  PlanTestSink {}
  plantestsink {}
}`,
			[]string{"Source[0]-PlanTestSource->Transform[0]-PlanTestTransform",
				"Transform[0]-PlanTestTransform->Sink[0]-PlanTestSink",
				"Transform[0]-PlanTestTransform->Sink[1]-PlanTestSink"}},
		{"explicit plugin_input", `
source {
  PlanTestSource { plugin_output = a, table = ta }
  PlanTestStrictSource { n = 1, result_table_name = "b" }
}
transform {
  PlanTestTransform { plugin_input = a, plugin_output = c }
}
sink {
  PlanTestSink { plugin_input = "c" }
  plantestsink { source_table_name = ["b", "a"] }
}`,
			[]string{"Source[0]-PlanTestSource->Transform[0]-PlanTestTransform",
				"Transform[0]-PlanTestTransform->Sink[0]-PlanTestSink",
				"Source[1]-PlanTestStrictSource->Sink[1]-PlanTestSink",
				"Source[0]-PlanTestSource->Sink[1]-PlanTestSink"}},
		{"comma separated plugin_input", `
source {
  PlanTestSource { plugin_output = a }
  PlanTestStrictSource { n = 1, plugin_output = b }
}
sink { PlanTestSink { plugin_input = "a, b" } }`,
			[]string{"Source[0]-PlanTestSource->Sink[0]-PlanTestSink", "Source[1]-PlanTestStrictSource->Sink[0]-PlanTestSink"}},
	}
	// Transforms of the same name in one block merge in HOCON, so the
	// chain of two transforms uses the name's case-insensitivity.
	tests[1].src = strings.Replace(tests[1].src, "PlanTestTransform2", "plantesttransform", 1)
	tests[1].edges = []string{"Source[0]-PlanTestSource->Transform[0]-PlanTestTransform",
		"Transform[0]-PlanTestTransform->Transform[1]-PlanTestTransform",
		"Transform[1]-PlanTestTransform->Sink[0]-PlanTestSink"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.src)
			if got := edges(p); !reflect.DeepEqual(got, tt.edges) {
				t.Errorf("edges\n got %q\nwant %q", got, tt.edges)
			}
			for _, e := range p.Edges {
				if e.From.Out[indexOf(e.From.Out, e)] != e || e.To.In[indexOf(e.To.In, e)] != e {
					t.Errorf("edge %d is not in its vertices' In/Out", e.ID)
				}
			}
		})
	}
}

func indexOf(es []*plan.Edge, e *plan.Edge) int {
	for i, x := range es {
		if x == e {
			return i
		}
	}
	return 0
}

func TestTables(t *testing.T) {
	p := build(t, `
source {
  PlanTestSource { plugin_output = a, table = ta }
  PlanTestStrictSource { n = 1, plugin_output = b }
}
transform { PlanTestTransform { plugin_input = [a, b], plugin_output = c } }
sink { PlanTestSink { plugin_input = c } }`)
	names := func(ts []*row.Schema) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.TableID)
		}
		return out
	}
	tr, snk := p.Vertices[2], p.Vertices[3]
	if got := names(tr.InTables); !reflect.DeepEqual(got, []string{"ta", "strict"}) {
		t.Errorf("transform in tables %q", got)
	}
	if got := names(tr.OutTables); !reflect.DeepEqual(got, []string{"ta+PlanTestTransform", "strict+PlanTestTransform"}) {
		t.Errorf("transform out tables %q", got)
	}
	if got := names(snk.InTables); !reflect.DeepEqual(got, names(tr.OutTables)) {
		t.Errorf("sink in tables %q, want the transform's", got)
	}
	if p.Vertices[0].Source == nil || snk.Sink == nil {
		t.Error("plan-time source or sink instance missing")
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		line  int
		wants []string
	}{
		{"unknown source", "source {\n  NoSuchSource {}\n}\nsink { PlanTestSink {} }", 2,
			[]string{"source NoSuchSource", `unknown source plugin "NoSuchSource"`, "PlanTestSource"}},
		{"unknown transform", "source { PlanTestSource {} }\ntransform {\n  Nope {}\n}\nsink { PlanTestSink {} }", 3,
			[]string{"transform Nope", `unknown transform plugin "Nope"`}},
		{"unknown sink", "source { PlanTestSource {} }\nsink {\n  Nope {}\n}", 3,
			[]string{"sink Nope", `unknown sink plugin "Nope"`, "PlanTestSink"}},
		{"missing required option", "source {\n  PlanTestStrictSource {}\n}\nsink { PlanTestSink {} }", 2,
			[]string{"source PlanTestStrictSource", `option "n"`, "required"}},
		{"wrong option type", "source {\n  PlanTestSource {\n    size = abc\n  }\n}\nsink { PlanTestSink {} }", 3,
			[]string{"source PlanTestSource", `option "size"`, `expected an integer, got "abc"`}},
		{"dangling plugin_input", "source { PlanTestSource { plugin_output = a } }\nsink {\n  PlanTestSink {\n    plugin_input = nope\n  }\n}", 4,
			[]string{"sink PlanTestSink", `option "plugin_input"`, `no plugin has plugin_output = "nope"`, "known: a"}},
		{"dangling source_table_name", "source { PlanTestSource {} }\nsink {\n  PlanTestSink { source_table_name = [x] }\n}", 3,
			[]string{"sink PlanTestSink", `"x" (known: none)`}},
		{"duplicate plugin_output", "source {\n  PlanTestSource { plugin_output = a }\n  PlanTestStrictSource {\n    n = 1\n    result_table_name = a\n  }\n}\nsink { PlanTestSink {} }", 5,
			[]string{"source PlanTestStrictSource", `option "plugin_output"`, `"a" is already the output of source PlanTestSource`}},
		{"cycle", `source { PlanTestSource { plugin_output = s } }
transform {
  PlanTestTransform {
    plugin_input = b
    plugin_output = a
  }
  plantesttransform { plugin_input = a, plugin_output = b }
}
sink { PlanTestSink { plugin_input = a } }`, 4,
			[]string{"in a cycle: transform PlanTestTransform, transform plantesttransform"}},
		{"reads its own output", "source { PlanTestSource {} }\ntransform {\n  PlanTestTransform { plugin_input = a, plugin_output = a }\n}\nsink { PlanTestSink {} }", 3,
			[]string{"transform PlanTestTransform", "its own output"}},
		{"source plain error", "source {\n  PlanTestSource {\n    fail = plain\n  }\n}\nsink { PlanTestSink {} }", 2,
			[]string{"job.conf:2:3: source PlanTestSource: cannot connect to the thing"}},
		{"source placed error", "source {\n  PlanTestSource {\n    fail = placed\n  }\n}\nsink { PlanTestSink {} }", 3,
			[]string{`job.conf:3:12: source PlanTestSource: option "fail": placed failure`}},
		{"source wrapped error", "source {\n  PlanTestSource {\n    fail = wrapped\n  }\n}\nsink { PlanTestSink {} }", 3,
			[]string{`while creating: job.conf:3:12: source PlanTestSource: option "fail": wrapped failure`}},
		{"transform plain error", "source { PlanTestSource {} }\ntransform {\n  PlanTestTransform { fail = plain }\n}\nsink { PlanTestSink {} }", 3,
			[]string{"job.conf:3:3: transform PlanTestTransform: cannot connect"}},
		{"sink plain error", "source { PlanTestSource {} }\nsink {\n  PlanTestSink { fail = plain }\n}", 3,
			[]string{"job.conf:3:3: sink PlanTestSink: cannot connect"}},
		{"sink placed error", "source { PlanTestSource {} }\nsink {\n  PlanTestSink {\n    fail = placed }\n}", 4,
			[]string{`job.conf:4:12: sink PlanTestSink: option "fail": placed failure`}},
		{"source without tables", "source {\n  PlanTestEmptySource {}\n}\nsink { PlanTestSink {} }", 2,
			[]string{"source PlanTestEmptySource", "no table"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := buildErr(t, tt.src)
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.wants)
			}
			t.Log(err)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %q is not a *config.Error", err, err)
			}
			msg := err.Error()
			if ce.Pos.Line != tt.line || !strings.Contains(msg, "job.conf:"+strconv.Itoa(tt.line)+":") {
				t.Errorf("error %q is at line %d, want %d", msg, ce.Pos.Line, tt.line)
			}
			if strings.Count(msg, "job.conf:") != 1 {
				t.Errorf("error %q names the file more than once", msg)
			}
			for _, w := range tt.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestPipelinesAndChains(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		pipelines int
		chains    []string
		channels  []string // "from->to partitioning" of the edges between chains
	}{
		{"one chain", `
source { PlanTestSource {} }
transform { PlanTestTransform {} }
sink { PlanTestSink {} }`, 1,
			[]string{"0/p1 x1: Source[0]-PlanTestSource -> Transform[0]-PlanTestTransform -> Sink[0]-PlanTestSink"}, nil},
		{"same parallelism everywhere fuses", `
env { parallelism = 4 }
source { PlanTestSource { parallelism = 4 } }
sink { PlanTestSink {} }`, 1,
			[]string{"0/p1 x4: Source[0]-PlanTestSource -> Sink[0]-PlanTestSink"}, nil},
		{"sink parallelism differs", `
env { parallelism = 2 }
source { PlanTestSource {} }
sink { PlanTestSink { parallelism = 3 } }`, 1,
			[]string{"0/p1 x2: Source[0]-PlanTestSource", "1/p1 x3: Sink[0]-PlanTestSink"},
			[]string{"Source[0]-PlanTestSource->Sink[0]-PlanTestSink rebalance"}},
		{"transform parallelism differs", `
source { PlanTestSource {} }
transform { PlanTestTransform { parallelism = 2 } }
sink { PlanTestSink { parallelism = 2 } }`, 1,
			[]string{"0/p1 x1: Source[0]-PlanTestSource", "1/p1 x2: Transform[0]-PlanTestTransform -> Sink[0]-PlanTestSink"},
			[]string{"Source[0]-PlanTestSource->Transform[0]-PlanTestTransform rebalance"}},
		{"two independent pairs", `
source {
  PlanTestSource { plugin_output = a }
  PlanTestStrictSource { n = 1, plugin_output = b }
}
sink {
  PlanTestSink { plugin_input = b }
  plantestsink { plugin_input = a }
}`, 2,
			[]string{"0/p1 x1: Source[0]-PlanTestSource -> Sink[1]-PlanTestSink", "1/p2 x1: Source[1]-PlanTestStrictSource -> Sink[0]-PlanTestSink"}, nil},
		{"multi-input vertex starts its own chain", `
source {
  PlanTestSource { plugin_output = a }
  PlanTestStrictSource { n = 1, plugin_output = b }
}
sink { PlanTestSink { plugin_input = [a, b] } }`, 1,
			[]string{"0/p1 x1: Source[0]-PlanTestSource", "1/p1 x1: Source[1]-PlanTestStrictSource", "2/p1 x1: Sink[0]-PlanTestSink"},
			[]string{"Source[0]-PlanTestSource->Sink[0]-PlanTestSink forward", "Source[1]-PlanTestStrictSource->Sink[0]-PlanTestSink forward"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.src)
			if len(p.Pipelines) != tt.pipelines {
				t.Errorf("%d pipelines, want %d:\n%s", len(p.Pipelines), tt.pipelines, p)
			}
			if got := chains(p); !reflect.DeepEqual(got, tt.chains) {
				t.Errorf("chains\n got %q\nwant %q", got, tt.chains)
			}
			var channels []string
			for _, pl := range p.Pipelines {
				for _, e := range pl.Edges {
					channels = append(channels, fmt.Sprintf("%s->%s %s", e.From.Name, e.To.Name, e.Partitioning))
				}
			}
			if !reflect.DeepEqual(channels, tt.channels) {
				t.Errorf("channel edges\n got %q\nwant %q", channels, tt.channels)
			}
			// Every vertex is in exactly one chain of its own pipeline,
			// and chain heads come first.
			for i, pl := range p.Pipelines {
				if pl.ID != i+1 {
					t.Errorf("pipeline %d has ID %d", i, pl.ID)
				}
				for _, c := range pl.Chains {
					if c.Vertices[0] != c.Head || c.Pipeline != pl {
						t.Errorf("chain %d: head %s, pipeline %d", c.ID, c.Head.Name, c.Pipeline.ID)
					}
					for _, v := range c.Vertices {
						if v.Chain != c || v.Pipeline != pl {
							t.Errorf("%s is not in chain %d / pipeline %d", v.Name, c.ID, pl.ID)
						}
					}
				}
				if len(pl.Sources()) == 0 || len(pl.Sinks()) == 0 {
					t.Errorf("pipeline %d: %d sources, %d sinks", pl.ID, len(pl.Sources()), len(pl.Sinks()))
				}
			}
			for _, e := range p.Edges {
				if e.Channel() != (e.From.Chain != e.To.Chain) {
					t.Errorf("edge %d: Channel() = %v", e.ID, e.Channel())
				}
				if !e.Channel() && e.Partitioning != plan.Forward {
					t.Errorf("fused edge %d is %s", e.ID, e.Partitioning)
				}
			}
		})
	}
}

func TestParallelism(t *testing.T) {
	created = nil
	p := build(t, `
env { parallelism = 3 }
source { PlanTestSource { parallelism = 2 } }
sink { PlanTestSink {} }`)
	if p.Vertices[0].Parallelism != 2 || p.Vertices[1].Parallelism != 3 || p.JobCtx.Parallelism != 3 {
		t.Errorf("parallelism source %d sink %d job %d; want 2, 3, 3", p.Vertices[0].Parallelism, p.Vertices[1].Parallelism, p.JobCtx.Parallelism)
	}
	if want := []string{"source PlanTestSource x2", "sink PlanTestSink x3"}; !reflect.DeepEqual(created, want) {
		t.Errorf("factories saw %q, want %q", created, want)
	}
	if p.Edges[0].Partitioning != plan.Rebalance {
		t.Errorf("edge is %s, want rebalance", p.Edges[0].Partitioning)
	}
}

func TestDeterministic(t *testing.T) {
	src := `
env { parallelism = 2 }
source {
  PlanTestSource { plugin_output = a }
  PlanTestStrictSource { n = 1, plugin_output = b }
  plantestsource { plugin_output = c, parallelism = 1 }
}
transform {
  PlanTestTransform { plugin_input = [a, b], plugin_output = ab }
  plantesttransform { plugin_input = c, plugin_output = c2, parallelism = 2 }
}
sink {
  PlanTestSink { plugin_input = ab }
  plantestsink { plugin_input = [c2, a], parallelism = 4 }
}`
	first := build(t, src)
	for i := 0; i < 20; i++ {
		again := build(t, src)
		if again.String() != first.String() || !reflect.DeepEqual(chains(again), chains(first)) || !reflect.DeepEqual(edges(again), edges(first)) {
			t.Fatalf("plan %d differs:\n%s\nfirst:\n%s", i, again, first)
		}
	}
	if !strings.Contains(first.String(), "pipeline 1\n") || !strings.Contains(first.String(), "rebalance") {
		t.Errorf("String() =\n%s", first)
	}
}

func TestWarnings(t *testing.T) {
	p := build(t, `env {
  spark.app.name = x
}
source {
  PlanTestSource { plugin_output = a, colour = red }
  PlanTestStrictSource { n = 1, plugin_output = unused }
}
sink {
  PlanTestSink { plugin_input = a, plugin_output = z }
}`)
	want := []string{
		`job.conf:2:3: env: unknown option "spark" is ignored`,
		`job.conf:5:39: source PlanTestSource: unknown option "colour" is ignored`,
		`job.conf:9:3: sink PlanTestSink: plugin_output on a sink is ignored`,
		`job.conf:6:3: source PlanTestStrictSource: its output goes to no sink`,
	}
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
}

// TestSourceWarnings: what a source's Resolve warns of (Warnf) is the
// plan's, placed at the option's value.
func TestSourceWarnings(t *testing.T) {
	p := build(t, `source {
  PlanTestWarnSource { files = "/data" }
}
sink {
  PlanTestSink {}
}`)
	want := []string{
		`job.conf:2:32: source PlanTestWarnSource: files: file a is odd`,
		`job.conf:2:32: source PlanTestWarnSource: files: file b is odd`,
	}
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
}

// A job's shape is bounded: more parallelism than MaxParallelism is an
// error naming the plugin and the option.
func TestShapeLimits(t *testing.T) {
	_, err := buildErr(t, fmt.Sprintf(`
source { FakeSource { parallelism = %d, schema = { fields { id = bigint } } } }
sink { Console {} }`, plan.MaxParallelism+1))
	if err == nil || !strings.Contains(err.Error(), "parallelism") || !strings.Contains(err.Error(), "source FakeSource") {
		t.Fatalf("parallelism past the limit: %v", err)
	}
}

// multi_table_sink_replica, SeaTunnel's sink common option, is not an
// unknown option on a sink that does not run replicas: 1 is silent, more
// is a warning that it is ignored, less is an error.
func TestSinkReplicaOption(t *testing.T) {
	job := func(n string) string {
		return "source {\n  PlanTestSource {}\n}\nsink {\n  PlanTestSink { multi_table_sink_replica = " + n + " }\n}"
	}
	if p := build(t, job("1")); len(p.Warnings) != 0 {
		t.Errorf("multi_table_sink_replica = 1: warnings %v", p.Warnings)
	}
	p := build(t, job("2"))
	want := []string{`job.conf:5:45: sink PlanTestSink: multi_table_sink_replica: 2 is ignored: PlanTestSink runs one writer of each table in a subtask (raise parallelism for more writers)`}
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("multi_table_sink_replica = 2: warnings\n got %q\nwant %q", got, want)
	}
	if _, err := buildErr(t, job("0")); err == nil || !strings.Contains(err.Error(), `option "multi_table_sink_replica": must be at least 1, got 0`) {
		t.Errorf("multi_table_sink_replica = 0: %v", err)
	}
}
