// Package storage is stactor's checkpoint storage (DESIGN §5, §6, §8): where
// subtasks and enumerator hosts put their state for a checkpoint, where a
// pipeline's CheckpointCoordinator records each completed checkpoint, and
// where a restore finds the latest one. It also keeps the two per-pipeline
// counters that fencing rests on: attempt numbers and checkpoint ids.
//
// Backends live in sub-packages: localfile for one machine (a directory
// under $STACTOR_HOME/checkpoints). Package storagetest is the conformance
// suite every backend runs.
package storage

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
)

// Storage is a checkpoint store. Every method may be called from several
// actors at once — the subtasks of a pipeline write their states
// concurrently while its coordinator completes an earlier checkpoint and the
// REST API lists history — so implementations are safe for concurrent use.
//
// Job ids and state names are arbitrary non-empty strings (a backend escapes
// them as it needs); pipelines, attempts and checkpoint ids are never
// negative. A bad argument is an error wrapping ErrInvalid.
//
// The calls a CheckpointCoordinator makes for each checkpoint (Complete,
// Retain, NextCheckpointID) take a context: the coordinator runs them off
// its actor with the checkpoint's deadline (actors/checkpoint), and a
// backend gives up when ctx is done — returning an error that wraps
// ctx.Err() — rather than after a bound of its own alone, so that a store
// that stops answering (JetStream on a full disk) fails the checkpoint at
// checkpoint.timeout and frees the pipeline for the next one. A call that
// gave up may still have taken effect (a write whose answer was lost):
// the coordinator treats its checkpoint as failed, and a restore's choice
// of the newest checkpoint by id keeps such a late one from shadowing a
// newer one.
type Storage interface {
	// WriteState stores one subtask's or enumerator host's state blob for
	// checkpoint id of (job, pipeline, attempt) under name (unique within
	// that checkpoint and attempt; writing it again replaces it) and returns
	// a handle for ReadState and the CheckpointAck. The blob is written
	// atomically (temp file, fsync, rename): a reader sees all of it or
	// none. Its directory entry is made durable by Complete, which is the
	// point where the state starts to count.
	//
	// Called by each subtask actor on its own goroutine, concurrently.
	// ErrFenced: attempt is older than the pipeline's latest persisted
	// attempt — the caller was replaced and its state would never count.
	WriteState(job string, pipeline, attempt int, id int64, name string, data []byte) (handle string, err error)

	// ReadState returns the blob behind a handle WriteState returned for
	// job. Called by subtasks and enumerators on restore. ErrNotFound: no
	// such state (never written, or deleted by Retain). ErrCorrupt: the blob
	// is stored but does not read back intact.
	ReadState(job string, handle string) ([]byte, error)

	// Complete stores a completed checkpoint's metadata atomically with a
	// checksum (temp file, fsync, rename, fsync dir), after making the
	// directory entries of the task states it references durable. When it
	// returns nil the checkpoint survives a crash and only then may the
	// coordinator send CheckpointDone (and so let commits run).
	//
	// Called by the pipeline's CheckpointCoordinator once all acks are in,
	// and again for the same checkpoint (same id, attempt and states) once
	// its commits are in, to add their times (DESIGN §9): completing a
	// stored checkpoint again replaces its metadata, also when newer ones
	// of the attempt are stored.
	// ErrFenced: a checkpoint of this pipeline from a newer attempt is
	// already stored, or cp.Attempt is older than the pipeline's latest
	// persisted attempt (NextAttempt) — the coordinator was replaced.
	// Any other error means the checkpoint did not complete (a state it
	// references is missing, or the write failed); the coordinator aborts it.
	Complete(ctx context.Context, cp *messages.CompletedCheckpoint) error

	// Latest returns the newest completed checkpoint of the pipeline that
	// reads back intact. A corrupt or truncated newer one is skipped and
	// reported in warnings ("checkpoint 12 of job X pipeline 1 is corrupt
	// (checksum mismatch); using checkpoint 11"). nil, nil when there is
	// none. Called by the JobMaster to restore a pipeline; err is an
	// I/O failure, not corruption.
	Latest(job string, pipeline int) (cp *messages.CompletedCheckpoint, warnings []string, err error)

	// LastCompleted returns the highest id of the pipeline's checkpoints
	// whose Complete returned nil — the checkpoints whose commits may have
	// run — or -1 when none did. It survives the checkpoint's own metadata
	// going corrupt or being deleted, so a restore can tell that Latest fell
	// back past committed output (and would repeat it). Called by the
	// JobMaster on restore.
	LastCompleted(job string, pipeline int) (int64, error)

	// List returns every completed checkpoint of the job (all pipelines)
	// that reads back intact, oldest first (each pipeline's in id order).
	// Called by the REST API and the CLI for checkpoint history. An unknown
	// job has none.
	List(job string) ([]*messages.CompletedCheckpoint, error)

	// Retain keeps the newest n (at least 1) intact completed checkpoints of
	// the pipeline plus any for which keep returns true (they still hold
	// uncommitted commit infos) and deletes the others with their state
	// blobs; state blobs of checkpoints that never completed and are older
	// than the oldest kept one are deleted too. A blob a kept checkpoint
	// references is never deleted. keep runs while the pipeline is locked:
	// it must not call the Storage. Called by the coordinator after Complete.
	Retain(ctx context.Context, job string, pipeline int, n int, keep func(*messages.CompletedCheckpoint) bool) error

	// NextAttempt persists and returns the pipeline's next attempt number
	// (0 first, then 1, 2 ...), durably, before anything of that attempt
	// runs; from then on older attempts are fenced. Called by the JobMaster
	// before it deploys a pipeline, on the first run and on every restore.
	//
	// term is the leader's term (its Consul lock index; 0 for one machine)
	// and is persisted with the attempt. ErrFenced: a newer term has
	// already started an attempt of the pipeline — the caller is a leader
	// that was replaced (paused past its session TTL, partitioned) and must
	// start nothing. Since attempts are only handed out under this fence,
	// an attempt number identifies its term, and the attempt fences of
	// WriteState and Complete fence older terms as well.
	NextAttempt(job string, pipeline int, term uint64) (int, error)

	// NextCheckpointID persists and returns ids that never repeat for the
	// pipeline, across restores and process restarts: above every stored
	// completed id and every id handed out before. It may reserve ids in
	// blocks, so ids may skip after a restart. Called by the coordinator for
	// each trigger.
	NextCheckpointID(ctx context.Context, job string, pipeline int) (int64, error)

	// SaveJob stores the job's spec (file text and variables) so `restore
	// ID` can find the job; LoadJob reads it back (ErrNotFound when absent).
	// Called by the coordinator on submit and by restore.
	SaveJob(spec *messages.JobSpec) error
	LoadJob(job string) (*messages.JobSpec, error)

	// Jobs lists, sorted, the ids of the jobs with anything stored.
	Jobs() ([]string, error)
}

// ErrFenced is returned when a write comes from an attempt that a newer
// attempt of the same pipeline has replaced (DESIGN §6): the caller is a
// paused or partitioned leftover and must stop; retrying cannot succeed.
var ErrFenced = errors.New("fenced: a newer attempt of the pipeline has started")

// ErrNotFound is returned by LoadJob and ReadState for something that is not
// stored.
var ErrNotFound = errors.New("not found")

// ErrCorrupt is returned when stored data does not read back intact (a
// checksum mismatch, a truncated file). Latest and List skip corrupt
// checkpoints instead.
var ErrCorrupt = errors.New("corrupt")

// ErrInvalid is returned for a bad argument: an empty job id or state name,
// a negative number, a handle the backend never issued.
var ErrInvalid = errors.New("invalid argument")

// ReadSubtaskStates reads and decodes every subtask state of a completed
// checkpoint: what a restored subtask (its own) and an enumerator host
// (the readers' splits) start from. A state without a handle is inline:
// small, it came in the subtask's ack and is stored in the checkpoint's
// metadata itself.
func ReadSubtaskStates(store Storage, cp *messages.CompletedCheckpoint) ([]*messages.SubtaskState, error) {
	var out []*messages.SubtaskState
	for _, ref := range cp.Tasks {
		data := ref.State
		if ref.Handle != "" {
			var err error
			if data, err = store.ReadState(cp.JobId, ref.Handle); err != nil {
				return nil, fmt.Errorf("reading checkpoint %d state %s: %w", cp.Id, ref.Handle, err)
			}
		}
		st := &messages.SubtaskState{}
		if err := proto.Unmarshal(data, st); err != nil {
			return nil, fmt.Errorf("decoding checkpoint %d state %s: %w", cp.Id, ref.Handle, err)
		}
		out = append(out, st)
	}
	return out, nil
}
