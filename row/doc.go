// Package row is stactor's data model: row kinds, SeaTunnel's types, table
// schemas and the columnar batch that carries rows between operators.
//
// DESIGN §4: rows move in batches, and the batch representation decides the
// speed. A Batch stores each field as a typed column vector (int64, float64,
// string, ...) so that a fused chain touches no per-row allocation; a bare Go
// loop over typed vectors measured about 600 M rows/s against 32 M for []any
// rows. Connectors and transforms see rows through Batch, Column and Builder:
// typed accessors for the hot path, boxed values (Value) where convenience
// matters more than speed.
//
// A Batch is immutable once it has been handed on (emitted by a reader,
// returned by a transform, sent on a channel): recorded channel state and
// replay after a failure rely on that. A transform that changes rows builds a
// new batch, sharing the columns it does not change.
//
// A schema-change batch (schemachange.go) has no rows: it announces, in
// order with the rows, that a table's rows are of another schema from it
// on (an ALTER TABLE while a job runs), with the schema's version and the
// DDL's clauses.
//
// Batches can be recycled (recycle.go): a recycled batch counts its
// references, and its vectors go back to a pool when the last reader
// releases it, so a fused chain in steady state allocates nothing per
// batch. Immutability is unchanged; the count only says when a batch's
// last reader is done, and a batch never released is simply collected.
//
// A string column is a vector of Go strings or packed (packed.go): all its
// values' bytes in one string and their bounds, as a decoded batch has it,
// so that a cross-node channel decodes and releases a string column
// without a pointer per value. Read strings with Column.Str, which reads
// either form.
package row
