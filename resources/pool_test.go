package resources

import (
	"errors"
	"math"
	"testing"
)

func TestProfile(t *testing.T) {
	a, b := Profile{CPU: 2, MemoryMB: 1024}, Profile{CPU: 0.5, MemoryMB: 256}
	if got := a.Merge(b); got != (Profile{2.5, 1280}) {
		t.Fatal(got)
	}
	if got := a.Subtract(b); got != (Profile{1.5, 768}) {
		t.Fatal(got)
	}
	if !a.EnoughThan(b) || b.EnoughThan(a) || !a.EnoughThan(a) {
		t.Fatal("EnoughThan")
	}
	if (Profile{CPU: 4, MemoryMB: 10}).EnoughThan(Profile{CPU: 1, MemoryMB: 11}) {
		t.Fatal("memory must count")
	}
}

func pool() *Pool {
	p := NewPool(1)
	p.Upsert(Worker{ID: "a", Profile: Profile{CPU: 2, MemoryMB: 2048}, Tags: map[string]string{"zone": "x"}, Load: 0.5})
	p.Upsert(Worker{ID: "b", Profile: Profile{CPU: 4, MemoryMB: 4096}, Tags: map[string]string{"zone": "y"}, Load: 0.9})
	p.Upsert(Worker{ID: "c", FixedSlots: 2, Tags: map[string]string{"zone": "y"}, Load: 0.1})
	return p
}

var one = Profile{CPU: 1, MemoryMB: 512}

func TestDynamicSlotsAreCutFromWhatIsLeft(t *testing.T) {
	p := pool()
	slots, err := p.Allocate("j", 2, one, SlotRatio, map[string]string{"zone": "x"})
	if err != nil || len(slots) != 2 {
		t.Fatal(slots, err)
	}
	if _, err := p.Allocate("j", 1, one, SlotRatio, map[string]string{"zone": "x"}); !errors.Is(err, ErrNoResources) {
		t.Fatalf("a full worker gave a third slot: %v", err)
	}
	p.Release(slots[0].ID)
	if _, err := p.Allocate("j", 1, one, SlotRatio, map[string]string{"zone": "x"}); err != nil {
		t.Fatal(err)
	}
}

func TestFixedSlots(t *testing.T) {
	p := NewPool(1)
	p.Upsert(Worker{ID: "c", FixedSlots: 2})
	if _, err := p.Allocate("j", 3, one, SlotRatio, nil); !errors.Is(err, ErrNoResources) {
		t.Fatal("three slots from a worker with two")
	}
	if p.UsedSlots("c") != 0 {
		t.Fatal("a failed allocation must give back what it took")
	}
	if _, err := p.Allocate("j", 2, one, SlotRatio, nil); err != nil {
		t.Fatal(err)
	}
}

func TestStrategies(t *testing.T) {
	p := pool()
	s, _ := p.Allocate("j", 1, one, SlotRatio, nil)
	if s[0].ID.Worker != "a" { // all empty: first by id
		t.Fatalf("SLOT_RATIO picked %s", s[0].ID.Worker)
	}
	s, _ = p.Allocate("j", 1, one, SlotRatio, nil)
	if s[0].ID.Worker != "b" { // a is at 50%, b and c at 0%
		t.Fatalf("SLOT_RATIO picked %s", s[0].ID.Worker)
	}
	s, _ = p.Allocate("j", 1, one, SystemLoad, nil)
	if s[0].ID.Worker != "c" { // lowest load
		t.Fatalf("SYSTEM_LOAD picked %s", s[0].ID.Worker)
	}
	seen := map[string]bool{}
	q := pool()
	for i := 0; i < 6; i++ {
		s, err := q.Allocate("j", 1, Profile{CPU: 0.1, MemoryMB: 1}, Random, map[string]string{"zone": "y"})
		if err != nil {
			t.Fatal(err)
		}
		seen[s[0].ID.Worker] = true
	}
	if seen["a"] || len(seen) == 0 {
		t.Fatalf("RANDOM ignored the tag filter: %v", seen)
	}
}

func TestRemoveReturnsSlots(t *testing.T) {
	p := pool()
	p.Allocate("j1", 2, one, SlotRatio, map[string]string{"zone": "x"})
	lost := p.Remove("a")
	if len(lost) != 2 || lost[0].Owner != "j1" {
		t.Fatal(lost)
	}
	if _, ok := p.Worker("a"); ok {
		t.Fatal("removed worker still there")
	}
	p.Allocate("j2", 1, one, SlotRatio, nil)
	p.ReleaseOwner("j2")
	for _, w := range p.Workers() {
		if p.UsedSlots(w.ID) != 0 {
			t.Fatal("ReleaseOwner left slots")
		}
	}
}

func TestParseStrategy(t *testing.T) {
	if s, err := ParseStrategy("slot_ratio"); err != nil || s != SlotRatio {
		t.Fatal(s, err)
	}
	if _, err := ParseStrategy("best"); err == nil {
		t.Fatal("want an error")
	}
}

// SYSTEM_LOAD goes by reported load plus what it has placed since: one
// request spreads over the workers, the idlest taking the most; a new load
// report changes the order, and a membership update keeps the report.
func TestSystemLoad(t *testing.T) {
	p := NewPool(1)
	p.Upsert(Worker{ID: "idle", FixedSlots: 4, Load: 0.1})
	p.Upsert(Worker{ID: "busy", FixedSlots: 4, Load: 0.6})
	slots, err := p.Allocate("j", 4, one, SystemLoad, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range slots {
		got[s.ID.Worker]++
	}
	// idle: 0.1, 0.35, 0.6 (tie, first by id: busy), ... → 3 idle, 1 busy
	if got["idle"] != 3 || got["busy"] != 1 {
		t.Fatalf("SYSTEM_LOAD placed %v, want 3 on idle and 1 on busy", got)
	}
	p.ReleaseOwner("j")
	if !p.SetLoad("idle", 0.9) || p.SetLoad("gone", 0.1) {
		t.Fatal("SetLoad")
	}
	p.Upsert(Worker{ID: "idle", FixedSlots: 4}) // a membership update carries no load
	s, _ := p.Allocate("k", 1, one, SystemLoad, nil)
	if s[0].ID.Worker != "busy" {
		t.Fatalf("after idle reported 0.9, SYSTEM_LOAD picked %s", s[0].ID.Worker)
	}
}

// Capacity counts what the matching workers offer in all, used or not:
// a dynamic worker's profile cut into slots, a fixed worker's slot-num.
func TestCapacity(t *testing.T) {
	p := pool()
	for _, c := range []struct {
		filter map[string]string
		want   int
	}{{nil, 2 + 4 + 2}, {map[string]string{"zone": "x"}, 2}, {map[string]string{"zone": "y"}, 4 + 2}, {map[string]string{"zone": "z"}, 0}} {
		if got := p.Capacity(one, c.filter); got != c.want {
			t.Errorf("Capacity(%v) = %d, want %d", c.filter, got, c.want)
		}
	}
	if _, err := p.Allocate("j", 3, one, SlotRatio, nil); err != nil {
		t.Fatal(err)
	}
	if got := p.Capacity(one, nil); got != 8 {
		t.Errorf("slots in use changed the capacity to %d", got)
	}
	// Memory alone bounds a worker whose slots take no CPU (stactor run's
	// local worker); a zero slot profile is unbounded.
	if got := (Worker{Profile: Profile{MemoryMB: 1000}}).Slots(Profile{MemoryMB: 128}); got != 7 {
		t.Errorf("1000 MiB in slots of 128: %d", got)
	}
	if got := (Worker{Profile: Profile{MemoryMB: 1000}}).Slots(Profile{}); got != math.MaxInt32 {
		t.Errorf("zero slot profile: %d", got)
	}
}
