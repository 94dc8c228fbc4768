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
