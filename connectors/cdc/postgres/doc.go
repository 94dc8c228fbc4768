// Package postgres is the Postgres-CDC source (SeaTunnel's
// connector-cdc-postgres): the PostgreSQL side (a cdc.Dialect) of the
// shared CDC framework in connectors/cdc, which owns the common options,
// the splits, the enumerator, the readers, checkpoints and the incremental
// snapshot algorithm. README.md documents the options and guarantees.
//
// Design decisions:
//
//   - Changes come from logical replication with pgoutput, PostgreSQL's
//     built-in plugin (protocol version 1, through jackc/pglogrepl): one
//     slot and one publication per job (slot.name, publication.name). The
//     snapshot is plain SELECTs over the Jdbc connector's PostgreSQL code,
//     so a row has the same types and values whichever phase delivers it.
//   - decoding.plugin.name = "decoderbufs" (Debezium's protobuf plugin,
//     which SeaTunnel's e2e job files and many Debezium setups name) is
//     accepted and decoded with pgoutput, with one resolve-time warning
//     that says so: both plugins deliver the same committed row changes
//     of the same tables (with REPLICA IDENTITY FULL, the same old rows),
//     and a data engineer moving a SeaTunnel job expects it to run, also
//     on a server without decoderbufs installed. An existing slot must
//     still be pgoutput's: a decoderbufs slot of another tool is not taken
//     over. Any other plugin name is an error.
//   - Chunk watermarks: high is the WAL insert position inside the
//     chunk's REPEATABLE READ transaction; low, with exactly_once, a WAL
//     position read just before it once the transactions running there
//     have ended, and the backfill peeks
//     (pg_logical_slot_peek_binary_changes) between them at a temporary
//     slot of the reader's session moved up to low, so a chunk decodes
//     the WAL written while it was read rather than all since the job
//     started (backfill.go, which also says when it falls back to the
//     job's slot and its confirmed position, which does not move during
//     the snapshot).
//   - A new job (not a restore) that finds its slot idle, left by an
//     earlier job, moves it to the WAL's end first, as if it had just
//     been made (startup.mode earliest keeps it where it is): the earlier
//     job's changes are not this job's, and a backfill reading them would
//     meet what it cannot replay onto a snapshot that already holds them
//     (a TRUNCATE, a table's older columns).
//   - The slot is confirmed only to the position of a completed checkpoint
//     (Commit), so a restore always finds the changes it needs.
package postgres
