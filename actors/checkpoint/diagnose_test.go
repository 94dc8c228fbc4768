package checkpoint

import (
	"strings"
	"testing"

	"github.com/stactor/stactor/messages"
)

// A source chain 0 (two subtasks) feeds a sink chain 1 over a channel.
var testTopo = Topology{
	Vertices: map[int]string{0: "Source[0]-FakeSource", 1: "Sink[0]-Slow"},
	Chains:   map[int]string{0: "Source[0]-FakeSource", 1: "Sink[0]-Slow"},
	Upstream: map[int][]int{1: {0}},
}

// timing at microseconds after a trigger at 1 s.
func timing(chain, subtask int32, barrier, snapshot, aligned, write int64) *messages.SubtaskTiming {
	const t0 = 1_000_000
	return &messages.SubtaskTiming{Chain: chain, Subtask: subtask, BarrierUnixUs: t0 + barrier, SnapshotUs: snapshot,
		AlignedUnixUs: t0 + aligned, StateWriteUs: write, AckUnixUs: t0 + aligned + write,
		VertexSnapshotUs: map[int32]int64{chain: snapshot}}
}

func TestDiagnose(t *testing.T) {
	cp := func(ts []*messages.SubtaskTiming, commits ...*messages.CommitTiming) *messages.CompletedCheckpoint {
		return &messages.CompletedCheckpoint{Pipeline: 1, Id: 7, Type: TypeCheckpoint, TriggerUnixMs: 1000, TriggerUnixUs: 1_000_000,
			CompleteUnixMs: 3000, CommittedUnixMs: 3100, Timings: ts, Commits: commits}
	}
	for _, c := range []struct {
		name string
		cp   *messages.CompletedCheckpoint
		want string // the Delayed's String
	}{
		{"sink busy when the barrier came", cp([]*messages.SubtaskTiming{
			timing(0, 0, 100, 50, 150, 200), timing(0, 1, 120, 50, 170, 200),
			timing(1, 0, 1_500_000, 10, 1_500_010, 300)}),
			"Sink[0]-Slow #0: waiting for barriers (1.5s: the barrier waited for the subtask to finish what it was processing (a slow write or poll))"},
		{"a source's slow snapshot is the source's, not the sink's wait", cp([]*messages.SubtaskTiming{
			timing(0, 0, 100, 900_000, 900_100, 200), timing(0, 1, 100, 50, 150, 200),
			timing(1, 0, 300, 10, 900_200, 300)}),
			"Source[0]-FakeSource #0: writing state (900ms: snapshotting its operators (a sink's prepare commit))"},
		{"writing state", cp([]*messages.SubtaskTiming{
			timing(0, 0, 100, 50, 150, 200), timing(0, 1, 100, 50, 150, 200),
			timing(1, 0, 300, 10, 400, 700_000)}),
			"Sink[0]-Slow #0: writing state (700ms: writing 0 B of state (0 B of it channel state) to checkpoint storage)"},
		{"the store's id, not the sources, when the triggers went out late", func() *messages.CompletedCheckpoint {
			c := cp([]*messages.SubtaskTiming{
				timing(0, 0, 5_000_100, 50, 5_000_150, 200), timing(0, 1, 5_000_120, 50, 5_000_170, 200),
				timing(1, 0, 5_000_300, 10, 5_000_400, 300)})
			c.TriggersSentUnixUs = 1_000_000 + 5_000_000
			return c
		}(),
			"checkpoint storage: reserving the checkpoint id (5s: the store handed out the checkpoint's id before any barrier could be sent (a slow or busy store))"},
		{"committing", cp([]*messages.SubtaskTiming{
			timing(0, 0, 100, 50, 150, 200), timing(1, 0, 300, 10, 400, 500)},
			&messages.CommitTiming{Vertex: 1, CommitUs: 2_000_000}),
			"Sink[0]-Slow: committing (2s: committing the checkpoint's output)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Diagnose(c.cp, testTopo)
			if d.Delayed == nil || d.Delayed.String() != c.want {
				t.Fatalf("delayed by %v\nwant %s", d.Delayed, c.want)
			}
			if !strings.Contains(d.Summary(), "delayed most by "+c.want) || d.Commit.Milliseconds() != 100 || len(d.Subtasks) != len(c.cp.Timings) {
				t.Fatalf("summary %q, commit %s, %d subtasks", d.Summary(), d.Commit, len(d.Subtasks))
			}
		})
	}
	if d := Diagnose(&messages.CompletedCheckpoint{Id: 1, TriggerUnixMs: 1, CompleteUnixMs: 2}, testTopo); d.Delayed != nil {
		t.Fatalf("a checkpoint without timings names %v", d.Delayed)
	}
}

func TestDiagnoseAllMarksSlow(t *testing.T) {
	var cps []*messages.CompletedCheckpoint
	for i, ms := range []int64{20, 25, 900, 22} {
		cps = append(cps, &messages.CompletedCheckpoint{Pipeline: 1, Id: int64(i + 1), TriggerUnixMs: 1000, CompleteUnixMs: 1000 + ms})
	}
	for i, d := range DiagnoseAll(cps, testTopo) {
		if d.Slow != (i == 2) {
			t.Errorf("checkpoint %d: slow %v", d.Checkpoint, d.Slow)
		}
	}
}
