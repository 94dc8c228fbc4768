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
// figure), 0 for a job that is not running. The per-second figures are
// over the subtasks' last reporting interval (messages.JobMetrics), as
// `stactor top` and <prefix>.metrics.<job> have them: rates summed over
// the subtasks, Busy and Idle time (Flink's busyTimeMsPerSecond and
// idleTimeMsPerSecond) the largest among them.
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
	BusyTimeMsPerSecond          float64 `json:"BusyTimeMsPerSecond"`
	IdleTimeMsPerSecond          float64 `json:"IdleTimeMsPerSecond"`
	ReceivedCountPerSecond       float64 `json:"ReceivedCountPerSecond"`
	EmittedCountPerSecond        float64 `json:"EmittedCountPerSecond"`
	ReceivedBytesPerSecond       float64 `json:"ReceivedBytesPerSecond,omitempty"`
	EmittedBytesPerSecond        float64 `json:"EmittedBytesPerSecond,omitempty"`
}

// pipelineMetrics are a pipeline's state and the latest checkpoint it
// completed (or restored from) in its JobMaster's run.
type pipelineMetrics struct {
	PipelineID           int32  `json:"pipelineId"`
	State                string `json:"state"`
	Attempt              int32  `json:"attempt"`
	CheckpointsCompleted int64  `json:"checkpointsCompleted"`
	LastCheckpointID     int64  `json:"lastCheckpointId,omitempty"`
	LastCheckpointType   string `json:"lastCheckpointType,omitempty"`
	LastCheckpointTimeMs int64  `json:"lastCheckpointTimeMs,omitempty"`
	LastCheckpointMs     int64  `json:"lastCheckpointDurationMs,omitempty"`
	LastCheckpointBytes  int64  `json:"lastCheckpointSizeBytes,omitempty"`
	LastCheckpointBatch  int64  `json:"lastCheckpointChannelBatches,omitempty"`
}

// subtaskMetrics are one subtask's figures (messages.SubtaskMetrics):
// queues in batches.
type subtaskMetrics struct {
	PipelineID                   int32   `json:"pipelineId"`
	Attempt                      int32   `json:"attempt"`
	Chain                        int32   `json:"chain"`
	Subtask                      int32   `json:"subtask"`
	Name                         string  `json:"name"`
	State                        string  `json:"state"`
	ReceivedCount                int64   `json:"ReceivedCount"`
	EmittedCount                 int64   `json:"EmittedCount"`
	ReceivedCountPerSecond       float64 `json:"ReceivedCountPerSecond"`
	EmittedCountPerSecond        float64 `json:"EmittedCountPerSecond"`
	BusyTimeMsPerSecond          float64 `json:"BusyTimeMsPerSecond"`
	IdleTimeMsPerSecond          float64 `json:"IdleTimeMsPerSecond"`
	BackPressuredTimeMsPerSecond float64 `json:"BackPressuredTimeMsPerSecond"`
	InputQueue                   int64   `json:"inputQueueBatches"`
	OutputQueue                  int64   `json:"outputQueueBatches"`
	InFlight                     int64   `json:"inFlightBatches"`
}

// addMetrics puts m's per-vertex, per-pipeline and per-subtask figures
// and the job's rates into jm.
func addMetrics(jm *jobMetrics, m *messages.JobMetrics) {
	jm.VertexMetrics = verticesOf(m)
	jm.SourceReceivedQPS, jm.SinkWriteQPS = m.ReadRowsPerSecond, m.WriteRowsPerSecond
	for _, p := range m.Pipelines {
		jm.PipelineMetrics = append(jm.PipelineMetrics, pipelineMetrics{PipelineID: p.Pipeline, State: p.State, Attempt: p.Attempt,
			CheckpointsCompleted: p.CheckpointsCompleted, LastCheckpointID: p.LastCheckpointId, LastCheckpointType: p.LastCheckpointType,
			LastCheckpointTimeMs: p.LastCheckpointUnixMs, LastCheckpointMs: p.LastCheckpointDurationMs,
			LastCheckpointBytes: p.LastCheckpointSizeBytes, LastCheckpointBatch: p.LastCheckpointChannelBatches})
	}
	for _, s := range m.Subtasks {
		jm.SubtaskMetrics = append(jm.SubtaskMetrics, subtaskMetrics{PipelineID: s.Pipeline, Attempt: s.Attempt, Chain: s.Chain, Subtask: s.Subtask,
			Name: s.Name, State: s.State, ReceivedCount: s.RowsIn, EmittedCount: s.RowsOut,
			ReceivedCountPerSecond: s.RowsInPerSecond, EmittedCountPerSecond: s.RowsOutPerSecond,
			BusyTimeMsPerSecond: s.BusyMsPerSecond, IdleTimeMsPerSecond: s.IdleMsPerSecond, BackPressuredTimeMsPerSecond: s.BackpressuredMsPerSecond,
			InputQueue: s.InputQueue, OutputQueue: s.OutputQueue, InFlight: s.InFlight})
	}
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
			BackPressuredTimeMsPerSecond: v.BackpressuredMsPerSecond, BusyTimeMsPerSecond: v.BusyMsPerSecond, IdleTimeMsPerSecond: v.IdleMsPerSecond,
			ReceivedCountPerSecond: v.RowsInPerSecond, EmittedCountPerSecond: v.RowsOutPerSecond,
			ReceivedBytesPerSecond: v.BytesInPerSecond, EmittedBytesPerSecond: v.BytesOutPerSecond})
	}
	return out
}
