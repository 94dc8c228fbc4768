package jobmaster

import (
	"time"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
)

// record keeps a subtask's latest report and the one before it: the two
// give its rates, busy, idle and backpressured time over the last
// interval.
func (t *taskRun) record(m *messages.TaskMetrics) {
	if t.metrics != nil {
		t.prev = t.metrics
	}
	t.metrics = m
}

// interval is the time between the subtask's last two reports, in
// seconds; 0 unless it is running and has reported twice.
func (t *taskRun) interval() float64 {
	m, p := t.metrics, t.prev
	if t.state != state.TaskRunning || t.gone || m == nil || p == nil || m.ElapsedNs <= p.ElapsedNs {
		return 0
	}
	return float64(m.ElapsedNs-p.ElapsedNs) / 1e9
}

// perSecond is a counter's rate over the last interval dt (s).
func perSecond(cur, prev int64, dt float64) float64 {
	if dt <= 0 || cur < prev {
		return 0
	}
	return float64(cur-prev) / dt
}

// msPerSecond is a time counter's share of the last interval dt, in ms
// per second (0..1000).
func msPerSecond(cur, prev int64, dt float64) float64 {
	if dt <= 0 {
		return 0
	}
	return min(max(float64(cur-prev)/(dt*1e9), 0), 1) * 1000
}

// times are the subtask's busy, idle and backpressured ms per second over
// its last interval (Flink's figures); idle is what is left.
func (t *taskRun) times() (busy, idle, bp float64) {
	dt := t.interval()
	if dt <= 0 {
		return 0, 0, 0
	}
	busy = msPerSecond(t.metrics.BusyNs, t.prev.BusyNs, dt)
	bp = msPerSecond(t.metrics.BackpressuredNs, t.prev.BackpressuredNs, dt)
	return busy, max(1000-busy-bp, 0), bp
}

// backpressure is the subtask's backpressured time per second of its
// last reporting interval, in ms (0..1000); 0 unless it is running, and
// before its second report.
func (t *taskRun) backpressure() float64 {
	_, _, bp := t.times()
	return bp
}

// jobMetrics are the job's figures (messages.JobMetrics): per vertex,
// summed over the subtasks of each pipeline's current attempt, per
// pipeline and per subtask.
func (j *JobMaster) jobMetrics() *messages.JobMetrics {
	st := j.status()
	out := &messages.JobMetrics{JobId: j.spec.JobId, State: j.state, Name: st.Name, UnixMs: time.Now().UnixMilli(),
		ReadRows: st.ReadRows, WriteRows: st.WriteRows, ReadBytes: st.ReadBytes, WriteBytes: st.WriteBytes}
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
		out.Pipelines = append(out.Pipelines, p.metrics())
		for _, t := range p.tasks {
			if t.metrics == nil {
				continue
			}
			dt := t.interval()
			busy, idle, bp := t.times()
			prev := map[int32]*messages.VertexCounts{}
			if t.prev != nil {
				for _, c := range t.prev.Vertices {
					prev[c.Vertex] = c
				}
			}
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
				if pc := prev[c.Vertex]; pc != nil {
					vm.RowsInPerSecond += perSecond(c.RowsIn, pc.RowsIn, dt)
					vm.RowsOutPerSecond += perSecond(c.RowsOut, pc.RowsOut, dt)
					vm.BytesInPerSecond += perSecond(c.BytesIn, pc.BytesIn, dt)
					vm.BytesOutPerSecond += perSecond(c.BytesOut, pc.BytesOut, dt)
				}
				heldNs[c.Vertex] += t.metrics.BackpressuredNs
				vm.BackpressuredMsPerSecond = max(vm.BackpressuredMsPerSecond, bp)
				vm.BusyMsPerSecond = max(vm.BusyMsPerSecond, busy)
				vm.IdleMsPerSecond = max(vm.IdleMsPerSecond, idle)
			}
			out.Subtasks = append(out.Subtasks, t.subtaskMetrics(j.plan.Chains[t.loc.Chain]))
		}
	}
	for id, ns := range heldNs {
		byID[id].BackpressuredMs = ns / 1e6
	}
	// The job's rates: what its sources read and its sinks wrote.
	for _, vm := range out.Vertices {
		switch vm.Type {
		case plan.SourceVertex.String():
			out.ReadRowsPerSecond += vm.RowsOutPerSecond
		case plan.SinkVertex.String():
			out.WriteRowsPerSecond += vm.RowsInPerSecond
		}
	}
	return out
}

// metrics are the pipeline's state and latest checkpoint: one completed
// in this run, or else the one its attempt restored from.
func (p *pipelineRun) metrics() *messages.PipelineMetrics {
	pm := &messages.PipelineMetrics{Pipeline: int32(p.p.ID), State: p.state, Attempt: int32(p.attempt), CheckpointsCompleted: p.checkpoints,
		CheckpointsFailed: p.checkpointsFailed}
	if p.adaptive != nil {
		pm.ReadLimitRowsPerSecond = p.adaptive.limit
	}
	cp := p.lastCheckpoint
	if cp == nil {
		cp = p.restore
	}
	if cp != nil {
		pm.LastCheckpointId, pm.LastCheckpointType = cp.Id, cp.Type
		pm.LastCheckpointUnixMs = cp.CompleteUnixMs
		pm.LastCheckpointDurationMs = cp.CompleteUnixMs - cp.TriggerUnixMs
		pm.LastCheckpointSizeBytes, pm.LastCheckpointChannelBatches = cp.SizeBytes, cp.ChannelBatches
	}
	return pm
}

// subtaskMetrics are one subtask's figures; c is its chain.
func (t *taskRun) subtaskMetrics(c *plan.Chain) *messages.SubtaskMetrics {
	m := t.metrics
	sm := &messages.SubtaskMetrics{Pipeline: t.loc.Pipeline, Attempt: t.loc.Attempt, Chain: t.loc.Chain, Subtask: t.loc.Subtask,
		Name: c.Name(), State: t.state, BytesIn: m.ReadBytes, BytesOut: m.WriteBytes,
		InputQueue: m.InputQueue, OutputQueue: m.OutputQueue, InFlight: m.InFlight}
	sm.BusyMsPerSecond, sm.IdleMsPerSecond, sm.BackpressuredMsPerSecond = t.times()
	in, out := chainRows(c, m)
	sm.RowsIn, sm.RowsOut = in, out
	if dt := t.interval(); dt > 0 {
		pin, pout := chainRows(c, t.prev)
		sm.RowsInPerSecond, sm.RowsOutPerSecond = perSecond(in, pin, dt), perSecond(out, pout, dt)
	}
	return sm
}

// chainRows are the rows that entered a subtask's chain (its head's
// input) and left it (on each output channel, and into its sinks).
func chainRows(c *plan.Chain, m *messages.TaskMetrics) (in, out int64) {
	outs := map[int]int64{}
	for _, e := range c.Out {
		outs[e.From.ID]++
	}
	for _, vc := range m.Vertices {
		if int(vc.Vertex) == c.Head.ID {
			in = vc.RowsIn
		}
		out += vc.RowsOut * outs[int(vc.Vertex)]
	}
	return in, out + m.WriteRows
}
