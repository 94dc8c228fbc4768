package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/cluster/httpapi"
	_ "github.com/stactor/stactor/connectors/all"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/storage/localfile"
)

// server is a real engine (a CoordinatorService, a ResourceManager and
// one worker with 4 slots on one actor system, checkpoints in a temp dir)
// behind the API.
type server struct {
	*httptest.Server
	t     testing.TB
	store *localfile.Store
}

func start(t testing.TB, opts ...httpapi.Option) *server {
	t.Helper()
	return startIn(t, t.TempDir(), opts...)
}

// startIn is start with the checkpoint storage in dir.
func startIn(t testing.TB, dir string, opts ...httpapi.Option) *server {
	t.Helper()
	store, err := localfile.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	cfg.Store = store
	cfg.Task.BatchSize = 64
	cfg.Checkpoint.Interval = 100 * time.Millisecond
	sys, err := engine.NewSystem(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Shutdown)
	if _, err := engine.SpawnWorker(sys, cfg); err != nil {
		t.Fatal(err)
	}
	slot := resources.Profile{CPU: 0.25, MemoryMB: 128}
	m, err := engine.SpawnMaster(sys, cfg, resource.Options{Strategy: resources.SlotRatio, Slot: slot}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sys.Root.Send(m.Resources, &resource.WorkerUp{Worker: resources.Worker{ID: "w1", Address: sys.Address(), FixedSlots: 4,
		Tags: map[string]string{"zone": "a"}}})
	h := httpapi.New(httpapi.NewActorCoordinator(sys.Root, m.Coordinator, m.Resources, slot), store,
		append([]httpapi.Option{httpapi.WithVersion("test-1"), httpapi.WithNodeID("n1")}, opts...)...)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &server{Server: srv, t: t, store: store}
}

// do sends a request and returns the status and body; the test fails on
// a transport error.
func (s *server) do(method, path, contentType, body string) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := s.Client().Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return res.StatusCode, b
}

// getJSON GETs path, wants status want and decodes the body into v.
func (s *server) getJSON(path string, want int, v any) {
	s.t.Helper()
	code, b := s.do("GET", path, "", "")
	if code != want {
		s.t.Fatalf("GET %s: %d, want %d: %s", path, code, want, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			s.t.Fatalf("GET %s: %v in %s", path, err, b)
		}
	}
}

// submit POSTs a job file and returns the job id it got.
func (s *server) submit(query, file string) string {
	s.t.Helper()
	code, b := s.do("POST", "/submit-job"+query, "text/plain", file)
	if code != http.StatusOK {
		s.t.Fatalf("submit-job%s: %d: %s", query, code, b)
	}
	var r struct{ JobID, JobName string }
	if err := json.Unmarshal(b, &r); err != nil || r.JobID == "" {
		s.t.Fatalf("submit-job: bad answer %s (%v)", b, err)
	}
	return r.JobID
}

type jobInfo struct {
	JobID        string  `json:"jobId"`
	JobName      string  `json:"jobName"`
	JobStatus    string  `json:"jobStatus"`
	CreateTime   string  `json:"createTime"`
	FinishedTime string  `json:"finishedTime"`
	StartTimeMs  int64   `json:"startTimeMs"`
	EndTimeMs    int64   `json:"endTimeMs"`
	ErrorMsg     *string `json:"errorMsg"`
	Metrics      *struct {
		SourceReceivedCount, SourceReceivedBytes, SinkWriteCount, SinkWriteBytes int64
		VertexMetrics                                                            []vertexMetrics
	} `json:"metrics"`
	Pipelines []struct {
		PipelineID     int    `json:"pipelineId"`
		PipelineStatus string `json:"pipelineStatus"`
		Attempt        int    `json:"attempt"`
	} `json:"pipelines"`
	JobDag *struct {
		JobID         string `json:"jobId"`
		JobMode       string `json:"jobMode"`
		VertexInfoMap []struct {
			VertexID    int      `json:"vertexId"`
			Type        string   `json:"type"`
			VertexName  string   `json:"vertexName"`
			TablePaths  []string `json:"tablePaths"`
			Parallelism int      `json:"parallelism"`
			PipelineID  int      `json:"pipelineId"`
			ChainID     int      `json:"chainId"`
		} `json:"vertexInfoMap"`
		PipelineEdges map[string][]struct {
			InputVertexID  int    `json:"inputVertexId"`
			TargetVertexID int    `json:"targetVertexId"`
			Partitioning   string `json:"partitioning"`
			Fused          bool   `json:"fused"`
		} `json:"pipelineEdges"`
	} `json:"jobDag"`
}

type vertexMetrics struct {
	VertexID                     int    `json:"vertexId"`
	VertexName                   string `json:"vertexName"`
	Type                         string `json:"type"`
	Parallelism, Subtasks        int
	PipelineID                   int `json:"pipelineId"`
	ReceivedCount, EmittedCount  int64
	ReceivedBytes, EmittedBytes  int64
	BackPressuredTimeMs          int64
	BackPressuredTimeMsPerSecond *float64
}

// waitState polls /job-info until the job is in state want; an ended job
// in another state fails the test.
func (s *server) waitState(id, want string) jobInfo {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var j jobInfo
		s.getJSON("/job-info/"+id, http.StatusOK, &j)
		if j.JobStatus == want {
			return j
		}
		switch j.JobStatus {
		case "FINISHED", "FAILED", "CANCELED", "SAVEPOINT_DONE":
			s.t.Fatalf("job %s ended %s, want %s (error %v)", id, j.JobStatus, want, j.ErrorMsg)
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("job %s is %s after 60s, want %s", id, j.JobStatus, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// failure decodes an error answer and checks its shape.
func failure(t *testing.T, b []byte) string {
	t.Helper()
	var f struct{ Status, Message string }
	if err := json.Unmarshal(b, &f); err != nil || f.Status != "fail" || f.Message == "" {
		t.Fatalf("not a {status: fail, message} answer: %s (%v)", b, err)
	}
	return f.Message
}

// batchJob reads 2×500 rows and writes them to an Assert sink that checks
// it gets all 1000 (parallelism 1: a rebalance channel from the source)
// and to a Console sink that only counts them.
const batchJob = `
env { job.mode = "BATCH", parallelism = 2, job.name = "api-batch" }
source {
  FakeSource {
    plugin_output = "fake"
    row.num = 500
    schema = { fields { id = bigint, name = string } }
  }
}
sink {
  Assert {
    plugin_input = "fake"
    parallelism = 1
    rules { row_rules = [ { rule_type = MIN_ROW, rule_value = 1000 }, { rule_type = MAX_ROW, rule_value = 1000 } ] }
  }
  Console { plugin_input = "fake", log.print.data = false }
}
`

func TestSubmitBatchJobToFinished(t *testing.T) {
	s := start(t)
	id := s.submit("?jobId=batch-1", batchJob)
	if id != "batch-1" {
		t.Fatalf("job id %q, want batch-1", id)
	}
	j := s.waitState(id, "FINISHED")
	if j.JobName != "api-batch" || j.ErrorMsg != nil || j.EndTimeMs < j.StartTimeMs || j.FinishedTime == "" || j.CreateTime == "" {
		t.Fatalf("job-info: %+v", j)
	}
	if j.Metrics == nil || j.Metrics.SourceReceivedCount != 1000 || j.Metrics.SinkWriteCount != 2000 {
		t.Fatalf("job-info metrics %+v, want 1000 read and 2000 written (two sinks)", j.Metrics)
	}
	if j.Metrics.SourceReceivedBytes <= 0 || j.Metrics.SinkWriteBytes <= 0 {
		t.Fatalf("job-info byte counts %+v", j.Metrics)
	}
	if len(j.Pipelines) != 1 || j.Pipelines[0].PipelineStatus != "FINISHED" || j.Pipelines[0].Attempt != 0 {
		t.Fatalf("pipelines %+v", j.Pipelines)
	}
	checkDag(t, j)
	checkVertexMetrics(t, j)

	var finished []jobInfo
	s.getJSON("/finished-jobs", http.StatusOK, &finished)
	if len(finished) != 1 || finished[0].JobID != id || finished[0].Metrics.SinkWriteCount != 2000 {
		t.Fatalf("finished-jobs: %+v", finished)
	}
	s.getJSON("/finished-jobs/finished", http.StatusOK, &finished)
	if len(finished) != 1 {
		t.Fatalf("finished-jobs/finished: %+v", finished)
	}
	s.getJSON("/finished-jobs/FAILED", http.StatusOK, &finished)
	if len(finished) != 0 {
		t.Fatalf("finished-jobs/FAILED: %+v", finished)
	}
	var running []jobInfo
	s.getJSON("/running-jobs", http.StatusOK, &running)
	if len(running) != 0 {
		t.Fatalf("running-jobs after the job ended: %+v", running)
	}

	var o struct {
		ProjectVersion                                       string
		Leader                                               string
		TotalSlot, UnassignedSlot, Works                     int
		RunningJobs, FinishedJobs, FailedJobs, CancelledJobs int
		Workers                                              []struct {
			WorkerID         string
			Slots, UsedSlots int
		}
	}
	s.getJSON("/overview", http.StatusOK, &o)
	if o.ProjectVersion != "test-1" || o.Leader != "n1" || o.Works != 1 || o.TotalSlot != 4 || o.UnassignedSlot != 4 ||
		o.FinishedJobs != 1 || o.RunningJobs != 0 || o.FailedJobs != 0 || len(o.Workers) != 1 || o.Workers[0].WorkerID != "w1" {
		t.Fatalf("overview: %+v", o)
	}
	s.getJSON("/overview?zone=b", http.StatusOK, &o)
	if o.Works != 0 || o.TotalSlot != 0 || o.FinishedJobs != 1 {
		t.Fatalf("overview?zone=b (no worker matches): %+v", o)
	}

	var cps struct {
		JobID       string `json:"jobId"`
		Checkpoints []struct {
			PipelineID     int    `json:"pipelineId"`
			CheckpointID   int64  `json:"checkpointId"`
			Type           string `json:"type"`
			TriggerTimeMs  int64  `json:"triggerTimeMs"`
			CompleteTimeMs int64  `json:"completeTimeMs"`
			DurationMs     int64  `json:"durationMs"`
			ReadRows       int64  `json:"readRows"`
			WriteRows      int64  `json:"writeRows"`
		} `json:"checkpoints"`
	}
	s.getJSON("/job-checkpoints/"+id, http.StatusOK, &cps)
	stored, err := s.store.List(id)
	if err != nil {
		t.Fatal(err)
	}
	if cps.JobID != id || len(cps.Checkpoints) == 0 || len(cps.Checkpoints) != len(stored) {
		t.Fatalf("job-checkpoints: %+v, the storage has %d", cps, len(stored))
	}
	last := cps.Checkpoints[len(cps.Checkpoints)-1]
	if last.Type != "FINAL" || last.CheckpointID != stored[len(stored)-1].Id || last.ReadRows != 1000 || last.WriteRows != 2000 ||
		last.CompleteTimeMs < last.TriggerTimeMs || last.DurationMs != last.CompleteTimeMs-last.TriggerTimeMs {
		t.Fatalf("last checkpoint %+v, want the FINAL one with 1000 read and 2000 written", last)
	}

	code, b := s.do("GET", "/metrics", "", "")
	if code != http.StatusOK {
		t.Fatalf("metrics: %d: %s", code, b)
	}
	for _, want := range []string{
		`stactor_node_leader 1`,
		`stactor_job_rows_read_total{job_id="batch-1",job_name="api-batch"} 1000`,
		`stactor_job_rows_written_total{job_id="batch-1",job_name="api-batch"} 2000`,
		`stactor_job_state{job_id="batch-1",job_name="api-batch",state="FINISHED"} 1`,
		`stactor_job_pipeline_attempt{job_id="batch-1",job_name="api-batch",pipeline="1"} 0`,
		`stactor_jobs{state="FINISHED"} 1`,
		`stactor_workers 1`,
		`stactor_slots 4`,
		`stactor_slots_free 4`,
		`stactor_worker_slots{worker="w1"} 4`,
		"# TYPE stactor_job_rows_read_total counter",
		`stactor_vertex_rows_in_total{job_id="batch-1",job_name="api-batch",vertex="Source[0]-FakeSource"} 1000`,
		`stactor_vertex_rows_out_total{job_id="batch-1",job_name="api-batch",vertex="Source[0]-FakeSource"} 1000`,
		`stactor_vertex_rows_in_total{job_id="batch-1",job_name="api-batch",vertex="Sink[0]-Assert"} 1000`,
		`stactor_vertex_rows_out_total{job_id="batch-1",job_name="api-batch",vertex="Sink[0]-Assert"} 0`,
		`stactor_vertex_rows_in_total{job_id="batch-1",job_name="api-batch",vertex="Sink[1]-Console"} 1000`,
		fmt.Sprintf(`stactor_vertex_bytes_out_total{job_id="batch-1",job_name="api-batch",vertex="Source[0]-FakeSource"} %d`, j.Metrics.SourceReceivedBytes),
		`stactor_vertex_backpressure_ratio{job_id="batch-1",job_name="api-batch",vertex="Sink[0]-Assert"} 0`,
		`stactor_vertex_backpressure_ratio{job_id="batch-1",job_name="api-batch",vertex="Source[0]-FakeSource"} 0`,
		"# TYPE stactor_vertex_rows_in_total counter",
		"# TYPE stactor_vertex_backpressured_seconds_total counter",
		"# TYPE stactor_vertex_backpressure_ratio gauge",
	} {
		if !strings.Contains(string(b), want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", grep(string(b), "stactor_"))
	}
}

func checkDag(t *testing.T, j jobInfo) {
	t.Helper()
	d := j.JobDag
	if d == nil || d.JobID != j.JobID || d.JobMode != "BATCH" || len(d.VertexInfoMap) != 3 {
		t.Fatalf("jobDag %+v", d)
	}
	want := []struct {
		name, typ string
		par       int
	}{{"Source[0]-FakeSource", "source", 2}, {"Sink[0]-Assert", "sink", 1}, {"Sink[1]-Console", "sink", 2}}
	for i, w := range want {
		v := d.VertexInfoMap[i]
		if v.VertexName != w.name || v.Type != w.typ || v.Parallelism != w.par || v.VertexID != i {
			t.Fatalf("vertex %d: %+v, want %+v", i, v, w)
		}
	}
	if d.VertexInfoMap[0].ChainID != d.VertexInfoMap[2].ChainID || d.VertexInfoMap[0].ChainID == d.VertexInfoMap[1].ChainID {
		t.Fatalf("chains: the Console sink should be fused with the source, the Assert sink not: %+v", d.VertexInfoMap)
	}
	var edges []string
	for p, es := range d.PipelineEdges {
		for _, e := range es {
			edges = append(edges, fmt.Sprintf("%s:%d->%d %s fused=%v", p, e.InputVertexID, e.TargetVertexID, e.Partitioning, e.Fused))
		}
	}
	got := strings.Join(edges, "; ")
	if got != fmt.Sprintf("%d:0->1 rebalance fused=false; %d:0->2 forward fused=true", d.VertexInfoMap[0].PipelineID, d.VertexInfoMap[0].PipelineID) {
		t.Fatalf("edges %s", got)
	}
}

// checkVertexMetrics checks the per-vertex figures of batchJob once it
// finished: each vertex's counts are its rows, and nothing is
// backpressured any more.
func checkVertexMetrics(t *testing.T, j jobInfo) {
	t.Helper()
	vs := j.Metrics.VertexMetrics
	want := []struct {
		name          string
		par           int
		in, out       int64
		bytesIn, bOut bool
	}{{"Source[0]-FakeSource", 2, 1000, 1000, false, true}, {"Sink[0]-Assert", 1, 1000, 0, true, false}, {"Sink[1]-Console", 2, 1000, 0, true, false}}
	if len(vs) != len(want) {
		t.Fatalf("VertexMetrics %+v, want %d vertices", vs, len(want))
	}
	var sinkBytes int64
	for i, w := range want {
		v := vs[i]
		if v.VertexID != i || v.VertexName != w.name || v.Parallelism != w.par || v.Subtasks != w.par || v.ReceivedCount != w.in || v.EmittedCount != w.out ||
			(v.ReceivedBytes > 0) != w.bytesIn || (v.EmittedBytes > 0) != w.bOut || v.BackPressuredTimeMsPerSecond == nil || *v.BackPressuredTimeMsPerSecond != 0 {
			t.Fatalf("vertex %d: %+v, want %+v", i, v, w)
		}
		sinkBytes += v.ReceivedBytes
	}
	if vs[0].EmittedBytes != j.Metrics.SourceReceivedBytes || sinkBytes != j.Metrics.SinkWriteBytes {
		t.Fatalf("vertex bytes %+v, job %+v", vs, j.Metrics)
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// slowJob reads 20 rows a second until it is stopped.
const slowJob = `
env { job.mode = "BATCH", read_limit.rows_per_second = 20, job.name = "slow" }
source { FakeSource { plugin_output = "fake", row.num = 100000, schema = { fields { id = bigint } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }
`

func TestStopWithSavepointThenRestore(t *testing.T) {
	s := start(t)
	id := s.submit("?jobName=slow-one", slowJob)
	s.waitState(id, "RUNNING")
	var running []jobInfo
	s.getJSON("/running-jobs", http.StatusOK, &running)
	if len(running) != 1 || running[0].JobID != id || running[0].JobName != "slow-one" || running[0].JobDag == nil {
		t.Fatalf("running-jobs: %+v", running)
	}
	// Wait for some rows, so the savepoint has something to keep.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var j jobInfo
		s.getJSON("/job-info/"+id, http.StatusOK, &j)
		if j.Metrics != nil && j.Metrics.SinkWriteCount >= 10 {
			// The source and the sink are one fused subtask: they moved
			// the same rows, counted together.
			if vs := j.Metrics.VertexMetrics; len(vs) != 2 || vs[0].EmittedCount != vs[1].ReceivedCount || vs[1].ReceivedCount < 10 ||
				vs[0].BackPressuredTimeMsPerSecond == nil {
				t.Fatalf("vertex metrics of the running job: %+v", vs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job wrote no rows: %+v", j)
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, b := s.do("POST", "/stop-job", "application/json", fmt.Sprintf(`{"jobId": %q, "isStopWithSavePoint": true}`, id))
	if code != http.StatusOK || !strings.Contains(string(b), id) {
		t.Fatalf("stop-job: %d %s", code, b)
	}
	j := s.waitState(id, "SAVEPOINT_DONE")
	written := j.Metrics.SinkWriteCount
	if written < 10 || j.Metrics.SourceReceivedCount != written {
		t.Fatalf("after the savepoint: %+v", j.Metrics)
	}
	var cps struct {
		Checkpoints []struct{ Type string } `json:"checkpoints"`
	}
	s.getJSON("/job-checkpoints/"+id, http.StatusOK, &cps)
	if n := len(cps.Checkpoints); n == 0 || cps.Checkpoints[n-1].Type != "SAVEPOINT" {
		t.Fatalf("job-checkpoints after the savepoint: %+v", cps)
	}
	// Stopping it again is a conflict; so is submitting its id afresh.
	code, b = s.do("POST", "/stop-job", "application/json", fmt.Sprintf(`{"jobId": %q}`, id))
	if code != http.StatusConflict || !strings.Contains(failure(t, b), "SAVEPOINT_DONE") {
		t.Fatalf("stop-job of an ended job: %d %s", code, b)
	}
	code, b = s.do("POST", "/submit-job?jobId="+id, "text/plain", slowJob)
	if code != http.StatusConflict || !strings.Contains(failure(t, b), "exists already") {
		t.Fatalf("submit-job of a used id: %d %s", code, b)
	}

	// Continue it from the savepoint, then cancel it.
	if got := s.submit("?isStartWithSavePoint=true&jobId="+id, slowJob); got != id {
		t.Fatalf("restored as %s", got)
	}
	j = s.waitState(id, "RUNNING")
	code, b = s.do("POST", "/stop-job", "application/json", fmt.Sprintf(`{"jobId": %q, "isStopWithSavePoint": false}`, id))
	if code != http.StatusOK {
		t.Fatalf("stop-job: %d %s", code, b)
	}
	j = s.waitState(id, "CANCELED")
	if j.Metrics.SourceReceivedCount < written {
		t.Fatalf("the restored job counts %d rows read, fewer than the %d before its savepoint", j.Metrics.SourceReceivedCount, written)
	}
	var o struct{ SavepointDoneJobs, CancelledJobs int }
	s.getJSON("/overview", http.StatusOK, &o)
	if o.CancelledJobs != 1 || o.SavepointDoneJobs != 0 {
		t.Fatalf("overview: %+v", o)
	}
}

func TestBadRequests(t *testing.T) {
	s := start(t)
	for _, c := range []struct {
		name, method, path, body string
		code                     int
		msg                      string
	}{
		{"bad option", "POST", "/submit-job?fileName=job.conf", "source {\n  FakeSource { row.num = \"many\" }\n}\nsink { Console {} }\n",
			http.StatusBadRequest, `job.conf:2:`},
		{"unknown plugin", "POST", "/submit-job", "source { NoSuchSource {} }\nsink { Console {} }\n", http.StatusBadRequest, "NoSuchSource"},
		{"syntax", "POST", "/submit-job", "source { FakeSource { ", http.StatusBadRequest, "1:"},
		{"empty body", "POST", "/submit-job", " \n", http.StatusBadRequest, "body is empty"},
		{"bad restore flag", "POST", "/submit-job?isStartWithSavePoint=maybe", batchJob, http.StatusBadRequest, "isStartWithSavePoint"},
		{"restore without id", "POST", "/submit-job?isStartWithSavePoint=true", batchJob, http.StatusBadRequest, "jobId"},
		{"restore unknown job", "POST", "/submit-job?isStartWithSavePoint=true&jobId=nope", batchJob, http.StatusNotFound, "no job nope to continue"},
		{"bad job id", "POST", "/submit-job?jobId=a.b", batchJob, http.StatusBadRequest, "jobId"},
		{"bad variable", "POST", "/submit-job?variable=novalue", batchJob, http.StatusBadRequest, "variable"},
		{"too big", "POST", "/submit-job", strings.Repeat("#", 2<<20), http.StatusRequestEntityTooLarge, "larger than"},
		{"unknown job", "GET", "/job-info/nope", "", http.StatusNotFound, "no job nope"},
		{"unknown job checkpoints", "GET", "/job-checkpoints/nope", "", http.StatusNotFound, "no job nope"},
		{"stop unknown job", "POST", "/stop-job", `{"jobId": "nope"}`, http.StatusNotFound, "no job nope"},
		{"stop numeric unknown job", "POST", "/stop-job", `{"jobId": 733584788375666689}`, http.StatusNotFound, "no job 733584788375666689"},
		{"stop bad json", "POST", "/stop-job", `{"jobId": `, http.StatusBadRequest, "JSON"},
		{"stop no id", "POST", "/stop-job", `{}`, http.StatusBadRequest, "no jobId"},
		{"bad finished state", "GET", "/finished-jobs/DONE", "", http.StatusBadRequest, "FINISHED"},
		{"wrong method", "GET", "/submit-job", "", http.StatusMethodNotAllowed, "use POST"},
		{"unknown endpoint", "GET", "/no-such-thing", "", http.StatusNotFound, "no such endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, b := s.do(c.method, c.path, "text/plain", c.body)
			if code != c.code {
				t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, code, c.code, b)
			}
			if msg := failure(t, b); !strings.Contains(msg, c.msg) {
				t.Fatalf("message %q does not contain %q", msg, c.msg)
			}
		})
	}
	var finished []jobInfo
	s.getJSON("/finished-jobs", http.StatusOK, &finished)
	if len(finished) != 0 {
		t.Fatalf("refused jobs are listed: %+v", finished)
	}
}

// The coordinator's refusal text is what the API answers: the same words
// `stactor run` prints for the file.
func TestBadJobFileMessage(t *testing.T) {
	s := start(t)
	file := "env { job.mode = BATCH }\nsource {\n  FakeSource { row.num = \"many\" }\n}\nsink { Console {} }\n"
	code, b := s.do("POST", "/submit-job?fileName=bad.conf&jobId=bad", "text/plain", file)
	msg := failure(t, b)
	if code != http.StatusBadRequest || !strings.HasPrefix(msg, "bad.conf:3:") || !strings.Contains(msg, "row.num") {
		t.Fatalf("%d %q: want 400 with the position and the option", code, msg)
	}
	s.getJSON("/job-info/bad", http.StatusNotFound, nil)
}

func TestPage(t *testing.T) {
	s := start(t)
	code, b := s.do("GET", "/", "", "")
	if code != http.StatusOK || !strings.Contains(string(b), "<title>stactor</title>") {
		t.Fatalf("GET /: %d %.200s", code, b)
	}
	if strings.Contains(string(b), "http://") && !strings.Contains(string(b), `"http://www.w3.org/2000/svg"`) {
		t.Fatal("the page loads something from elsewhere")
	}
}

// leadership is a Leadership whose answers the test sets.
type leadership struct {
	leading bool
	leader  string
	err     error
}

func (l *leadership) Leading() bool { return l.leading }
func (l *leadership) LeaderHTTP(context.Context) (string, error) {
	return l.leader, l.err
}

func TestNotLeaderRedirectsOrAnswers503(t *testing.T) {
	l := &leadership{leader: "10.1.2.3:8080"}
	s := start(t, httpapi.WithLeadership(l))
	s.Client().CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	res, err := s.Client().Post(s.URL+"/submit-job?jobName=x%20y", "text/plain", strings.NewReader(batchJob))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusTemporaryRedirect || loc == nil || loc.Host != "10.1.2.3:8080" || loc.Path != "/submit-job" ||
		loc.Query().Get("jobName") != "x y" {
		t.Fatalf("POST on a non-leader: %d Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	code, b := s.do("GET", "/metrics", "", "")
	if code != http.StatusOK || !strings.Contains(string(b), "stactor_node_leader 0\n") || strings.Contains(string(b), "stactor_workers") {
		t.Fatalf("metrics on a non-leader: %d\n%s", code, grep(string(b), "stactor_"))
	}

	l.err = httpapi.ErrNoLeader
	code, b = s.do("GET", "/overview", "", "")
	if code != http.StatusServiceUnavailable || !strings.Contains(failure(t, b), "no leader") {
		t.Fatalf("no leader: %d %s", code, b)
	}

	l.leading, l.err = true, nil
	s.getJSON("/overview", http.StatusOK, nil)
}
