package plan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Resolve plans a job once, on the master (DESIGN §2): it checks every
// plugin's options, runs each source's and sink's Resolve (which may do
// I/O, bounded by ctx), creates the plugins from what they resolved to
// derive and check the tables between them, wires them, and cuts
// pipelines and chains. The plan's Resolved is what the master ships.
// Errors are *config.Error with the position of the plugin or option at
// fault.
func Resolve(ctx context.Context, job *config.Job, jobID string) (*Plan, error) {
	p, err := build(job, jobID, func(v *Vertex) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("resolving %s: %w", v.Name, err)
		}
		switch {
		case v.Kind == SourceVertex && v.sourceFactory.Resolve != nil:
			return v.sourceFactory.Resolve(ctx, v.Config, v.jobCtx())
		case v.Kind == SinkVertex && v.sinkFactory.Resolve != nil:
			return v.sinkFactory.Resolve(ctx, v.Config, v.InTables, v.jobCtx())
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	if err := p.checkSchemaChanges(); err != nil {
		return nil, err
	}
	p.Resolved = p.encode()
	return p, nil
}

// Limits on a job's shape, so one request cannot exhaust the node that
// resolves it or the workers it is deployed to (DESIGN §11).
const (
	MaxParallelism = 1024 // per plugin
	MaxPlugins     = 512  // sources, transforms and sinks together
)

// sinkReplicaKey is SeaTunnel's sink common option: writers of each table
// per subtask. A sink that runs several declares it (Jdbc); any other takes
// it, and says it ignores a value above 1, rather than calling it unknown.
const sinkReplicaKey = "multi_table_sink_replica"

// build is the one way to plan: resolved gives a source's or sink's
// resolved form (by resolving it, or from a resolved plan).
func build(job *config.Job, jobID string, resolved func(v *Vertex) ([]byte, error)) (*Plan, error) {
	p := &Plan{JobID: jobID, Job: job, Warnings: append([]config.Warning(nil), job.Warnings...),
		JobCtx: connectors.JobContext{JobID: jobID, JobName: job.Name, Mode: connectors.JobMode(job.Mode), Parallelism: job.Parallelism,
			CheckpointInterval: job.CheckpointInterval}}

	// Vertices, in file order: sources, transforms, sinks.
	var plugins []*config.Plugin
	plugins = append(plugins, job.Sources...)
	plugins = append(plugins, job.Transforms...)
	plugins = append(plugins, job.Sinks...)
	outputs := map[string]*Vertex{}
	for _, pl := range plugins {
		v := &Vertex{ID: len(p.Vertices), Plugin: pl, Parallelism: pl.Parallelism, plan: p}
		if v.Parallelism == 0 {
			v.Parallelism = job.Parallelism
		}
		if v.Parallelism > MaxParallelism {
			return nil, &config.Error{Pos: pl.Pos, Where: pl.Where(), Key: "parallelism",
				Msg: fmt.Sprintf("parallelism %d is more than the %d a job may ask for", v.Parallelism, MaxParallelism)}
		}
		if len(plugins) > MaxPlugins {
			return nil, &config.Error{Pos: pl.Pos, Where: pl.Where(), Msg: fmt.Sprintf("the job has %d plugins, more than the %d a job may have", len(plugins), MaxPlugins)}
		}
		var opts []config.Option
		switch pl.Kind {
		case "source":
			v.Kind = SourceVertex
			f, err := connectors.LookupSource(pl.Name)
			if err != nil {
				return nil, &config.Error{Pos: pl.Pos, Where: pl.Where(), Msg: err.Error()}
			}
			v.sourceFactory, opts = f, f.Options
			v.Name = fmt.Sprintf("Source[%d]-%s", pl.Index, f.Name)
		case "transform":
			v.Kind = TransformVertex
			f, err := connectors.LookupTransform(pl.Name)
			if err != nil {
				return nil, &config.Error{Pos: pl.Pos, Where: pl.Where(), Msg: err.Error()}
			}
			v.transformFactory, opts = f, f.Options
			v.Name = fmt.Sprintf("Transform[%d]-%s", pl.Index, f.Name)
		default:
			v.Kind = SinkVertex
			f, err := connectors.LookupSink(pl.Name)
			if err != nil {
				return nil, &config.Error{Pos: pl.Pos, Where: pl.Where(), Msg: err.Error()}
			}
			v.sinkFactory, opts = f, f.Options
			v.Name = fmt.Sprintf("Sink[%d]-%s", pl.Index, f.Name)
		}
		common := config.CommonPluginOptions
		replicaOption := v.Kind == SinkVertex && !slices.ContainsFunc(opts, func(o config.Option) bool { return o.Key == sinkReplicaKey })
		if replicaOption {
			common = append(slices.Clip(common), config.Option{Key: sinkReplicaKey, Type: config.TypeInt, Default: int64(1)})
		}
		cfg, warns, err := config.Validate(job.File, pl.Where(), pl.Name, pl.Pos, pl.Body, opts, common)
		if err != nil {
			return nil, err
		}
		if replicaOption {
			if n := cfg.Int(sinkReplicaKey); n < 1 {
				return nil, cfg.Errorf(sinkReplicaKey, "must be at least 1, got %d", n)
			} else if n > 1 {
				cfg.Warnf(sinkReplicaKey, "%d is ignored: %s runs one writer of each table in a subtask (raise parallelism for more writers)", n, v.Plugin.Name)
			}
		}
		p.Warnings = append(p.Warnings, warns...)
		v.Config = cfg
		if pl.Output != "" {
			if v.Kind == SinkVertex {
				p.Warnings = append(p.Warnings, config.Warning{Pos: pl.Pos, Msg: pl.Where() + ": plugin_output on a sink is ignored"})
			} else if prev, dup := outputs[pl.Output]; dup {
				return nil, cfg.Errorf("plugin_output", "table name %q is already the output of %s", pl.Output, prev.Plugin.Where())
			} else {
				outputs[pl.Output] = v
			}
		}
		p.Vertices = append(p.Vertices, v)
	}

	// Edges: plugin_input names, or by default the previous plugin.
	var sources []*Vertex
	var lastTransform *Vertex
	for _, v := range p.Vertices {
		if v.Kind == SourceVertex {
			sources = append(sources, v)
			continue
		}
		var ups []*Vertex
		if v.Plugin.Inputs != nil {
			for _, name := range v.Plugin.Inputs {
				up, ok := outputs[name]
				if !ok {
					known := "none"
					if len(outputs) > 0 {
						known = strings.Join(sortedNames(outputs), ", ")
					}
					return nil, v.Config.Errorf("plugin_input", "no plugin has plugin_output = %q (known: %s)", name, known)
				}
				if up == v {
					return nil, v.Config.Errorf("plugin_input", "the plugin reads its own output %q", name)
				}
				ups = append(ups, up)
			}
		} else if lastTransform != nil {
			ups = []*Vertex{lastTransform}
		} else {
			ups = sources
		}
		for _, up := range ups {
			e := &Edge{ID: len(p.Edges), From: up, To: v}
			up.Out = append(up.Out, e)
			v.In = append(v.In, e)
			p.Edges = append(p.Edges, e)
		}
		if v.Kind == TransformVertex {
			lastTransform = v
		}
	}

	order, err := topoOrder(p.Vertices)
	if err != nil {
		return nil, err
	}

	// Schemas, in topological order: create every plugin once at plan time.
	for _, v := range order {
		for _, e := range v.In {
			v.InTables = appendTables(v.InTables, e.From.OutTables)
		}
		switch v.Kind {
		case SourceVertex:
			res, err := resolved(v)
			if err != nil {
				return nil, positioned(v, err)
			}
			v.Resolved = res
			src, err := v.sourceFactory.Create(v.Config, res, v.jobCtx())
			if err != nil {
				return nil, positioned(v, err)
			}
			v.Source = src
			v.OutTables = src.Tables()
			if len(v.OutTables) == 0 {
				return nil, &config.Error{Pos: v.Plugin.Pos, Where: v.Plugin.Where(), Msg: "the source produces no table"}
			}
		case TransformVertex:
			v.evolves = true
			for _, t := range v.InTables {
				tr, err := v.transformFactory.Create(v.Config, t)
				if err != nil {
					return nil, positioned(v, err)
				}
				if _, ok := tr.(connectors.SchemaEvolver); !ok {
					v.evolves = false
				}
				v.OutTables = append(v.OutTables, tr.OutputSchema())
				if c, ok := tr.(connectors.TransformCloser); ok {
					_ = c.Close()
				}
			}
		case SinkVertex:
			res, err := resolved(v)
			if err != nil {
				return nil, positioned(v, err)
			}
			v.Resolved = res
			snk, err := v.sinkFactory.Create(v.Config, v.InTables, res, v.jobCtx())
			if err != nil {
				return nil, positioned(v, err)
			}
			v.Sink = snk
		}
		p.Warnings = append(p.Warnings, v.Config.Warnings()...)
		if v.Kind != SinkVertex && len(v.Out) == 0 {
			p.Warnings = append(p.Warnings, config.Warning{Pos: v.Plugin.Pos, Msg: v.Plugin.Where() + ": its output goes to no sink"})
		}
	}
	for _, e := range p.Edges {
		if e.From.Parallelism == e.To.Parallelism {
			e.Partitioning = Forward
		} else {
			e.Partitioning = Rebalance
		}
	}
	p.cut(order)
	p.Warnings = append(p.Warnings, p.guaranteeWarnings()...)
	return p, nil
}

func appendTables(dst, src []*row.Schema) []*row.Schema {
	for _, t := range src {
		dup := false
		for _, d := range dst {
			if d == t {
				dup = true
			}
		}
		if !dup {
			dst = append(dst, t)
		}
	}
	return dst
}

// positioned gives a factory's plain error the plugin's position; an error
// that already carries one (even wrapped) is left as it is.
func positioned(v *Vertex, err error) error {
	var ce *config.Error
	if errors.As(err, &ce) {
		return err
	}
	return &config.Error{Pos: v.Plugin.Pos, Where: v.Plugin.Where(), Msg: err.Error()}
}

func sortedNames(m map[string]*Vertex) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// topoOrder sorts vertices so every edge goes forward; a cycle is an error
// naming the plugins on it.
func topoOrder(vs []*Vertex) ([]*Vertex, error) {
	indeg := make(map[*Vertex]int, len(vs))
	for _, v := range vs {
		indeg[v] = len(v.In)
	}
	var order, ready []*Vertex
	for _, v := range vs {
		if indeg[v] == 0 {
			ready = append(ready, v)
		}
	}
	for len(ready) > 0 {
		v := ready[0]
		ready = ready[1:]
		order = append(order, v)
		for _, e := range v.Out {
			indeg[e.To]--
			if indeg[e.To] == 0 {
				ready = append(ready, e.To)
			}
		}
	}
	if len(order) == len(vs) {
		return order, nil
	}
	// Left are the cycles and what is downstream of them; drop the latter
	// (vertices none of whose outputs lead back into what is left).
	left := map[*Vertex]bool{}
	for _, v := range vs {
		left[v] = indeg[v] > 0
	}
	for pruned := true; pruned; {
		pruned = false
		for _, v := range vs {
			if !left[v] {
				continue
			}
			feeds := false
			for _, e := range v.Out {
				feeds = feeds || left[e.To]
			}
			if !feeds {
				left[v], pruned = false, true
			}
		}
	}
	var cyc []string
	var first *Vertex
	for _, v := range vs {
		if left[v] {
			cyc = append(cyc, v.Plugin.Where())
			if first == nil {
				first = v
			}
		}
	}
	return nil, first.Config.Errorf("plugin_input", "plugins read each other's output in a cycle: %s", strings.Join(cyc, ", "))
}

// cut splits the DAG into pipelines and chains.
func (p *Plan) cut(order []*Vertex) {
	// Pipelines: connected parts, numbered by their first vertex.
	comp := map[*Vertex]*Pipeline{}
	var visit func(v *Vertex, pl *Pipeline)
	visit = func(v *Vertex, pl *Pipeline) {
		if comp[v] != nil {
			return
		}
		comp[v] = pl
		for _, e := range v.In {
			visit(e.From, pl)
		}
		for _, e := range v.Out {
			visit(e.To, pl)
		}
	}
	for _, v := range p.Vertices {
		if comp[v] == nil {
			pl := &Pipeline{ID: len(p.Pipelines) + 1, plan: p}
			p.Pipelines = append(p.Pipelines, pl)
			visit(v, pl)
		}
	}
	for _, v := range order {
		pl := comp[v]
		v.Pipeline = pl
		pl.Vertices = append(pl.Vertices, v)
		// Fuse: a single forward input joins the upstream's chain.
		if len(v.In) == 1 && v.In[0].Partitioning == Forward && v.Kind != SourceVertex {
			c := v.In[0].From.Chain
			v.Chain = c
			c.Vertices = append(c.Vertices, v)
			continue
		}
		c := &Chain{ID: len(p.Chains), Pipeline: pl, Head: v, Vertices: []*Vertex{v}, Parallelism: v.Parallelism}
		v.Chain = c
		p.Chains = append(p.Chains, c)
		pl.Chains = append(pl.Chains, c)
	}
	for _, e := range p.Edges {
		if e.Channel() {
			e.From.Chain.Out = append(e.From.Chain.Out, e)
			e.To.Chain.In = append(e.To.Chain.In, e)
			e.From.Pipeline.Edges = append(e.From.Pipeline.Edges, e)
		}
	}
}
