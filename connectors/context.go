package connectors

import (
	"time"

	"github.com/stactor/stactor/row"
)

// Boundedness tells whether a source ends (BATCH) or runs until cancelled
// (STREAMING).
type Boundedness int

// The boundedness of a source.
const (
	Bounded Boundedness = iota
	Unbounded
)

// JobMode is env's job.mode.
type JobMode string

// The job modes.
const (
	Batch     JobMode = "BATCH"
	Streaming JobMode = "STREAMING"
)

// JobContext is what a factory knows of the job at plan time.
type JobContext struct {
	JobID   string
	JobName string
	Mode    JobMode
	// Parallelism is the plugin's parallelism (its own or env's).
	Parallelism int
	// CheckpointInterval is env's checkpoint.interval, 0 when the job
	// leaves it to the engine's default: for sinks whose prepared work
	// must outlive a checkpoint (a Kafka transaction's timeout).
	CheckpointInterval time.Duration
}

// TaskInfo identifies one running subtask of a job: the job, the pipeline's
// attempt (every restore is a new attempt; DESIGN §6 fencing), and the
// subtask's index among its vertex's Parallelism.
type TaskInfo struct {
	JobID    string
	Pipeline int
	Attempt  int
	// Term is the leader's term that started the attempt (0 on one
	// machine). Attempts are unique per pipeline across terms; the term
	// goes into transaction and staging names too (DESIGN §6).
	Term         uint64
	SubtaskIndex int
	Parallelism  int
	// Node is the id of the node the subtask runs on, as the cluster knows
	// it (the system's address in one process): for names and logs. A
	// job's configuration is the same on every node (DESIGN §2), so a
	// connector must not take node-local settings from it.
	Node string
}

// EnumeratorContext is how an enumerator talks to its readers. Its calls
// only queue messages; they never block.
type EnumeratorContext interface {
	// Parallelism is the number of reader subtasks.
	Parallelism() int
	// RegisteredReaders are the subtask indexes of the readers registered so far.
	RegisteredReaders() []int
	// AssignSplits gives splits to a reader. Splits are delivered in order
	// with checkpoint triggers (DESIGN §5 step 2).
	AssignSplits(subtask int, splits ...Split)
	// SignalNoMoreSplits tells a reader it will get no more splits.
	SignalNoMoreSplits(subtask int)
}

// ReaderContext is how a reader talks to the engine.
type ReaderContext interface {
	Task() TaskInfo
	Boundedness() Boundedness
	// SendSplitRequest asks the enumerator for a split (HandleSplitRequest).
	SendSplitRequest()
	// SignalNoMoreElement says this reader has emitted everything it ever
	// will: a bounded reader calls it when it has no splits left and was told
	// there are no more.
	SignalNoMoreElement()
}

// CheckpointRequester is a ReaderContext that asks for a checkpoint now
// rather than at the next checkpoint.interval: a CDC reader at a schema
// change, which it emits only after checkpoints hold every row before it
// (SeaTunnel's markSchemaChangeBeforeCheckpoint). The pipeline's
// coordinator takes one as soon as checkpoint.min-pause allows, or right
// after the one in flight; nothing is promised of its id, and the reader
// learns of it as of any (SnapshotState, NotifyCheckpointComplete).
// Called from the reader's goroutine; it does not block.
type CheckpointRequester interface {
	RequestCheckpoint(reason string)
}

// Collector receives what a reader reads.
type Collector interface {
	// Emit hands over a batch. The reader must not touch it afterwards.
	Emit(b *row.Batch)
	// BatchSize is the suggested number of rows per batch.
	BatchSize() int
}
