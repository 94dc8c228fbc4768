package natschan

import (
	"errors"
	"fmt"
)

var (
	// ErrSubject is returned (wrapped) for a prefix, job id or index that
	// cannot make a channel subject.
	ErrSubject = errors.New("natschan: invalid subject")
	// ErrGap is passed (wrapped) to onError when a channel lost a message: a
	// sequence number, a part or an end skipped, or messages dropped by a
	// slow consumer. The pipeline must fail over.
	ErrGap = errors.New("natschan: sequence gap")
	// ErrDuplicate is passed (wrapped) to onError when a channel repeated a
	// message. The pipeline must fail over.
	ErrDuplicate = errors.New("natschan: duplicate message")
	// ErrCorrupt is passed (wrapped) to onError for a message of this
	// attempt that breaks the protocol: a bad frame, a batch that does not
	// decode, a batch after end-of-data.
	ErrCorrupt = errors.New("natschan: corrupt message")
	// ErrDisconnected is returned by a Sender, and passed to a Receiver's
	// onError, when the NATS connection is not connected or has reconnected
	// since the channel was opened: what was in flight may be lost.
	ErrDisconnected = errors.New("natschan: NATS connection lost")
)

// ChannelError is an error of one channel (edge, from → the receiving
// subtask). It wraps ErrGap, ErrDuplicate or ErrCorrupt.
type ChannelError struct {
	Edge int32
	From int32
	Err  error
}

func (e *ChannelError) Error() string {
	return fmt.Sprintf("channel edge %d from subtask %d: %v", e.Edge, e.From, e.Err)
}

func (e *ChannelError) Unwrap() error { return e.Err }
