package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/state"
)

// The rest of SeaTunnel's REST API v2 that tooling uses: the deprecated
// /running-job/{jobId} (as /job-info), batch submit and stop, the
// serving process's system monitoring information, and /update-tags.

// maxBatch bounds /submit-jobs and /stop-jobs.
const maxBatch = 100

// submitJobs is /submit-jobs: a JSON array of jobs, each SeaTunnel's JSON
// job (env, source, transform, sink) with a "params" object (jobId,
// jobName, isStartWithSavePoint). Every job is checked before any is
// submitted; then they are submitted in order, and the first refusal
// ends the request, naming the jobs submitted before it.
func (h *Handler) submitJobs(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBatch*maxJobFile))
	if err != nil {
		fail(w, http.StatusBadRequest, "reading the body: %v", err)
		return
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		fail(w, http.StatusBadRequest, "the body must be a JSON array of jobs, each with its \"params\": %v", err)
		return
	}
	if len(raw) == 0 || len(raw) > maxBatch {
		fail(w, http.StatusBadRequest, "the body has %d jobs: send 1 to %d", len(raw), maxBatch)
		return
	}
	var jobs []submitArgs
	seen := map[string]bool{}
	for i, j := range raw {
		var p struct {
			JobID                any    `json:"jobId"`
			JobName              string `json:"jobName"`
			IsStartWithSavePoint any    `json:"isStartWithSavePoint"`
		}
		if pr, ok := j["params"]; ok {
			dec := json.NewDecoder(bytes.NewReader(pr))
			dec.UseNumber()
			if err := dec.Decode(&p); err != nil {
				fail(w, http.StatusBadRequest, "job %d: params: %v", i+1, err)
				return
			}
		}
		delete(j, "params")
		a := submitArgs{name: p.JobName, file: fmt.Sprintf("job-%d.json", i+1)}
		a.id = idText(p.JobID)
		switch v := p.IsStartWithSavePoint.(type) {
		case nil:
		case bool:
			a.restore = v
		case string:
			b, err := strconv.ParseBool(v)
			if err != nil {
				fail(w, http.StatusBadRequest, "job %d: isStartWithSavePoint=%q: want true or false", i+1, v)
				return
			}
			a.restore = b
		default:
			fail(w, http.StatusBadRequest, "job %d: isStartWithSavePoint: want true or false", i+1)
			return
		}
		switch {
		case a.id == "" && a.restore:
			fail(w, http.StatusBadRequest, "job %d: isStartWithSavePoint needs the jobId of the job to continue", i+1)
			return
		case a.id == "":
			a.id = strconv.FormatInt(time.Now().UnixNano()/1000+int64(i), 10)
		case !validJobID(a.id):
			fail(w, http.StatusBadRequest, "job %d: jobId %q: use 1 to 128 letters, digits, '_' and '-'", i+1, a.id)
			return
		}
		if seen[a.id] {
			fail(w, http.StatusBadRequest, "job %d: jobId %s is given twice", i+1, a.id)
			return
		}
		seen[a.id] = true
		if a.body, err = json.Marshal(j); err != nil {
			fail(w, http.StatusBadRequest, "job %d: %v", i+1, err)
			return
		}
		jobs = append(jobs, a)
	}
	out := []submitted{}
	for i, a := range jobs {
		res, ferr := h.submit(r.Context(), a)
		if ferr != nil {
			var done []string
			for _, s := range out {
				done = append(done, s.JobID)
			}
			ferr.msg = fmt.Sprintf("job %d (%s): %s; submitted before it: [%s]", i+1, a.id, ferr.Error(), strings.Join(done, ", "))
			if ferr.err != nil {
				ferr.err = fmt.Errorf("%w (%s)", ferr.err, ferr.msg)
			}
			ferr.write(w)
			return
		}
		out = append(out, res)
	}
	writeJSON(w, http.StatusOK, out)
}

// idText is a jobId given as a string or (SeaTunnel's) a number.
func idText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// stopJobs is /stop-jobs: a JSON array of /stop-job bodies. Every job must
// be known and running before any is stopped.
func (h *Handler) stopJobs(w http.ResponseWriter, r *http.Request) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBatch<<10))
	dec.UseNumber()
	var reqs []stopRequest
	if err := dec.Decode(&reqs); err != nil {
		fail(w, http.StatusBadRequest, "the body must be a JSON array of {\"jobId\": ..., \"isStopWithSavePoint\": false}: %v", err)
		return
	}
	if len(reqs) == 0 || len(reqs) > maxBatch {
		fail(w, http.StatusBadRequest, "the body has %d jobs: send 1 to %d", len(reqs), maxBatch)
		return
	}
	ctx := r.Context()
	ids := make([]string, len(reqs))
	for i, req := range reqs {
		ids[i] = idText(req.JobID)
		if ids[i] == "" {
			fail(w, http.StatusBadRequest, "job %d has no jobId (a string or a number)", i+1)
			return
		}
		k, err := h.job(ctx, ids[i])
		switch {
		case err != nil:
			failErr(w, err)
			return
		case k == nil:
			fail(w, http.StatusNotFound, "no job %s", ids[i])
			return
		case state.JobEnded(k.status.State):
			fail(w, http.StatusConflict, "job %s has ended already (%s)", ids[i], k.status.State)
			return
		}
	}
	out := []map[string]string{}
	for i, req := range reqs {
		var err error
		if req.IsStopWithSavePoint {
			err = h.coord.Savepoint(ctx, ids[i])
		} else {
			err = h.coord.Cancel(ctx, ids[i])
		}
		if err != nil {
			failErr(w, err)
			return
		}
		out = append(out, map[string]string{"jobId": ids[i]})
	}
	writeJSON(w, http.StatusOK, out)
}

// systemMonitoring is /system-monitoring-information: SeaTunnel's keys
// where a Go process has the same figure (processors, physical memory,
// heap, GC, load, threads — goroutines here), for the process that
// answers (the leader). Values are strings, as SeaTunnel's.
func (h *Handler) systemMonitoring(w http.ResponseWriter, r *http.Request) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	info := map[string]string{
		"node":                   h.nodeID,
		"processors":             strconv.Itoa(runtime.NumCPU()),
		"heap.memory.used":       sizeText(ms.HeapAlloc),
		"heap.memory.free":       sizeText(ms.HeapSys - ms.HeapAlloc),
		"heap.memory.total":      sizeText(ms.HeapSys),
		"heap.memory.used/total": percent(float64(ms.HeapAlloc), float64(ms.HeapSys)),
		"gc.count":               strconv.FormatUint(uint64(ms.NumGC), 10),
		"gc.time":                fmt.Sprintf("%dms", ms.PauseTotalNs/1e6),
		"thread.count":           strconv.Itoa(runtime.NumGoroutine()),
	}
	if total, free, ok := memInfo(); ok {
		info["physical.memory.total"], info["physical.memory.free"] = sizeText(total), sizeText(free)
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(la)); len(f) > 0 {
			info["load.systemAverage"] = f[0]
		}
	}
	writeJSON(w, http.StatusOK, []map[string]string{info})
}

// memInfo reads MemTotal and MemAvailable from /proc/meminfo (Linux).
func memInfo() (total, free uint64, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "MemTotal:":
			total = kb << 10
		case "MemAvailable:":
			free = kb << 10
		}
	}
	return total, free, total > 0
}

func sizeText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return strconv.FormatUint(n, 10)
}

func percent(a, b float64) string {
	if b == 0 {
		return "0.00%"
	}
	return fmt.Sprintf("%.2f%%", 100*a/b)
}

// Tagger replaces the tags of the node that serves the request (its
// worker's, for tag_filter), as SeaTunnel's /update-tags does for the
// node at the address asked. An empty map clears them.
type Tagger func(ctx context.Context, tags map[string]string) error

// WithTagger serves /update-tags on this node, leader or not.
func WithTagger(t Tagger) Option { return func(x *Handler) { x.tagger = t } }

// updateTags is /update-tags: the body is a JSON object of tags.
func (h *Handler) updateTags(w http.ResponseWriter, r *http.Request) {
	if h.tagger == nil {
		fail(w, http.StatusNotFound, "this node has no worker whose tags could be updated")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		fail(w, http.StatusBadRequest, "reading the body: %v", err)
		return
	}
	if len(bytes.TrimSpace(body)) == 0 {
		fail(w, http.StatusBadRequest, "Request body is empty.")
		return
	}
	var tags map[string]string
	if err := json.Unmarshal(body, &tags); err != nil || tags == nil {
		fail(w, http.StatusBadRequest, "Invalid JSON format in request body.")
		return
	}
	if err := h.tagger(r.Context(), tags); err != nil {
		var bad *BadTagsError
		if errors.As(err, &bad) {
			fail(w, http.StatusBadRequest, "%v", err)
			return
		}
		failErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, failure{Status: "success", Message: "update node tags done."})
}

// BadTagsError is a Tagger's refusal of the tags themselves (a key Consul
// metadata cannot hold): 400.
type BadTagsError struct{ Err error }

func (e *BadTagsError) Error() string { return e.Err.Error() }
func (e *BadTagsError) Unwrap() error { return e.Err }
