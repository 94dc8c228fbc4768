// Package timers gives an actor timers that end with it (DESIGN §3:
// timers use protoactor's scheduler and end with their actor). An actor
// keeps one Timers, made in Started, and calls Stop in Stopping; a timer
// that fires after that sends to a dead actor nothing that could matter,
// but Stop cancels every pending one so none fires at all.
package timers

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/scheduler"
)

// Timers are one actor's pending timers. Every method is called from that
// actor's goroutine.
type Timers struct {
	s       *scheduler.TimerScheduler
	self    *actor.PID
	next    int
	pending map[int]timer
}

type timer struct {
	cancel scheduler.CancelFunc
	due    time.Time // zero for repeating timers
}

// New are the timers of the actor whose context ctx is (call it in
// Started).
func New(ctx actor.Context) *Timers {
	return &Timers{s: scheduler.NewTimerScheduler(ctx.ActorSystem().Root), self: ctx.Self(), pending: map[int]timer{}}
}

// After sends msg to the actor after d. It returns a function that
// cancels the timer.
func (t *Timers) After(d time.Duration, msg any) func() {
	if t == nil {
		return func() {}
	}
	now := time.Now()
	// Forget timers that have fired, so the map stays small.
	for id, p := range t.pending {
		if !p.due.IsZero() && now.After(p.due) {
			delete(t.pending, id)
		}
	}
	t.next++
	id := t.next
	cancel := t.s.SendOnce(d, t.self, msg)
	t.pending[id] = timer{cancel: cancel, due: now.Add(d)}
	return func() { cancel(); delete(t.pending, id) }
}

// Every sends msg to the actor every d until Stop.
func (t *Timers) Every(d time.Duration, msg any) {
	if t == nil {
		return
	}
	t.next++
	t.pending[t.next] = timer{cancel: t.s.SendRepeatedly(d, d, t.self, msg)}
}

// Stop cancels every pending timer.
func (t *Timers) Stop() {
	if t == nil {
		return
	}
	for id, p := range t.pending {
		p.cancel()
		delete(t.pending, id)
	}
}
