package node

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/cluster/consul"
)

// feedLog records what a workerFeed told the ResourceManager.
type feedLog struct{ msgs []string }

func (l *feedLog) send(msg any) {
	switch m := msg.(type) {
	case *resource.WorkerUp:
		l.msgs = append(l.msgs, fmt.Sprintf("up %s %s", m.Worker.ID, m.Worker.Address))
	case *resource.WorkerDown:
		l.msgs = append(l.msgs, "down "+m.ID)
	}
}

func (l *feedLog) take() []string { out := l.msgs; l.msgs = nil; return out }

func worker(id, addr string, healthy bool) consul.Member {
	return consul.Member{Node: consul.Node{ID: id, Address: addr, Roles: []string{"worker"}}, Healthy: healthy}
}

// A worker whose connection broke is out of the pool at once, while
// Consul still lists it healthy; it is fed again when Consul lists it
// (at a new address at once, at its old one after two check TTLs), and a
// broken connection to an address no worker has changes nothing.
func TestWorkerFeedTakesABrokenConnectionsWorkerOut(t *testing.T) {
	var l feedLog
	f := newWorkerFeed(l.send, zerolog.Nop(), 0, time.Second)
	now := time.Unix(1000, 0)
	healthy := []consul.Member{worker("a", "h:1", true), worker("b", "h:2", true)}
	if next := f.members(healthy, now); next != 0 {
		t.Fatalf("recheck in %s with nothing kept out", next)
	}
	if got := l.take(); !slices.Equal(got, []string{"up a h:1", "up b h:2"}) {
		t.Fatalf("fed %v", got)
	}
	if next := f.broken("h:9", now); next != 0 || len(l.take()) != 0 {
		t.Fatalf("a broken connection to no worker's address changed the pool")
	}
	if next := f.broken("h:2", now); next != 2*time.Second {
		t.Fatalf("recheck in %s, want two check TTLs", next)
	}
	if got := l.take(); !slices.Equal(got, []string{"down b", "up a h:1"}) {
		t.Fatalf("after b's connection broke: %v", got)
	}
	// Consul has not noticed yet: another change lists b healthy at the
	// same address; it stays out.
	f.members(append(healthy, worker("c", "h:3", true)), now.Add(500*time.Millisecond))
	if got := l.take(); !slices.Equal(got, []string{"up a h:1", "up c h:3"}) {
		t.Fatalf("b fed again while kept out: %v", got)
	}
	// b restarted at a new address: fed at once.
	f.members([]consul.Member{worker("a", "h:1", true), worker("b", "h:4", true)}, now.Add(time.Second))
	if got := l.take(); !slices.Equal(got, []string{"up a h:1", "up b h:4", "down c"}) {
		t.Fatalf("b back at a new address: %v", got)
	}
}

// A worker that is still healthy in Consul after two check TTLs (its
// process restarted at the same address, or the connection broke but the
// node lives) is fed again then; one Consul marks failing is not.
func TestWorkerFeedLetsAWorkerBackAfterTwoTTLs(t *testing.T) {
	var l feedLog
	f := newWorkerFeed(l.send, zerolog.Nop(), 0, time.Second)
	now := time.Unix(1000, 0)
	f.members([]consul.Member{worker("a", "h:1", true), worker("b", "h:2", true)}, now)
	f.broken("h:1", now)
	f.broken("h:2", now.Add(time.Second))
	l.take()
	f.members([]consul.Member{worker("a", "h:1", true), worker("b", "h:2", false)}, now.Add(1500*time.Millisecond))
	if got := l.take(); len(got) != 0 {
		t.Fatalf("fed %v while both are kept out", got)
	}
	if next := f.feed(now.Add(2 * time.Second)); next != time.Second {
		t.Fatalf("next recheck in %s, want 1s (b's)", next)
	}
	if got := l.take(); !slices.Equal(got, []string{"up a h:1"}) {
		t.Fatalf("after two TTLs: %v, want a back", got)
	}
	if next := f.feed(now.Add(3 * time.Second)); next != 0 {
		t.Fatalf("recheck in %s with nothing kept out", next)
	}
	if got := l.take(); !slices.Equal(got, []string{"up a h:1"}) {
		t.Fatalf("b, failing in Consul, fed again: %v", got)
	}
}
