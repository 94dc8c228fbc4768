package checkpoint

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// The reasons a checkpoint waited (DESIGN §9).
const (
	// ReasonBarriers: a subtask met the barrier late — it was busy with a
	// batch (a slow write, a long poll) when the barrier came, or waited
	// for the barrier markers of its inputs.
	ReasonBarriers = "waiting for barriers"
	// ReasonState: snapshotting operators (a sink's prepare commit) or
	// writing the state to checkpoint storage.
	ReasonState = "writing state"
	// ReasonCommit: a sink committing the checkpoint's output.
	ReasonCommit = "committing"
	// ReasonID: the checkpoint storage handing out the checkpoint's id,
	// before any trigger is sent.
	ReasonID = "reserving the checkpoint id"
)

// StorageVertex names the checkpoint storage where a Delay is its.
const StorageVertex = "checkpoint storage"

// Topology is what the diagnosis needs of a job's plan: names of vertices
// and chains, and which chains feed which over channels.
type Topology struct {
	Vertices map[int]string // by vertex id
	Chains   map[int]string // by chain id: its vertices, "A -> B"
	Upstream map[int][]int  // by chain id: the chains with a channel into it
}

// TopologyOf is p's Topology.
func TopologyOf(p *plan.Plan) Topology {
	t := Topology{Vertices: map[int]string{}, Chains: map[int]string{}, Upstream: map[int][]int{}}
	for _, v := range p.Vertices {
		t.Vertices[v.ID] = v.Name
	}
	for _, c := range p.Chains {
		t.Chains[c.ID] = c.Name()
		for _, e := range c.In {
			t.Upstream[c.ID] = append(t.Upstream[c.ID], e.From.Chain.ID)
		}
	}
	return t
}

// Delay is one part of a checkpoint that took time: which vertex (or
// fused chain), why, how long, and what happened.
type Delay struct {
	Vertex  string
	Chain   int
	Subtask int // -1 for a sink's commit (all its writers at once)
	Reason  string
	Took    time.Duration
	Detail  string
}

func (d Delay) String() string {
	who := d.Vertex
	if d.Subtask >= 0 {
		who = fmt.Sprintf("%s #%d", d.Vertex, d.Subtask)
	}
	return fmt.Sprintf("%s: %s (%s: %s)", who, d.Reason, round(d.Took), d.Detail)
}

// SubtaskPart is one subtask's part in a checkpoint, relative to the
// trigger.
type SubtaskPart struct {
	Name           string // the chain's vertices
	Chain, Subtask int
	Barrier        time.Duration // trigger → its first barrier handled
	Snapshot       time.Duration
	Alignment      time.Duration // its barrier forwarded → the last input's marker
	StateWrite     time.Duration
	Ack            time.Duration // trigger → the coordinator had its ack
	StateBytes     int64
	ChannelBatches int64
	ChannelBytes   int64
}

// Diagnosis of one completed checkpoint.
type Diagnosis struct {
	Pipeline   int
	Checkpoint int64
	Type       string
	Duration   time.Duration // trigger → complete
	Commit     time.Duration // complete → every sink committed (0: not recorded)
	Subtasks   []SubtaskPart
	Commits    []Delay
	// Delayed is the part that took longest: the vertex that delayed
	// the checkpoint and why. Nil when the checkpoint recorded no timings
	// (taken by an older stactor).
	Delayed *Delay
	// Slow is set by DiagnoseAll for a checkpoint much slower than its
	// pipeline's others.
	Slow bool
}

// Diagnose names, from a completed checkpoint's timings, the vertex that
// delayed it most and why. Each subtask's time is cut into parts that
// are its own: how long the barrier waited for it after the earliest
// upstream subtask (the trigger, at a source) forwarded it; its snapshot;
// how long it waited for its inputs' markers after the last upstream
// forwarded; writing its state. Each sink's commit is a part too. The
// longest part is the delay named.
func Diagnose(cp *messages.CompletedCheckpoint, topo Topology) Diagnosis {
	d := Diagnosis{Pipeline: int(cp.Pipeline), Checkpoint: cp.Id, Type: cp.Type,
		Duration: time.Duration(cp.CompleteUnixMs-cp.TriggerUnixMs) * time.Millisecond}
	if cp.CommittedUnixMs > 0 {
		d.Commit = time.Duration(cp.CommittedUnixMs-cp.CompleteUnixMs) * time.Millisecond
	}
	trigger := cp.TriggerUnixUs
	if trigger == 0 {
		trigger = cp.TriggerUnixMs * 1000
	}
	// The triggers go out once the store has handed out the id: a source
	// is only late from then on.
	sent := max(trigger, cp.TriggersSentUnixUs)
	forwarded := map[int][]int64{} // by chain: when each subtask forwarded its barrier
	for _, t := range cp.Timings {
		forwarded[int(t.Chain)] = append(forwarded[int(t.Chain)], t.BarrierUnixUs+t.SnapshotUs)
	}
	timings := append([]*messages.SubtaskTiming(nil), cp.Timings...)
	sort.Slice(timings, func(a, b int) bool {
		if timings[a].Chain != timings[b].Chain {
			return timings[a].Chain < timings[b].Chain
		}
		return timings[a].Subtask < timings[b].Subtask
	})
	var parts []Delay
	for _, t := range timings {
		chain := int(t.Chain)
		name := topo.Chains[chain]
		if name == "" {
			name = fmt.Sprintf("chain %d", chain)
		}
		us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
		fwd := t.BarrierUnixUs + t.SnapshotUs
		d.Subtasks = append(d.Subtasks, SubtaskPart{Name: name, Chain: chain, Subtask: int(t.Subtask),
			Barrier: us(t.BarrierUnixUs - trigger), Snapshot: us(t.SnapshotUs), Alignment: us(max(0, t.AlignedUnixUs-fwd)),
			StateWrite: us(t.StateWriteUs), Ack: us(t.AckUnixUs - trigger), StateBytes: t.StateBytes,
			ChannelBatches: t.ChannelBatches, ChannelBytes: t.ChannelBytes})
		// When could it have seen the barrier, and all its markers?
		first, last := sent, sent
		if ups := topo.Upstream[chain]; len(ups) > 0 {
			first, last = int64(1<<62), int64(0)
			for _, u := range ups {
				for _, f := range forwarded[u] {
					first, last = min(first, f), max(last, f)
				}
			}
			if last == 0 {
				first, last = sent, sent
			}
		}
		if busy := us(t.BarrierUnixUs - first); busy > 0 {
			detail := "the barrier waited for the subtask to finish what it was processing (a slow write or poll)"
			if len(topo.Upstream[chain]) == 0 {
				detail = "the trigger waited for the source subtask to finish what it was doing (a slow poll, or a slow write in its chain)"
			}
			parts = append(parts, Delay{Vertex: name, Chain: chain, Subtask: int(t.Subtask), Reason: ReasonBarriers, Took: busy, Detail: detail})
		}
		if t.SnapshotUs > 0 {
			slowest, took := -1, int64(-1)
			for v, s := range t.VertexSnapshotUs {
				if s > took || (s == took && int(v) < slowest) {
					slowest, took = int(v), s
				}
			}
			who := name
			if n, ok := topo.Vertices[slowest]; ok {
				who = n
			}
			parts = append(parts, Delay{Vertex: who, Chain: chain, Subtask: int(t.Subtask), Reason: ReasonState, Took: us(t.SnapshotUs),
				Detail: "snapshotting its operators (a sink's prepare commit)"})
		}
		if align := us(t.AlignedUnixUs - max(fwd, last)); align > 0 {
			parts = append(parts, Delay{Vertex: name, Chain: chain, Subtask: int(t.Subtask), Reason: ReasonBarriers, Took: align,
				Detail: fmt.Sprintf("the barrier markers of its inputs came after the queued data ahead of them (%d batches recorded as channel state)", t.ChannelBatches)})
		}
		if t.StateWriteUs > 0 {
			parts = append(parts, Delay{Vertex: name, Chain: chain, Subtask: int(t.Subtask), Reason: ReasonState, Took: us(t.StateWriteUs),
				Detail: fmt.Sprintf("writing %s of state (%s of it channel state) to checkpoint storage", bytesText(t.StateBytes), bytesText(t.ChannelBytes))})
		}
	}
	if sent > trigger {
		parts = append(parts, Delay{Vertex: StorageVertex, Chain: -1, Subtask: -1, Reason: ReasonID, Took: time.Duration(sent-trigger) * time.Microsecond,
			Detail: "the store handed out the checkpoint's id before any barrier could be sent (a slow or busy store)"})
	}
	for _, c := range cp.Commits {
		name := topo.Vertices[int(c.Vertex)]
		if name == "" {
			name = fmt.Sprintf("vertex %d", c.Vertex)
		}
		dl := Delay{Vertex: name, Chain: -1, Subtask: -1, Reason: ReasonCommit, Took: time.Duration(c.CommitUs) * time.Microsecond,
			Detail: "committing the checkpoint's output"}
		d.Commits = append(d.Commits, dl)
		parts = append(parts, dl)
	}
	for i := range parts {
		if d.Delayed == nil || parts[i].Took > d.Delayed.Took {
			d.Delayed = &parts[i]
		}
	}
	return d
}

// round shortens a duration for reading.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Summary is the diagnosis in one line.
func (d Diagnosis) Summary() string {
	var b strings.Builder
	if d.Slow {
		b.WriteString("SLOW ")
	}
	fmt.Fprintf(&b, "checkpoint %d (pipeline %d, %s) took %s", d.Checkpoint, d.Pipeline, d.Type, round(d.Duration))
	if d.Commit > 0 {
		fmt.Fprintf(&b, ", committed %s later", round(d.Commit))
	}
	if d.Delayed != nil {
		b.WriteString("; delayed most by " + d.Delayed.String())
	}
	return b.String()
}

// DiagnoseAll diagnoses a job's checkpoints (storage.List's order) and
// marks as Slow each that took, trigger to commit, more than twice the
// median of its pipeline's and at least 100 ms.
func DiagnoseAll(cps []*messages.CompletedCheckpoint, topo Topology) []Diagnosis {
	out := make([]Diagnosis, 0, len(cps))
	totals := map[int][]time.Duration{}
	for _, cp := range cps {
		d := Diagnose(cp, topo)
		out = append(out, d)
		totals[d.Pipeline] = append(totals[d.Pipeline], d.Duration+d.Commit)
	}
	medians := map[int]time.Duration{}
	for p, ts := range totals {
		ts = append([]time.Duration(nil), ts...)
		sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
		medians[p] = ts[len(ts)/2]
	}
	for i := range out {
		total := out[i].Duration + out[i].Commit
		out[i].Slow = total >= 100*time.Millisecond && total > 2*medians[out[i].Pipeline]
	}
	return out
}
