package httpapi_test

import (
	"net/http"
	"testing"
)

// TestCheckpointDiagnosis: /job-checkpoints names, for a checkpoint slowed
// by a deliberately slow sink, that sink's vertex and why.
func TestCheckpointDiagnosis(t *testing.T) {
	s := start(t)
	id := s.submit("?jobId=slow-sink", `
env { job.mode = "BATCH", parallelism = 2, checkpoint.interval = 100 }
source { FakeSource { row.num = 4, split.num = 2, schema = { fields { id = bigint } } } }
sink { Console { parallelism = 1, log.print.data = false, log.print.delay.ms = 200 } }
`)
	s.waitState(id, "FINISHED")
	var h struct {
		Checkpoints []struct {
			CheckpointID int64  `json:"checkpointId"`
			Type         string `json:"type"`
			DurationMs   int64  `json:"durationMs"`
			Diagnosis    *struct {
				DelayedBy *struct {
					Vertex, Reason, Detail string
					Subtask                int
					Ms                     float64
				} `json:"delayedBy"`
				Subtasks []struct {
					Vertex    string  `json:"vertex"`
					BarrierMs float64 `json:"barrierMs"`
				} `json:"subtasks"`
			} `json:"diagnosis"`
		} `json:"checkpoints"`
	}
	s.getJSON("/job-checkpoints/"+id, http.StatusOK, &h)
	slowed := 0
	for _, c := range h.Checkpoints {
		d := c.Diagnosis
		if d == nil || d.DelayedBy == nil || len(d.Subtasks) != 3 {
			t.Fatalf("checkpoint %d: diagnosis %+v", c.CheckpointID, d)
		}
		if c.Type != "CHECKPOINT" || c.DurationMs < 100 {
			continue
		}
		slowed++
		if d.DelayedBy.Vertex != "Sink[0]-Console" || d.DelayedBy.Reason != "waiting for barriers" || d.DelayedBy.Ms < 50 {
			t.Errorf("checkpoint %d (%d ms) delayed by %+v, want Sink[0]-Console waiting for barriers", c.CheckpointID, c.DurationMs, d.DelayedBy)
		}
	}
	if slowed == 0 {
		t.Fatalf("no checkpoint was slowed by the sink: %+v", h.Checkpoints)
	}
}
