package node

import (
	"context"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/resources"
)

// The ResourceManager's workers are the ones Consul says are healthy, with
// one hint taken sooner: when this node's connection to a worker's actor
// system breaks (protoactor's EndpointTerminatedEvent: the worker's
// process died, or it stopped and said so), the worker is taken out of the
// pool at once instead of one check TTL later. Until then the pool would
// still list it, and a restore's commit on it, or a subtask deployed to
// it, would wait out protoactor's connect retries to the dead address
// (5 × 2 s). A node that is merely slow (SIGSTOP, a long GC pause) keeps
// its connections, so it is not taken out by this; Consul's check decides
// for it. A worker taken out is fed again only when Consul lists it
// healthy once two check TTLs have passed — by then Consul has seen a
// dead worker's check fail, so a worker that is back (at a new address,
// or at the same one) is fed again, and a dead one is not.

// workerFeed is feedWorkers' state: what it told the ResourceManager and
// which addresses it keeps out. Used by one goroutine.
type workerFeed struct {
	send     func(msg any) // to the ResourceManager
	log      zerolog.Logger
	slots    int           // FixedSlots of every worker
	lostFor  time.Duration // how long a broken connection keeps a worker out
	known    map[string]string
	lost     map[string]time.Time // address → until when it is kept out
	latest   []consul.Member      // Consul's latest membership
	haveView bool                 // latest is set
}

func newWorkerFeed(send func(any), log zerolog.Logger, slots int, checkTTL time.Duration) *workerFeed {
	if checkTTL <= 0 {
		checkTTL = consul.DefaultTTL
	}
	return &workerFeed{send: send, log: log, slots: slots, lostFor: 2 * checkTTL, known: map[string]string{}, lost: map[string]time.Time{}}
}

// members takes Consul's membership.
func (f *workerFeed) members(ms []consul.Member, now time.Time) time.Duration {
	f.latest, f.haveView = ms, true
	return f.feed(now)
}

// broken takes the hint that the connection to addr broke; it returns
// when to feed again (0: no need).
func (f *workerFeed) broken(addr string, now time.Time) time.Duration {
	for id, a := range f.known {
		if a == addr {
			f.log.Warn().Str("worker", id).Str("address", addr).Str("why", "the connection to it broke").Msg("worker left or failed")
			f.send(&resource.WorkerDown{ID: id})
			delete(f.known, id)
			f.lost[addr] = now.Add(f.lostFor)
			return f.feed(now)
		}
	}
	return 0
}

// feed tells the ResourceManager the healthy workers of the latest
// membership, but those kept out, and which known ones are gone; it
// returns when the next kept-out address is let in again (0: none).
func (f *workerFeed) feed(now time.Time) time.Duration {
	next := time.Duration(0)
	for addr, until := range f.lost {
		if !now.Before(until) {
			delete(f.lost, addr)
		} else if left := until.Sub(now); next == 0 || left < next {
			next = left
		}
	}
	seen := map[string]bool{}
	for _, mb := range f.latest {
		if !slices.Contains(mb.Roles, "worker") || !mb.Healthy {
			continue
		}
		if _, out := f.lost[mb.Address]; out {
			continue
		}
		seen[mb.ID] = true
		w := resources.Worker{ID: mb.ID, Address: mb.Address, Tags: mb.Tags,
			Profile: resources.Profile{CPU: mb.CPU, MemoryMB: mb.MemoryMB}, FixedSlots: f.slots}
		f.send(&resource.WorkerUp{Worker: w})
		if _, ok := f.known[mb.ID]; !ok {
			f.log.Info().Str("worker", mb.ID).Str("address", mb.Address).Msg("worker joined")
		}
		f.known[mb.ID] = mb.Address
	}
	for id := range f.known {
		if !seen[id] {
			f.log.Warn().Str("worker", id).Msg("worker left or failed")
			f.send(&resource.WorkerDown{ID: id})
			delete(f.known, id)
		}
	}
	return next
}

// feedWorkers tells the ResourceManager which workers are healthy, as
// Consul's membership changes and as connections to workers break; fed
// is closed after the first membership.
func (n *Node) feedWorkers(ctx context.Context, m *engine.Master, fed chan struct{}) {
	broken := make(chan string, 64)
	sub := n.sys.EventStream.SubscribeWithPredicate(func(ev any) {
		select {
		case broken <- ev.(*remote.EndpointTerminatedEvent).Address:
		default: // a burst: Consul's check still tells
		}
	}, func(ev any) bool { _, ok := ev.(*remote.EndpointTerminatedEvent); return ok })
	defer n.sys.EventStream.Unsubscribe(sub)
	f := newWorkerFeed(func(msg any) { n.sys.Root.Send(m.Resources, msg) }, n.log, n.cfg.FixedSlots, n.cfg.CheckTTL)
	recheck := time.NewTimer(time.Hour)
	recheck.Stop()
	defer recheck.Stop()
	after := func(d time.Duration) {
		if d > 0 {
			recheck.Reset(d)
		}
	}
	members := consul.Watch(ctx, n.client, n.cfg.Cluster)
	for {
		select {
		case ms, ok := <-members:
			if !ok {
				return
			}
			first := !f.haveView
			after(f.members(ms, time.Now()))
			if first {
				close(fed)
			}
		case addr := <-broken:
			after(f.broken(addr, time.Now()))
		case <-recheck.C:
			after(f.feed(time.Now()))
		case <-ctx.Done():
			return
		}
	}
}
