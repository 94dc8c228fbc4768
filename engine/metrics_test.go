package engine_test

import (
	"testing"
	"time"

	_ "github.com/stactor/stactor/connectors/sql"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

// fastMetrics has subtasks report every 50 ms.
func fastMetrics(cfg *engine.Config) { cfg.Task.MetricsInterval = 50 * time.Millisecond }

// getJobMetrics asks the coordinator for job id's JobMetrics.
func getJobMetrics(t testing.TB, e *engine.Engine, id string) *messages.JobMetrics {
	t.Helper()
	res, err := e.System.Root.RequestFuture(e.Coordinator, &messages.GetJobMetrics{JobId: id}, 5*time.Second).Result()
	if err != nil {
		t.Fatalf("GetJobMetrics: %v", err)
	}
	m, ok := res.(*messages.JobMetrics)
	if !ok {
		t.Fatalf("GetJobMetrics answered %T", res)
	}
	return m
}

func jobMetrics(t *testing.T, e *engine.Engine, id string) map[string]*messages.VertexMetrics {
	t.Helper()
	m := getJobMetrics(t, e, id)
	out := map[string]*messages.VertexMetrics{}
	for _, v := range m.Vertices {
		out[v.Name] = v
	}
	return out
}

// A slow transform between a fast source and a fast sink: the source's
// output waits for credit nearly all the time (high backpressure); the
// transform is busy, not backpressured, because the sink keeps granting
// credit (low backpressure); the sink has no output to wait on.
func TestSlowVertexBackpressuresItsSource(t *testing.T) {
	e := start(t, 100, fastMetrics)
	submit(t, e, "bp", `
source { EngineTestSource { rows = 100000000, parallelism = 1 } }
transform { EngineTestTransform { delay_ms = 20, parallelism = 2 } }
sink { EngineTestSink { key = "bp", parallelism = 1, count_only = true } }`)
	t.Cleanup(func() { e.Cancel("bp") })
	const src, slow, snk = "Source[0]-EngineTestSource", "Transform[0]-EngineTestTransform", "Sink[0]-EngineTestSink"
	var vs map[string]*messages.VertexMetrics
	deadline := time.Now().Add(20 * time.Second)
	for {
		vs = jobMetrics(t, e, "bp")
		if v := vs[src]; v != nil && v.Subtasks == 1 && v.BackpressuredMsPerSecond >= 800 && vs[slow].Subtasks == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the source never showed backpressure: %v", vs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Hold the condition over a few more reports.
	for i := 0; i < 5; i++ {
		time.Sleep(60 * time.Millisecond)
		vs = jobMetrics(t, e, "bp")
		if bp := vs[src].BackpressuredMsPerSecond; bp < 500 {
			t.Fatalf("source backpressure %.0f ms/s, want most of each second: %v", bp, vs)
		}
		if bp := vs[slow].BackpressuredMsPerSecond; bp > 200 {
			t.Fatalf("slow transform backpressure %.0f ms/s, want little: %v", bp, vs)
		}
		if bp := vs[snk].BackpressuredMsPerSecond; bp != 0 {
			t.Fatalf("sink backpressure %.0f ms/s, want none: %v", bp, vs)
		}
		// Flink's busy / idle: the slow transform is busy, the sink that
		// waits for it idle, and each second is split among the three.
		if b := vs[slow].BusyMsPerSecond; b < 500 {
			t.Fatalf("slow transform busy %.0f ms/s, want most of each second: %v", b, vs)
		}
		if i := vs[snk].IdleMsPerSecond; i < 500 {
			t.Fatalf("sink idle %.0f ms/s, want most of each second: %v", i, vs)
		}
		for _, v := range vs {
			if sum := v.BusyMsPerSecond + v.IdleMsPerSecond + v.BackpressuredMsPerSecond; sum > 1000.5 && v.Subtasks == 1 {
				t.Fatalf("%s: busy + idle + backpressured = %.0f ms/s", v.Name, sum)
			}
		}
		if vs[slow].RowsInPerSecond <= 0 || vs[snk].RowsInPerSecond <= 0 {
			t.Fatalf("no rates: %v", vs)
		}
	}
	// Subtasks report at their own times, so counts along the chain are
	// not one snapshot; each vertex has moved rows.
	if vs[src].BackpressuredMs <= 0 || vs[src].RowsOut == 0 || vs[slow].RowsOut == 0 || vs[snk].RowsIn == 0 {
		t.Fatalf("counts: %v", vs)
	}
	e.Cancel("bp")
	if st := wait(t, e, "bp"); st.State != state.JobCanceled {
		t.Fatalf("state %s", st.State)
	}
	// An ended job keeps its counts and has no backpressure.
	vs = jobMetrics(t, e, "bp")
	if vs[src].RowsOut == 0 || vs[src].BackpressuredMsPerSecond != 0 {
		t.Fatalf("after the end: %v", vs[src])
	}
}

// Per-vertex counts of a finished job are its row counts, vertex by
// vertex: a fused chain source → Sql filter → sink (one subtask runs all
// three) and a second sink behind a rebalancing channel.
func TestVertexCountsOfFinishedJob(t *testing.T) {
	e := start(t, 64, fastMetrics)
	submit(t, e, "counts", `
env { job.mode = BATCH, parallelism = 2 }
source { EngineTestSource { rows = 1000, plugin_output = "src" } }
transform { Sql { plugin_input = "src", plugin_output = "even", query = "SELECT id, v FROM src WHERE id % 2 = 0" } }
sink {
  EngineTestSink { plugin_input = "even", key = "counts-even" }
  EngineTestSink { plugin_input = "src", key = "counts-all", parallelism = 3 }
}`)
	st := wait(t, e, "counts")
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	vs := jobMetrics(t, e, "counts")
	for _, c := range []struct {
		name          string
		typ           string
		par, subtasks int32
		in, out       int64
	}{
		{"Source[0]-EngineTestSource", "source", 2, 2, 2000, 2000},
		{"Transform[0]-Sql", "transform", 2, 2, 2000, 1000},
		{"Sink[0]-EngineTestSink", "sink", 2, 2, 1000, 0},
		{"Sink[1]-EngineTestSink", "sink", 3, 3, 2000, 0},
	} {
		v := vs[c.name]
		if v == nil {
			t.Fatalf("no vertex %s in %v", c.name, vs)
		}
		if v.Type != c.typ || v.Parallelism != c.par || v.Subtasks != c.subtasks || v.RowsIn != c.in || v.RowsOut != c.out || v.BackpressuredMsPerSecond != 0 {
			t.Errorf("%s: %v, want %+v", c.name, v, c)
		}
	}
	if len(vs) != 4 {
		t.Errorf("%d vertices, want 4", len(vs))
	}
	if v := vs["Source[0]-EngineTestSource"]; v.BytesOut <= 0 || v.BytesOut != st.ReadBytes {
		t.Errorf("source bytes out %d, job read %d", v.BytesOut, st.ReadBytes)
	}
	sinks := vs["Sink[0]-EngineTestSink"].RowsIn + vs["Sink[1]-EngineTestSink"].RowsIn
	sinkBytes := vs["Sink[0]-EngineTestSink"].BytesIn + vs["Sink[1]-EngineTestSink"].BytesIn
	if sinks != st.WriteRows || sinkBytes != st.WriteBytes || vs["Transform[0]-Sql"].BytesIn != 0 {
		t.Errorf("sinks wrote %d rows, %d bytes; the job %d rows, %d bytes", sinks, sinkBytes, st.WriteRows, st.WriteBytes)
	}
	if m := jobMetrics(t, e, "nope"); len(m) != 0 {
		t.Errorf("an unknown job has vertices: %v", m)
	}
}
