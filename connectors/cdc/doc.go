// Package cdc is the database-independent part of the change-data-capture
// sources (Postgres-CDC in cdc/postgres, MySQL-CDC in cdc/mysql): their
// common options (SeaTunnel's names and defaults), the split model, the
// enumerator, the reader, their checkpoint state and the incremental
// snapshot algorithm. A database plugs in as a Dialect (dialect.go) and
// registers itself with Register; the plugin it gets is a
// connectors.SourceFactory like any other.
//
// # Splits
//
// A source reads in two phases. The snapshot phase cuts every table into
// chunks by its chunk key (the first primary-key column, or the table's
// snapshotSplitColumn in table-names-config): chunk n of a table covers
// [Lo, Hi) of the key, the first open below and the last open above, so
// together the chunks of a table cover every key. Chunks are made lazily,
// one when a reader asks for work (Dialect.ChunkEnd: one indexed query for
// the key snapshot.split.size rows on), so planning a huge table costs
// nothing up front. A table without a chunk key is one chunk. The stream
// phase is one split, read by one reader, that follows the database's
// change log from an offset.
//
// # The incremental snapshot algorithm
//
// As in Flink CDC and SeaTunnel, a reader reads a chunk between two
// watermarks (Dialect.ReadChunk): low, the log's offset just before the
// chunk's query, and high, the offset just after. The rows read are the
// chunk's state at some point between the two. With exactly_once = true
// the reader then reads the change log from low to high (LogReader) and
// applies the changes to the chunk's keys (upsert the after-image, drop on
// delete, in log order), which gives the chunk's state exactly at high;
// only that result is emitted, as INSERT rows, in one PollNext, so a
// checkpoint holds a chunk entirely or not at all.
//
// With exactly_once = false the rows are emitted as read, and the stream
// starts at the offset the enumerator took on the job's fresh start and
// drops nothing for a chunk: every change since is delivered, which an
// upsert sink absorbs. A chunk's own watermarks would not do: an upsert
// sink keeps the rows a killed run wrote after its last checkpoint, and a
// chunk read again after the restore has watermarks past a delete made
// since the first read, so the stream would drop the delete and the row
// stay. For the same reason no chunk goes out before a checkpoint holding
// that start offset is complete: a run killed earlier starts afresh, with
// a new offset, and must have written nothing.
//
// A reader that finishes a chunk keeps a "finished" marker (the chunk and
// its high watermark) in its state and tells the enumerator with a source
// event (connectors.SourceEventSender). Once every chunk has finished and
// a checkpoint taken after that has completed (so every chunk's rows are
// in the sinks before a change of the stream, which travels through
// another channel, can overtake them; as Flink CDC does), the enumerator
// gives the stream split to a reader that asks: with exactly_once it
// starts from the lowest high watermark of all chunks and carries each
// chunk's range and high watermark. The stream reader drops a change to a key whose
// chunk's high watermark covers the change's transaction (the chunk's
// emitted rows already hold it) and emits the rest; once its offset has
// passed the highest watermark, it drops the chunk list. Readers keep
// their finished markers until the enumerator tells them there are no
// more splits, which it does only after it has recorded every chunk as
// finished, so a marker is always in a checkpoint: in the enumerator's
// state or in its reader's.
//
// startup.mode latest, earliest and specific skip the snapshot phase: the
// stream split starts at the dialect's StartOffset. stop.mode latest and
// specific end the stream at an offset (the source is then bounded).
//
// # Checkpoints and restore
//
// The enumerator's state is each table's chunking cursor, the chunks not
// assigned, the finished chunks it has heard of, and whether the stream
// split is out. A reader's state is its unfinished chunks (re-read from
// the start on a restore: a chunk is emitted whole), its finished
// markers, and the stream split with its position: the offset of the
// last transaction emitted whole and how many rows of the next one were
// emitted. On a restore every reader split goes back to the enumerator
// (AddSplitsBack), which assigns them across the readers there are now,
// so a restore may change the parallelism. The stream position of a
// completed checkpoint is committed to the database (Dialect.Commit:
// PostgreSQL's slot confirms it) only after the checkpoint completes, so
// the database never discards changes a restore needs. Heartbeats (events
// without rows) move the position on when the captured tables are idle.
//
// A restore may capture more tables than its checkpoint did (`--restore
// ID -c job.conf` with a longer table-names): the enumerator keeps the
// captured tables' ids in its state and maps every table index of the
// checkpoint onto the job's tables now (enumerator.retable). A new table
// is cut into chunks as on a fresh start while the stream split, handed
// back with its position, waits; once its chunks are read and in a
// completed checkpoint the stream goes out again, from its own position
// (before any of those chunks was read) and, with exactly_once, with the
// new chunks to filter by. A table the checkpoint captured and the job no
// longer does is an error naming it.
//
// # Schema changes
//
// The engine fixes a job's tables when it plans the job (DESIGN §2), so a
// table whose columns change mid-stream travels as data: with
// schema-changes.enabled a dialect that sees a captured table's columns
// change in the log describes it anew (SchemaFollower, Event.Changed),
// with the DDL's clauses when it reads them (MySQL's binlog has the
// statement; PostgreSQL's relation messages only the new columns, which
// must then only add: row.Grow). A change while the table's chunks were
// read is ErrSchemaChanged. The stream numbers each table's changes
// (version 1, 2, … over the plan's 0) and emits each as a schema-change
// batch (row.NewSchemaChange) in order with the rows, which the engine
// hands to each operator on the way (actors/task, schemachange.go;
// connectors.SchemaEvolver, SchemaChangeWriter). The stream split's state
// keeps every table's description and version (Tables), so a restore —
// also one that resolved the job afresh, its tables as they are now —
// decodes with the ones of its position and announces them again before
// any row (operators restored from the plan learn them; ones that have
// them ignore it). In a streaming job a change is a checkpoint boundary:
// the stream holds it until two checkpoints it asks for have completed
// (reader.go, ddlGate), so sinks apply it with no rows of the old schema
// open.
//
// # Output
//
// format DEFAULT emits each captured table's rows under its catalog table
// with their row kinds (INSERT, UPDATE_BEFORE then UPDATE_AFTER, DELETE).
// format COMPATIBLE_DEBEZIUM_JSON emits SeaTunnel's CompatibleDebeziumJson
// rows instead: (topic, key, value), Debezium's JSON (debezium.go).
package cdc
