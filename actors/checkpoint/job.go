package checkpoint

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/messages"
)

// Job is what a pipeline's coordinator and committers know of their job.
type Job struct {
	// Spec is the job as submitted. A node asked to commit a sink's infos
	// builds the sink from it (CommitOnNode, DESIGN §8).
	Spec *messages.JobSpec
	// Term is the leader's term that runs the job (DESIGN §6).
	Term uint64
	// Workers finds the cluster's workers; nil: the infos' recorded
	// workers are used as they are.
	Workers Workers
	// Undo, when set, is a restore that falls back past completed
	// checkpoints whose commits the sinks take back (connectors.
	// CommitRemover): each committer undoes them before anything else.
	Undo *Undo
}

// Undo names the checkpoints whose commits a restore takes back: From+1 ..
// To, where From is the checkpoint restored from (-1: none) and To the
// newest that completed.
type Undo struct{ From, To int64 }

// Workers returns the TaskExecutionService of every worker node the
// cluster has now, by node id (the ResourceManager's view). A committer
// asks it before it sends a checkpoint's infos to the nodes that wrote
// them, so that a node that restarted at another address is found by its
// id, and on restore to reach every node that may hold staged work. It is
// called on the committer's goroutine and may block for a short while.
type Workers func() (map[string]*actor.PID, error)
