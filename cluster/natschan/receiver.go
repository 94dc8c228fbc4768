package natschan

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
)

// Receiver is the receiving end of every channel to one subtask in one
// Scope: it subscribes (core NATS) to the subtask's subjects with a wildcard
// over edges and hands each channel's messages on in the order they were
// sent: *messages.Batch, *messages.EndOfData, and for a barrier
// *messages.Barrier then *messages.BarrierMarker.
//
// deliver and onError are called from the subscription's goroutine (and
// onError also from the goroutine that watches the connection), never
// concurrently and never after Close returns. They must return quickly — a
// send to the subtask's actor — and must not call Close. onError is called
// once for each channel that fails (gap, duplicate, corrupt message, with a
// *ChannelError), after which that channel delivers nothing more, and once
// when the whole receiver fails (lost connection, slow consumer, a message
// with no channel), after which nothing is delivered.
type Receiver struct {
	nc      *nats.Conn
	subject string
	sub     *nats.Subscription
	connCh  chan nats.Status
	stop    chan struct{}
	done    chan struct{} // closed when the watcher has returned

	mu     sync.Mutex // guards closed and d, and serializes the callbacks
	closed bool
	d      *demux
}

// NewReceiver subscribes to the channels to subtask in scope s and returns
// once the server has confirmed the subscription, so that a sender started
// after it loses nothing (with a cluster of NATS servers, interest reaches
// the other servers shortly after). Start the receivers of a pipeline before
// its senders send.
func NewReceiver(nc *nats.Conn, s Scope, subtask int32, deliver func(msg any), onError func(err error), opts ...Option) (*Receiver, error) {
	o := newOptions(opts)
	if nc == nil || deliver == nil || onError == nil {
		return nil, errors.New("natschan: NewReceiver needs a connection, deliver and onError")
	}
	subject, err := receiveSubject(o.prefix, s, subtask)
	if err != nil {
		return nil, err
	}
	r := &Receiver{nc: nc, subject: subject, stop: make(chan struct{}), done: make(chan struct{}),
		d: newDemux(s.Attempt, deliver, onError)}
	// Listen before looking, so that no change falls between.
	r.connCh = nc.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING, nats.CLOSED)
	if st := nc.Status(); st != nats.CONNECTED {
		nc.RemoveStatusListener(r.connCh)
		return nil, fmt.Errorf("%w: subscribing to %s: connection %s", ErrDisconnected, subject, st)
	}
	var subCh <-chan nats.SubStatus
	r.sub, err = nc.Subscribe(subject, r.handle)
	if err == nil {
		subCh = r.sub.StatusChanged(nats.SubscriptionSlowConsumer)
		err = r.sub.SetPendingLimits(o.pendingMsgs, o.pendingBytes)
	}
	if err == nil {
		err = nc.FlushTimeout(o.flushTimeout)
	}
	if err != nil {
		if r.sub != nil {
			_ = r.sub.Unsubscribe()
		}
		nc.RemoveStatusListener(r.connCh)
		if errors.Is(err, nats.ErrBadSubject) {
			return nil, fmt.Errorf("natschan: subscribing to %s: %w", subject, err)
		}
		return nil, fmt.Errorf("%w: subscribing to %s: %w", ErrDisconnected, subject, err)
	}
	go r.watch(r.connCh, subCh)
	return r, nil
}

// Subject is the subscription's subject.
func (r *Receiver) Subject() string { return r.subject }

// Dropped is how many messages were dropped for carrying another attempt.
func (r *Receiver) Dropped() int64 { return r.d.dropped.Load() }

func (r *Receiver) handle(m *nats.Msg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.d.handle(m.Subject, m.Header, m.Data)
}

// watch fails the receiver when the connection is lost or the subscription
// drops messages; it returns on Close.
func (r *Receiver) watch(connCh <-chan nats.Status, subCh <-chan nats.SubStatus) {
	defer close(r.done)
	for {
		select {
		case <-r.stop:
			return
		case st, ok := <-connCh:
			if !ok {
				connCh = nil
				continue
			}
			r.fail(fmt.Errorf("%w: %s: connection %s", ErrDisconnected, r.subject, st))
		case st, ok := <-subCh:
			if !ok {
				subCh = nil // the subscription closed; Close follows
				continue
			}
			if st == nats.SubscriptionSlowConsumer {
				r.fail(fmt.Errorf("%w: %s: %w, messages dropped", ErrGap, r.subject, nats.ErrSlowConsumer))
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
	<-r.done
	r.nc.RemoveStatusListener(r.connCh)
	if err := r.sub.Unsubscribe(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrBadSubscription) {
		return fmt.Errorf("natschan: unsubscribing from %s: %w", r.subject, err)
	}
	return nil
}
