package connectors

import "github.com/stactor/stactor/row"

// Schema changes (row/schemachange.go): a source may emit, in order with
// its rows, a schema-change batch saying that a table's rows are of a
// new schema from there on, with its version and the DDL's clauses (a
// CDC source with schema-changes.enabled, on an ALTER TABLE). The engine's
// chain hands it to each operator on its way (actors/task, chain.go): a
// transform passes it only if it is a SchemaEvolver, a sink only if its
// writer is a SchemaChangeWriter; any other operator fails the job with
// an error naming the table, the change and the operator. Collector.Emit
// takes a schema-change batch like any other.

// SchemaEvolver is a Transform that works on whatever schema its table
// changes to: on a schema change the engine makes a new instance of it for
// the new schema from the transform's factory (checking the options
// against it, as at plan time) and announces the new instance's
// OutputSchema downstream. Rows of the older schema that still arrive
// (from another channel) go through an instance for their own schema.
type SchemaEvolver interface {
	Transform
	EvolvesWithSchema()
}

// SchemaChangeWriter is a Writer that follows its tables' schema changes.
// ApplySchemaChange is called in the subtask actor, between Write calls,
// when a change reaches the sink: rows written before it are of the old
// schema, rows after it of the new one, and the writer runs c.Columns on
// its target before it writes a row of them (the Jdbc sink runs ALTER
// TABLE). A change without Columns announces a schema the target has
// already (a restore): the writer only takes it. It must be idempotent:
// after a restore the same change may come again, and the target may
// show it already.
// Write may still get batches of an older schema of the table after a
// change (from another channel): it writes each by its own Schema. An
// error fails the subtask.
type SchemaChangeWriter interface {
	Writer
	ApplySchemaChange(c *row.SchemaChange) error
}

// SchemaChangeSource is a Source that may emit schema changes (a CDC
// source with schema-changes.enabled and format DEFAULT). The planner asks
// it once, at resolve time, and then checks every operator its rows reach
// can follow them (plan/schemachange.go), so a job that would fail at
// the first ALTER TABLE is refused before it runs.
type SchemaChangeSource interface {
	Source
	// EmitsSchemaChanges tells whether the source emits schema-change
	// batches, and the option that makes it (for the planner's error).
	EmitsSchemaChanges() (emits bool, option string)
}

// SchemaChangeSink is a Sink whose writers are SchemaChangeWriters. The
// planner asks it at resolve time whether the configured sink can apply
// schema changes; a sink that is not a SchemaChangeSink cannot (its
// writers must then not be SchemaChangeWriters either), and a job whose
// source emits schema changes into it is refused.
type SchemaChangeSink interface {
	Sink
	// SchemaChanges is nil when the writers apply schema changes, else
	// why they cannot with these options (a user's error, named by the
	// planner with the source and the sink).
	SchemaChanges() error
}
