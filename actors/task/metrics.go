package task

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// metrics are the subtask's cumulative counters, reported to the JobMaster
// every MetricsInterval (TaskMetrics). They cost a few additions per batch
// and a clock reading per change of the outputs' credit state, never work
// per row.
type metrics struct {
	readRows, writeRows, readBytes, writeBytes int64

	started time.Time // when the actor started: elapsed_ns counts from here
	// Backpressure: held counts the output edges that hold batches for
	// lack of credit; heldSince is when the first of them began to, and
	// heldNs the time spent with some held before that.
	held      int
	heldSince time.Time
	heldNs    int64
	// busyNs is the time spent processing (Flink's busy time): reader
	// polls that returned rows, input batches through the chain and the
	// operators' checkpoint snapshots, two clock readings per poll, batch
	// or snapshot. Idle is what is left of the
	// elapsed time after busy and backpressured.
	busyNs int64
}

// busy adds the time since start to the busy time.
func (m *metrics) busy(start time.Time) { m.busyNs += int64(time.Since(start)) }

// hold notes that an output edge began to hold batches for lack of credit.
func (m *metrics) hold() {
	if m.held == 0 {
		m.heldSince = time.Now()
	}
	m.held++
}

// release notes that an output edge sent all it held.
func (m *metrics) release() {
	m.held--
	if m.held == 0 {
		m.heldNs += int64(time.Since(m.heldSince))
	}
}

// backpressured is the time spent with some output held, up to now.
func (m *metrics) backpressured(now time.Time) int64 {
	if m.held > 0 {
		return m.heldNs + int64(now.Sub(m.heldSince))
	}
	return m.heldNs
}

func (t *Task) startTicker() {
	t.timers.Every(t.opts.MetricsInterval, &metricsTick{})
}

// stopTicker stops the metrics tick and any poll timer.
func (t *Task) stopTicker() {
	t.timers.Stop()
}

func (t *Task) sendMetrics(ctx actor.Context) {
	ctx.Send(t.jobMaster, t.metricsMsg())
}

func (t *Task) metricsMsg() *messages.TaskMetrics {
	m := &t.metrics
	out := &messages.TaskMetrics{Loc: t.loc, ReadRows: m.readRows, WriteRows: m.writeRows,
		ReadBytes: m.readBytes, WriteBytes: m.writeBytes}
	if !m.started.IsZero() {
		now := time.Now()
		out.ElapsedNs = int64(now.Sub(m.started))
		out.BackpressuredNs = m.backpressured(now)
		out.BusyNs = m.busyNs
	}
	out.InputQueue = int64(len(t.pending) + len(t.early))
	for _, o := range t.outs {
		out.OutputQueue += int64(len(o.queue))
		for _, ch := range o.chans {
			// Credit runs a window ahead of what the receiver processed
			// when it last granted: what is beyond that is unacknowledged.
			out.InFlight += max(0, ch.seq-(ch.credit-t.opts.CreditWindow))
		}
	}
	if t.ops != nil {
		out.Vertices = make([]*messages.VertexCounts, 0, len(t.ops.list))
		for _, p := range t.ops.list {
			c := &messages.VertexCounts{Vertex: int32(p.v.ID), RowsIn: p.rowsIn, RowsOut: p.rowsOut, BytesIn: p.bytesIn}
			if p.v.Kind == plan.SourceVertex {
				c.BytesOut = m.readBytes // what the chain's reader read
			}
			out.Vertices = append(out.Vertices, c)
		}
	}
	return out
}
