// Package mailbox is the subtask mailbox: a protoactor mailbox with eight
// priority levels that reads a message's level after unwrapping its
// envelope (DESIGN §3).
//
// protoactor's own priority mailbox reads GetPriority() from the message it
// is given; a message sent with Request, with headers, or from a remote
// sender arrives wrapped in an *actor.MessageEnvelope and would land at the
// default level. A barrier sent that way would then queue behind data
// instead of overtaking it. This mailbox unwraps first. Within one level
// messages stay in arrival order (so one sender's messages stay in order);
// across levels nothing is ordered.
package mailbox

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// Levels is the number of priority levels; GetPriority values outside
// 0..Levels-1 are clamped.
const Levels = 8

// Priority is the level a mailbox gives message m.
func Priority(m any) int8 {
	if env, ok := m.(*actor.MessageEnvelope); ok {
		m = env.Message
	}
	p := actor.DefaultPriority
	if pm, ok := m.(actor.PriorityMessage); ok {
		p = pm.GetPriority()
	}
	if p < 0 {
		p = 0
	}
	if p >= Levels {
		p = Levels - 1
	}
	return p
}

// Producer makes priority mailboxes, for actor.WithMailbox.
func Producer() actor.MailboxProducer {
	return func() actor.Mailbox { return &Mailbox{} }
}

// Mailbox implements actor.Mailbox with priority levels.
type Mailbox struct {
	mu     sync.Mutex // guards levels and sys
	levels [Levels]fifo
	sys    fifo

	userCount  atomic.Int32
	sysCount   atomic.Int32
	scheduling atomic.Bool
	suspended  atomic.Bool

	invoker    actor.MessageInvoker
	dispatcher actor.Dispatcher
}

var _ actor.Mailbox = (*Mailbox)(nil)

// fifo is a growable ring of messages.
type fifo struct {
	buf        []any
	head, size int
}

func (q *fifo) push(m any) {
	if q.size == len(q.buf) {
		n := len(q.buf) * 2
		if n == 0 {
			n = 16
		}
		nb := make([]any, n)
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = m
	q.size++
}

func (q *fifo) pop() (any, bool) {
	if q.size == 0 {
		return nil, false
	}
	m := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return m, true
}

// PostUserMessage queues m at its priority level.
func (mb *Mailbox) PostUserMessage(m any) {
	p := Priority(m)
	mb.mu.Lock()
	mb.levels[p].push(m)
	mb.mu.Unlock()
	mb.userCount.Add(1)
	mb.schedule()
}

// PostSystemMessage queues a system message; those go first.
func (mb *Mailbox) PostSystemMessage(m any) {
	mb.mu.Lock()
	mb.sys.push(m)
	mb.mu.Unlock()
	mb.sysCount.Add(1)
	mb.schedule()
}

// RegisterHandlers is called by protoactor when the actor is spawned.
func (mb *Mailbox) RegisterHandlers(invoker actor.MessageInvoker, dispatcher actor.Dispatcher) {
	mb.invoker, mb.dispatcher = invoker, dispatcher
}

// Start is called by protoactor once the actor is ready.
func (mb *Mailbox) Start() {}

// UserMessageCount is the number of queued user messages.
func (mb *Mailbox) UserMessageCount() int { return int(mb.userCount.Load()) }

func (mb *Mailbox) schedule() {
	if mb.scheduling.CompareAndSwap(false, true) {
		mb.dispatcher.Schedule(mb.process)
	}
}

func (mb *Mailbox) process() {
	for {
		mb.run()
		mb.scheduling.Store(false)
		if mb.sysCount.Load() == 0 && (mb.suspended.Load() || mb.userCount.Load() == 0) {
			return
		}
		if !mb.scheduling.CompareAndSwap(false, true) {
			return
		}
	}
}

func (mb *Mailbox) popSys() (any, bool) {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	return mb.sys.pop()
}

func (mb *Mailbox) popUser() (any, bool) {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	for p := Levels - 1; p >= 0; p-- {
		if m, ok := mb.levels[p].pop(); ok {
			return m, true
		}
	}
	return nil, false
}

func (mb *Mailbox) run() {
	var msg any
	defer func() {
		if r := recover(); r != nil {
			mb.invoker.EscalateFailure(r, msg)
		}
	}()
	throughput := mb.dispatcher.Throughput()
	for i := 0; ; i++ {
		if i > throughput {
			i = 0
			runtime.Gosched()
		}
		if m, ok := mb.popSys(); ok {
			msg = m
			mb.sysCount.Add(-1)
			switch m.(type) {
			case *actor.SuspendMailbox:
				mb.suspended.Store(true)
			case *actor.ResumeMailbox:
				mb.suspended.Store(false)
			default:
				mb.invoker.InvokeSystemMessage(m)
			}
			continue
		}
		if mb.suspended.Load() {
			return
		}
		m, ok := mb.popUser()
		if !ok {
			return
		}
		msg = m
		mb.userCount.Add(-1)
		mb.invoker.InvokeUserMessage(m)
	}
}
