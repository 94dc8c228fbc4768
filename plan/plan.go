package plan

import (
	"fmt"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// VertexKind is a vertex's role.
type VertexKind int

// The vertex kinds.
const (
	SourceVertex VertexKind = iota
	TransformVertex
	SinkVertex
)

func (k VertexKind) String() string { return [...]string{"source", "transform", "sink"}[k] }

// Partitioning says how an edge routes batches between subtasks.
type Partitioning int

// The partitionings.
const (
	// Forward sends subtask i's output to subtask i (equal parallelism).
	Forward Partitioning = iota
	// Rebalance spreads batches over the downstream subtasks that have
	// credit.
	Rebalance
)

func (p Partitioning) String() string { return [...]string{"forward", "rebalance"}[p] }

// Vertex is one plugin of the job.
type Vertex struct {
	ID          int
	Kind        VertexKind
	Plugin      *config.Plugin
	Config      *config.PluginConfig
	Parallelism int
	Name        string // "Source[0]-FakeSource", as SeaTunnel names vertices

	// OutTables are the tables the vertex emits (sources, transforms);
	// InTables the tables it receives (transforms, sinks).
	InTables  []*row.Schema
	OutTables []*row.Schema

	sourceFactory    connectors.SourceFactory
	transformFactory connectors.TransformFactory
	sinkFactory      connectors.SinkFactory
	// Source and Sink are the plan-time instances (the JobMaster uses them
	// for enumerators and committers); subtasks make their own.
	Source connectors.Source
	Sink   connectors.Sink
	// evolves: a transform whose instances follow schema changes
	// (connectors.SchemaEvolver), found when the plan is built.
	evolves bool
	// Resolved is what the source's or sink's Resolve returned, on the
	// master; every node creates its instances from it.
	Resolved []byte

	In  []*Edge
	Out []*Edge

	Pipeline *Pipeline
	Chain    *Chain
	plan     *Plan
}

// Edge connects two vertices.
type Edge struct {
	ID           int
	From, To     *Vertex
	Partitioning Partitioning
}

// Channel tells whether the edge is a real channel (between chains).
func (e *Edge) Channel() bool { return e.From.Chain != e.To.Chain }

// Pipeline is a connected part of the DAG.
type Pipeline struct {
	ID       int
	Vertices []*Vertex
	Chains   []*Chain
	Edges    []*Edge // channel edges inside the pipeline
	plan     *Plan
}

// Chain is a run of fused vertices executed by one subtask per parallel
// instance: Head and the vertices fed from it by forward edges, in
// topological order (Vertices[0] == Head).
type Chain struct {
	ID          int
	Pipeline    *Pipeline
	Head        *Vertex
	Vertices    []*Vertex
	Parallelism int
	In          []*Edge // channel edges into the chain
	Out         []*Edge // channel edges out of the chain
}

// Name lists the chain's vertices.
func (c *Chain) Name() string {
	s := ""
	for i, v := range c.Vertices {
		if i > 0 {
			s += " -> "
		}
		s += v.Name
	}
	return s
}

// Plan is a job's plan.
type Plan struct {
	JobID     string
	Job       *config.Job
	JobCtx    connectors.JobContext
	Vertices  []*Vertex
	Edges     []*Edge
	Pipelines []*Pipeline
	Chains    []*Chain
	Warnings  []config.Warning
	// Resolved is the plan in the form the master ships (DESIGN §2):
	// FromResolved rebuilds this plan from it on any node.
	Resolved *messages.ResolvedJob
}

// Sources are the pipeline's source vertices.
func (p *Pipeline) Sources() []*Vertex {
	var out []*Vertex
	for _, v := range p.Vertices {
		if v.Kind == SourceVertex {
			out = append(out, v)
		}
	}
	return out
}

// Sinks are the pipeline's sink vertices.
func (p *Pipeline) Sinks() []*Vertex {
	var out []*Vertex
	for _, v := range p.Vertices {
		if v.Kind == SinkVertex {
			out = append(out, v)
		}
	}
	return out
}

// NewSource makes a fresh Source instance for a subtask (no I/O).
func (v *Vertex) NewSource() (connectors.Source, error) {
	return v.sourceFactory.Create(v.Config, v.Resolved, v.jobCtx())
}

// NewTransform makes a fresh Transform for a subtask, for input table t.
func (v *Vertex) NewTransform(t *row.Schema) (connectors.Transform, error) {
	return v.transformFactory.Create(v.Config, t)
}

// NewSink makes a fresh Sink instance for a subtask (no I/O).
func (v *Vertex) NewSink() (connectors.Sink, error) {
	return v.sinkFactory.Create(v.Config, v.InTables, v.Resolved, v.jobCtx())
}

func (v *Vertex) jobCtx() connectors.JobContext {
	return connectors.JobContext{JobID: v.plan.JobID, JobName: v.plan.Job.Name,
		Mode: connectors.JobMode(v.plan.Job.Mode), Parallelism: v.Parallelism, CheckpointInterval: v.plan.Job.CheckpointInterval}
}

// String describes the plan, one chain a line.
func (p *Plan) String() string {
	s := ""
	for _, pl := range p.Pipelines {
		s += fmt.Sprintf("pipeline %d\n", pl.ID)
		for _, c := range pl.Chains {
			s += fmt.Sprintf("  chain %d x%d: %s\n", c.ID, c.Parallelism, c.Name())
		}
		for _, e := range pl.Edges {
			s += fmt.Sprintf("  edge %d: %s -> %s (%s)\n", e.ID, e.From.Name, e.To.Name, e.Partitioning)
		}
	}
	return s
}
