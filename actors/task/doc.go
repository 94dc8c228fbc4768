// Package task is the subtask actor: one parallel instance of a fused chain
// (DESIGN §2–§4). It runs a source reader or takes batches from its input
// channels, calls the chain's transforms and sink writers as plain function
// calls, and sends what leaves the chain on its output channels under
// cumulative credits.
//
// The actor is spawned by the worker's TaskExecutionService (its parent and
// supervisor) on a priority mailbox, wired by the JobMaster's StartTask, and
// reports its state, metrics, failures and end of data to the JobMaster by
// message. It never restarts itself: on an error or a panic it closes what it
// opened, sends TaskFailed and stops; the JobMaster decides what happens next.
//
// Flow control: each output channel may send up to the credit its receiver
// granted. While any output has batches waiting for credit the subtask is
// blocked: a source stops polling its reader, and a subtask with inputs sets
// arriving batches aside without granting their credit back, so what is in
// flight stays bounded by the credit windows and a slow sink slows the
// source instead of growing memory. The time spent so blocked is the
// subtask's backpressure, reported with its per-vertex row counts in
// TaskMetrics (metrics.go), beside its busy time (polls that returned
// rows, input batches through the chain) and its queue depths; the
// JobMaster turns two reports into rates and Flink's busy / idle /
// back-pressured time per second (DESIGN §9).
//
// A source subtask reads at most read_limit.rows_per_second and
// bytes_per_second (readlimit.go) and, under read_limit.adaptive, at most
// the rate its JobMaster last sent in a ReadRate message.
//
// Taps (taps.go, package monitor/tap): with Options.Taps set, each
// operator has a tap point, and the batch path reads its flag once per
// batch (in emit, and before a sink's write); only while someone listens
// is the batch handed, without waiting, to the tap's own goroutine.
//
// Schema changes (schemachange.go): a schema-change batch (a source's
// table was altered, row/schemachange.go) goes through the chain in
// order with the rows, to every channel of an edge, and into checkpoint
// channel state, which starts with the newest schemas the edge's operators
// have seen so a restore's operators learn them before replayed rows; an
// operator takes a change of a version above its own only. A reader may
// ask its coordinator for a checkpoint now (connectors.CheckpointRequester,
// source.go).
//
// Checkpoint state (checkpoint.go): a subtask's state at a barrier goes
// in its ack when it is small (inlineStateLimit) and to the checkpoint
// store otherwise. That write runs off the actor, and the ack follows
// when the store has the blob: the barrier has passed, so rows flow on
// and close and cancel are answered while a slow store (JetStream under
// load, a full disk) takes its time — the coordinator's own store calls
// are off its actor for the same reason. A failed write fails its
// checkpoint (an ack with an error, which the coordinator counts against
// tolerable failures), not the pipeline.
//
// Recycling (chain.go): the operators pass batches by reference. A batch a
// reader emits, a transform returns or a channel delivers carries one
// reference; emit takes one more per extra reader, an operator that is a
// connectors.BatchBorrower gives its up when its call returns, a channel
// send hands it to the receiver (locally in the message, across nodes
// after encoding), and a checkpoint capture holds the batches it records
// until it is written or aborted. An operator that does not borrow may keep
// what it is given, so its reference is never given up. Anything added to
// the path that keeps a batch past the call (a tap that sends later, a
// buffer) must Retain it.
package task
