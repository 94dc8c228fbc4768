package natschan

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
)

// Receiver is the receiving end of every channel to one subtask in one
// Scope: it subscribes (core NATS) to the subtask's subjects, with a
// wildcard over edges or one subscription per edge (WithEdges), and hands
// each channel's messages on in the order they were sent:
// *messages.Batch, *messages.EndOfData, and for a barrier *messages.Barrier
// then *messages.BarrierMarker. A delivered batch is decoded into recycled
// vectors (row.Decoder.Recycle), its string columns packed and aliasing
// the message's payload (row/packed.go): whoever it is delivered to owns
// its one reference and releases it when done (row.Batch.Release), or
// simply drops it.
//
// deliver and onError are called from the subscriptions' goroutines (and
// onError also from the goroutines that watch the connection and the
// subscriptions), never concurrently and never after Close returns. They
// must return quickly — a send to the subtask's actor — and must not call
// Close. onError is called once for each channel that fails (gap,
// duplicate, corrupt message, with a *ChannelError), after which that
// channel delivers nothing more, and once when the whole receiver fails
// (lost connection, slow consumer, a message with no channel), after which
// nothing is delivered.
type Receiver struct {
	nc       *nats.Conn
	subjects []string
	subsMu   sync.Mutex // guards subs against explain while they are made
	subs     []*nats.Subscription
	connCh   chan nats.Status
	stop     chan struct{}
	wg       sync.WaitGroup // the watchers

	mu     sync.Mutex // guards closed and d, and serializes the callbacks
	closed bool
	d      *demux
}

// NewReceiver subscribes to the channels to subtask in scope s and returns
// once the server has confirmed the subscriptions, so that a sender started
// after it loses nothing (with a cluster of NATS servers, interest reaches
// the other servers shortly after). Start the receivers of a pipeline before
// its senders send. Close it when the subtask ends.
func NewReceiver(nc *nats.Conn, s Scope, subtask int32, deliver func(msg any), onError func(err error), opts ...Option) (*Receiver, error) {
	o := newOptions(opts)
	if nc == nil || deliver == nil || onError == nil {
		return nil, errors.New("natschan: NewReceiver needs a connection, deliver and onError")
	}
	if o.pendingMsgs == 0 || o.pendingBytes == 0 {
		return nil, fmt.Errorf("natschan: pending limits of %d messages and %d bytes (0 is not allowed; negative is unlimited)", o.pendingMsgs, o.pendingBytes)
	}
	var subjects []string
	if o.edges == nil {
		subject, err := receiveSubject(o.prefix, s, subtask)
		if err != nil {
			return nil, err
		}
		subjects = []string{subject}
	}
	for _, e := range o.edges {
		subject, err := Subject(o.prefix, s, e, subtask)
		if err != nil {
			return nil, err
		}
		subjects = append(subjects, subject)
	}
	r := &Receiver{nc: nc, subjects: subjects, stop: make(chan struct{})}
	r.d = newDemux(s, deliver, func(err error) { onError(r.explain(err)) })
	// Listen before looking, so that no change falls between.
	r.connCh = nc.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING, nats.CLOSED)
	if st := nc.Status(); st != nats.CONNECTED {
		nc.RemoveStatusListener(r.connCh)
		return nil, fmt.Errorf("%w: subscribing to %s: connection %s", ErrDisconnected, subjects, st)
	}
	var subChs []<-chan nats.SubStatus
	err := func() error {
		for _, subject := range subjects {
			sub, err := nc.Subscribe(subject, r.handle)
			if err != nil {
				return err
			}
			r.subsMu.Lock()
			r.subs = append(r.subs, sub)
			r.subsMu.Unlock()
			subChs = append(subChs, sub.StatusChanged(nats.SubscriptionSlowConsumer))
			if err := sub.SetPendingLimits(o.pendingMsgs, o.pendingBytes); err != nil {
				return err
			}
		}
		return nc.FlushTimeout(o.flushTimeout)
	}()
	if err != nil {
		r.unsubscribe()
		nc.RemoveStatusListener(r.connCh)
		if errors.Is(err, nats.ErrBadSubject) {
			return nil, fmt.Errorf("natschan: subscribing to %s: %w", subjects, err)
		}
		return nil, fmt.Errorf("%w: subscribing to %s: %w", ErrDisconnected, subjects, err)
	}
	r.wg.Add(1 + len(subChs))
	go r.watchConn(r.connCh)
	for i, ch := range subChs {
		go r.watchSub(subjects[i], ch)
	}
	return r, nil
}

// Subjects are the subscriptions' subjects.
func (r *Receiver) Subjects() []string { return r.subjects }

// Dropped is how many messages were dropped for carrying another attempt.
func (r *Receiver) Dropped() int64 { return r.d.dropped.Load() }

func (r *Receiver) handle(m *nats.Msg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if len(m.Header) > 0 {
		// Channel messages have none (wire.go); stactor builds before
		// the frame sent theirs in headers.
		r.d.fail(fmt.Errorf("%w: %s: a message with NATS headers, as stactor builds before wire version %d sent: every node of a cluster must run the same stactor build", ErrCorrupt, m.Subject, frameVersion))
		return
	}
	r.d.handle(m.Subject, m.Data)
}

// watchConn fails the receiver when the connection is lost: core NATS does
// not resend what was published while it was away. It returns on Close.
func (r *Receiver) watchConn(ch <-chan nats.Status) {
	defer r.wg.Done()
	for {
		select {
		case <-r.stop:
			return
		case st, ok := <-ch:
			if !ok {
				return // removed: Close follows
			}
			r.fail(fmt.Errorf("%w: %s: connection %s", ErrDisconnected, r.subjects, st))
		}
	}
}

// explain adds the cause to a gap the demux found when a subscription
// dropped messages for going over its pending limits: the slow-consumer
// status that says so arrives on another goroutine and may come second.
func (r *Receiver) explain(err error) error {
	if !errors.Is(err, ErrGap) || errors.Is(err, nats.ErrSlowConsumer) {
		return err
	}
	r.subsMu.Lock()
	subs := r.subs
	r.subsMu.Unlock()
	for _, sub := range subs {
		if n, derr := sub.Dropped(); derr == nil && n > 0 {
			return fmt.Errorf("%w (%w: %d messages dropped on %s)", err, nats.ErrSlowConsumer, n, sub.Subject)
		}
	}
	return err
}

// watchSub fails the receiver when a subscription drops messages for
// going over its pending limits. It returns on Close.
func (r *Receiver) watchSub(subject string, ch <-chan nats.SubStatus) {
	defer r.wg.Done()
	for {
		select {
		case <-r.stop:
			return
		case st, ok := <-ch:
			if !ok {
				return // the subscription closed: Close follows
			}
			if st == nats.SubscriptionSlowConsumer {
				r.fail(fmt.Errorf("%w: %s: %w, messages dropped", ErrGap, subject, nats.ErrSlowConsumer))
			}
		}
	}
}

func (r *Receiver) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.d.fail(err)
	}
}

// Close unsubscribes; messages not yet delivered are dropped (the pipeline
// is over, or failing over to a new attempt that replays from a
// checkpoint). When it returns no callback runs or will run. It must not be
// called from deliver or onError. Closing twice is a no-op.
func (r *Receiver) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	r.wg.Wait()
	r.nc.RemoveStatusListener(r.connCh)
	return r.unsubscribe()
}

func (r *Receiver) unsubscribe() error {
	var errs []error
	for _, sub := range r.subs {
		if err := sub.Unsubscribe(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrBadSubscription) {
			errs = append(errs, fmt.Errorf("natschan: unsubscribing from %s: %w", sub.Subject, err))
		}
	}
	return errors.Join(errs...)
}
