package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCheckpointDiagnosis: /job-checkpoints names, for a checkpoint slowed
// by a deliberately slow sink, that sink's vertex and why.
func TestCheckpointDiagnosis(t *testing.T) {
	s := start(t)
	id := s.submit("?jobId=slow-sink", `
env { job.mode = "BATCH", parallelism = 2, checkpoint.interval = 100 }
source { FakeSource { row.num = 4, split.num = 2, schema = { fields { id = bigint } } } }
sink { Console { parallelism = 1, log.print.data = false, log.print.delay.ms = 300 } }
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
	bySink := 0
	for _, c := range h.Checkpoints {
		d := c.Diagnosis
		if d == nil || d.DelayedBy == nil || len(d.Subtasks) != 3 {
			t.Fatalf("checkpoint %d: diagnosis %+v", c.CheckpointID, d)
		}
		if c.Type != "CHECKPOINT" || c.DurationMs < 100 {
			continue
		}
		switch {
		case d.DelayedBy.Vertex == "Sink[0]-Console" && d.DelayedBy.Reason == "waiting for barriers" && d.DelayedBy.Ms >= 50:
			bySink++
		case d.DelayedBy.Reason == "writing state":
			// A loaded machine's fsync took longer still: that is named.
			t.Logf("checkpoint %d (%d ms): delayed most by %+v", c.CheckpointID, c.DurationMs, d.DelayedBy)
		default:
			t.Errorf("checkpoint %d (%d ms) delayed by %+v, want Sink[0]-Console waiting for barriers", c.CheckpointID, c.DurationMs, d.DelayedBy)
		}
	}
	if bySink == 0 {
		t.Fatalf("no checkpoint is attributed to the slow sink: %+v", h.Checkpoints)
	}
}

// TestRestorePreview: /restore-preview names the checkpoint a restore
// would start from; with a job file posted, the parallelism it changes.
func TestRestorePreview(t *testing.T) {
	s := start(t)
	id := s.submit("?jobId=preview-1", slowJob)
	s.waitState(id, "RUNNING")
	var p struct {
		JobID     string `json:"jobId"`
		Pipelines []struct {
			PipelineID   int    `json:"pipelineId"`
			CheckpointID int64  `json:"checkpointId"`
			Type         string `json:"type"`
			Sources      []struct {
				Vertex  string   `json:"vertex"`
				Reading []string `json:"reading"`
			} `json:"sources"`
			Parallelism []struct {
				Vertex   string `json:"vertex"`
				From, To int
			} `json:"parallelismChanges"`
		} `json:"pipelines"`
		Text string `json:"text"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.getJSON("/restore-preview/"+id, http.StatusOK, &p)
		if len(p.Pipelines) == 1 && p.Pipelines[0].CheckpointID > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint in the preview: %+v", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	pp := p.Pipelines[0]
	if pp.Type != "CHECKPOINT" || len(pp.Sources) != 1 || pp.Sources[0].Vertex != "Source[0]-FakeSource" || len(pp.Sources[0].Reading) != 1 ||
		len(pp.Parallelism) != 0 || !strings.Contains(p.Text, "pipeline 1: checkpoint") {
		t.Fatalf("preview %+v", p)
	}
	code, b := s.do("POST", "/restore-preview/"+id, "text/plain", strings.Replace(slowJob, "job.mode", "parallelism = 2, job.mode", 1))
	if code != http.StatusOK || !strings.Contains(string(b), `"from": 1`) || !strings.Contains(string(b), `"to": 2`) {
		t.Fatalf("preview with parallelism 2: %d %s", code, b)
	}
	if code, _ := s.do("GET", "/restore-preview/nope", "", ""); code != http.StatusNotFound {
		t.Fatalf("preview of an unknown job: %d", code)
	}
	// A savepoint ends the job after its last commit (and the commit
	// times stored with it), so nothing writes while the test cleans up.
	if code, b := s.do("POST", "/stop-job", "application/json", `{"jobId": "`+id+`", "isStopWithSavePoint": true}`); code != http.StatusOK {
		t.Fatalf("stop-job: %d %s", code, b)
	}
	s.waitState(id, "SAVEPOINT_DONE")
}
