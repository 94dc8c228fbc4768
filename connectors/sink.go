package connectors

import (
	"context"
	"errors"

	"github.com/stactor/stactor/row"
)

// Sink is a configured sink, made by its factory at plan time.
//
// Two-phase commit (DESIGN §5): a Writer's PrepareCommit(n) runs on
// checkpoint n's barrier and returns a commit info; only after checkpoint n
// is stored complete does the engine pass the infos to the Committer (per
// writer) or, combined, to the AggregatedCommitter. Nothing becomes visible
// outside before that, and never in Close. The end of a BATCH job is a final
// checkpoint like any other.
type Sink interface {
	// CreateWriter makes the writer of one subtask, in the subtask actor.
	// states is nil on a fresh start, or the states its SnapshotState
	// returned in the checkpoint restored from. ctx lives as long as the
	// writer: it is cancelled when the subtask stops (cancel, failover), so
	// a writer that connects here, and its Write and PrepareCommit, should
	// use it for their I/O.
	CreateWriter(ctx context.Context, task TaskInfo, states [][]byte) (Writer, error)
}

// Writer writes batches in one subtask actor.
type Writer interface {
	// Write takes a batch; it must not keep a reference past the next
	// PrepareCommit if it intends to modify data (batches are immutable).
	Write(b *row.Batch) error
	// PrepareCommit makes everything written so far ready to commit under
	// checkpoint id and returns its commit info (nil: nothing to commit).
	PrepareCommit(checkpointID int64) ([]byte, error)
	// SnapshotState returns the writer's state for checkpoint id.
	SnapshotState(checkpointID int64) ([][]byte, error)
	// AbortPrepare discards what the last PrepareCommit prepared, when the
	// checkpoint failed.
	AbortPrepare() error
	// Close releases resources. It commits nothing. Called once.
	Close() error
}

// CommitContext says whose commit it is: the job, the pipeline, the
// attempt doing it, and the checkpoint the infos belong to.
type CommitContext struct {
	JobID        string
	Pipeline     int
	Attempt      int
	Term         uint64 // the leader's term that started the attempt
	CheckpointID int64
	// WriterGone is set when the infos are committed away from the node
	// that wrote them because that node left the cluster (DESIGN §8): a
	// sink that stages on the writer's disk finds its files here only on a
	// shared filesystem, and should fail permanently when they are not.
	WriterGone bool
	// Final is set on the pipeline's last checkpoint, taken after every
	// source ended: nothing will be written after it.
	Final bool
	// Node is the id of the node whose writers prepared the infos, where a
	// WriterNodeCommitter commits them ("" where it is not known).
	Node string
}

// Committer commits the infos of individual writers. It runs in the
// sink's committer actor, where the JobMaster is, one call at a time; a
// sink that is a WriterNodeCommitter has it run on the node whose writer
// prepared the infos instead (DESIGN §8).
type Committer interface {
	// Commit makes the infos visible. It must be idempotent: after a crash
	// the same infos are committed again. An error is retried with backoff;
	// the infos stay in every later checkpoint until Commit succeeds. An
	// error that is permanent (IsPermanent) fails the job instead.
	// ctx is cancelled when the committer stops (the job ends, or the
	// pipeline fails over).
	Commit(ctx context.Context, cc CommitContext, infos [][]byte) error
	// Abort discards prepared work that will never be committed.
	Abort(ctx context.Context, cc CommitContext, infos [][]byte) error
}

// AggregatedCommitter commits the combined infos of all writers of a sink,
// once, in the JobMaster's committer actor.
type AggregatedCommitter interface {
	// Combine merges the writers' infos of one checkpoint into one.
	Combine(infos [][]byte) ([]byte, error)
	// Commit makes the combined infos visible; idempotent, as Committer's.
	Commit(ctx context.Context, cc CommitContext, aggregated [][]byte) error
	// Abort discards combined prepared work that will never be committed.
	Abort(ctx context.Context, cc CommitContext, aggregated [][]byte) error
	// Close releases resources.
	Close() error
}

// SinkWithCommitter is a Sink whose writers' infos are committed one by one.
type SinkWithCommitter interface {
	Sink
	CreateCommitter() (Committer, error)
}

// SinkWithAggregatedCommitter is a Sink whose infos are combined and
// committed once per checkpoint.
type SinkWithAggregatedCommitter interface {
	Sink
	CreateAggregatedCommitter() (AggregatedCommitter, error)
}

// WriterNodeCommitter is a SinkWithCommitter whose commit touches the
// local disk of the node that wrote (LocalFile without a shared
// filesystem). When CommitsOnWriterNode is true, the engine commits each
// checkpoint's infos on the node whose writer prepared them: the
// committer actor sends that node's TaskExecutionService the infos and
// the job's spec, and the node builds the sink's Committer from the spec
// and runs Commit there (infos written on the committer actor's own node
// are committed in place). A checkpoint counts as committed only when
// every node's part is. On restore, AbortStale runs on every node that
// may hold staged work: the committer actor's own, every worker in the
// cluster, and every node named by the restored infos. Sinks without this
// interface, or returning false, commit where the JobMaster runs. Asked
// once, when the committer actor starts.
type WriterNodeCommitter interface {
	SinkWithCommitter
	CommitsOnWriterNode() bool
}

// StaleAborter is a committer (either kind) that can find prepared work of
// its own. On restore, after the restored checkpoint's infos are committed,
// the engine calls AbortStale so work prepared by later attempts, or after
// that checkpoint, is discarded; cc.Attempt is the new attempt, whose work
// must be left alone.
type StaleAborter interface {
	AbortStale(ctx context.Context, cc CommitContext) error
}

// CommitUndoer is a Sink that can take back what it committed (LocalFile
// removes the files a checkpoint's commit put in place; a database cannot
// un-commit a transaction). A restore that must fall back past completed
// checkpoints — the newest ones corrupt or deleted, their commits already
// made — would commit again every row committed after the checkpoint it
// falls back to; the JobMaster allows it without duplicates only when every
// sink of the pipeline UndoesCommits (else it is refused, or taken with
// the duplicates on the user's word). Asked on the master when the restore
// is checked, from the resolved sink.
type CommitUndoer interface {
	Sink
	// UndoesCommits tells whether this configured sink can take its
	// commits back (LocalFile: only with transactions, whose file names
	// carry the checkpoint).
	UndoesCommits() bool
}

// CommitRemover is the committer (either kind) of a CommitUndoer sink. On a
// restore that falls back from checkpoint to (the newest that completed)
// to checkpoint from (-1: none, the pipeline starts afresh), the engine
// calls UndoCommits before the restore commits anything, on every node
// that may hold committed output (as AbortStale): it removes what
// checkpoints from+1 .. to of the pipeline cc names committed, and nothing
// else. It must be idempotent: a restore that fails is undone again.
type CommitRemover interface {
	UndoCommits(ctx context.Context, cc CommitContext, from, to int64) error
}

// SaveModeHandler is a Sink that prepares its target before the job writes
// anything, as SeaTunnel's SupportSaveMode sinks do with schema_save_mode
// and data_save_mode (create or recreate the table, drop its data, refuse
// to write over data). HandleSaveMode runs on the master's instance, once
// per job, after the job is resolved and before the first attempt of any
// pipeline is deployed; never when the job is restored from a checkpoint
// (the target then holds output the restored job has committed) and never
// on a pipeline's failover. It runs in the job's planner goroutine, not in
// an actor's handler, so it may do I/O; ctx is cancelled when the job is
// cancelled. An error fails the job before anything runs.
type SaveModeHandler interface {
	HandleSaveMode(ctx context.Context) error
}

// IsPermanent tells whether a commit error says that retrying cannot help:
// it has, or wraps, an error with a method Permanent() bool that returns
// true (as Assert's failures and Permanent's do).
func IsPermanent(err error) bool {
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}

// Permanent marks err as one that retrying cannot mend (IsPermanent).
func Permanent(err error) error { return permanentError{err} }

type permanentError struct{ error }

func (permanentError) Permanent() bool { return true }
func (e permanentError) Unwrap() error { return e.error }
