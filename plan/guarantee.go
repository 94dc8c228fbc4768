package plan

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
)

// PipelineGuarantee is what one pipeline of a job, as written, guarantees
// about delivery: the least of its sources' and sinks' declared
// guarantees (connectors.Delivery), and the connector that limits it.
type PipelineGuarantee struct {
	Pipeline  int
	Guarantee connectors.Guarantee
	// Limit is the weakest vertex (nil when every one gives
	// exactly-once); Why says why it gives no more, naming its options.
	Limit *Vertex
	Why   string
}

func (g PipelineGuarantee) String() string {
	if g.Limit == nil {
		return fmt.Sprintf("pipeline %d: %s", g.Pipeline, g.Guarantee)
	}
	return fmt.Sprintf("pipeline %d: %s, limited by %s: %s", g.Pipeline, g.Guarantee, g.Limit.Name, g.Why)
}

// Delivery is the vertex's guarantee with its options, and why it is not
// exactly-once. Transforms have no side effects: exactly-once.
func (v *Vertex) Delivery() (connectors.Guarantee, string) {
	var d connectors.Delivery
	switch v.Kind {
	case SourceVertex:
		d = v.sourceFactory.Delivery
	case SinkVertex:
		d = v.sinkFactory.Delivery
	default:
		return connectors.ExactlyOnce, ""
	}
	g, why := d.With(v.Config, v.InTables)
	if why == "" && g < connectors.ExactlyOnce {
		why = strings.TrimPrefix(d.Summary, g.String()+": ")
	}
	return g, why
}

// Guarantees are the job's pipelines' guarantees, in pipeline order. The
// first weakest vertex in file order is the one named.
func (p *Plan) Guarantees() []PipelineGuarantee {
	var out []PipelineGuarantee
	for _, pl := range p.Pipelines {
		g := PipelineGuarantee{Pipeline: pl.ID, Guarantee: connectors.ExactlyOnce}
		for _, v := range pl.Vertices {
			if vg, why := v.Delivery(); vg < g.Guarantee {
				g.Guarantee, g.Limit, g.Why = vg, v, why
			}
		}
		out = append(out, g)
	}
	return out
}

// guaranteeWarnings warn about a sink whose options ask for exactly-once
// (is_exactly_once, semantics = EXACTLY_ONCE, ... in any connector's
// spelling) when the pipeline cannot give it: the sink cannot honour the
// option, or a source of its pipeline cannot replay.
func (p *Plan) guaranteeWarnings() []config.Warning {
	var out []config.Warning
	for _, pl := range p.Pipelines {
		for _, v := range pl.Sinks() {
			key, val, asks := connectors.AsksExactlyOnce(v.Config)
			if !asks {
				continue
			}
			pos := v.Plugin.Pos
			if at := v.Config.Lookup(key); at != nil {
				pos = at.Pos
			}
			if g, why := v.Delivery(); g < connectors.ExactlyOnce {
				out = append(out, config.Warning{Pos: pos, Msg: fmt.Sprintf("%s: %s = %s asks for exactly-once, but %s cannot honour it: it gives %s (%s)",
					v.Plugin.Where(), key, val, v.Name, g, why)})
				continue
			}
			for _, src := range pl.Sources() {
				if g, why := src.Delivery(); g < connectors.ExactlyOnce {
					out = append(out, config.Warning{Pos: pos, Msg: fmt.Sprintf("%s: %s = %s asks for exactly-once, but its source %s gives %s (%s), so pipeline %d gives %s",
						v.Plugin.Where(), key, val, src.Name, g, why, pl.ID, g)})
				}
			}
		}
	}
	return out
}
