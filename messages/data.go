package messages

import "github.com/stactor/stactor/row"

// Batch carries rows on a channel (edge, From → the receiving subtask).
// Inside one process it is sent as this Go value and never serialized; the
// batch is immutable once sent.
type Batch struct {
	Edge    int32
	From    int32
	Seq     int64 // 1, 2, 3 ... per channel
	Barrier int64 // the last barrier the sender passed
	Rows    *row.Batch
}

// GetPriority puts data at the low level: in order with its channel.
func (*Batch) GetPriority() int8 { return PriorityLow }

// EndOfData closes a channel; it travels in order with the data.
type EndOfData struct {
	Edge int32
	From int32
	Seq  int64 // the last batch's sequence number
}

// GetPriority keeps end-of-data in order with the data.
func (*EndOfData) GetPriority() int8 { return PriorityLow }

// Poll is a source subtask's message to itself: read the next batch.
type Poll struct{}

// BarrierMarker is the in-order copy of barrier Id on channel (Edge, From):
// it follows the batches the sender sent before the barrier (DESIGN §5).
// Markers need no credit.
type BarrierMarker struct {
	ID   int64
	Edge int32
	From int32
	Seq  int64 // the last batch sent before the barrier
	Type string
}

// GetPriority keeps the marker in order with the channel's data.
func (*BarrierMarker) GetPriority() int8 { return PriorityLow }
