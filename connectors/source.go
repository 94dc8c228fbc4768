package connectors

import (
	"context"

	"github.com/stactor/stactor/row"
)

// Split is a unit of source work (a file, a range of rows, a partition) with
// its position. Data is the connector's own encoding; the engine stores and
// ships it without looking inside.
type Split struct {
	ID   string
	Data []byte
}

// Source is a configured source, made by its factory at plan time.
type Source interface {
	// Tables are the catalog tables the source produces, fixed at plan time.
	Tables() []*row.Schema
	// Boundedness is Bounded in a BATCH job for a source that ends.
	Boundedness() Boundedness
	// CreateEnumerator makes the split enumerator. state is nil on a fresh
	// start, or what SnapshotState returned in the checkpoint restored from.
	CreateEnumerator(ctx EnumeratorContext, state []byte) (SplitEnumerator, error)
	// CreateReader makes the reader of one subtask.
	CreateReader(ctx ReaderContext) (Reader, error)
}

// SplitEnumerator discovers splits and assigns them to readers. It runs in
// its own actor (the enumerator host), one per source per pipeline; every
// call comes from that actor.
type SplitEnumerator interface {
	// Open prepares the enumerator (connections, listing). Called once. ctx
	// lives as long as the enumerator: it is cancelled when the pipeline is
	// cancelled or fails over.
	Open(ctx context.Context) error
	// Run is called once after Open; it must return promptly. Assign what
	// is known now; later assignments happen in the other calls.
	Run() error
	// RegisterReader is called when reader subtask i is up (again, after a
	// restore). An enumerator that has already signalled no more splits to
	// i must signal it again.
	RegisterReader(subtask int) error
	// HandleSplitRequest answers a reader's SendSplitRequest.
	HandleSplitRequest(subtask int) error
	// AddSplitsBack returns splits of a failed reader to the enumerator,
	// positions included, to be assigned again.
	AddSplitsBack(splits []Split, subtask int) error
	// SnapshotState captures the unassigned splits (and whatever else the
	// enumerator needs) for checkpoint id.
	SnapshotState(checkpointID int64) ([]byte, error)
	// NotifyCheckpointComplete says checkpoint id is complete.
	NotifyCheckpointComplete(checkpointID int64) error
	// Close releases resources. Called once, also after an error.
	Close() error
}

// Reader reads splits in one subtask actor.
type Reader interface {
	// Open prepares the reader. Splits come after, through AddSplits
	// (restored splits, with their positions, come the same way). ctx lives
	// as long as the reader: it is cancelled when the subtask stops (cancel,
	// failover). A reader whose client library blocks must not block in
	// PollNext: it runs the blocking reads in a goroutine it owns, started
	// here (or on AddSplits) with ctx and ended by Close, and PollNext takes
	// what is ready (Fetcher is that pattern, ready-made).
	Open(ctx context.Context) error
	// PollNext emits what is ready and returns within about 100 ms, even
	// with nothing to emit. It is called again and again until the reader
	// calls ReaderContext.SignalNoMoreElement.
	PollNext(out Collector) error
	// AddSplits gives the reader more splits.
	AddSplits(splits []Split) error
	// HandleNoMoreSplits says no split will be added.
	HandleNoMoreSplits() error
	// SnapshotState returns the reader's unfinished splits with their
	// positions, for checkpoint id. Called between PollNext calls, so the
	// positions match exactly the rows emitted so far.
	SnapshotState(checkpointID int64) ([]Split, error)
	// NotifyCheckpointComplete says checkpoint id is complete.
	NotifyCheckpointComplete(checkpointID int64) error
	// Close releases resources. Called once, also after an error.
	Close() error
}

// SourceEventSender is implemented by the engine's ReaderContext: a reader
// sends its enumerator a message of its own (SeaTunnel's
// sendSourceEventToEnumerator). Events travel on the path of
// SendSplitRequest, so an event sent before a split request arrives
// before it. An event is not part of any checkpoint: a reader that needs
// the enumerator to have seen it keeps what it said in its own state
// until it knows (the enumerator's answer comes back with its splits).
type SourceEventSender interface {
	SendSourceEvent(data []byte)
}

// SourceEventHandler is implemented by an enumerator that takes its
// readers' events; it is called from the enumerator's actor, like the
// other SplitEnumerator calls. An enumerator that does not implement it
// fails when a reader sends one.
type SourceEventHandler interface {
	HandleSourceEvent(subtask int, data []byte) error
}
