package row

import (
	"sync"
	"sync/atomic"

	"github.com/shopspring/decimal"
)

// Recycling (issue 17). Allocating and collecting a new set of column
// vectors per batch was about 40 % of a fused chain's CPU, so batches and
// their vectors can be recycled. Ownership stays explicit:
//
//   - A recycled batch (NewRecycledBatch, or a Builder made with
//     Recycling) counts its references. Whoever is handed one owns one
//     reference and gives it up with Release, or passes it on; whoever
//     keeps it longer, or hands it to more than one reader, takes another
//     with Retain first. A batch is still immutable once handed on: the
//     count only says when its last reader is done.
//   - When the last reference goes, the columns the batch owns (Own) go
//     back to the pool and the batches it holds (Hold: a batch sharing
//     another's columns keeps it alive) are released in turn.
//   - A batch that is never released is simply collected: forgetting a
//     Release costs an allocation, never a wrong row. Releasing too early
//     is the bug to avoid, so only code that knows the last reader is done
//     calls it: the subtask (actors/task) for batches that the operators it
//     hands them to declare they do not keep (connectors.BatchBorrower).
//   - Batches that are not recycled (a literal Batch, NewBatch, Slice,
//     Take, a Builder without Recycling) ignore Retain and Release.
//
// In race-detector builds, released vectors are overwritten with
// conspicuous values (poison.go), so a reader that was not done shows up as
// corrupted rows in tests as well as a reported race.

// poolKeep is how many free columns of each storage, and free batches,
// the pool keeps; more are left to the collector. Batches in flight are
// bounded by the credit windows, so a few dozen cover a node's subtasks.
const poolKeep = 64

// recycling is a recycled batch's bookkeeping.
type recycling struct {
	refs  atomic.Int32
	cols  []*Column // the Cols slice given out again with the batch
	owned []*Column
	held  []*Batch
}

var pool struct {
	sync.Mutex // guards cols and batches
	cols       [StoreTimestampTZ + 1][]*Column
	batches    []*Batch
}

// NewRecycledBatch is a recycled batch of n rows of schema with one
// reference, owned by the caller. Its Cols has one nil entry per field for
// the caller to fill; columns it should return to the pool when released
// are given with Own, batches whose storage it shares with Hold.
func NewRecycledBatch(schema *Schema, kinds []Kind, n int) *Batch {
	pool.Lock()
	var b *Batch
	if k := len(pool.batches); k > 0 {
		b = pool.batches[k-1]
		pool.batches[k-1] = nil
		pool.batches = pool.batches[:k-1]
	}
	pool.Unlock()
	if b == nil {
		b = &Batch{rc: &recycling{}}
	}
	b.Schema, b.Kinds, b.N = schema, kinds, n
	nf := len(schema.Fields)
	if cap(b.rc.cols) < nf {
		b.rc.cols = make([]*Column, nf)
	}
	b.Cols = b.rc.cols[:nf]
	b.rc.refs.Store(1)
	return b
}

// Recycled tells whether b counts references (see NewRecycledBatch).
func (b *Batch) Recycled() bool { return b != nil && b.rc != nil }

// Retain takes another reference to b, for a second reader or for keeping
// it past the call it was handed in.
func (b *Batch) Retain() {
	if b != nil && b.rc != nil {
		b.rc.refs.Add(1)
	}
}

// Release gives up a reference to b. After the last one, b's owned columns
// go back to the pool, the batches it holds are released, and b itself
// must not be used again by anyone.
func (b *Batch) Release() {
	if b == nil || b.rc == nil {
		return
	}
	switch n := b.rc.refs.Add(-1); {
	case n > 0:
		return
	case n < 0:
		// An engine bug that would hand one batch's vectors to two
		// owners: stopping here (the subtask fails over) is better than
		// corrupted rows.
		panic("row: a batch was released more often than it was retained")
	}
	rc := b.rc
	for k, c := range rc.owned {
		putColumn(c)
		rc.owned[k] = nil
	}
	rc.owned = rc.owned[:0]
	for k, h := range rc.held {
		h.Release()
		rc.held[k] = nil
	}
	rc.held = rc.held[:0]
	clear(rc.cols)
	b.Schema, b.Kinds, b.Cols, b.N = nil, nil, nil, 0
	pool.Lock()
	if len(pool.batches) < poolKeep {
		pool.batches = append(pool.batches, b)
	}
	pool.Unlock()
}

// Own makes c part of b: it goes back to the pool when b is released. c
// must be a column nothing else owns (NewRecycledColumn's, or one taken
// from a released batch's builder); owning it twice is a no-op.
func (b *Batch) Own(c *Column) {
	if b.rc == nil || c == nil {
		return
	}
	for _, o := range b.rc.owned {
		if o == c {
			return
		}
	}
	b.rc.owned = append(b.rc.owned, c)
}

// Hold keeps other alive as long as b is: b shares some of other's
// columns. It takes a reference to other, given up when b is released. A
// batch that is not recycled cannot hold (it is never released): the
// caller must not release other then.
func (b *Batch) Hold(other *Batch) {
	if b.rc == nil || other == nil || other.rc == nil {
		return
	}
	for _, h := range b.rc.held {
		if h == other {
			return
		}
	}
	other.Retain()
	b.rc.held = append(b.rc.held, other)
}

// NewRecycledColumn is an empty column of type t with room for capacity
// values, from the pool when it has one. Give it to a recycled batch
// (Own) to have it come back.
func NewRecycledColumn(t *Type, capacity int) *Column {
	return recycledColumn(t, capacity, true)
}

// recycledColumn is NewRecycledColumn; a new column has room for capacity
// values only when room says so (a decoder packing strings needs none).
func recycledColumn(t *Type, capacity int, room bool) *Column {
	s := t.Storage()
	pool.Lock()
	var c *Column
	if k := len(pool.cols[s]); k > 0 {
		c = pool.cols[s][k-1]
		pool.cols[s][k-1] = nil
		pool.cols[s] = pool.cols[s][:k-1]
	}
	pool.Unlock()
	if c == nil || c.capacity() < capacity {
		if !room {
			return &Column{Type: t}
		}
		return NewColumn(t, capacity)
	}
	c.Type = t
	if s == StoreNone {
		c.Nulls = c.Nulls[:0]
	}
	return c
}

// TakeRecycled is Take into a column from the pool.
func (c *Column) TakeRecycled(idx []int) *Column {
	s := NewRecycledColumn(c.Type, len(idx))
	if c.Nulls != nil {
		s.Nulls = takeInto(s.Nulls, c.Nulls, idx)
	}
	switch c.Type.Storage() {
	case StoreInt:
		s.Ints = takeInto(s.Ints, c.Ints, idx)
	case StoreFloat:
		s.Floats = takeInto(s.Floats, c.Floats, idx)
	case StoreString:
		s.Strs = c.takeStrings(s.Strs, idx)
	case StoreBool:
		s.Bools = takeInto(s.Bools, c.Bools, idx)
	case StoreBytes:
		s.Bins = takeInto(s.Bins, c.Bins, idx)
	case StoreDecimal:
		s.Decs = takeInto(s.Decs, c.Decs, idx)
	case StoreAny:
		s.Anys = takeInto(s.Anys, c.Anys, idx)
	case StoreTimestamp:
		s.Secs = takeInto(s.Secs, c.Secs, idx)
		s.Nanos = takeInto(s.Nanos, c.Nanos, idx)
	case StoreTimestampTZ:
		s.Secs = takeInto(s.Secs, c.Secs, idx)
		s.Nanos = takeInto(s.Nanos, c.Nanos, idx)
		s.Offs = takeInto(s.Offs, c.Offs, idx)
	case StoreNone:
		if c.Nulls == nil {
			s.Nulls = s.Nulls[:0]
			for range idx {
				s.Nulls = append(s.Nulls, true)
			}
		}
	}
	return s
}

func takeInto[T any](dst, src []T, idx []int) []T {
	if cap(dst) < len(idx) {
		dst = make([]T, len(idx))
	}
	dst = dst[:len(idx)]
	for k, i := range idx {
		dst[k] = src[i]
	}
	return dst
}

// capacity is the room of c's value vector.
func (c *Column) capacity() int {
	switch c.Type.Storage() {
	case StoreInt:
		return cap(c.Ints)
	case StoreFloat:
		return cap(c.Floats)
	case StoreString:
		return max(cap(c.Strs), cap(c.spareBounds)-1)
	case StoreBool:
		return cap(c.Bools)
	case StoreBytes:
		return cap(c.Bins)
	case StoreDecimal:
		return cap(c.Decs)
	case StoreAny:
		return cap(c.Anys)
	case StoreTimestamp:
		return min(cap(c.Secs), cap(c.Nanos))
	case StoreTimestampTZ:
		return min(cap(c.Secs), cap(c.Nanos), cap(c.Offs))
	}
	return cap(c.Nulls)
}

// putColumn empties c and keeps it in the pool. Vectors that hold
// pointers are cleared (or poisoned), so a pooled column keeps no string,
// buffer or value of the rows it carried alive.
func putColumn(c *Column) {
	s := c.Type.Storage()
	if poisonReleased {
		poison(c)
	}
	switch s {
	case StoreInt:
		c.Ints = c.Ints[:0]
	case StoreFloat:
		c.Floats = c.Floats[:0]
	case StoreString:
		if c.Bounds != nil {
			// Packed: no pointer to clear but Text, and its vector room
			// (if any) was cleared when it was last put.
			c.spareBounds = c.Bounds[:0]
			c.Text, c.Bounds = "", nil
		} else {
			c.Strs = emptied(c.Strs)
		}
	case StoreBool:
		c.Bools = c.Bools[:0]
	case StoreBytes:
		c.Bins = emptied(c.Bins)
	case StoreDecimal:
		c.Decs = emptied(c.Decs)
	case StoreAny:
		c.Anys = emptied(c.Anys)
	case StoreTimestamp:
		c.Secs, c.Nanos = c.Secs[:0], c.Nanos[:0]
	case StoreTimestampTZ:
		c.Secs, c.Nanos, c.Offs = c.Secs[:0], c.Nanos[:0], c.Offs[:0]
	}
	if s != StoreNone {
		c.Nulls = nil // rare; not worth keeping
	}
	pool.Lock()
	if len(pool.cols[s]) < poolKeep {
		pool.cols[s] = append(pool.cols[s], c)
	}
	pool.Unlock()
}

// emptied is s cleared of the pointers it holds (poisoned values hold
// none) and truncated. Its whole room is cleared, not only its length: a
// vector last used for fewer values (a filter's output, a short last
// batch) still holds strings of the longer batch before it past its
// length, and a pooled column would keep their buffers alive — in
// workload 2 of the benchmarks, some 30 of the LocalFile reader's 64 KiB
// string arenas.
func emptied[T any](s []T) []T {
	if !poisonReleased {
		clear(s[:cap(s)])
	} else {
		clear(s[len(s):cap(s)])
	}
	return s[:0]
}

// poison overwrites c's values with ones no test expects (race builds).
func poison(c *Column) {
	const released = "\x00released"
	for i := range c.Ints {
		c.Ints[i] = -0x5eed_dead_beef
	}
	for i := range c.Floats {
		c.Floats[i] = -1.2345e300
	}
	for i := range c.Strs {
		c.Strs[i] = released
	}
	clear(c.Bounds) // a packed column's values all read as ""

	for i := range c.Bools {
		c.Bools[i] = !c.Bools[i]
	}
	for i := range c.Bins {
		c.Bins[i] = []byte(released)
	}
	for i := range c.Decs {
		c.Decs[i] = decimal.New(-0x5eed, 0)
	}
	for i := range c.Anys {
		c.Anys[i] = released
	}
	for i := range c.Secs {
		c.Secs[i], c.Nanos[i] = -0x5eed_dead, -1
	}
	for i := range c.Offs {
		c.Offs[i] = -0x5eed
	}
	for i := range c.Nulls {
		c.Nulls[i] = !c.Nulls[i]
	}
}
