package httpapi

import (
	"github.com/stactor/stactor/messages"
)

// vertexMetrics are one vertex's figures in /job-info's metrics, summed
// over its subtasks (messages.VertexMetrics): its identity as in jobDag,
// its counts in SeaTunnel's style. ReceivedCount are the rows that entered
// the vertex (a source's reads, a transform's input, a sink's writes),
// EmittedCount those it passed on (none for a sink). Bytes are counted
// where rows enter the engine (a source's EmittedBytes) and leave it (a
// sink's ReceivedBytes) and left out elsewhere. BackPressuredTimeMs is
// the time its subtasks' outputs held batches for lack of credit, summed;
// BackPressuredTimeMsPerSecond the largest share of that among its
// subtasks over their last reporting interval (0..1000, Flink's
// figure), 0 for a job that is not running.
type vertexMetrics struct {
	VertexID                     int32   `json:"vertexId"`
	VertexName                   string  `json:"vertexName"`
	Type                         string  `json:"type"`
	Parallelism                  int32   `json:"parallelism"`
	PipelineID                   int32   `json:"pipelineId"`
	Subtasks                     int32   `json:"subtasks"` // subtasks that reported
	ReceivedCount                int64   `json:"ReceivedCount"`
	EmittedCount                 int64   `json:"EmittedCount"`
	ReceivedBytes                int64   `json:"ReceivedBytes,omitempty"`
	EmittedBytes                 int64   `json:"EmittedBytes,omitempty"`
	BackPressuredTimeMs          int64   `json:"BackPressuredTimeMs"`
	BackPressuredTimeMsPerSecond float64 `json:"BackPressuredTimeMsPerSecond"`
}

// verticesOf is m's vertices as the API shows them; nil when m has none.
func verticesOf(m *messages.JobMetrics) []vertexMetrics {
	if m == nil || len(m.Vertices) == 0 {
		return nil
	}
	out := make([]vertexMetrics, 0, len(m.Vertices))
	for _, v := range m.Vertices {
		out = append(out, vertexMetrics{VertexID: v.Vertex, VertexName: v.Name, Type: v.Type, Parallelism: v.Parallelism,
			PipelineID: v.Pipeline, Subtasks: v.Subtasks, ReceivedCount: v.RowsIn, EmittedCount: v.RowsOut,
			ReceivedBytes: v.BytesIn, EmittedBytes: v.BytesOut, BackPressuredTimeMs: v.BackpressuredMs,
			BackPressuredTimeMsPerSecond: v.BackpressuredMsPerSecond})
	}
	return out
}
