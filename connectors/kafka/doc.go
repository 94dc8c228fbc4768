// Package kafka is SeaTunnel's Kafka source and sink on franz-go (kgo),
// with SeaTunnel's option names and defaults (connector-v2/source/Kafka.md,
// sink/Kafka.md).
//
// How it fits DESIGN.md:
//
//   - Resolve (once per job, on the master) checks the broker and the
//     topics, lists the partitions and fixes their start offsets (and, in
//     BATCH, the end offsets seen now), so every attempt of the job starts
//     from the same place.
//   - Source: a partition is a split. Its position (the next offset) lives
//     in checkpoint state and a restore reads it from there only. Readers
//     consume with read_committed isolation and never commit offsets on
//     their own: the consumer group's offsets are committed, as
//     information for lag monitors, after a checkpoint completes
//     (commit_on_checkpoint). In STREAMING, partitions that appear later
//     are discovered every partition-discovery.interval-millis.
//   - Sink: NON and AT_LEAST_ONCE produce and flush at each checkpoint
//     barrier. EXACTLY_ONCE writes each checkpoint's rows in one Kafka
//     transaction under a transactional id that names the job, the sink,
//     the pipeline, the attempt, the subtask and a sequence number; the
//     writer flushes it in PrepareCommit and the committer ends it (EndTxn
//     commit by producer id and epoch) after the checkpoint completes, from
//     any process, so a crash between the two is resumed on restore.
//     AbortStale aborts the open transactions of earlier attempts.
package kafka
