package sqlengine

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// Vectors are row.Columns: an expression evaluates to one column holding
// its value for every row of the batch (DESIGN §4). The helpers here
// allocate them, read and write them by storage, and move values between
// them.

// slot is where an evaluator puts its result. An inner node reuses its
// buffer from batch to batch (its result is consumed before the next
// batch); a root node, whose result leaves the transform in an output
// batch, gets a column from the row pool each time (batches are immutable
// once handed on), which the output batch owns and returns to the pool
// when its last reader is done.
type slot struct {
	root  bool
	col   row.Column
	nulls []bool
	// last is the column a root slot gave out for the current batch: the
	// output batch owns it (Query.Process).
	last *row.Column
}

func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n, n+n/4)
}

// newVec is a fresh column of n zero values of type t.
func newVec(t *row.Type, n int) *row.Column {
	c := &row.Column{Type: t}
	switch t.Storage() {
	case row.StoreNone:
		c.Nulls = make([]bool, n)
		for i := range c.Nulls {
			c.Nulls[i] = true
		}
	case row.StoreInt:
		c.Ints = make([]int64, n)
	case row.StoreFloat:
		c.Floats = make([]float64, n)
	case row.StoreString:
		c.Strs = make([]string, n)
	case row.StoreBool:
		c.Bools = make([]bool, n)
	case row.StoreBytes:
		c.Bins = make([][]byte, n)
	case row.StoreDecimal:
		c.Decs = make([]decimal.Decimal, n)
	case row.StoreAny:
		c.Anys = make([]any, n)
	case row.StoreTimestamp:
		c.Secs = make([]int64, n)
		c.Nanos = make([]int32, n)
	case row.StoreTimestampTZ:
		c.Secs = make([]int64, n)
		c.Nanos = make([]int32, n)
		c.Offs = make([]int32, n)
	}
	return c
}

// recycledVec is a column of n values of type t from the row pool, for a
// batch to own; its values are garbage until the caller writes them (a
// null column's are null).
func recycledVec(t *row.Type, n int) *row.Column {
	c := row.NewRecycledColumn(t, n)
	if t.Storage() == row.StoreNone {
		c.Nulls = grow(c.Nulls, n)
		for i := range c.Nulls {
			c.Nulls[i] = true
		}
		return c
	}
	sizeVec(c, n)
	return c
}

// get is a column of type t with room for n values, without nulls; its
// values are garbage until the caller writes them.
func (s *slot) get(t *row.Type, n int) *row.Column {
	if s.root {
		s.last = recycledVec(t, n)
		return s.last
	}
	c := &s.col
	c.Type = t
	c.Nulls = nil
	if t.Storage() == row.StoreNone {
		s.nulls = grow(s.nulls, n)
		for i := range s.nulls {
			s.nulls[i] = true
		}
		c.Nulls = s.nulls
		return c
	}
	sizeVec(c, n)
	return c
}

// sizeVec gives c's value vector n values, reusing its room.
func sizeVec(c *row.Column, n int) {
	switch c.Type.Storage() {
	case row.StoreInt:
		c.Ints = grow(c.Ints, n)
	case row.StoreFloat:
		c.Floats = grow(c.Floats, n)
	case row.StoreString:
		c.Strs = grow(c.Strs, n)
	case row.StoreBool:
		c.Bools = grow(c.Bools, n)
	case row.StoreBytes:
		c.Bins = grow(c.Bins, n)
	case row.StoreDecimal:
		c.Decs = grow(c.Decs, n)
	case row.StoreAny:
		c.Anys = grow(c.Anys, n)
	case row.StoreTimestamp:
		c.Secs = grow(c.Secs, n)
		c.Nanos = grow(c.Nanos, n)
	case row.StoreTimestampTZ:
		c.Secs = grow(c.Secs, n)
		c.Nanos = grow(c.Nanos, n)
		c.Offs = grow(c.Offs, n)
	}
}

// nullsOf gives c (a column from get) a null vector of n false flags.
func (s *slot) nullsOf(c *row.Column, n int) []bool {
	if c.Nulls != nil {
		return c.Nulls
	}
	if s.root {
		c.Nulls = make([]bool, n)
	} else {
		s.nulls = grow(s.nulls, n)
		clear(s.nulls)
		c.Nulls = s.nulls
	}
	return c.Nulls
}

// setNull marks value i of c (from get) null, giving it null flags first if
// needed, and zeroes the stored value so that equal rows look equal.
func (s *slot) setNull(c *row.Column, n, i int) {
	s.nullsOf(c, n)[i] = true
	zeroAt(c, i)
}

func zeroAt(c *row.Column, i int) {
	switch c.Type.Storage() {
	case row.StoreInt:
		c.Ints[i] = 0
	case row.StoreFloat:
		c.Floats[i] = 0
	case row.StoreString:
		c.Strs[i] = ""
	case row.StoreBool:
		c.Bools[i] = false
	case row.StoreBytes:
		c.Bins[i] = nil
	case row.StoreDecimal:
		c.Decs[i] = decimal.Decimal{}
	case row.StoreAny:
		c.Anys[i] = nil
	case row.StoreTimestamp:
		c.Secs[i], c.Nanos[i] = 0, 0
	case row.StoreTimestampTZ:
		c.Secs[i], c.Nanos[i], c.Offs[i] = 0, 0, 0
	}
}

// orNulls is the null flags of a row-wise operation on a and b: nil when
// neither has nulls, else a vector from s (reused) or fresh for a root.
func (s *slot) orNulls(out *row.Column, n int, cols ...*row.Column) {
	has := false
	for _, c := range cols {
		if c.Nulls != nil {
			has = true
			break
		}
	}
	if !has {
		return
	}
	nb := s.nullsOf(out, n)
	for _, c := range cols {
		if c.Nulls == nil {
			continue
		}
		for i, x := range c.Nulls[:n] {
			if x {
				nb[i] = true
			}
		}
	}
}

// val is one value of any type, unboxed: the argument and result of the
// row-at-a-time functions. Which field holds the value follows the type's
// storage (dates and times in i, as row.Column stores them; timestamps in i,
// the seconds, and nano; a timestamp_tz's instant so and its offset in off).
type val struct {
	null bool
	i    int64
	nano int32
	off  int32
	f    float64
	s    string
	b    bool
	bin  []byte
	d    decimal.Decimal
	a    any
}

func readVal(c *row.Column, i int, v *val) {
	if c.Nulls != nil && c.Nulls[i] {
		*v = val{null: true}
		return
	}
	v.null = false
	switch c.Type.Storage() {
	case row.StoreNone:
		v.null = true
	case row.StoreInt:
		v.i = c.Ints[i]
	case row.StoreFloat:
		v.f = c.Floats[i]
	case row.StoreString:
		v.s = c.Str(i)
	case row.StoreBool:
		v.b = c.Bools[i]
	case row.StoreBytes:
		v.bin = c.Bins[i]
	case row.StoreDecimal:
		v.d = c.Decs[i]
	case row.StoreAny:
		v.a = c.Anys[i]
	case row.StoreTimestamp:
		v.i, v.nano = c.Secs[i], c.Nanos[i]
	case row.StoreTimestampTZ:
		v.i, v.nano, v.off = c.Secs[i], c.Nanos[i], c.Offs[i]
	}
}

// writeVal stores v as value i of c (a column from s.get with n values).
func writeVal(s *slot, c *row.Column, n, i int, v *val) {
	if v.null {
		s.setNull(c, n, i)
		return
	}
	if c.Nulls != nil {
		c.Nulls[i] = false
	}
	switch c.Type.Storage() {
	case row.StoreNone:
		s.setNull(c, n, i)
	case row.StoreInt:
		c.Ints[i] = v.i
	case row.StoreFloat:
		c.Floats[i] = v.f
	case row.StoreString:
		c.Strs[i] = v.s
	case row.StoreBool:
		c.Bools[i] = v.b
	case row.StoreBytes:
		c.Bins[i] = v.bin
	case row.StoreDecimal:
		c.Decs[i] = v.d
	case row.StoreAny:
		c.Anys[i] = v.a
	case row.StoreTimestamp:
		c.Secs[i], c.Nanos[i] = v.i, v.nano
	case row.StoreTimestampTZ:
		c.Secs[i], c.Nanos[i], c.Offs[i] = v.i, v.nano, v.off
	}
}

// boxVal is v as row.Column.Value would box it.
func boxVal(t *row.Type, v *val) any {
	if v.null {
		return nil
	}
	switch t.ID {
	case row.TypeNull:
		return nil
	case row.TypeDate:
		return time.Unix(v.i*86400, 0).UTC()
	case row.TypeTime:
		return time.Duration(v.i)
	case row.TypeTimestamp:
		return row.TimestampTime(v.i, v.nano)
	case row.TypeTimestampTZ:
		return row.TimestampTZTime(v.i, v.nano, v.off)
	}
	switch t.Storage() {
	case row.StoreInt:
		return v.i
	case row.StoreFloat:
		return v.f
	case row.StoreString:
		return v.s
	case row.StoreBool:
		return v.b
	case row.StoreBytes:
		return v.bin
	case row.StoreDecimal:
		return v.d
	}
	return v.a
}

// unboxVal reads a boxed value (as Column.Value gives it) of type t into v;
// values of an unexpected Go type go through row.Convert first.
func unboxVal(t *row.Type, x any, v *val) bool {
	*v = val{}
	if x == nil {
		v.null = true
		return true
	}
	switch t.ID {
	case row.TypeNull:
		v.null = true
		return true
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		if n, ok := x.(int64); ok {
			v.i = n
			return true
		}
	case row.TypeDate:
		if d, ok := x.(time.Time); ok {
			v.i = row.DateOf(d)
			return true
		}
	case row.TypeTime:
		if d, ok := x.(time.Duration); ok {
			v.i = int64(d)
			return true
		}
	case row.TypeTimestamp:
		if d, ok := x.(time.Time); ok {
			v.i, v.nano = row.TimestampOf(d)
			return true
		}
	case row.TypeTimestampTZ:
		if d, ok := x.(time.Time); ok {
			v.i, v.nano, v.off = row.TimestampTZOf(d)
			return true
		}
	case row.TypeFloat, row.TypeDouble:
		if f, ok := x.(float64); ok {
			v.f = f
			return true
		}
	case row.TypeString:
		if s, ok := x.(string); ok {
			v.s = s
			return true
		}
	case row.TypeBoolean:
		if b, ok := x.(bool); ok {
			v.b = b
			return true
		}
	case row.TypeBytes:
		if b, ok := x.([]byte); ok {
			v.bin = b
			return true
		}
	case row.TypeDecimal:
		if d, ok := x.(decimal.Decimal); ok {
			v.d = d
			return true
		}
	default:
		v.a = x
		return true
	}
	cx, err := row.Convert(t, x)
	if err != nil || cx == nil {
		v.null = true
		return err == nil
	}
	return unboxVal(t, cx, v)
}

// copyAt copies value src[from] into dst[to] (same storage).
func copyAt(dst *row.Column, to int, src *row.Column, from int) {
	switch dst.Type.Storage() {
	case row.StoreInt:
		dst.Ints[to] = src.Ints[from]
	case row.StoreFloat:
		dst.Floats[to] = src.Floats[from]
	case row.StoreString:
		dst.Strs[to] = src.Str(from)
	case row.StoreBool:
		dst.Bools[to] = src.Bools[from]
	case row.StoreBytes:
		dst.Bins[to] = src.Bins[from]
	case row.StoreDecimal:
		dst.Decs[to] = src.Decs[from]
	case row.StoreAny:
		dst.Anys[to] = src.Anys[from]
	case row.StoreTimestamp:
		dst.Secs[to], dst.Nanos[to] = src.Secs[from], src.Nanos[from]
	case row.StoreTimestampTZ:
		dst.Secs[to], dst.Nanos[to], dst.Offs[to] = src.Secs[from], src.Nanos[from], src.Offs[from]
	}
}

// scatter writes src's values (for the rows pos of dst, in order) into dst,
// which has n values; both have the same type.
func scatter(s *slot, dst *row.Column, n int, pos []int, src *row.Column) {
	for k, i := range pos {
		if src.Nulls != nil && src.Nulls[k] {
			s.setNull(dst, n, i)
			continue
		}
		if dst.Nulls != nil {
			dst.Nulls[i] = false
		}
		copyAt(dst, i, src, k)
	}
}

// cloneCol is a copy of c's first n values that shares nothing mutable,
// in a column from the row pool for the output batch to own.
func cloneCol(c *row.Column, n int) *row.Column {
	out := row.NewRecycledColumn(c.Type, n)
	if c.Nulls != nil {
		out.Nulls = append(out.Nulls[:0], c.Nulls[:n]...)
	}
	switch c.Type.Storage() {
	case row.StoreInt:
		out.Ints = append(out.Ints[:0], c.Ints[:n]...)
	case row.StoreFloat:
		out.Floats = append(out.Floats[:0], c.Floats[:n]...)
	case row.StoreString:
		out.Strs = append(out.Strs[:0], c.Strs[:n]...) // never packed: evalCtx.col unpacks inputs
	case row.StoreBool:
		out.Bools = append(out.Bools[:0], c.Bools[:n]...)
	case row.StoreBytes:
		out.Bins = append(out.Bins[:0], c.Bins[:n]...)
	case row.StoreDecimal:
		out.Decs = append(out.Decs[:0], c.Decs[:n]...)
	case row.StoreAny:
		out.Anys = append(out.Anys[:0], c.Anys[:n]...)
	case row.StoreTimestamp:
		out.Secs = append(out.Secs[:0], c.Secs[:n]...)
		out.Nanos = append(out.Nanos[:0], c.Nanos[:n]...)
	case row.StoreTimestampTZ:
		out.Secs = append(out.Secs[:0], c.Secs[:n]...)
		out.Nanos = append(out.Nanos[:0], c.Nanos[:n]...)
		out.Offs = append(out.Offs[:0], c.Offs[:n]...)
	case row.StoreNone:
		if c.Nulls == nil {
			out.Nulls = out.Nulls[:0]
			for range n {
				out.Nulls = append(out.Nulls, true)
			}
		}
	}
	return out
}

// isNull tells whether value i of c is null.
func isNull(c *row.Column, i int) bool {
	return c.Nulls != nil && c.Nulls[i] || c.Type.ID == row.TypeNull
}

// allNull is a column of type t whose n values are all null.
func (s *slot) allNull(t *row.Type, n int) *row.Column {
	c := s.get(t, n)
	if t.Storage() == row.StoreNone {
		return c
	}
	nb := s.nullsOf(c, n)
	for i := range nb {
		nb[i] = true
		zeroAt(c, i)
	}
	return c
}
