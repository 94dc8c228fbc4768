package natschan

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/row"
)

// Sender is the sending end of one channel to a subtask on another node:
// (edge → subtask) in one Scope. One goroutine uses it, the sending
// subtask's actor; the caller numbers the batches and respects credits, as
// on a local channel.
//
// A Send returns once the message is in the connection's outbound buffer
// (nats.go writes a full buffer to the socket in the Send itself); its
// flusher writes the rest to the server at once (every publish wakes it), so
// no flush is needed for latency, and messages of one connection reach a
// subscriber in order. A Send does not wait for the receiver. After
// a Send fails (connection closed, reconnected or lost; a publish error) the
// channel may have lost messages: every later Send returns the same error,
// and the caller fails its pipeline over.
type Sender struct {
	nc         *nats.Conn
	subject    string
	attempt    int32
	term       uint64
	reconnects uint64 // the connection's reconnect count when opened
	buf        []byte // a batch's frame and encoding, reused
	ctl        []byte // an end or barrier message, reused
	err        error  // sticky: the channel is broken

	flushTimeout time.Duration
}

// maxKeptBuf is the largest encoding buffer a Sender keeps between batches.
const maxKeptBuf = 8 << 20

// NewSender opens the channel edge → subtask `to` of scope s on nc. It
// fails with ErrDisconnected when nc is not connected.
func NewSender(nc *nats.Conn, s Scope, edge, to int32, opts ...Option) (*Sender, error) {
	o := newOptions(opts)
	if nc == nil {
		return nil, errors.New("natschan: no NATS connection")
	}
	subject, err := Subject(o.prefix, s, edge, to)
	if err != nil {
		return nil, err
	}
	reconnects := nc.Stats().Reconnects
	if st := nc.Status(); st != nats.CONNECTED {
		return nil, fmt.Errorf("%w: opening %s: connection %s", ErrDisconnected, subject, st)
	}
	return &Sender{nc: nc, subject: subject, attempt: s.Attempt, term: s.Term, reconnects: reconnects, flushTimeout: o.flushTimeout}, nil
}

// Subject is the channel's subject.
func (s *Sender) Subject() string { return s.subject }

// SendBatch sends batch seq of the channel from subtask `from`; barrier is
// the last barrier the sender passed. The batch is encoded with the row
// codec after room for its frame and, when frame and encoding do not fit
// the connection's max_payload, cut into parts that share seq; the
// receiver delivers one messages.Batch per seq. b is only read, and not
// kept.
func (s *Sender) SendBatch(from int32, seq int64, barrier int64, b *row.Batch) error {
	if b == nil || seq < 1 {
		return fmt.Errorf("natschan: %s: batch %d: no rows or a sequence number below 1", s.subject, seq)
	}
	if err := s.check(); err != nil {
		return err
	}
	room := int(s.nc.MaxPayload()) - frameSize
	if room < minPart {
		return fmt.Errorf("natschan: %s: %w: server max_payload %d leaves no room for data", s.subject, nats.ErrMaxPayload, s.nc.MaxPayload())
	}
	// Encoded once, in place after the frame's room: no copy of the
	// encoding before nats.go's own.
	s.buf = row.AppendBatch(append(s.buf[:0], make([]byte, frameSize)...), b)
	size := len(s.buf) - frameSize
	n := max(1, (size+room-1)/room)
	f := frame{kind: kindBatch, from: from, attempt: s.attempt, parts: uint32(n), term: s.term, seq: seq, barrier: barrier}
	for i := range n {
		// Part i's frame goes right before its bytes, over the last
		// frameSize bytes of part i-1, which nats.go has copied.
		at := i * room
		f.part = uint32(i)
		putFrame(s.buf[at:], &f)
		if err := s.publish(s.buf[at : frameSize+min(at+room, size)]); err != nil {
			return err
		}
	}
	if cap(s.buf) > maxKeptBuf {
		s.buf = nil
	}
	return nil
}

// SendEndOfData closes the channel from subtask `from`; seq is the last
// batch's sequence number (0 when none was sent).
func (s *Sender) SendEndOfData(from int32, seq int64) error {
	if err := s.check(); err != nil {
		return err
	}
	s.ctl = appendFrame(s.ctl[:0], &frame{kind: kindEnd, from: from, attempt: s.attempt, parts: 1, term: s.term, seq: seq})
	return s.publish(s.ctl)
}

// SendBarrier sends barrier id of type typ from subtask `from` after batch
// seq (the last one sent) as one message; the receiver delivers its
// priority copy and its in-order marker. typ is printable ASCII of at most
// 128 bytes.
func (s *Sender) SendBarrier(id int64, from int32, seq int64, typ string) error {
	if id < 1 {
		return fmt.Errorf("natschan: %s: barrier id %d", s.subject, id)
	}
	if err := validType(typ); err != nil {
		return fmt.Errorf("natschan: %s: %w", s.subject, err)
	}
	if err := s.check(); err != nil {
		return err
	}
	s.ctl = appendFrame(s.ctl[:0], &frame{kind: kindBarrier, from: from, attempt: s.attempt, parts: 1, term: s.term, seq: seq, barrier: id, typ: typ})
	return s.publish(s.ctl)
}

// Flush waits until the server has processed everything sent on the
// connection (a round trip; other channels' messages too). Sends do not need
// it; it is for a caller that must know the server has the messages, which
// still does not mean the receiver has them. Without a deadline on ctx it
// waits at most the subscribe timeout (WithSubscribeTimeout, 5 s).
func (s *Sender) Flush(ctx context.Context) error {
	if err := s.check(); err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.flushTimeout)
		defer cancel()
	}
	if err := s.nc.FlushWithContext(ctx); err != nil {
		return fmt.Errorf("natschan: flushing %s: %w", s.subject, err)
	}
	return nil
}

// check fails the channel once the connection is not connected, or has
// reconnected since the channel was opened: core NATS may have lost what was
// in flight then.
func (s *Sender) check() error {
	if s.err != nil {
		return s.err
	}
	st := s.nc.Status()
	switch {
	case st == nats.CLOSED:
		s.err = fmt.Errorf("%w: %s: %w", ErrDisconnected, s.subject, nats.ErrConnectionClosed)
	case st != nats.CONNECTED:
		s.err = fmt.Errorf("%w: %s: connection %s", ErrDisconnected, s.subject, st)
	case s.nc.Stats().Reconnects != s.reconnects:
		s.err = fmt.Errorf("%w: %s: the connection reconnected", ErrDisconnected, s.subject)
	}
	return s.err
}

// publish sends one message; nats.go copies data before it returns, so the
// caller may reuse it.
func (s *Sender) publish(data []byte) error {
	if err := s.nc.Publish(s.subject, data); err != nil {
		// Anything but a message the server would refuse is the
		// connection failing: a write error, closed, draining.
		if !errors.Is(err, nats.ErrMaxPayload) && !errors.Is(err, nats.ErrBadSubject) {
			s.err = fmt.Errorf("%w: publishing on %s: %w", ErrDisconnected, s.subject, err)
		} else {
			s.err = fmt.Errorf("natschan: publishing on %s: %w", s.subject, err)
		}
	}
	return s.err
}
