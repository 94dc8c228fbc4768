// Package fake is SeaTunnel's FakeSource: it generates rows for a schema
// (or emits fixed rows), for tests and benchmarks.
//
// Splits follow SeaTunnel's enumerator: every reader subtask gets row.num
// rows of each table, cut into split.num splits of ceil(row.num/split.num)
// rows; split k of a table belongs to reader k % parallelism. A split
// carries its table, its row count and a position, so a checkpoint records
// exactly how far each split has been read.
//
// Generated data is deterministic: each value is a hash (splitmix64) of the
// table, the split, the row's position in the split and the field, so a
// split restored at position p replays exactly the rows from p. SeaTunnel
// draws from a random generator instead; the distributions (ranges,
// templates, lengths) are SeaTunnel's. A timestamp_tz is a timestamp's
// wall clock (the date and time templates apply) at a whole-hour UTC offset
// from -12:00 to +14:00, the offsets zones use; in fixed rows it is text
// with an offset (2024-01-01T10:00:00+08:00) or epoch milliseconds (at Z).
//
// The reader generates straight into typed columns — strings and bytes are
// slices of one pre-built random text — so it allocates per batch, never
// per row (DESIGN §4).
package fake
