package natschan

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	attempt    string
	term       string
	reconnects uint64 // the connection's reconnect count when opened
	buf        []byte // the batch encoding, reused
	msg        nats.Msg
	// hv holds the header values msg.Header maps to, one slice per
	// header set again for each message, so that no message allocates
	// its header map or slices (nats.go only reads them).
	hv      [8][]string
	fromNum int32 // the sending subtask that hv's HeaderFrom value says
	err     error // sticky: the channel is broken

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
	if !nc.HeadersSupported() {
		return nil, fmt.Errorf("natschan: opening %s: %w", subject, nats.ErrHeadersNotSupported)
	}
	snd := &Sender{nc: nc, subject: subject, attempt: strconv.FormatInt(int64(s.Attempt), 10), term: strconv.FormatUint(s.Term, 10),
		reconnects: reconnects, flushTimeout: o.flushTimeout, msg: nats.Msg{Subject: subject, Header: nats.Header{}}, fromNum: -1}
	for i := range snd.hv {
		snd.hv[i] = make([]string, 1)
	}
	return snd, nil
}

// Slots of Sender.hv.
const (
	hvAttempt = iota
	hvTerm
	hvFrom
	hvKind
	hvSeq
	hvBarrier
	hvPart
	hvType
)

// Subject is the channel's subject.
func (s *Sender) Subject() string { return s.subject }

// SendBatch sends batch seq of the channel from subtask `from`; barrier is
// the last barrier the sender passed. The batch is encoded with the row
// codec and, when the encoding does not fit the connection's max_payload
// (less room for headers), cut into parts that share seq; the receiver
// delivers one messages.Batch per seq. b is only read, and not kept.
func (s *Sender) SendBatch(from int32, seq int64, barrier int64, b *row.Batch) error {
	if b == nil || seq < 1 {
		return fmt.Errorf("natschan: %s: batch %d: no rows or a sequence number below 1", s.subject, seq)
	}
	if err := s.check(); err != nil {
		return err
	}
	room := int(s.nc.MaxPayload()) - headerReserve
	if room < minPart {
		return fmt.Errorf("natschan: %s: %w: server max_payload %d leaves no room for data", s.subject, nats.ErrMaxPayload, s.nc.MaxPayload())
	}
	s.buf = row.AppendBatch(s.buf[:0], b)
	data := s.buf
	n := (len(data) + room - 1) / room
	for i := range n {
		s.header(KindBatch, from, seq)
		if barrier != 0 {
			s.set(HeaderBarrier, hvBarrier, strconv.FormatInt(barrier, 10))
		}
		if n > 1 {
			s.set(HeaderPart, hvPart, formatPart(i, n))
		}
		if err := s.publish(data[i*room : min((i+1)*room, len(data))]); err != nil {
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
	s.header(KindEnd, from, seq)
	return s.publish(nil)
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
	s.header(KindBarrier, from, seq)
	s.set(HeaderBarrier, hvBarrier, strconv.FormatInt(id, 10))
	s.set(HeaderType, hvType, typ)
	return s.publish(nil)
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

// header sets the headers every message has and removes the others.
func (s *Sender) header(kind string, from int32, seq int64) {
	h := s.msg.Header
	delete(h, HeaderBarrier)
	delete(h, HeaderPart)
	delete(h, HeaderType)
	if from != s.fromNum {
		s.fromNum = from
		s.hv[hvFrom][0] = strconv.FormatInt(int64(from), 10)
	}
	s.set(HeaderAttempt, hvAttempt, s.attempt)
	s.set(HeaderTerm, hvTerm, s.term)
	s.set(HeaderFrom, hvFrom, s.hv[hvFrom][0])
	s.set(HeaderKind, hvKind, kind)
	s.set(HeaderSeq, hvSeq, strconv.FormatInt(seq, 10))
}

// set gives header name the value v, in its slot of hv.
func (s *Sender) set(name string, slot int, v string) {
	s.hv[slot][0] = v
	s.msg.Header[name] = s.hv[slot]
}

// publish sends one message; nats.go copies data before it returns, so the
// caller may reuse it.
func (s *Sender) publish(data []byte) error {
	s.msg.Data = data
	err := s.nc.PublishMsg(&s.msg)
	s.msg.Data = nil
	if err != nil {
		// Anything but a message the server would refuse is the
		// connection failing: a write error, closed, draining.
		if !errors.Is(err, nats.ErrMaxPayload) && !errors.Is(err, nats.ErrBadSubject) && !errors.Is(err, nats.ErrHeadersNotSupported) {
			s.err = fmt.Errorf("%w: publishing on %s: %w", ErrDisconnected, s.subject, err)
		} else {
			s.err = fmt.Errorf("natschan: publishing on %s: %w", s.subject, err)
		}
	}
	return s.err
}
