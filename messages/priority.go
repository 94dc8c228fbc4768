package messages

// Mailbox priority levels (DESIGN §3). protoactor reads a message's level
// from its GetPriority method; the subtask mailbox (actors/mailbox) also
// unwraps envelopes first, so a level holds for Request and remote senders.
const (
	PriorityLow     int8 = 2 // in order with a channel's data
	PriorityDefault int8 = 4 // enumerator → reader, checkpoint notices, credits
	PriorityHigh    int8 = 6 // barrier's priority copy, stop-reading
	PriorityHighest int8 = 7 // cancel
)

// GetPriority puts cancel above everything.
func (*CancelTask) GetPriority() int8 { return PriorityHighest }

// GetPriority keeps close at the default level: it comes after the final
// checkpoint's notices.
func (*CloseTask) GetPriority() int8 { return PriorityDefault }

// GetPriority keeps credits at the default level.
func (*Credit) GetPriority() int8 { return PriorityDefault }

// GetPriority keeps split assignments at the default level, in one order
// with checkpoint triggers (DESIGN §5 step 2).
func (*AddSplits) GetPriority() int8 { return PriorityDefault }

// GetPriority keeps no-more-splits in order with the assignments.
func (*NoMoreSplits) GetPriority() int8 { return PriorityDefault }

// GetPriority lets the barrier's priority copy overtake queued data.
func (*Barrier) GetPriority() int8 { return PriorityHigh }

// GetPriority keeps a checkpoint trigger on the split-assignment level.
func (*CheckpointTrigger) GetPriority() int8 { return PriorityDefault }

// GetPriority keeps checkpoint notices at the default level.
func (*CheckpointDone) GetPriority() int8 { return PriorityDefault }

// GetPriority lets stop-reading overtake a source's queued polls.
func (*StopReading) GetPriority() int8 { return PriorityHigh }

// GetPriority lets a new read rate overtake a source's queued polls.
func (*ReadRate) GetPriority() int8 { return PriorityHigh }
