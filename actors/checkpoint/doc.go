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
// (BATCH), it takes the final checkpoint at once. A subtask may ask for a
// checkpoint now (messages.CheckpointRequest: a CDC reader at a schema
// change, as SeaTunnel's schema-change checkpoints): it is triggered as
// soon as min-pause allows, or right after the one in flight.
//
// Storage calls (storeio.go). The coordinator never calls the checkpoint
// store on its own goroutine: a store that stops answering (nats-server
// does not answer a write it cannot store, on a full disk) would hold it
// past checkpoint.timeout, with no timeout firing, no new trigger and the
// acks queueing. Its calls — the next id at a trigger, Complete once the
// acks are in, Retain after, Complete again with commit times — run on a
// goroutine of its own, one at a time in the order they were asked, each
// with a deadline as its context: the checkpoint's (trigger time plus
// checkpoint.timeout) for its id and its write, checkpoint.timeout from
// the call for the others. Each answer comes back as a message. A
// checkpoint whose id or write has not come back by its deadline is
// aborted like any that times out ("checkpoint 7: store write did not
// finish in 10s: ..."), counted against checkpoint.tolerable-failure
// (failures in a row; a completed checkpoint resets the count), and the
// next is triggered after min-pause; it succeeds once the store answers
// again (its calls queue behind the stuck one, which gives up at its own
// deadline).
//
// Ordering. A checkpoint is complete — Completed, CheckpointDone and its
// commits sent — only when its Complete returned nil while it was still
// the checkpoint in flight. One at a time and in order means a later
// checkpoint's write never starts before an earlier one's has returned,
// and Retain runs between the write it follows and the next. A write that
// was given up but lands anyway (its answer lost, or a backend that
// finished a file system call first) leaves a valid checkpoint of a lower
// id than any later one: its subtasks were told it aborted and carry its
// commit infos into the next checkpoint, nothing commits them now, and a
// restore takes the newest checkpoint by id, so it can neither shadow a
// newer checkpoint nor be committed twice (commits are idempotent, and
// the next checkpoint carries the same infos).
//
// Committers, one actor per sink vertex, commit what completed checkpoints
// carry: idempotent, retried with backoff; commit infos not yet committed
// stay in every later checkpoint until they are. They run where the
// JobMaster is; a sink whose commit touches the writer's local disk
// (connectors.WriterNodeCommitter) has each node's infos committed on that
// node, by its TaskExecutionService (nodes.go, DESIGN §8).
//
// Diagnosis (DESIGN §9; diagnose.go, diagnosis.go): every subtask's ack
// carries its SubtaskTiming — when its first barrier (at a source, the
// trigger) was handled, how long its operators' snapshot (a writer's
// prepare commit) and its state write took, when its last input's marker
// came, how much channel state it recorded — and the completed checkpoint
// keeps them with the coordinator's ack times. Commit times are known only
// after the checkpoint is stored, so once every sink has committed it the
// coordinator stores the checkpoint again with them (a decision: Complete
// on a stored checkpoint replaces its metadata; storagetest pins it). A
// failure there loses only the times. Diagnose cuts each subtask's time
// into the parts that are its own (the barrier waiting for it after its
// earliest upstream forwarded it; its snapshot; waiting for markers after
// its last upstream forwarded; its state write) plus each sink's commit,
// and names the longest: the vertex that delayed the checkpoint and why.
//
// PreviewRestore (preview.go) reads what a restore would start from —
// storage.Latest per pipeline, as the JobMaster picks it, the readers'
// splits and the enumerators' unassigned ones, the pending commit infos,
// and the parallelism changes of the plan to run — without running
// anything.
package checkpoint
