package connectors

import "github.com/stactor/stactor/row"

// Transform changes batches of one input table. Its factory builds one
// instance per input table at plan time (checking field names and types
// there); at run time each subtask gets its own instance from that factory.
type Transform interface {
	// OutputSchema is the schema of the batches Process returns.
	OutputSchema() *row.Schema
	// Process turns one input batch into an output batch (nil when no row
	// remains). It must not modify b; it may share b's columns in its
	// output. An error fails the subtask: row_error_handle_way decides
	// whether a bad row is an error or is skipped.
	Process(b *row.Batch) (*row.Batch, error)
}

// TransformCloser is a Transform with resources to release.
type TransformCloser interface {
	Close() error
}

// BatchBorrower is an optional capability of a Transform or a Writer: it
// keeps nothing of the batch it is handed once Process or Write returns,
// except, for a transform, through the batch it returns, which then holds
// the input (row.Batch.Hold) while it shares the input's columns. A
// transform that returns its input itself passes the caller's reference
// back. The engine then recycles a batch's vectors as soon as its last
// reader is done (row.Batch.Release); without this capability batches
// handed to an operator are left to the garbage collector.
type BatchBorrower interface {
	BorrowsBatches()
}
