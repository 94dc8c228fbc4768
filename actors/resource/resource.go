// Package resource is the ResourceManager actor (DESIGN §7): it owns the
// cluster's worker pool (workers join and leave as membership says), hands
// out slots to JobMasters by a placement strategy and a job's tag_filter,
// queues requests that cannot be met yet (job-schedule-strategy WAIT) or
// refuses them (REJECT), and tells a JobMaster when a worker holding its
// slots is lost.
package resource

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/resources"
)

// Options configure the ResourceManager.
type Options struct {
	Strategy resources.Strategy
	// Slot is the profile of one slot (one subtask) with dynamic slots.
	Slot resources.Profile
	// Wait queues requests that cannot be met (WAIT); false refuses them
	// (REJECT).
	Wait bool
}

// WorkerUp registers or updates a worker.
type WorkerUp struct{ Worker resources.Worker }

// WorkerDown removes a worker; owners of its slots get WorkerLost.
type WorkerDown struct{ ID string }

// Request asks for N slots for Owner (a pipeline attempt); the answer goes
// to ReplyTo as Granted or Refused.
type Request struct {
	Owner   string
	N       int
	Filter  map[string]string
	ReplyTo *actor.PID
}

// Granted answers a Request: one slot per subtask, in order.
type Granted struct {
	Owner string
	Slots []resources.Slot
	// Addresses are the slots' workers' actor system addresses.
	Addresses []string
}

// Refused answers a Request that cannot be met (REJECT), or whose filter
// no worker could ever match.
type Refused struct {
	Owner string
	Cause string
}

// WorkerLoad is a worker's reported system load in [0, 1] (CPU and memory
// in use), for SYSTEM_LOAD placement; a worker not registered (yet) is
// ignored.
type WorkerLoad struct {
	ID   string
	Load float64
}

// Queued tells an owner that its Request waits in the pending queue
// (job-schedule-strategy WAIT): Cause says what is missing. A Granted
// follows when slots free up or a matching worker joins.
type Queued struct {
	Owner string
	Cause string
}

// Release returns every slot of Owner (and drops a queued request).
type Release struct{ Owner string }

// WorkerLost tells an owner that a worker holding its slots is gone.
type WorkerLost struct {
	Owner  string
	Worker string
}

// GetWorkers is answered with Workers.
type GetWorkers struct{}

// Workers lists the pool: each worker and its used slots.
type Workers struct {
	Workers []resources.Worker
	Used    map[string]int
}

// Manager is the actor.
type Manager struct {
	opts    Options
	log     zerolog.Logger
	pool    *resources.Pool
	owners  map[string]*actor.PID // slot owner → who to tell
	waiting []*Request
}

// New is the props producer.
func New(opts Options, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &Manager{opts: opts, log: log, pool: resources.NewPool(1), owners: map[string]*actor.PID{}}
	}
}

// Receive handles one message. A panic here (a bug) is logged and the
// message dropped, the pool kept: never protoactor's default restart with
// empty state (DESIGN §3).
func (m *Manager) Receive(ctx actor.Context) {
	defer func() {
		if r := recover(); r != nil {
			m.log.Error().Interface("panic", r).Str("message", fmt.Sprintf("%T", ctx.Message())).Str("stack", string(debug.Stack())).Msg("resource manager: handling a message failed")
		}
	}()
	switch msg := ctx.Message().(type) {
	case *WorkerUp:
		m.pool.Upsert(msg.Worker)
		m.retry(ctx)
	case *WorkerLoad:
		m.pool.SetLoad(msg.ID, msg.Load)
	case *WorkerDown:
		lost := m.pool.Remove(msg.ID)
		told := map[string]bool{}
		for _, s := range lost {
			if pid := m.owners[s.Owner]; pid != nil && !told[s.Owner] {
				told[s.Owner] = true
				ctx.Send(pid, &WorkerLost{Owner: s.Owner, Worker: msg.ID})
			}
		}
		if len(lost) > 0 {
			m.log.Warn().Str("worker", msg.ID).Int("slots", len(lost)).Msg("worker lost; its slots are gone")
		}
	case *Request:
		m.serve(ctx, msg, true)
	case *Release:
		m.pool.ReleaseOwner(msg.Owner)
		delete(m.owners, msg.Owner)
		for i, r := range m.waiting {
			if r.Owner == msg.Owner {
				m.waiting = append(m.waiting[:i], m.waiting[i+1:]...)
				break
			}
		}
		m.retry(ctx)
	case *GetWorkers:
		used := map[string]int{}
		ws := m.pool.Workers()
		for _, w := range ws {
			used[w.ID] = m.pool.UsedSlots(w.ID)
		}
		ctx.Respond(&Workers{Workers: ws, Used: used})
	}
}

// serve grants r, queues it (WAIT) or refuses it (REJECT). A request for
// more slots than the matching workers offer in all is refused under
// either strategy while some worker matches: waiting would wait for
// workers nobody may add, and a subtask per slot is what bounds a job's
// parallelism by what the workers offer (100000 subtasks would exhaust a
// node's memory long before they ran). With no matching worker at all it
// waits (WAIT), as a cluster starting up has none yet.
func (m *Manager) serve(ctx actor.Context, r *Request, first bool) bool {
	if all := m.pool.Capacity(m.opts.Slot, r.Filter); all > 0 && r.N > all {
		ctx.Send(r.ReplyTo, &Refused{Owner: r.Owner, Cause: fmt.Sprintf("%d slots wanted, one per subtask, but the workers%s offer %d in all (%d workers; %s): lower the parallelism, or give the workers more slots (engine settings slot-num with dynamic-slot false, or memory and slot.memory, cpu and slot.cpu)",
			r.N, filterText(r.Filter), all, m.pool.Matching(r.Filter), slotText(m.opts.Slot))})
		return true
	}
	slots, err := m.pool.Allocate(r.Owner, r.N, m.opts.Slot, m.opts.Strategy, r.Filter)
	if err == nil {
		m.owners[r.Owner] = r.ReplyTo
		g := &Granted{Owner: r.Owner, Slots: slots}
		for _, s := range slots {
			w, _ := m.pool.Worker(s.ID.Worker)
			g.Addresses = append(g.Addresses, w.Address)
		}
		ctx.Send(r.ReplyTo, g)
		return true
	}
	if !m.opts.Wait {
		ctx.Send(r.ReplyTo, &Refused{Owner: r.Owner, Cause: fmt.Sprintf("%v (job-schedule-strategy REJECT)", err)})
		return true
	}
	if first {
		m.log.Info().Str("owner", r.Owner).Int("slots", r.N).Msg("waiting for slots (job-schedule-strategy WAIT)")
		m.waiting = append(m.waiting, r)
		ctx.Send(r.ReplyTo, &Queued{Owner: r.Owner, Cause: err.Error()})
	}
	return false
}

// retry serves queued requests in order while they can be met.
func (m *Manager) retry(ctx actor.Context) {
	for len(m.waiting) > 0 {
		if !m.serve(ctx, m.waiting[0], false) {
			return
		}
		m.waiting = m.waiting[1:]
	}
}

// filterText names a tag_filter for a message ("" for none).
func filterText(filter map[string]string) string {
	if len(filter) == 0 {
		return ""
	}
	return fmt.Sprintf(" matching tag_filter %v", filter)
}

// slotText says what one dynamic slot takes.
func slotText(each resources.Profile) string {
	var parts []string
	if each.CPU > 0 {
		parts = append(parts, fmt.Sprintf("%g CPU", each.CPU))
	}
	if each.MemoryMB > 0 {
		parts = append(parts, fmt.Sprintf("%d MiB of memory", each.MemoryMB))
	}
	if len(parts) == 0 {
		return "fixed slot counts"
	}
	return "a slot takes " + strings.Join(parts, " and ")
}
