// Package checkpoint is the CheckpointCoordinator of a pipeline and its
// committers (DESIGN §5).
//
// The coordinator triggers checkpoint n (every interval, never sooner than
// min-pause after the last one ended, at most one in flight, ids that never
// repeat) through the enumerator hosts, collects an ack from every subtask
// and enumerator, writes the completed checkpoint's metadata to storage, and
// only then tells the subtasks and the committers that n is complete. A
// checkpoint that times out is aborted and counted; past the tolerable
// failures the pipeline is failed over. When every subtask has drained
// (BATCH), it takes the final checkpoint at once.
//
// Committers, one actor per sink vertex, commit what completed checkpoints
// carry: idempotent, retried with backoff; commit infos not yet committed
// stay in every later checkpoint until they are. They run where the
// JobMaster is; a sink whose commit touches the writer's local disk
// (connectors.WriterNodeCommitter) has each node's infos committed on that
// node, by its TaskExecutionService (nodes.go, DESIGN §8).
package checkpoint
