package httpapi

import (
	"errors"
	"sort"
	"strconv"
	"sync"

	"github.com/rs/zerolog"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/storage"
)

// jobDag is a job's DAG in SeaTunnel's jobDag shape, with ours added:
// each vertex's parallelism, pipeline and chain (fused vertices share a
// chain and run as one subtask), and each edge's partitioning.
type jobDag struct {
	JobID         string                `json:"jobId"`
	JobMode       string                `json:"jobMode"`
	VertexInfoMap []vertexInfo          `json:"vertexInfoMap"`
	PipelineEdges map[string][]edgeInfo `json:"pipelineEdges"`
}

type vertexInfo struct {
	VertexID    int      `json:"vertexId"`
	Type        string   `json:"type"` // source, transform or sink
	VertexName  string   `json:"vertexName"`
	TablePaths  []string `json:"tablePaths"`
	Parallelism int      `json:"parallelism"`
	PipelineID  int      `json:"pipelineId"`
	ChainID     int      `json:"chainId"`
}

type edgeInfo struct {
	InputVertexID  int    `json:"inputVertexId"`
	TargetVertexID int    `json:"targetVertexId"`
	Partitioning   string `json:"partitioning"` // forward or rebalance
	// Fused edges are function calls inside one chain; the others are
	// channels (actor messages, or NATS between nodes).
	Fused bool `json:"fused"`
}

// dagOf describes p.
func dagOf(p *plan.Plan) *jobDag {
	d := &jobDag{JobID: p.JobID, JobMode: p.Job.Mode, VertexInfoMap: []vertexInfo{}, PipelineEdges: map[string][]edgeInfo{}}
	for _, v := range p.Vertices {
		tables := v.OutTables
		if v.Kind == plan.SinkVertex {
			tables = v.InTables
		}
		paths := []string{}
		for _, t := range tables {
			paths = append(paths, t.TableID)
		}
		d.VertexInfoMap = append(d.VertexInfoMap, vertexInfo{VertexID: v.ID, Type: v.Kind.String(), VertexName: v.Name,
			TablePaths: paths, Parallelism: v.Parallelism, PipelineID: v.Pipeline.ID, ChainID: v.Chain.ID})
	}
	edges := append([]*plan.Edge(nil), p.Edges...)
	sort.Slice(edges, func(a, b int) bool { return edges[a].ID < edges[b].ID })
	for _, e := range edges {
		key := strconv.Itoa(e.From.Pipeline.ID)
		d.PipelineEdges[key] = append(d.PipelineEdges[key], edgeInfo{InputVertexID: e.From.ID, TargetVertexID: e.To.ID,
			Partitioning: e.Partitioning.String(), Fused: !e.Channel()})
	}
	return d
}

// maxDags bounds the cache; past it, the cache starts again empty.
const maxDags = 512

// dagCache plans each job once, from the spec its JobMaster saved in the
// checkpoint storage: planning is deterministic, so this is the plan the
// job runs.
type dagCache struct {
	store Checkpoints
	log   zerolog.Logger
	mu    sync.Mutex         // guards dags
	dags  map[string]*jobDag // nil value: the job could not be planned here
}

func newDagCache(store Checkpoints, log zerolog.Logger) *dagCache {
	return &dagCache{store: store, log: log, dags: map[string]*jobDag{}}
}

// get is the job's DAG, or nil when its spec is not stored (yet) or it
// cannot be planned on this node.
func (c *dagCache) get(id string) *jobDag {
	c.mu.Lock()
	d, ok := c.dags[id]
	c.mu.Unlock()
	if ok {
		return d
	}
	spec, err := c.store.LoadJob(id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil // not saved yet: its JobMaster is starting
	}
	if err != nil {
		c.log.Warn().Err(err).Str("job", id).Msg("loading the job's spec for its DAG")
		return nil
	}
	d = c.plan(spec)
	c.mu.Lock()
	if len(c.dags) >= maxDags {
		clear(c.dags)
	}
	c.dags[id] = d
	c.mu.Unlock()
	return d
}

func (c *dagCache) plan(spec *messages.JobSpec) *jobDag {
	if spec.Resolved == nil {
		return nil // not resolved yet: no DAG to show
	}
	p, err := plan.FromResolved(spec.JobId, spec.File, spec.Name, spec.Resolved)
	if err != nil {
		c.log.Warn().Err(err).Str("job", spec.JobId).Msg("rebuilding the job's resolved plan for its DAG")
		return nil
	}
	return dagOf(p)
}
