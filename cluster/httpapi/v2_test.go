package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestSubmitJobsAndStopJobs: /submit-jobs takes SeaTunnel's JSON jobs
// with their params and answers each job's id and name; /stop-jobs stops
// them; /running-job/{id} answers as /job-info.
func TestSubmitJobsAndStopJobs(t *testing.T) {
	s := start(t)
	job := func(id, name string) string {
		return `{"params": {"jobId": "` + id + `", "jobName": "` + name + `"},
  "env": {"job.mode": "BATCH", "read_limit.rows_per_second": 20},
  "source": [{"plugin_name": "FakeSource", "plugin_output": "fake", "row.num": 100000, "schema": {"fields": {"id": "bigint"}}}],
  "transform": [],
  "sink": [{"plugin_name": "Console", "plugin_input": ["fake"], "log.print.data": false}]}`
	}
	code, b := s.do("POST", "/submit-jobs", "application/json", "["+job("batch-a", "A")+","+job("batch-b", "B")+"]")
	if code != http.StatusOK {
		t.Fatalf("submit-jobs: %d %s", code, b)
	}
	var got []struct {
		JobID      string   `json:"jobId"`
		JobName    string   `json:"jobName"`
		Guarantees []string `json:"guarantees"`
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got) != 2 || got[0].JobID != "batch-a" || got[1].JobName != "B" {
		t.Fatalf("submit-jobs answered %s (%v)", b, err)
	}
	if len(got[0].Guarantees) != 1 || !strings.HasPrefix(got[0].Guarantees[0], "pipeline 1: none, limited by Sink[0]-Console") {
		t.Fatalf("guarantees %q", got[0].Guarantees)
	}
	for _, id := range []string{"batch-a", "batch-b"} {
		s.waitState(id, "RUNNING")
		var j jobInfo
		s.getJSON("/running-job/"+id, http.StatusOK, &j)
		if j.JobID != id || j.JobStatus != "RUNNING" || j.JobDag == nil {
			t.Fatalf("running-job/%s: %+v", id, j)
		}
	}
	// A used id refuses the whole batch before anything is submitted
	// past it, naming what was.
	code, b = s.do("POST", "/submit-jobs", "application/json", "["+job("batch-c", "C")+","+job("batch-a", "again")+"]")
	if code != http.StatusConflict || !strings.Contains(failure(t, b), "job 2 (batch-a): job batch-a exists already") || !strings.Contains(failure(t, b), "[batch-c]") {
		t.Fatalf("submit-jobs with a used id: %d %s", code, b)
	}
	// An unknown job stops nothing.
	code, b = s.do("POST", "/stop-jobs", "application/json", `[{"jobId": "batch-a"}, {"jobId": "nope"}]`)
	if code != http.StatusNotFound {
		t.Fatalf("stop-jobs with an unknown job: %d %s", code, b)
	}
	s.waitState("batch-a", "RUNNING")
	code, b = s.do("POST", "/stop-jobs", "application/json", `[{"jobId": "batch-a", "isStopWithSavePoint": true}, {"jobId": "batch-b"}, {"jobId": "batch-c"}]`)
	if code != http.StatusOK || !strings.Contains(string(b), `"jobId": "batch-c"`) {
		t.Fatalf("stop-jobs: %d %s", code, b)
	}
	s.waitState("batch-a", "SAVEPOINT_DONE")
	s.waitState("batch-b", "CANCELED")
	s.waitState("batch-c", "CANCELED")
	for _, bad := range []string{``, `{}`, `[]`, `[{"params": {"jobId": "x y"}}]`} {
		if code, b := s.do("POST", "/submit-jobs", "application/json", bad); code != http.StatusBadRequest {
			t.Errorf("submit-jobs %q: %d %s", bad, code, b)
		}
	}
}

func TestSystemMonitoringInformation(t *testing.T) {
	s := start(t)
	var got []map[string]string
	s.getJSON("/system-monitoring-information", http.StatusOK, &got)
	if len(got) != 1 || got[0]["processors"] == "" || got[0]["heap.memory.used"] == "" || got[0]["node"] != "n1" {
		t.Fatalf("system-monitoring-information: %v", got)
	}
}

func TestUpdateTagsWithoutTagger(t *testing.T) {
	s := start(t)
	if code, b := s.do("POST", "/update-tags", "application/json", `{"zone": "b"}`); code != http.StatusNotFound {
		t.Fatalf("update-tags on a handler without a worker: %d %s", code, b)
	}
}
