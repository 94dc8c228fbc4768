package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

// jobInfo is a job in /running-jobs, /job-info and /finished-jobs, with
// SeaTunnel's field names where it has them.
type jobInfo struct {
	JobID     string `json:"jobId"`
	JobName   string `json:"jobName"`
	JobStatus string `json:"jobStatus"`
	// CreateTime and FinishedTime are local times as SeaTunnel writes
	// them; StartTimeMs and EndTimeMs the same in Unix milliseconds.
	CreateTime   string  `json:"createTime"`
	FinishedTime string  `json:"finishedTime,omitempty"`
	StartTimeMs  int64   `json:"startTimeMs"`
	EndTimeMs    int64   `json:"endTimeMs,omitempty"`
	ErrorMsg     *string `json:"errorMsg"`
	// Metrics is null for a job known only from the job registry (it
	// ended under an earlier leader): the registry keeps no counts.
	Metrics   *jobMetrics    `json:"metrics"`
	Pipelines []pipelineInfo `json:"pipelines"`
	JobDag    *jobDag        `json:"jobDag,omitempty"`
}

// jobMetrics are a job's counters, summed over its subtasks (and over
// the attempts before a restore). /job-info adds each vertex's figures,
// for the current attempt of its pipeline (absent for a job known only
// from the job registry).
type jobMetrics struct {
	SourceReceivedCount int64           `json:"SourceReceivedCount"`
	SourceReceivedBytes int64           `json:"SourceReceivedBytes"`
	SinkWriteCount      int64           `json:"SinkWriteCount"`
	SinkWriteBytes      int64           `json:"SinkWriteBytes"`
	VertexMetrics       []vertexMetrics `json:"VertexMetrics,omitempty"`
	// /job-info only: the job's rates (SeaTunnel's SourceReceivedQPS and
	// SinkWriteQPS), each pipeline's last checkpoint, each subtask.
	SourceReceivedQPS float64           `json:"SourceReceivedQPS"`
	SinkWriteQPS      float64           `json:"SinkWriteQPS"`
	PipelineMetrics   []pipelineMetrics `json:"PipelineMetrics,omitempty"`
	SubtaskMetrics    []subtaskMetrics  `json:"SubtaskMetrics,omitempty"`
}

type pipelineInfo struct {
	PipelineID     int32  `json:"pipelineId"`
	PipelineStatus string `json:"pipelineStatus"`
	// Attempt counts the pipeline's restores: 0 on its first run.
	Attempt int32 `json:"attempt"`
}

// seatunnelTime is how SeaTunnel's REST API writes times.
const seatunnelTime = "2006-01-02 15:04:05"

// info is st as the API shows it.
func info(st *messages.JobStatus) *jobInfo {
	j := &jobInfo{JobID: st.JobId, JobName: st.Name, JobStatus: st.State, StartTimeMs: st.StartUnixMs, EndTimeMs: st.EndUnixMs,
		Pipelines: []pipelineInfo{}}
	if st.StartUnixMs > 0 {
		j.CreateTime = time.UnixMilli(st.StartUnixMs).Format(seatunnelTime)
	}
	if st.EndUnixMs > 0 {
		j.FinishedTime = time.UnixMilli(st.EndUnixMs).Format(seatunnelTime)
	}
	if st.Error != "" {
		msg := st.Error
		j.ErrorMsg = &msg
	}
	j.Metrics = &jobMetrics{SourceReceivedCount: st.ReadRows, SourceReceivedBytes: st.ReadBytes,
		SinkWriteCount: st.WriteRows, SinkWriteBytes: st.WriteBytes}
	for _, p := range st.Pipelines {
		j.Pipelines = append(j.Pipelines, pipelineInfo{PipelineID: p.Id, PipelineStatus: p.State, Attempt: p.Attempt})
	}
	return j
}

// known is a job as the handler found it.
type known struct {
	status *messages.JobStatus
}

// jobs is every job the coordinator lists: its own, and in a cluster the
// job registry's that it does not run (ended under an earlier leader, or
// not resumed yet), with the counts their records keep.
func (h *Handler) jobs(ctx context.Context) ([]known, error) {
	list, err := h.coord.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]known, 0, len(list))
	for _, st := range list {
		out = append(out, known{status: st})
	}
	return out, nil
}

// job finds one job (the coordinator answers from the registry for jobs it
// does not run); nil when it is unknown.
func (h *Handler) job(ctx context.Context, id string) (*known, error) {
	st, err := h.coord.Status(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.State == "UNKNOWN" {
		return nil, nil
	}
	return &known{status: st}, nil
}

// findJob is the job of the request's path, or nil when it answered
// the request with the error (404 for an unknown job).
func (h *Handler) findJob(w http.ResponseWriter, r *http.Request, id string) *known {
	k, err := h.job(r.Context(), id)
	if err != nil {
		failErr(w, err)
		return nil
	}
	if k == nil {
		fail(w, http.StatusNotFound, "no job %s", id)
	}
	return k
}

// listJobs answers with the jobs keep selects, with their DAGs when dags
// is set.
func (h *Handler) listJobs(w http.ResponseWriter, r *http.Request, keep func(*messages.JobStatus) bool, dags bool) {
	all, err := h.jobs(r.Context())
	if err != nil {
		failErr(w, err)
		return
	}
	out := []*jobInfo{}
	for _, k := range all {
		if !keep(k.status) {
			continue
		}
		j := info(k.status)
		if dags {
			j.JobDag = h.dags.get(k.status.JobId)
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) runningJobs(w http.ResponseWriter, r *http.Request) {
	h.listJobs(w, r, func(st *messages.JobStatus) bool { return !state.JobEnded(st.State) }, true)
}

func (h *Handler) jobInfo(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("jobId")
	k := h.findJob(w, r, id)
	if k == nil {
		return
	}
	j := info(k.status)
	j.JobDag = h.dags.get(id)
	// The per-vertex figures are asked for after the status: a job that
	// ended in between has its final ones. Without them the job's own
	// counts are still worth answering.
	if m, err := h.coord.Metrics(r.Context(), id); err != nil {
		h.log.Warn().Err(err).Str("job", id).Msg("asking for the job's vertex metrics")
	} else {
		addMetrics(j.Metrics, m)
	}
	writeJSON(w, http.StatusOK, j)
}

// endStates are the states /finished-jobs/{state} takes: SeaTunnel's,
// whose UNKNOWABLE no stactor job has.
var endStates = []string{state.JobFinished, state.JobCanceled, state.JobFailed, state.JobSavepointDone, "UNKNOWABLE"}

func (h *Handler) finishedJobs(w http.ResponseWriter, r *http.Request) {
	want := strings.ToUpper(r.PathValue("state"))
	if want != "" && !slices.Contains(endStates, want) {
		fail(w, http.StatusBadRequest, "unknown finished state %q: want one of %s", r.PathValue("state"), strings.Join(endStates, ", "))
		return
	}
	h.listJobs(w, r, func(st *messages.JobStatus) bool {
		return state.JobEnded(st.State) && (want == "" || st.State == want)
	}, false)
}
