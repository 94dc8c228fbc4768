package plan_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// A source that emits schema changes with `changes = true`, a transform
// that follows them and a sink that applies them unless `exactly = true`.
func init() {
	connectors.RegisterSource(connectors.SourceFactory{Name: "SchemaChangeTestSource",
		Options: []config.Option{{Key: "changes", Type: config.TypeBool, Default: false}},
		Create: func(cfg *config.PluginConfig, _ []byte, _ connectors.JobContext) (connectors.Source, error) {
			return &changingSource{testSource{table: row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt})}, cfg.Bool("changes")}, nil
		}})
	connectors.RegisterTransform(connectors.TransformFactory{Name: "SchemaChangeTestEvolver",
		Create: func(_ *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
			return &evolver{testTransform{out: input}}, nil
		}})
	connectors.RegisterSink(connectors.SinkFactory{Name: "SchemaChangeTestSink",
		Options: []config.Option{{Key: "exactly", Type: config.TypeBool, Default: false}},
		Create: func(cfg *config.PluginConfig, _ []*row.Schema, _ []byte, _ connectors.JobContext) (connectors.Sink, error) {
			return applyingSink{exactly: cfg.Bool("exactly")}, nil
		}})
}

type changingSource struct {
	testSource
	changes bool
}

func (s *changingSource) EmitsSchemaChanges() (bool, string) { return s.changes, "changes" }

type evolver struct{ testTransform }

func (*evolver) EvolvesWithSchema() {}

type applyingSink struct {
	testSink
	exactly bool
}

func (s applyingSink) SchemaChanges() error {
	if s.exactly {
		return errors.New("exactly = true")
	}
	return nil
}

var (
	_ connectors.SchemaChangeSource = (*changingSource)(nil)
	_ connectors.SchemaEvolver      = (*evolver)(nil)
	_ connectors.SchemaChangeSink   = applyingSink{}
)

// TestSchemaChangeCheck: a source that emits schema changes into an
// operator that cannot follow them is refused when the job is resolved,
// naming the source's option, the operator and where both are.
func TestSchemaChangeCheck(t *testing.T) {
	for _, c := range []struct{ name, job, want string }{
		{"applies", `source { SchemaChangeTestSource { changes = true } }
sink { SchemaChangeTestSink {} }`, ""},
		{"through an evolver", `source { SchemaChangeTestSource { changes = true } }
transform { SchemaChangeTestEvolver {} }
sink { SchemaChangeTestSink {} }`, ""},
		{"no changes", `source { SchemaChangeTestSource {} }
transform { PlanTestTransform {} }
sink { PlanTestSink {} }`, ""},
		{"sink options", `source { SchemaChangeTestSource { changes = true } }
sink { SchemaChangeTestSink { exactly = true } }`,
			`job.conf:1:45: source SchemaChangeTestSource: option "changes": true makes the source emit its tables' ALTER TABLE, which sink SchemaChangeTestSink (line 2) cannot follow: exactly = true; set changes = false or change sink SchemaChangeTestSink`},
		{"sink without support", `source { SchemaChangeTestSource { changes = true } }
transform { SchemaChangeTestEvolver {} }
sink {
  SchemaChangeTestSink {}
  PlanTestSink {}
}`, "which sink PlanTestSink (line 5) cannot follow: the sink cannot apply schema changes (Jdbc can)"},
		{"transform", `source { SchemaChangeTestSource { changes = true } }
transform { PlanTestTransform {} }
sink { SchemaChangeTestSink {} }`, "which transform PlanTestTransform (line 2) cannot follow: the transform does not follow schema changes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildErr(t, c.job)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			var ce *config.Error
			if err != nil && !errors.As(err, &ce) {
				t.Errorf("error %v is not a *config.Error", err)
			}
		})
	}
}

// Evolved names a schema-changing source's tables whose columns differ
// from the plan a job was resolved with; other sources' and unchanged
// tables are not named.
func TestEvolved(t *testing.T) {
	for _, c := range []struct {
		name, changes string
		altered       bool
		want          string
	}{
		{"altered", "true", true, "Source[0]-SchemaChangeTestSource: t"},
		{"unchanged", "true", false, ""},
		{"no schema changes", "false", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fresh := build(t, `source { SchemaChangeTestSource { changes = `+c.changes+` } }
sink { SchemaChangeTestSink {} }`)
			stored := proto.Clone(fresh.Resolved).(*messages.ResolvedJob)
			if c.altered {
				for _, rv := range stored.Vertices {
					if len(rv.OutTables) > 0 && strings.Contains(rv.Name, "Source") {
						rv.OutTables[0] = row.EncodeSchema(row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "gone", Type: row.String}))
					}
				}
			}
			got, err := plan.Evolved(stored, fresh)
			if err != nil || strings.Join(got, ", ") != c.want {
				t.Fatalf("Evolved: %v (%v), want %q", got, err, c.want)
			}
		})
	}
}
