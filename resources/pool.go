package resources

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
)

// Strategy is a placement strategy (SeaTunnel's slot allocation strategies).
type Strategy string

// The strategies.
const (
	// Random picks any worker with room.
	Random Strategy = "RANDOM"
	// SlotRatio picks the worker with the smallest share of its slots used.
	SlotRatio Strategy = "SLOT_RATIO"
	// SystemLoad picks the worker with the lowest reported system load
	// plus slot ratio: the load (CPU and memory in use, which workers
	// report every few seconds) says how busy the machine is, the slot
	// ratio counts what this allocation has already put there since, so
	// one request spreads instead of filling the idlest worker first.
	SystemLoad Strategy = "SYSTEM_LOAD"
)

// ParseStrategy reads a strategy name.
func ParseStrategy(s string) (Strategy, error) {
	switch st := Strategy(strings.ToUpper(s)); st {
	case Random, SlotRatio, SystemLoad:
		return st, nil
	}
	return "", fmt.Errorf("unknown slot allocation strategy %q (want RANDOM, SLOT_RATIO or SYSTEM_LOAD)", s)
}

// Worker is a registered worker node.
type Worker struct {
	ID      string
	Address string // its actor system's address
	Profile Profile
	Tags    map[string]string
	// Load is its reported system load in [0, 1] (SYSTEM_LOAD): set when
	// the worker is added, then by SetLoad; Upsert keeps it.
	Load float64
	// FixedSlots, when > 0, is the slot count with dynamic slots off.
	FixedSlots int

	used  Profile
	slots map[SlotID]Slot
}

// SlotID names a slot.
type SlotID struct {
	Worker string
	N      int64
}

// Slot is a share of a worker given to one subtask.
type Slot struct {
	ID      SlotID
	Profile Profile
	Owner   string // job id
}

// ErrNoResources is returned when the workers cannot hold a request.
var ErrNoResources = errors.New("not enough resources")

// Pool is the cluster's workers and their slots. One goroutine (the
// ResourceManager actor) uses it.
type Pool struct {
	workers map[string]*Worker
	next    int64
	rng     *rand.Rand
}

// NewPool is an empty pool; seed makes RANDOM repeatable.
func NewPool(seed int64) *Pool {
	return &Pool{workers: map[string]*Worker{}, rng: rand.New(rand.NewSource(seed))}
}

// Upsert adds a worker or updates its address, profile and tags, keeping
// its slots and its last reported load.
func (p *Pool) Upsert(w Worker) {
	if old := p.workers[w.ID]; old != nil {
		old.Address, old.Profile, old.Tags, old.FixedSlots = w.Address, w.Profile, w.Tags, w.FixedSlots
		return
	}
	nw := w
	nw.slots = map[SlotID]Slot{}
	p.workers[w.ID] = &nw
}

// SetLoad records a worker's reported system load (clamped to [0, 1]);
// false for a worker the pool does not have.
func (p *Pool) SetLoad(id string, load float64) bool {
	w := p.workers[id]
	if w == nil {
		return false
	}
	w.Load = min(max(load, 0), 1)
	return true
}

// Remove drops a worker and returns the slots it held (their owners must
// fail over).
func (p *Pool) Remove(id string) []Slot {
	w := p.workers[id]
	if w == nil {
		return nil
	}
	delete(p.workers, id)
	out := make([]Slot, 0, len(w.slots))
	for _, s := range w.slots {
		out = append(out, s)
	}
	return out
}

// Workers lists the workers, by id.
func (p *Pool) Workers() []Worker {
	out := make([]Worker, 0, len(p.workers))
	for _, w := range p.workers {
		c := *w
		c.slots = nil
		out = append(out, c)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// UsedSlots is the number of slots a worker has given out.
func (p *Pool) UsedSlots(id string) int {
	if w := p.workers[id]; w != nil {
		return len(w.slots)
	}
	return 0
}

// Slots is how many slots w offers in all, used or not: its fixed
// slot-num, or with dynamic slots how many slots of profile each its
// resources hold (as the pool cuts them). A zero slot profile cuts slots
// without limit; that is math.MaxInt32.
func (w Worker) Slots(each Profile) int {
	if w.FixedSlots > 0 {
		return w.FixedSlots
	}
	n := math.MaxInt32
	if each.CPU > 0 {
		// The pool allows a rounding error of 1e-9 CPU; so does this.
		n = min(n, int(math.Floor(w.Profile.CPU/each.CPU+1e-6)))
	}
	if each.MemoryMB > 0 {
		n = min(n, int(w.Profile.MemoryMB/each.MemoryMB))
	}
	return max(n, 0)
}

// Capacity is how many slots of profile each the workers matching filter
// offer in all, used or not (at most math.MaxInt32): a request for more
// can never be met by the workers there are.
func (p *Pool) Capacity(each Profile, filter map[string]string) int {
	n := 0
	for _, w := range p.workers {
		if Matches(w.Tags, filter) {
			n = min(n+w.Slots(each), math.MaxInt32)
		}
	}
	return n
}

// Matching is how many workers match filter.
func (p *Pool) Matching(filter map[string]string) int {
	n := 0
	for _, w := range p.workers {
		if Matches(w.Tags, filter) {
			n++
		}
	}
	return n
}

// fits tells whether w can still give a slot of profile each.
func (w *Worker) fits(each Profile) bool {
	if w.FixedSlots > 0 {
		return len(w.slots) < w.FixedSlots
	}
	return w.Profile.Subtract(w.used).EnoughThan(each)
}

// ratio is the share of the worker in use.
func (w *Worker) ratio() float64 {
	if w.FixedSlots > 0 {
		return float64(len(w.slots)) / float64(w.FixedSlots)
	}
	r := 0.0
	if w.Profile.CPU > 0 {
		r = w.used.CPU / w.Profile.CPU
	}
	if w.Profile.MemoryMB > 0 {
		r = max(r, float64(w.used.MemoryMB)/float64(w.Profile.MemoryMB))
	}
	return r
}

// Matches tells whether a worker's tags include every tag of filter.
func Matches(tags, filter map[string]string) bool {
	for k, v := range filter {
		if tags[k] != v {
			return false
		}
	}
	return true
}

// Allocate gives owner n slots of size each on workers matching filter,
// chosen by strategy; all or nothing.
func (p *Pool) Allocate(owner string, n int, each Profile, strategy Strategy, filter map[string]string) ([]Slot, error) {
	var got []Slot
	for i := 0; i < n; i++ {
		w := p.pick(each, strategy, filter)
		if w == nil {
			for _, s := range got {
				p.Release(s.ID)
			}
			return nil, fmt.Errorf("%w: %d slots of %s wanted on workers matching %v, %d found", ErrNoResources, n, each, filter, len(got))
		}
		p.next++
		s := Slot{ID: SlotID{Worker: w.ID, N: p.next}, Profile: each, Owner: owner}
		w.slots[s.ID] = s
		w.used = w.used.Merge(each)
		got = append(got, s)
	}
	return got, nil
}

func (p *Pool) pick(each Profile, strategy Strategy, filter map[string]string) *Worker {
	var cands []*Worker
	for _, w := range p.workers {
		if Matches(w.Tags, filter) && w.fits(each) {
			cands = append(cands, w)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sort.Slice(cands, func(a, b int) bool { return cands[a].ID < cands[b].ID })
	switch strategy {
	case Random:
		return cands[p.rng.Intn(len(cands))]
	case SystemLoad:
		sort.SliceStable(cands, func(a, b int) bool {
			return cands[a].Load+cands[a].ratio() < cands[b].Load+cands[b].ratio()
		})
	default:
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].ratio() < cands[b].ratio() })
	}
	return cands[0]
}

// Release returns a slot.
func (p *Pool) Release(id SlotID) {
	w := p.workers[id.Worker]
	if w == nil {
		return
	}
	if s, ok := w.slots[id]; ok {
		delete(w.slots, id)
		w.used = w.used.Subtract(s.Profile)
	}
}

// ReleaseOwner returns every slot of owner.
func (p *Pool) ReleaseOwner(owner string) {
	for _, w := range p.workers {
		for id, s := range w.slots {
			if s.Owner == owner {
				p.Release(id)
			}
		}
	}
}

// Worker looks a worker up.
func (p *Pool) Worker(id string) (Worker, bool) {
	w := p.workers[id]
	if w == nil {
		return Worker{}, false
	}
	c := *w
	c.slots = nil
	return c, true
}
