package httpapi

import (
	"sort"
	"strings"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/messages"
)

// diagnosisInfo is a checkpoint's diagnosis in /job-checkpoints/{jobId}
// (DESIGN §9; checkpoint.Diagnose): the vertex that delayed it most and
// why, each subtask's part and each sink's commit. Times are
// milliseconds; barrierMs and ackMs are after the trigger.
type diagnosisInfo struct {
	Slow      bool           `json:"slow"`
	CommitMs  float64        `json:"commitMs"`
	DelayedBy *delayInfo     `json:"delayedBy"`
	Subtasks  []subtaskPart  `json:"subtasks"`
	Commits   []commitTiming `json:"commits"`
}

type delayInfo struct {
	Vertex  string  `json:"vertex"`
	Subtask int     `json:"subtask"` // -1: a sink's commit
	Reason  string  `json:"reason"`  // waiting for barriers, writing state, committing
	Ms      float64 `json:"ms"`
	Detail  string  `json:"detail"`
}

type subtaskPart struct {
	Vertex         string  `json:"vertex"` // the chain's vertices
	Subtask        int     `json:"subtask"`
	BarrierMs      float64 `json:"barrierMs"`
	SnapshotMs     float64 `json:"snapshotMs"`
	AlignmentMs    float64 `json:"alignmentMs"`
	StateWriteMs   float64 `json:"stateWriteMs"`
	AckMs          float64 `json:"ackMs"`
	StateBytes     int64   `json:"stateBytes"`
	ChannelBatches int64   `json:"channelBatches"`
	ChannelBytes   int64   `json:"channelBytes"`
}

type commitTiming struct {
	Vertex string  `json:"vertex"`
	Ms     float64 `json:"ms"`
}

// topologyOf is the diagnosis's view of a job's DAG (nil: names unknown).
func topologyOf(d *jobDag) checkpoint.Topology {
	t := checkpoint.Topology{Vertices: map[int]string{}, Chains: map[int]string{}, Upstream: map[int][]int{}}
	if d == nil {
		return t
	}
	vs := append([]vertexInfo(nil), d.VertexInfoMap...)
	sort.Slice(vs, func(a, b int) bool { return vs[a].VertexID < vs[b].VertexID })
	chainOf := map[int]int{}
	names := map[int][]string{}
	for _, v := range vs {
		t.Vertices[v.VertexID] = v.VertexName
		chainOf[v.VertexID] = v.ChainID
		names[v.ChainID] = append(names[v.ChainID], v.VertexName)
	}
	for c, ns := range names {
		t.Chains[c] = strings.Join(ns, " -> ")
	}
	for _, es := range d.PipelineEdges {
		for _, e := range es {
			if !e.Fused {
				to := chainOf[e.TargetVertexID]
				t.Upstream[to] = append(t.Upstream[to], chainOf[e.InputVertexID])
			}
		}
	}
	return t
}

func ms(d interface{ Microseconds() int64 }) float64 { return float64(d.Microseconds()) / 1000 }

// diagnoses are the job's checkpoints' diagnoses, in cps's order.
func (h *Handler) diagnoses(jobID string, cps []*messages.CompletedCheckpoint) []*diagnosisInfo {
	var out []*diagnosisInfo
	for _, d := range checkpoint.DiagnoseAll(cps, topologyOf(h.dags.get(jobID))) {
		di := &diagnosisInfo{Slow: d.Slow, CommitMs: ms(d.Commit), Subtasks: []subtaskPart{}, Commits: []commitTiming{}}
		if d.Delayed != nil {
			di.DelayedBy = &delayInfo{Vertex: d.Delayed.Vertex, Subtask: d.Delayed.Subtask, Reason: d.Delayed.Reason, Ms: ms(d.Delayed.Took), Detail: d.Delayed.Detail}
		}
		for _, s := range d.Subtasks {
			di.Subtasks = append(di.Subtasks, subtaskPart{Vertex: s.Name, Subtask: s.Subtask, BarrierMs: ms(s.Barrier), SnapshotMs: ms(s.Snapshot),
				AlignmentMs: ms(s.Alignment), StateWriteMs: ms(s.StateWrite), AckMs: ms(s.Ack), StateBytes: s.StateBytes,
				ChannelBatches: s.ChannelBatches, ChannelBytes: s.ChannelBytes})
		}
		for _, c := range d.Commits {
			di.Commits = append(di.Commits, commitTiming{Vertex: c.Vertex, Ms: ms(c.Took)})
		}
		out = append(out, di)
	}
	return out
}
