package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
)

// checkpointHistory is /job-checkpoints/{jobId}'s answer: the job's
// completed checkpoints that the storage still keeps
// (checkpoint.storage.max-retained per pipeline, and any still holding
// uncommitted work), oldest first, each pipeline's in id order.
type checkpointHistory struct {
	JobID       string           `json:"jobId"`
	Checkpoints []checkpointInfo `json:"checkpoints"`
}

type checkpointInfo struct {
	PipelineID   int32  `json:"pipelineId"`
	CheckpointID int64  `json:"checkpointId"`
	Attempt      int32  `json:"attempt"`
	Type         string `json:"type"` // CHECKPOINT, SAVEPOINT or FINAL
	// TriggerTimeMs and CompleteTimeMs are Unix milliseconds.
	TriggerTimeMs  int64 `json:"triggerTimeMs"`
	CompleteTimeMs int64 `json:"completeTimeMs"`
	DurationMs     int64 `json:"durationMs"`
	StateSizeBytes int64 `json:"stateSizeBytes"`
	// ChannelBatches are the in-flight batches recorded as channel state.
	ChannelBatches int64 `json:"channelBatches"`
	// PendingCommits are the sink commit infos not committed when the
	// checkpoint was taken.
	PendingCommits int `json:"pendingCommits"`
	// ReadRows and WriteRows are the job's counts up to the checkpoint.
	ReadRows  int64 `json:"readRows"`
	WriteRows int64 `json:"writeRows"`
	// Diagnosis names the vertex that delayed the checkpoint (diagnosis.go).
	Diagnosis *diagnosisInfo `json:"diagnosis"`
}

func checkpointOf(cp *messages.CompletedCheckpoint) checkpointInfo {
	return checkpointInfo{PipelineID: cp.Pipeline, CheckpointID: cp.Id, Attempt: cp.Attempt, Type: cp.Type,
		TriggerTimeMs: cp.TriggerUnixMs, CompleteTimeMs: cp.CompleteUnixMs, DurationMs: cp.CompleteUnixMs - cp.TriggerUnixMs,
		StateSizeBytes: cp.SizeBytes, ChannelBatches: cp.ChannelBatches, PendingCommits: len(cp.Pending),
		ReadRows: cp.ReadRows, WriteRows: cp.WriteRows}
}

func (h *Handler) jobCheckpoints(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("jobId")
	cps, err := h.store.List(id)
	if errors.Is(err, storage.ErrInvalid) {
		fail(w, http.StatusBadRequest, "job id %q: %v", id, err)
		return
	}
	if err != nil {
		failErr(w, fmt.Errorf("reading the checkpoints of job %s: %w", id, err))
		return
	}
	if len(cps) == 0 {
		// No checkpoint: a job that has none yet, or no such job.
		if h.findJob(w, r, id) == nil {
			return
		}
	}
	out := checkpointHistory{JobID: id, Checkpoints: make([]checkpointInfo, 0, len(cps))}
	diags := h.diagnoses(id, cps)
	for i, cp := range cps {
		c := checkpointOf(cp)
		c.Diagnosis = diags[i]
		out.Checkpoints = append(out.Checkpoints, c)
	}
	writeJSON(w, http.StatusOK, out)
}
