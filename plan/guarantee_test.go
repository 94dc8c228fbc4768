package plan_test

import (
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	src := func(name string, d connectors.Delivery) {
		connectors.RegisterSource(connectors.SourceFactory{Name: name, Delivery: d,
			Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
				return &testSource{table: row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt})}, nil
			}})
	}
	src("GuaranteeReplayable", connectors.Replayable)
	src("GuaranteeLossy", connectors.Delivery{Summary: "none: forgets its position", Best: connectors.None})
	sink := func(name string, opts []config.Option, d connectors.Delivery) {
		connectors.RegisterSink(connectors.SinkFactory{Name: name, Options: opts, Delivery: d,
			Create: func(*config.PluginConfig, []*row.Schema, []byte, connectors.JobContext) (connectors.Sink, error) {
				return testSink{}, nil
			}})
	}
	sink("GuaranteeTwoPhase", []config.Option{{Key: "is_exactly_once", Type: config.TypeBool, Default: false}},
		connectors.Delivery{Summary: "exactly-once with is_exactly_once; else at-least-once", Best: connectors.ExactlyOnce,
			Of: func(cfg *config.PluginConfig, _ []*row.Schema) (connectors.Guarantee, string) {
				if cfg.Bool("is_exactly_once") {
					return connectors.ExactlyOnce, ""
				}
				return connectors.AtLeastOnce, "is_exactly_once is off"
			}})
	sink("GuaranteePrinter", nil, connectors.Delivery{Summary: "none: prints rows", Best: connectors.None})
}

func TestGuarantees(t *testing.T) {
	for _, c := range []struct {
		name, job string
		want      []string // per pipeline
		warn      string   // a warning containing this, or none about exactly-once
	}{
		{"two-phase on", `source { GuaranteeReplayable {} }
sink { GuaranteeTwoPhase { is_exactly_once = true } }`,
			[]string{"pipeline 1: exactly-once"}, ""},
		{"two-phase off", `source { GuaranteeReplayable {} }
sink { GuaranteeTwoPhase {} }`,
			[]string{"pipeline 1: at-least-once, limited by Sink[0]-GuaranteeTwoPhase: is_exactly_once is off"}, ""},
		{"lossy source", `source { GuaranteeLossy {} }
sink { GuaranteeTwoPhase { is_exactly_once = true } }`,
			[]string{"pipeline 1: none, limited by Source[0]-GuaranteeLossy: forgets its position"},
			"sink GuaranteeTwoPhase: is_exactly_once = true asks for exactly-once, but its source Source[0]-GuaranteeLossy gives none (forgets its position), so pipeline 1 gives none"},
		{"sink cannot", `source { GuaranteeReplayable {} }
sink { GuaranteePrinter { semantics = "EXACTLY_ONCE" } }`,
			[]string{"pipeline 1: none, limited by Sink[0]-GuaranteePrinter: prints rows"},
			`job.conf:2:39: sink GuaranteePrinter: semantics = EXACTLY_ONCE asks for exactly-once, but Sink[0]-GuaranteePrinter cannot honour it: it gives none (prints rows)`},
		{"false asks nothing", `source { GuaranteeReplayable {} }
sink { GuaranteePrinter { is_enable_transaction = false } }`,
			[]string{"pipeline 1: none, limited by Sink[0]-GuaranteePrinter: prints rows"}, ""},
		{"pipelines apart", `source {
  GuaranteeReplayable { plugin_output = "a" }
  GuaranteeLossy { plugin_output = "b" }
}
sink {
  GuaranteeTwoPhase { plugin_input = "a", is_exactly_once = true }
  GuaranteeTwoPhase { plugin_input = "b" }
}`, []string{"pipeline 1: exactly-once", "pipeline 2: none, limited by Source[1]-GuaranteeLossy: forgets its position"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := build(t, c.job)
			var got []string
			for _, g := range p.Guarantees() {
				got = append(got, g.String())
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("guarantees:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			var found []string
			for _, w := range p.Warnings {
				if strings.Contains(w.Msg, "asks for exactly-once") {
					found = append(found, w.String())
				}
			}
			switch {
			case c.warn == "" && len(found) > 0:
				t.Fatalf("unexpected warnings: %q", found)
			case c.warn != "" && (len(found) != 1 || !strings.Contains(found[0], c.warn)):
				t.Fatalf("warnings %q, want one with %q", found, c.warn)
			}
		})
	}
}
