package row

import (
	"time"

	"github.com/shopspring/decimal"
)

// Column is one field of a batch as a typed vector. Exactly one of the
// vectors is used (two for a timestamp), chosen by Type.Storage(); the
// others stay nil. Nulls is
// nil when the column has no null (the common, fast case); otherwise
// Nulls[i] marks row i as null and the vector holds a zero value there.
//
// Values by storage: StoreInt holds tinyint..bigint as int64, date as days
// since 1970-01-01, time as nanoseconds since midnight. StoreTimestamp
// holds a timestamp (wall clock, no zone, as SeaTunnel's LocalDateTime) in
// two vectors: Secs, seconds since 1970-01-01T00:00, and Nanos, the
// nanoseconds within that second (see timestamp.go for why).
// StoreTimestampTZ holds a timestamp_tz (SeaTunnel's OffsetDateTime) in
// three: Secs, the instant in seconds since 1970-01-01T00:00Z, Nanos as
// for a timestamp, and Offs, the UTC offset in seconds (see timestamptz.go).
// StoreString holds strings in Strs, or packed into Text and Bounds
// (packed.go); read them with Str. StoreAny holds
// arrays and rows as []any and maps as *MapValue, their elements boxed as
// Value describes.
type Column struct {
	Type   *Type
	Nulls  []bool
	Ints   []int64
	Floats []float64
	Strs   []string
	Bools  []bool
	Bins   [][]byte
	Decs   []decimal.Decimal
	Anys   []any
	Secs   []int64  // timestamp seconds (timestamp_tz: of the instant)
	Nanos  []int32  // timestamp nanoseconds, 0..999,999,999
	Offs   []int32  // timestamp_tz UTC offsets, seconds
	Text   string   // a packed string column's bytes (packed.go)
	Bounds []uint32 // a packed string column's value i is Text[Bounds[i]:Bounds[i+1]]

	spareBounds []uint32 // a recycled column's room for Bounds while it is a vector
}

// NewColumn is an empty column of type t with room for capacity values.
func NewColumn(t *Type, capacity int) *Column {
	c := &Column{Type: t}
	switch t.Storage() {
	case StoreNone:
		c.Nulls = make([]bool, 0, capacity)
	case StoreInt:
		c.Ints = make([]int64, 0, capacity)
	case StoreFloat:
		c.Floats = make([]float64, 0, capacity)
	case StoreString:
		c.Strs = make([]string, 0, capacity)
	case StoreBool:
		c.Bools = make([]bool, 0, capacity)
	case StoreBytes:
		c.Bins = make([][]byte, 0, capacity)
	case StoreDecimal:
		c.Decs = make([]decimal.Decimal, 0, capacity)
	case StoreAny:
		c.Anys = make([]any, 0, capacity)
	case StoreTimestamp:
		c.Secs = make([]int64, 0, capacity)
		c.Nanos = make([]int32, 0, capacity)
	case StoreTimestampTZ:
		c.Secs = make([]int64, 0, capacity)
		c.Nanos = make([]int32, 0, capacity)
		c.Offs = make([]int32, 0, capacity)
	}
	return c
}

// Len is the number of values in the column.
func (c *Column) Len() int {
	switch c.Type.Storage() {
	case StoreInt:
		return len(c.Ints)
	case StoreFloat:
		return len(c.Floats)
	case StoreString:
		if c.Bounds != nil {
			return len(c.Bounds) - 1
		}
		return len(c.Strs)
	case StoreBool:
		return len(c.Bools)
	case StoreBytes:
		return len(c.Bins)
	case StoreDecimal:
		return len(c.Decs)
	case StoreAny:
		return len(c.Anys)
	case StoreTimestamp, StoreTimestampTZ:
		return len(c.Secs)
	}
	return len(c.Nulls)
}

// IsNull tells whether value i is null.
func (c *Column) IsNull(i int) bool { return c.Nulls != nil && c.Nulls[i] }

// HasNulls tells whether any value may be null.
func (c *Column) HasNulls() bool { return c.Nulls != nil }

// AppendInt appends to an int-stored column (integers, date, time).
func (c *Column) AppendInt(v int64) {
	c.Ints = append(c.Ints, v)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// AppendFloat appends to a float or double column.
func (c *Column) AppendFloat(v float64) {
	c.Floats = append(c.Floats, v)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// AppendString appends to a string column.
func (c *Column) AppendString(v string) {
	c.unpack()
	c.Strs = append(c.Strs, v)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// AppendBool appends to a boolean column.
func (c *Column) AppendBool(v bool) {
	c.Bools = append(c.Bools, v)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// AppendBytes appends to a bytes column. The slice is kept, not copied.
func (c *Column) AppendBytes(v []byte) {
	c.Bins = append(c.Bins, v)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// AppendDecimal appends to a decimal column.
func (c *Column) AppendDecimal(v decimal.Decimal) {
	c.Decs = append(c.Decs, v)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// AppendAny appends a boxed array, map or row value (see Value).
func (c *Column) AppendAny(v any) {
	c.Anys = append(c.Anys, v)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// AppendTimestamp appends to a timestamp column: sec seconds since
// 1970-01-01T00:00 (wall clock) and nano nanoseconds, 0..999,999,999.
func (c *Column) AppendTimestamp(sec int64, nano int32) {
	c.Secs = append(c.Secs, sec)
	c.Nanos = append(c.Nanos, nano)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// Timestamp is timestamp i's seconds and nanoseconds (see AppendTimestamp).
func (c *Column) Timestamp(i int) (sec int64, nano int32) { return c.Secs[i], c.Nanos[i] }

// AppendTimestampTZ appends to a timestamp_tz column: the instant, sec
// seconds since 1970-01-01T00:00Z and nano nanoseconds, and its UTC offset
// off in seconds.
func (c *Column) AppendTimestampTZ(sec int64, nano, off int32) {
	c.Secs = append(c.Secs, sec)
	c.Nanos = append(c.Nanos, nano)
	c.Offs = append(c.Offs, off)
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, false)
	}
}

// TimestampTZ is timestamp_tz i's instant and offset (see AppendTimestampTZ).
func (c *Column) TimestampTZ(i int) (sec int64, nano, off int32) {
	return c.Secs[i], c.Nanos[i], c.Offs[i]
}

// AppendNull appends a null.
func (c *Column) AppendNull() {
	c.unpack()
	n := c.Len()
	if c.Nulls == nil {
		c.Nulls = make([]bool, n, cap(c.Ints)+cap(c.Floats)+cap(c.Strs)+cap(c.Bools)+cap(c.Bins)+cap(c.Decs)+cap(c.Anys)+cap(c.Secs)+1)
	}
	switch c.Type.Storage() {
	case StoreInt:
		c.Ints = append(c.Ints, 0)
	case StoreFloat:
		c.Floats = append(c.Floats, 0)
	case StoreString:
		c.Strs = append(c.Strs, "")
	case StoreBool:
		c.Bools = append(c.Bools, false)
	case StoreBytes:
		c.Bins = append(c.Bins, nil)
	case StoreDecimal:
		c.Decs = append(c.Decs, decimal.Decimal{})
	case StoreAny:
		c.Anys = append(c.Anys, nil)
	case StoreTimestamp:
		c.Secs = append(c.Secs, 0)
		c.Nanos = append(c.Nanos, 0)
	case StoreTimestampTZ:
		c.Secs = append(c.Secs, 0)
		c.Nanos = append(c.Nanos, 0)
		c.Offs = append(c.Offs, 0)
	}
	c.Nulls = append(c.Nulls, true)
}

// AppendValue appends a boxed value (see Value), converting it to the
// column's type; nil appends a null.
func (c *Column) AppendValue(v any) error {
	if v == nil {
		c.AppendNull()
		return nil
	}
	cv, err := Convert(c.Type, v)
	if err != nil {
		return err
	}
	if cv == nil {
		c.AppendNull()
		return nil
	}
	switch c.Type.Storage() {
	case StoreInt:
		c.AppendInt(toStoredInt(c.Type, cv))
	case StoreFloat:
		c.AppendFloat(cv.(float64))
	case StoreString:
		c.AppendString(cv.(string))
	case StoreBool:
		c.AppendBool(cv.(bool))
	case StoreBytes:
		c.AppendBytes(cv.([]byte))
	case StoreDecimal:
		c.AppendDecimal(cv.(decimal.Decimal))
	case StoreAny:
		c.AppendAny(cv)
	case StoreTimestamp:
		c.AppendTimestamp(TimestampOf(cv.(time.Time)))
	case StoreTimestampTZ:
		c.AppendTimestampTZ(TimestampTZOf(cv.(time.Time)))
	case StoreNone:
		c.AppendNull()
	}
	return nil
}

// Value is value i boxed (see the package's Value doc), nil when null.
func (c *Column) Value(i int) any {
	if c.IsNull(i) {
		return nil
	}
	switch c.Type.Storage() {
	case StoreInt:
		return fromStoredInt(c.Type, c.Ints[i])
	case StoreFloat:
		return c.Floats[i]
	case StoreString:
		return c.Str(i)
	case StoreBool:
		return c.Bools[i]
	case StoreBytes:
		return c.Bins[i]
	case StoreDecimal:
		return c.Decs[i]
	case StoreAny:
		return c.Anys[i]
	case StoreTimestamp:
		return TimestampTime(c.Secs[i], c.Nanos[i])
	case StoreTimestampTZ:
		return TimestampTZTime(c.Secs[i], c.Nanos[i], c.Offs[i])
	}
	return nil
}

// Slice is a view of values [from, to) sharing storage with c.
func (c *Column) Slice(from, to int) *Column {
	s := &Column{Type: c.Type}
	if c.Nulls != nil {
		s.Nulls = c.Nulls[from:to:to]
	}
	switch c.Type.Storage() {
	case StoreInt:
		s.Ints = c.Ints[from:to:to]
	case StoreFloat:
		s.Floats = c.Floats[from:to:to]
	case StoreString:
		if c.Bounds != nil {
			s.Text, s.Bounds = c.Text, c.Bounds[from:to+1:to+1]
		} else {
			s.Strs = c.Strs[from:to:to]
		}
	case StoreBool:
		s.Bools = c.Bools[from:to:to]
	case StoreBytes:
		s.Bins = c.Bins[from:to:to]
	case StoreDecimal:
		s.Decs = c.Decs[from:to:to]
	case StoreAny:
		s.Anys = c.Anys[from:to:to]
	case StoreTimestamp:
		s.Secs = c.Secs[from:to:to]
		s.Nanos = c.Nanos[from:to:to]
	case StoreTimestampTZ:
		s.Secs = c.Secs[from:to:to]
		s.Nanos = c.Nanos[from:to:to]
		s.Offs = c.Offs[from:to:to]
	}
	return s
}

// Take is a new column holding the values at the given indexes, in order.
func (c *Column) Take(idx []int) *Column {
	s := &Column{Type: c.Type}
	if c.Nulls != nil {
		s.Nulls = make([]bool, len(idx))
		for k, i := range idx {
			s.Nulls[k] = c.Nulls[i]
		}
	}
	switch c.Type.Storage() {
	case StoreInt:
		s.Ints = takeSlice(c.Ints, idx)
	case StoreFloat:
		s.Floats = takeSlice(c.Floats, idx)
	case StoreString:
		s.Strs = c.takeStrings(nil, idx)
	case StoreBool:
		s.Bools = takeSlice(c.Bools, idx)
	case StoreBytes:
		s.Bins = takeSlice(c.Bins, idx)
	case StoreDecimal:
		s.Decs = takeSlice(c.Decs, idx)
	case StoreAny:
		s.Anys = takeSlice(c.Anys, idx)
	case StoreTimestamp:
		s.Secs = takeSlice(c.Secs, idx)
		s.Nanos = takeSlice(c.Nanos, idx)
	case StoreTimestampTZ:
		s.Secs = takeSlice(c.Secs, idx)
		s.Nanos = takeSlice(c.Nanos, idx)
		s.Offs = takeSlice(c.Offs, idx)
	}
	return s
}

func takeSlice[T any](src []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = src[i]
	}
	return out
}

// ByteSize estimates the memory the column's values take, for splitting
// batches by bytes and for read_limit.bytes_per_second.
func (c *Column) ByteSize() int {
	n := len(c.Nulls)
	switch c.Type.Storage() {
	case StoreInt, StoreFloat:
		n += 8 * c.Len()
	case StoreTimestamp:
		n += 12 * len(c.Secs)
	case StoreTimestampTZ:
		n += 16 * len(c.Secs)
	case StoreBool:
		n += len(c.Bools)
	case StoreString:
		if c.Bounds != nil {
			n += c.textBytes(c.Len()) + 4*c.Len()
			break
		}
		for _, s := range c.Strs {
			n += len(s) + 4
		}
	case StoreBytes:
		for _, b := range c.Bins {
			n += len(b) + 4
		}
	case StoreDecimal:
		n += 16 * len(c.Decs)
	case StoreAny:
		for _, v := range c.Anys {
			n += anySize(v)
		}
	}
	return n
}

func anySize(v any) int {
	switch x := v.(type) {
	case nil:
		return 1
	case string:
		return len(x) + 4
	case []byte:
		return len(x) + 4
	case []any:
		n := 4
		for _, e := range x {
			n += anySize(e)
		}
		return n
	case *MapValue:
		n := 4
		for i := range x.Keys {
			n += anySize(x.Keys[i]) + anySize(x.Values[i])
		}
		return n
	}
	return 8
}

// approxSamples is how many values ApproxByteSize reads of a
// variable-length column.
const approxSamples = 8

// ApproxByteSize is ByteSize with variable-length values estimated from
// approxSamples of them spread over the column.
func (c *Column) ApproxByteSize() int {
	switch c.Type.Storage() {
	case StoreString, StoreBytes, StoreAny:
	default:
		return c.ByteSize()
	}
	n := c.Len()
	if n <= approxSamples {
		return c.ByteSize()
	}
	step := n / approxSamples
	sum := 0
	for k := 0; k < approxSamples; k++ {
		i := k * step
		switch c.Type.Storage() {
		case StoreString:
			sum += len(c.Str(i)) + 4
		case StoreBytes:
			sum += len(c.Bins[i]) + 4
		default:
			sum += anySize(c.Anys[i])
		}
	}
	return len(c.Nulls) + sum*n/approxSamples
}

// GrowInts appends n values to an int-stored column and returns them, to
// be filled in place: a generator or parser writes a whole run of values
// without an append per value. They are not null.
func (c *Column) GrowInts(n int) []int64 {
	c.Ints = growBy(c.Ints, n)
	c.growNulls(n)
	return c.Ints[len(c.Ints)-n:]
}

// GrowFloats is GrowInts for a float or double column.
func (c *Column) GrowFloats(n int) []float64 {
	c.Floats = growBy(c.Floats, n)
	c.growNulls(n)
	return c.Floats[len(c.Floats)-n:]
}

// GrowStrings is GrowInts for a string column.
func (c *Column) GrowStrings(n int) []string {
	c.unpack()
	c.Strs = growBy(c.Strs, n)
	c.growNulls(n)
	return c.Strs[len(c.Strs)-n:]
}

func (c *Column) growNulls(n int) {
	if c.Nulls != nil {
		c.Nulls = append(c.Nulls, make([]bool, n)...)
	}
}

func growBy[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s[:len(s)+n]
	}
	return append(s, make([]T, n)...)
}
