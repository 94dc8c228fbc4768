package checkpoint

import (
	"context"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// storeIO runs a coordinator's checkpoint-storage calls off its actor
// (doc.go, "Storage calls"): one at a time, in the order they were asked,
// on a goroutine of its own, each with its own deadline; what a call
// returns comes back to the actor as a message. A call whose deadline
// passed while it waited for the one before it is made with its context
// already done, which a backend answers at once with the context's error
// (storage.Storage), writing nothing.
type storeIO struct {
	sys  *actor.ActorSystem
	self *actor.PID

	base   context.Context // cancelled by stop: the call in progress gives up
	cancel context.CancelFunc
	wake   chan struct{} // one token: the queue has grown
	done   chan struct{} // closed when the goroutine has ended

	mu     sync.Mutex // protects queue and closed
	queue  []storeCall
	closed bool
}

// storeCall is one storage call: run makes it and returns the message for
// the actor (nil: none).
type storeCall struct {
	deadline time.Time // zero: none
	run      func(ctx context.Context) any
}

// newStoreIO starts the goroutine that makes self's storage calls; stop
// ends it.
func newStoreIO(sys *actor.ActorSystem, self *actor.PID) *storeIO {
	s := &storeIO{sys: sys, self: self, wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.base, s.cancel = context.WithCancel(context.Background())
	go s.loop()
	return s
}

// call queues run with the deadline; it never blocks the actor.
func (s *storeIO) call(deadline time.Time, run func(ctx context.Context) any) {
	s.mu.Lock()
	if !s.closed {
		s.queue = append(s.queue, storeCall{deadline: deadline, run: run})
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *storeIO) loop() {
	defer close(s.done)
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-s.base.Done():
			}
			continue
		}
		c := s.queue[0]
		s.queue[0] = storeCall{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if msg := s.run(c); msg != nil {
			s.sys.Root.Send(s.self, msg)
		}
	}
}

func (s *storeIO) run(c storeCall) any {
	ctx, cancel := s.base, context.CancelFunc(func() {})
	if !c.deadline.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, c.deadline)
	}
	defer cancel()
	return c.run(ctx)
}

// stop drops the calls not yet made, cancels the one in progress and waits
// for it to return (a backend returns once its context is done; a file
// system call in progress finishes first).
func (s *storeIO) stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed, s.queue = true, nil
	s.mu.Unlock()
	s.cancel()
	<-s.done
}
