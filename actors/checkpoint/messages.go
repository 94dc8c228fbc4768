package checkpoint

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/messages"
)

// Start tells the coordinator that the pipeline's subtasks run: it may
// begin triggering checkpoints.
type Start struct {
	Tasks []*actor.PID
	Enums map[int]*actor.PID
}

// TriggerFinal asks for the last checkpoint of the attempt, taken at once:
// Type FINAL when every subtask has drained to the end of its data, or
// SAVEPOINT when a savepoint stopped the sources and drained the pipeline.
type TriggerFinal struct{ Type string }

// Ready is the coordinator's word to the JobMaster that a restore's
// leftover commits are done and the pipeline's subtasks may be deployed.
type Ready struct{ Pipeline, Attempt int }

// Completed reports a completed checkpoint to the JobMaster.
type Completed struct{ Checkpoint *messages.CompletedCheckpoint }

// Triggered tells the JobMaster that checkpoint ID is under way since At
// (read_limit.adaptive watches how long it takes).
type Triggered struct {
	Pipeline, Attempt int
	ID                int64
	At                time.Time
}

// Aborted tells the JobMaster that checkpoint ID was given up (-1: before
// the store handed out its id) and why; TimedOut: it took
// checkpoint.timeout.
type Aborted struct {
	Pipeline, Attempt int
	ID                int64
	TimedOut          bool
	Cause             string
}

// CommitsDone tells the JobMaster that every sink committed checkpoint
// ID, Took after it completed.
type CommitsDone struct {
	Pipeline, Attempt int
	ID                int64
	Took              time.Duration
}

// FinalCommitted tells the JobMaster the final checkpoint (or savepoint) is
// committed: the pipeline is done.
type FinalCommitted struct{ Pipeline, Attempt int }

// Failed asks the JobMaster to fail the pipeline over (or, Permanent, to
// fail the job).
type Failed struct {
	Pipeline  int
	Attempt   int
	Cause     string
	Permanent bool
}

// commit asks a committer to commit one checkpoint's infos.
type commit struct {
	checkpoint int64
	final      bool
	infos      []*messages.PendingCommit
	// done are the nodes whose part is committed, while the rest is
	// retried (a sink that commits on the writer's node).
	done map[string]bool
}

// committed is a committer's report that a checkpoint's infos are in.
type committed struct {
	vertex     int
	checkpoint int64
}

// commitFailed is a committer's report of a commit that cannot succeed.
type commitFailed struct {
	vertex int
	cause  string
}

type tick struct{}
type timeout struct{ seq int64 } // inflight.seq
type retry struct{}
