package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/storage"
)

// previewInfo is /restore-preview/{jobId}'s answer
// (checkpoint.PreviewRestore): per pipeline, the checkpoint a restore
// would start from, its age, the splits still to read, the commits still
// pending and the parallelism changes.
type previewInfo struct {
	JobID        string            `json:"jobId"`
	Incompatible string            `json:"incompatible,omitempty"`
	Pipelines    []pipelinePreview `json:"pipelines"`
	Text         string            `json:"text"` // as `stactor restore --preview` prints it
}

type pipelinePreview struct {
	PipelineID     int                            `json:"pipelineId"`
	CheckpointID   int64                          `json:"checkpointId,omitempty"` // 0: none, it would start afresh
	Type           string                         `json:"type,omitempty"`
	CompleteTimeMs int64                          `json:"completeTimeMs,omitempty"`
	AgeMs          int64                          `json:"ageMs,omitempty"`
	Warnings       []string                       `json:"warnings,omitempty"`
	Sources        []checkpoint.SourcePreview     `json:"sources"`
	Commits        []checkpoint.CommitPreview     `json:"commits"`
	Parallelism    []checkpoint.ParallelismChange `json:"parallelismChanges"`
}

// restorePreview answers GET /restore-preview/{jobId}, the job as it was
// resolved, or POST with a job file as the body, to compare with that file
// re-resolved (as isStartWithSavePoint with a file would run it).
func (h *Handler) restorePreview(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("jobId")
	store, ok := h.store.(storage.Storage)
	if !ok {
		fail(w, http.StatusNotImplemented, "this node's checkpoint storage cannot be read for a preview")
		return
	}
	spec, err := store.LoadJob(id)
	switch {
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrInvalid):
		fail(w, http.StatusNotFound, "no job %s in the checkpoint storage", id)
		return
	case err != nil:
		failErr(w, err)
		return
	}
	var run *plan.Plan
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJobFile))
		if err != nil {
			fail(w, http.StatusBadRequest, "reading the job file: %v", err)
			return
		}
		if len(bytes.TrimSpace(body)) > 0 {
			vars, err := parseVars(r.URL.Query()["variable"])
			if err != nil {
				fail(w, http.StatusBadRequest, "%v", err)
				return
			}
			file := r.URL.Query().Get("fileName")
			root, err := config.ParseUntrusted(file, seaTunnelJSON(body), vars)
			var job *config.Job
			if err == nil {
				job, err = config.FromTree(file, root)
			}
			if err == nil {
				run, err = plan.Resolve(r.Context(), job, id)
			}
			if err != nil {
				fail(w, http.StatusBadRequest, "%s", err)
				return
			}
		}
	}
	p, err := checkpoint.PreviewRestore(store, spec, run, time.Now())
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	out := previewInfo{JobID: id, Incompatible: p.Incompatible, Pipelines: []pipelinePreview{}, Text: p.String()}
	for _, pp := range p.Pipelines {
		o := pipelinePreview{PipelineID: pp.Pipeline, Warnings: pp.Warnings, Sources: pp.Sources, Commits: pp.Commits, Parallelism: pp.Changes}
		if cp := pp.Checkpoint; cp != nil {
			o.CheckpointID, o.Type, o.CompleteTimeMs, o.AgeMs = cp.Id, cp.Type, cp.CompleteUnixMs, pp.Age.Milliseconds()
		}
		out.Pipelines = append(out.Pipelines, o)
	}
	writeJSON(w, http.StatusOK, out)
}
