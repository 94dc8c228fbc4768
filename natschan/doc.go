// Package natschan carries a pipeline's channels between nodes over core
// NATS (DESIGN §4, §8): the batches, end-of-data and checkpoint barriers
// that a subtask sends to a subtask on another node. Inside one process a
// channel is an actor message; across nodes it is a Sender on the upstream
// side and a Receiver on the downstream side, and the task actor sees the
// same messages (messages.Batch, EndOfData, Barrier, BarrierMarker) either
// way.
//
// # Wire format
//
// A channel (edge, from → subtask) of one attempt of a pipeline publishes on
//
//	<prefix>.data.<job>.<term>.<attempt>.<pipeline>.<edge>.<subtask>
//
// (prefix "stactor" by default; the job id is escaped into one token, see
// Subject). A Receiver subscribes to its subtask's subjects of one attempt
// with a wildcard over edges, or to the subjects of its chain's input edges
// (WithEdges), which keeps other chains' subtasks of the same index from
// receiving its traffic. A message is a fixed 45-byte frame followed by its
// data, with no NATS headers (wire.go has the layout and the reason):
//
//	kind      batch | end of data | barrier
//	from      the sending subtask
//	attempt   the pipeline's attempt; a message of another attempt is dropped
//	term      the leader's term that started the attempt; likewise
//	seq       batch: its sequence number (1, 2, 3 … per channel);
//	          end and barrier: the last batch sent before it
//	barrier   batch: the last barrier the sender passed (0 when none);
//	          barrier: its id
//	part      a batch split in n parts: part i of n, i from 0
//	type      barrier: its type (checkpoint, savepoint …)
//
// A message that does not begin with the frame's magic is not a channel
// message and is dropped like another attempt's; one of another wire
// version, or with NATS headers (as builds before the frame sent), fails
// the receiver with ErrCorrupt: every node of a cluster runs one build.
// A batch's data is its row codec encoding (row.AppendBatch), cut into
// consecutive byte ranges that fit the connection's max_payload with room
// for the frame; the parts of one batch share its sequence number and the
// receiver joins them and decodes one messages.Batch. End and barrier
// messages have no data. A barrier and its marker are one message; the
// receiver delivers the priority copy (messages.Barrier) and then the
// in-order marker (messages.BarrierMarker).
//
// Why split the bytes and not the rows (row.SplitBySize): one sequence
// number must arrive as one messages.Batch, so that credits, markers and
// recorded channel state count batches exactly as a local channel does, and
// the receiver must then join the parts anyway. Joining bytes is one copy and
// one decode; joining decoded parts would need a column concatenation, and
// a single row bigger than max_payload could not be sent at all.
//
// # Order, gaps and attempts
//
// NATS keeps the order of messages from one connection to one subscription,
// and a channel has one sender, so a channel's messages arrive in order. The
// Receiver checks every channel's sequence numbers: a missing or repeated
// batch, part, end or barrier calls onError with an error wrapping ErrGap or
// ErrDuplicate (or ErrCorrupt for a message that breaks the protocol) and
// stops delivering that channel; the pipeline then fails over to its latest
// checkpoint instead of losing or repeating rows (DESIGN §6). A lost
// connection (disconnect, reconnect, close) or a subscription that fell
// behind (slow consumer) fails the Receiver and every later send of a
// Sender, wrapping ErrDisconnected or ErrGap: core NATS does not resend what
// was in flight.
//
// # Flow control
//
// The engine's cumulative credits are the flow control (DESIGN §4): a
// credit "you may send up to sequence S" counts batches (sequence numbers),
// not NATS messages or parts, exactly as on a local channel, so a sender has
// at most a credit window of batches in flight per channel and a receiver
// holds at most window × batch bytes per channel between NATS and the task's
// mailbox. Credits are proto messages (messages.Credit) that travel back over
// protoactor remote, not over NATS. Barrier markers and end-of-data need no
// credit. The subscription's pending limits (WithPendingLimits) only have to
// hold the credit windows of the receiver's channels; exceeding them is a
// slow consumer and fails the pipeline rather than dropping rows silently.
//
// The package sits below the actors that use it (actors/task sends,
// actors/worker subscribes before it deploys a subtask), not under
// cluster/: nothing below actors/ imports cluster/ (DESIGN §10).
package natschan
