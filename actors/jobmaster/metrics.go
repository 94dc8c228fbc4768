package jobmaster

import (
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

// record keeps a subtask's latest report and the one before it: the two
// give its backpressure over the last interval.
func (t *taskRun) record(m *messages.TaskMetrics) {
	if t.metrics != nil {
		t.prev = t.metrics
	}
	t.metrics = m
}

// backpressure is the subtask's backpressured time per second of its
// last reporting interval, in ms (0..1000); 0 unless it is running, and
// before its second report.
func (t *taskRun) backpressure() float64 {
	m, p := t.metrics, t.prev
	if t.state != state.TaskRunning || t.gone || m == nil || p == nil || m.ElapsedNs <= p.ElapsedNs {
		return 0
	}
	r := float64(m.BackpressuredNs-p.BackpressuredNs) / float64(m.ElapsedNs-p.ElapsedNs)
	return min(max(r, 0), 1) * 1000
}

// jobMetrics are the job's per-vertex figures (messages.JobMetrics), summed
// over the subtasks of each pipeline's current attempt.
func (j *JobMaster) jobMetrics() *messages.JobMetrics {
	out := &messages.JobMetrics{JobId: j.spec.JobId, State: j.state}
	if j.plan == nil {
		return out // not resolved yet
	}
	byID := make(map[int32]*messages.VertexMetrics, len(j.plan.Vertices))
	for _, v := range j.plan.Vertices {
		vm := &messages.VertexMetrics{Vertex: int32(v.ID), Name: v.Name, Type: v.Kind.String(), Parallelism: int32(v.Parallelism),
			Pipeline: int32(v.Pipeline.ID)}
		byID[vm.Vertex] = vm
		out.Vertices = append(out.Vertices, vm)
	}
	heldNs := map[int32]int64{}
	for _, p := range j.pipelines {
		for _, t := range p.tasks {
			if t.metrics == nil {
				continue
			}
			bp := t.backpressure()
			for _, c := range t.metrics.Vertices {
				vm := byID[c.Vertex]
				if vm == nil {
					continue
				}
				vm.RowsIn += c.RowsIn
				vm.RowsOut += c.RowsOut
				vm.BytesIn += c.BytesIn
				vm.BytesOut += c.BytesOut
				vm.Subtasks++
				heldNs[c.Vertex] += t.metrics.BackpressuredNs
				vm.BackpressuredMsPerSecond = max(vm.BackpressuredMsPerSecond, bp)
			}
		}
	}
	for id, ns := range heldNs {
		byID[id].BackpressuredMs = ns / 1e6
	}
	return out
}
