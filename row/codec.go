package row

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// The batch codec writes a Batch as bytes for checkpoint channel state and
// for batches crossing nodes (DESIGN §4, §5). An encoding is self-describing:
// it carries its schema, so a restore or another node needs nothing else.
//
// Version 1 layout. uvarint and varint are encoding/binary's (varint is
// zigzag); fixed-width numbers are little-endian; a bitmap holds row i in
// bit i%8 of byte i/8, (rows+7)/8 bytes.
//
//	batch   version:u8  schemaLen:uvarint schema  rows:uvarint  flags:u8 (1: kinds follow)
//	        [kinds: rows × u8]  column × len(fields)
//	schema  table:str  pkCount:uvarint pk:str…  fieldCount:uvarint
//	        (name:str  flags:u8 (1: nullable)  comment:str  type:str (Type.String))…
//	str     len:uvarint bytes
//	column  flags:u8 (1: null bitmap follows)  [nulls:bitmap]  values by storage:
//	  none      nothing (the bitmap is always there, all set)
//	  int       base:varint width:u8 (1..8), then rows × width bytes of v-base
//	  float     rows × 8 bytes, the IEEE bits (NaN payloads and -0 kept)
//	  bool      bitmap
//	  string,   rows × len:uvarint, then all the bytes: a decoder makes one
//	  bytes     string (or []byte) of them and slices it, no copy per value
//	  decimal   a dec per row that is not null
//	  any       size:uvarint, then a value per row (size bytes in all)
//	dec     head:uvarint = zigzag(exponent)<<1 | big, then the coefficient:
//	        varint (big=0), or uvarint(n<<1 | negative) + n bytes of its
//	        magnitude, big-endian (big=1)
//	value   tag:u8 and a payload by tag: null, false, true (none); int (varint);
//	        float (8 bytes); decimal (dec); string, bytes (str); time (unix
//	        seconds:varint, nanoseconds:uvarint; decoded in UTC); duration
//	        (varint); list (count:uvarint, values: an array or a row); map
//	        (count:uvarint, key and value × count)
//
// Integers are packed frame-of-reference: the column's minimum, then each
// value's distance from it in the fewest whole bytes that hold the largest
// distance. That is as fast to write and read as fixed 8 bytes (a masked
// 8-byte load per value, no branch per value, unlike varints) and as small as
// varints or smaller for ids, dates, timestamps within a batch. Null rows are
// left out of the range and decode as 0, which Column keeps there.
//
// Nested values carry their boxed Go type in the tag byte that a null flag
// would take anyway: the same size as an encoding driven by the field type,
// and a value that does not match its declared type still round-trips
// instead of failing AppendBatch, which has no error to return.

const codecVersion = 1

const (
	batchKinds = 1 << 0 // batch flag: kinds follow
	colNulls   = 1 << 0 // column flag: a null bitmap follows
	fieldNull  = 1 << 0 // field flag: nullable
)

// Tags of nested values.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagDecimal
	tagString
	tagBytes
	tagTime
	tagDuration
	tagList
	tagMap
)

// maxDepth bounds the nesting of decoded values, so hostile input cannot
// recurse without end; real types nest a few levels.
const maxDepth = 100

// maxSchemas bounds a Decoder's schema cache.
const maxSchemas = 64

var (
	// ErrCorrupt is returned (wrapped) when bytes are not a batch encoding.
	ErrCorrupt = errors.New("row codec: corrupt batch")
	// ErrTruncated is returned (wrapped) when the input ends inside a batch;
	// it wraps ErrCorrupt.
	ErrTruncated = fmt.Errorf("%w: truncated", ErrCorrupt)
	// ErrVersion is returned (wrapped) for an encoding of a version this
	// build does not read.
	ErrVersion = errors.New("row codec: unsupported encoding version")
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// AppendBatch appends b's self-describing encoding (schema included) to dst.
// The columns must match b.Schema's fields; values are read by the fields'
// types.
func AppendBatch(dst []byte, b *Batch) []byte {
	n := b.N
	dst = append(dst, codecVersion)
	start := len(dst)
	dst = appendSchema(dst, b.Schema)
	dst = insertLen(dst, start)
	dst = binary.AppendUvarint(dst, uint64(n))
	if kinds := b.Kinds; kinds != nil && !allInsert(kinds[:n]) {
		dst = append(dst, batchKinds)
		dst = slices.Grow(dst, n)
		for _, k := range kinds[:n] {
			dst = append(dst, byte(k))
		}
	} else {
		dst = append(dst, 0)
	}
	for j, f := range b.Schema.Fields {
		dst = appendColumn(dst, f.Type, b.Cols[j], n)
	}
	return dst
}

// EncodedSize is the exact length of b's encoding. It reads every value's
// length (strings, decimals, nested values) but copies nothing.
func EncodedSize(b *Batch) int {
	n := b.N
	ss := schemaSize(b.Schema)
	size := 1 + uvarintLen(uint64(ss)) + ss + uvarintLen(uint64(n)) + 1
	if b.Kinds != nil && !allInsert(b.Kinds[:n]) {
		size += n
	}
	for j, f := range b.Schema.Fields {
		size += columnSize(f.Type, b.Cols[j], n)
	}
	return size
}

// SplitBySize cuts b into consecutive parts (views made by Batch.Slice) whose
// encodings are each at most maxBytes long; a row too big on its own is a
// part by itself, over the limit. All of b is returned as one part when it
// fits.
func SplitBySize(b *Batch, maxBytes int) []*Batch {
	n := b.N
	if n <= 1 || EncodedSize(b) <= maxBytes {
		return []*Batch{b}
	}
	// A part of rows [from, to) encodes to at most
	// fixed + Σ cost[from:to] + rows·perRow + bitmaps·⌈rows/8⌉.
	ss := schemaSize(b.Schema)
	fixed := 1 + uvarintLen(uint64(ss)) + ss + uvarintLen(uint64(n)) + 1
	perRow, bitmaps := 0, 0
	if b.Kinds != nil && !allInsert(b.Kinds[:n]) {
		perRow++
	}
	cost := make([]int, n)
	for j, f := range b.Schema.Fields {
		c := b.Cols[j]
		fixed++
		st := f.Type.Storage()
		if st == StoreNone || hasNull(c.Nulls, n) {
			bitmaps++
		}
		switch st {
		case StoreInt:
			_, w := intFrame(c.Ints[:n], nullsOf(c, n))
			fixed += binary.MaxVarintLen64 + 1 // a part's base may be longer
			perRow += w                        // a part's range is within b's
		case StoreFloat:
			perRow += 8
		case StoreBool:
			bitmaps++
		case StoreString:
			for i, s := range c.Strs[:n] {
				cost[i] += uvarintLen(uint64(len(s))) + len(s)
			}
		case StoreBytes:
			for i, s := range c.Bins[:n] {
				cost[i] += uvarintLen(uint64(len(s))) + len(s)
			}
		case StoreDecimal:
			for i, d := range c.Decs[:n] {
				if !c.IsNull(i) {
					cost[i] += decimalSize(d)
				}
			}
		case StoreAny:
			fixed += binary.MaxVarintLen64
			for i, v := range c.Anys[:n] {
				cost[i] += valueSize(f.Type, v)
			}
		}
	}
	var parts []*Batch
	from, sum := 0, 0
	for i := 0; i < n; i++ {
		rows := i - from + 1
		if i > from && fixed+sum+cost[i]+rows*perRow+bitmaps*((rows+7)/8) > maxBytes {
			parts = append(parts, b.Slice(from, i))
			from, sum = i, 0
		}
		sum += cost[i]
	}
	return append(parts, b.Slice(from, n))
}

func allInsert(kinds []Kind) bool {
	for _, k := range kinds {
		if k != Insert {
			return false
		}
	}
	return true
}

func hasNull(nulls []bool, n int) bool {
	return nulls != nil && slices.Contains(nulls[:n], true)
}

// nullsOf is c's null flags when some row is null, else nil.
func nullsOf(c *Column, n int) []bool {
	if hasNull(c.Nulls, n) {
		return c.Nulls[:n]
	}
	return nil
}

// insertLen inserts before dst[start:] its length as a uvarint.
func insertLen(dst []byte, start int) []byte {
	var buf [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(buf[:], uint64(len(dst)-start))
	return slices.Insert(dst, start, buf[:k]...)
}

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func varintLen(x int64) int { return uvarintLen(zigzag(x)) }

func zigzag(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }

func appendStr(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func strSize(s string) int { return uvarintLen(uint64(len(s))) + len(s) }

func appendSchema(dst []byte, s *Schema) []byte {
	dst = appendStr(dst, s.TableID)
	dst = binary.AppendUvarint(dst, uint64(len(s.PrimaryKey)))
	for _, k := range s.PrimaryKey {
		dst = appendStr(dst, k)
	}
	dst = binary.AppendUvarint(dst, uint64(len(s.Fields)))
	for _, f := range s.Fields {
		dst = appendStr(dst, f.Name)
		var flags byte
		if f.Nullable {
			flags |= fieldNull
		}
		dst = append(dst, flags)
		dst = appendStr(dst, f.Comment)
		dst = appendStr(dst, f.Type.String())
	}
	return dst
}

func schemaSize(s *Schema) int {
	size := strSize(s.TableID) + uvarintLen(uint64(len(s.PrimaryKey))) + uvarintLen(uint64(len(s.Fields)))
	for _, k := range s.PrimaryKey {
		size += strSize(k)
	}
	for _, f := range s.Fields {
		size += strSize(f.Name) + 1 + strSize(f.Comment) + strSize(f.Type.String())
	}
	return size
}

func bitmapLen(n int) int { return (n + 7) / 8 }

func appendBitmap(dst []byte, bs []bool) []byte {
	n := len(bs)
	i := 0
	for ; i+8 <= n; i += 8 {
		var x byte
		for k, v := range bs[i : i+8] {
			if v {
				x |= 1 << k
			}
		}
		dst = append(dst, x)
	}
	if i < n {
		var x byte
		for k, v := range bs[i:] {
			if v {
				x |= 1 << k
			}
		}
		dst = append(dst, x)
	}
	return dst
}

// appendOnes appends a bitmap of n set bits.
func appendOnes(dst []byte, n int) []byte {
	for ; n >= 8; n -= 8 {
		dst = append(dst, 0xff)
	}
	if n > 0 {
		dst = append(dst, byte(1)<<n-1)
	}
	return dst
}

// intFrame is the base and byte width of ints packed frame-of-reference:
// the least value that is not null, and the bytes the largest distance from
// it needs (at least 1, so that every row costs input when decoding).
func intFrame(v []int64, nulls []bool) (base int64, width int) {
	var lo, hi int64
	if nulls == nil {
		if len(v) == 0 {
			return 0, 1
		}
		// Four running pairs, so that the compares do not wait on each other.
		l0, l1, l2, l3 := v[0], v[0], v[0], v[0]
		h0, h1, h2, h3 := l0, l0, l0, l0
		i := 0
		for ; i+4 <= len(v); i += 4 {
			x := v[i : i+4 : i+4]
			l0, h0 = min(l0, x[0]), max(h0, x[0])
			l1, h1 = min(l1, x[1]), max(h1, x[1])
			l2, h2 = min(l2, x[2]), max(h2, x[2])
			l3, h3 = min(l3, x[3]), max(h3, x[3])
		}
		for _, x := range v[i:] {
			l0, h0 = min(l0, x), max(h0, x)
		}
		lo, hi = min(l0, l1, l2, l3), max(h0, h1, h2, h3)
	} else {
		first := true
		for i, x := range v {
			if nulls[i] {
				continue
			}
			if first {
				lo, hi, first = x, x, false
			}
			lo = min(lo, x)
			hi = max(hi, x)
		}
	}
	return lo, max(1, (bits.Len64(uint64(hi-lo))+7)/8)
}

func appendInts(dst []byte, v []int64, nulls []bool) []byte {
	base, w := intFrame(v, nulls)
	dst = binary.AppendVarint(dst, base)
	dst = append(dst, byte(w))
	start := len(dst)
	dst = slices.Grow(dst, len(v)*w+8)
	out := dst[start : start+len(v)*w+8]
	switch {
	case nulls != nil:
		for i, x := range v {
			d := uint64(x - base)
			if nulls[i] {
				d = 0
			}
			binary.LittleEndian.PutUint64(out[i*w:], d)
		}
	case w == 1:
		for i, x := range v {
			out[i] = byte(x - base)
		}
	case w == 2:
		for i, x := range v {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(x-base))
		}
	case w == 4:
		for i, x := range v {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x-base))
		}
	case w == 8:
		for i, x := range v {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(x-base))
		}
	default:
		// Each 8-byte store's high bytes are zero and are overwritten by
		// the next value or cut off below.
		for i, x := range v {
			binary.LittleEndian.PutUint64(out[i*w:], uint64(x-base))
		}
	}
	return dst[:start+len(v)*w]
}

func appendColumn(dst []byte, t *Type, c *Column, n int) []byte {
	st := t.Storage()
	if st == StoreNone {
		dst = append(dst, colNulls)
		return appendOnes(dst, n)
	}
	nulls := nullsOf(c, n)
	if nulls != nil {
		dst = append(dst, colNulls)
		dst = appendBitmap(dst, nulls)
	} else {
		dst = append(dst, 0)
	}
	switch st {
	case StoreInt:
		dst = appendInts(dst, c.Ints[:n], nulls)
	case StoreFloat:
		start := len(dst)
		dst = slices.Grow(dst, 8*n)
		out := dst[start : start+8*n]
		for i, f := range c.Floats[:n] {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(f))
		}
		dst = dst[:start+8*n]
	case StoreBool:
		dst = appendBitmap(dst, c.Bools[:n])
	case StoreString:
		size := 0
		for _, s := range c.Strs[:n] {
			size += strSize(s)
		}
		dst = slices.Grow(dst, size)
		for _, s := range c.Strs[:n] {
			dst = binary.AppendUvarint(dst, uint64(len(s)))
		}
		for _, s := range c.Strs[:n] {
			dst = append(dst, s...)
		}
	case StoreBytes:
		size := 0
		for _, s := range c.Bins[:n] {
			size += uvarintLen(uint64(len(s))) + len(s)
		}
		dst = slices.Grow(dst, size)
		for _, s := range c.Bins[:n] {
			dst = binary.AppendUvarint(dst, uint64(len(s)))
		}
		for _, s := range c.Bins[:n] {
			dst = append(dst, s...)
		}
	case StoreDecimal:
		for i, d := range c.Decs[:n] {
			if nulls == nil || !nulls[i] {
				dst = appendDecimal(dst, d)
			}
		}
	case StoreAny:
		start := len(dst)
		for _, v := range c.Anys[:n] {
			dst = appendValue(dst, t, v, 0)
		}
		dst = insertLen(dst, start)
	}
	return dst
}

func columnSize(t *Type, c *Column, n int) int {
	st := t.Storage()
	if st == StoreNone {
		return 1 + bitmapLen(n)
	}
	size := 1
	nulls := nullsOf(c, n)
	if nulls != nil {
		size += bitmapLen(n)
	}
	switch st {
	case StoreInt:
		base, w := intFrame(c.Ints[:n], nulls)
		size += varintLen(base) + 1 + n*w
	case StoreFloat:
		size += 8 * n
	case StoreBool:
		size += bitmapLen(n)
	case StoreString:
		for _, s := range c.Strs[:n] {
			size += strSize(s)
		}
	case StoreBytes:
		for _, s := range c.Bins[:n] {
			size += uvarintLen(uint64(len(s))) + len(s)
		}
	case StoreDecimal:
		for i, d := range c.Decs[:n] {
			if nulls == nil || !nulls[i] {
				size += decimalSize(d)
			}
		}
	case StoreAny:
		vs := 0
		for _, v := range c.Anys[:n] {
			vs += valueSize(t, v)
		}
		size += uvarintLen(uint64(vs)) + vs
	}
	return size
}

func decimalHead(exp int32, big bool) uint64 {
	h := zigzag(int64(exp)) << 1
	if big {
		h |= 1
	}
	return h
}

func appendDecimal(dst []byte, d decimal.Decimal) []byte {
	if d.Sign() == 0 { // also the zero Decimal, whose coefficient is unset
		dst = binary.AppendUvarint(dst, decimalHead(d.Exponent(), false))
		return append(dst, 0)
	}
	c := d.Coefficient()
	if c.IsInt64() {
		dst = binary.AppendUvarint(dst, decimalHead(d.Exponent(), false))
		return binary.AppendVarint(dst, c.Int64())
	}
	dst = binary.AppendUvarint(dst, decimalHead(d.Exponent(), true))
	mag := (c.BitLen() + 7) / 8
	u := uint64(mag) << 1
	if c.Sign() < 0 {
		u |= 1
	}
	dst = binary.AppendUvarint(dst, u)
	start := len(dst)
	dst = slices.Grow(dst, mag)[:start+mag]
	c.FillBytes(dst[start:])
	return dst
}

func decimalSize(d decimal.Decimal) int {
	if d.Sign() == 0 {
		return uvarintLen(decimalHead(d.Exponent(), false)) + 1
	}
	c := d.Coefficient()
	if c.IsInt64() {
		return uvarintLen(decimalHead(d.Exponent(), false)) + varintLen(c.Int64())
	}
	mag := (c.BitLen() + 7) / 8
	return uvarintLen(decimalHead(d.Exponent(), true)) + uvarintLen(uint64(mag)<<1|1) + mag
}

// elemType is the declared type of element i of a list value of type t, or
// nil when unknown; it is only used to convert values that are not boxed
// as Value describes.
func elemType(t *Type, i int) *Type {
	switch {
	case t == nil:
		return nil
	case t.ID == TypeArray:
		return t.Elem
	case t.ID == TypeRow && i < len(t.Fields):
		return t.Fields[i].Type
	}
	return nil
}

func mapTypes(t *Type) (k, v *Type) {
	if t != nil && t.ID == TypeMap {
		return t.Key, t.Elem
	}
	return nil, nil
}

// unboxed converts v, which is not a boxed value, to the boxed form of t;
// ok is false when it cannot, and v is then encoded as null.
func unboxed(t *Type, v any) (any, bool) {
	if t == nil {
		return nil, false
	}
	cv, err := Convert(t, v)
	if err != nil {
		return nil, false
	}
	switch cv.(type) {
	case nil, bool, int64, float64, decimal.Decimal, string, []byte, time.Time, time.Duration, []any, *MapValue:
		return cv, true
	}
	return nil, false
}

func appendValue(dst []byte, t *Type, v any, depth int) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, tagNull)
	case bool:
		if x {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case int64:
		return binary.AppendVarint(append(dst, tagInt), x)
	case float64:
		return binary.LittleEndian.AppendUint64(append(dst, tagFloat), math.Float64bits(x))
	case decimal.Decimal:
		return appendDecimal(append(dst, tagDecimal), x)
	case string:
		return appendStr(append(dst, tagString), x)
	case []byte:
		dst = binary.AppendUvarint(append(dst, tagBytes), uint64(len(x)))
		return append(dst, x...)
	case time.Time:
		dst = binary.AppendVarint(append(dst, tagTime), x.Unix())
		return binary.AppendUvarint(dst, uint64(x.Nanosecond()))
	case time.Duration:
		return binary.AppendVarint(append(dst, tagDuration), int64(x))
	case []any:
		if depth >= maxDepth {
			return append(dst, tagNull)
		}
		dst = binary.AppendUvarint(append(dst, tagList), uint64(len(x)))
		for i, e := range x {
			dst = appendValue(dst, elemType(t, i), e, depth+1)
		}
		return dst
	case *MapValue:
		if x == nil || depth >= maxDepth {
			return append(dst, tagNull)
		}
		kt, vt := mapTypes(t)
		m := min(len(x.Keys), len(x.Values))
		dst = binary.AppendUvarint(append(dst, tagMap), uint64(m))
		for i := range m {
			dst = appendValue(dst, kt, x.Keys[i], depth+1)
			dst = appendValue(dst, vt, x.Values[i], depth+1)
		}
		return dst
	}
	if cv, ok := unboxed(t, v); ok {
		return appendValue(dst, t, cv, depth)
	}
	return append(dst, tagNull)
}

// valueSize is the length appendValue writes.
func valueSize(t *Type, v any) int { return valueSizeAt(t, v, 0) }

func valueSizeAt(t *Type, v any, depth int) int {
	switch x := v.(type) {
	case nil, bool:
		return 1
	case int64:
		return 1 + varintLen(x)
	case float64:
		return 9
	case decimal.Decimal:
		return 1 + decimalSize(x)
	case string:
		return 1 + strSize(x)
	case []byte:
		return 1 + uvarintLen(uint64(len(x))) + len(x)
	case time.Time:
		return 1 + varintLen(x.Unix()) + uvarintLen(uint64(x.Nanosecond()))
	case time.Duration:
		return 1 + varintLen(int64(x))
	case []any:
		if depth >= maxDepth {
			return 1
		}
		size := 1 + uvarintLen(uint64(len(x)))
		for i, e := range x {
			size += valueSizeAt(elemType(t, i), e, depth+1)
		}
		return size
	case *MapValue:
		if x == nil || depth >= maxDepth {
			return 1
		}
		kt, vt := mapTypes(t)
		m := min(len(x.Keys), len(x.Values))
		size := 1 + uvarintLen(uint64(m))
		for i := range m {
			size += valueSizeAt(kt, x.Keys[i], depth+1) + valueSizeAt(vt, x.Values[i], depth+1)
		}
		return size
	}
	if cv, ok := unboxed(t, v); ok {
		return valueSizeAt(t, cv, depth)
	}
	return 1
}

// Decoder decodes batches. It caches the schemas it has seen, so a stream of
// batches of one table parses the schema once, and batches decoded from one
// schema encoding share one *Schema. A Decoder is used by one goroutine.
type Decoder struct {
	schemas map[string]*Schema // by their encoding
}

// NewDecoder is a Decoder with an empty schema cache.
func NewDecoder() *Decoder { return &Decoder{schemas: make(map[string]*Schema)} }

// Decode reads one batch from src and returns it and the rest of src. The
// batch does not share memory with src; the strings of a column share one
// allocation, which a string kept from it keeps alive. Errors wrap
// ErrTruncated (src ends inside the batch), ErrCorrupt or ErrVersion; Decode
// never panics on bad input.
func (d *Decoder) Decode(src []byte) (*Batch, []byte, error) {
	r := &reader[[]byte]{b: src}
	v, err := r.byte()
	if err != nil {
		return nil, src, err
	}
	if v != codecVersion {
		return nil, src, fmt.Errorf("%w %d (want %d)", ErrVersion, v, codecVersion)
	}
	raw, err := r.str()
	if err != nil {
		return nil, src, fmt.Errorf("schema: %w", err)
	}
	schema, err := d.schema(raw)
	if err != nil {
		return nil, src, err
	}
	b, err := r.batch(schema)
	if err != nil {
		return nil, src, fmt.Errorf("table %s: %w", schema.TableID, err)
	}
	return b, src[r.p:], nil
}

func (d *Decoder) schema(raw []byte) (*Schema, error) {
	if s, ok := d.schemas[string(raw)]; ok {
		return s, nil
	}
	r := &reader[[]byte]{b: raw}
	s, err := r.schema()
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if r.p != len(raw) {
		return nil, corrupt("schema: %d bytes left over", len(raw)-r.p)
	}
	if d.schemas == nil || len(d.schemas) >= maxSchemas {
		d.schemas = make(map[string]*Schema)
	}
	d.schemas[string(raw)] = s
	return s, nil
}

// reader reads an encoding from bytes, or, for nested values, from a
// string so that strings inside them need no copy each.
type reader[T []byte | string] struct {
	b T
	p int
}

func (r *reader[T]) left() int { return len(r.b) - r.p }

func (r *reader[T]) byte() (byte, error) {
	if r.p >= len(r.b) {
		return 0, ErrTruncated
	}
	c := r.b[r.p]
	r.p++
	return c, nil
}

func (r *reader[T]) uvarint() (uint64, error) {
	var x uint64
	for i := uint(0); i < binary.MaxVarintLen64; i++ {
		if r.p >= len(r.b) {
			return 0, ErrTruncated
		}
		c := r.b[r.p]
		r.p++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			return x | uint64(c)<<(7*i), nil
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	return 0, corrupt("varint overflows 64 bits")
}

func (r *reader[T]) varint() (int64, error) {
	u, err := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// count reads a count of items that take at least each bytes apiece in what
// follows, so that no count can make a decoder allocate beyond its input.
func (r *reader[T]) count(each int) (int, error) {
	u, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if u > uint64(r.left()/each) {
		return 0, fmt.Errorf("%w: count %d", ErrTruncated, u)
	}
	return int(u), nil
}

func (r *reader[T]) take(k int) (T, error) {
	if k > r.left() {
		var zero T
		return zero, ErrTruncated
	}
	s := r.b[r.p : r.p+k]
	r.p += k
	return s, nil
}

func (r *reader[T]) str() (T, error) {
	k, err := r.count(1)
	if err != nil {
		var zero T
		return zero, err
	}
	return r.take(k)
}

func (r *reader[T]) schema() (*Schema, error) {
	table, err := r.str()
	if err != nil {
		return nil, err
	}
	npk, err := r.count(1)
	if err != nil {
		return nil, err
	}
	var pk []string
	for range npk {
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		pk = append(pk, string(k))
	}
	nf, err := r.count(4) // name, flags, comment, type: a byte each at least
	if err != nil {
		return nil, err
	}
	fields := make([]Field, nf)
	for i := range fields {
		f := &fields[i]
		name, err := r.str()
		if err != nil {
			return nil, err
		}
		flags, err := r.byte()
		if err != nil {
			return nil, err
		}
		if flags&^fieldNull != 0 {
			return nil, corrupt("field %q: flags %#x", name, flags)
		}
		comment, err := r.str()
		if err != nil {
			return nil, err
		}
		ts, err := r.str()
		if err != nil {
			return nil, err
		}
		t, err := ParseType(string(ts))
		if err != nil {
			return nil, fmt.Errorf("%w: field %q: %v", ErrCorrupt, name, err)
		}
		*f = Field{Name: string(name), Type: t, Nullable: flags&fieldNull != 0, Comment: string(comment)}
	}
	s, err := NewSchema(string(table), fields...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	s.PrimaryKey = pk
	return s, nil
}

func (r *reader[T]) batch(s *Schema) (*Batch, error) {
	u, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if u > math.MaxInt32 {
		return nil, corrupt("%d rows", u)
	}
	n := int(u)
	flags, err := r.byte()
	if err != nil {
		return nil, err
	}
	if flags&^batchKinds != 0 {
		return nil, corrupt("batch flags %#x", flags)
	}
	b := &Batch{Schema: s, N: n, Cols: make([]*Column, len(s.Fields))}
	if flags&batchKinds != 0 {
		raw, err := r.take(n)
		if err != nil {
			return nil, fmt.Errorf("kinds: %w", err)
		}
		b.Kinds = make([]Kind, n)
		for i := range b.Kinds {
			k := raw[i]
			if k > byte(Delete) {
				return nil, corrupt("row %d: kind %d", i, k)
			}
			b.Kinds[i] = Kind(k)
		}
	}
	for j, f := range s.Fields {
		c, err := r.column(f.Type, n)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		b.Cols[j] = c
	}
	return b, nil
}

// bitmap reads n flags.
func (r *reader[T]) bitmap(n int) ([]bool, error) {
	raw, err := r.take(bitmapLen(n))
	if err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = raw[i>>3]&(1<<(i&7)) != 0
	}
	return out, nil
}

func (r *reader[T]) column(t *Type, n int) (*Column, error) {
	flags, err := r.byte()
	if err != nil {
		return nil, err
	}
	if flags&^colNulls != 0 {
		return nil, corrupt("column flags %#x", flags)
	}
	c := &Column{Type: t}
	if flags&colNulls != 0 {
		if c.Nulls, err = r.bitmap(n); err != nil {
			return nil, err
		}
	}
	switch t.Storage() {
	case StoreNone:
		if c.Nulls == nil || slices.Contains(c.Nulls, false) {
			return nil, corrupt("a null column with values")
		}
	case StoreInt:
		c.Ints, err = r.ints(n, c.Nulls)
	case StoreFloat:
		var raw T
		if raw, err = r.take(8 * n); err == nil {
			c.Floats = make([]float64, n)
			for i := range c.Floats {
				c.Floats[i] = math.Float64frombits(le64(raw, 8*i))
			}
		}
	case StoreBool:
		c.Bools, err = r.bitmap(n)
	case StoreString:
		c.Strs, err = r.strs(n)
	case StoreBytes:
		c.Bins, err = r.bins(n, c.Nulls)
	case StoreDecimal:
		c.Decs, err = r.decimals(n, c.Nulls)
	case StoreAny:
		c.Anys, err = r.anys(n)
	}
	return c, err
}

func le64[T []byte | string](b T, p int) uint64 {
	_ = b[p+7]
	return uint64(b[p]) | uint64(b[p+1])<<8 | uint64(b[p+2])<<16 | uint64(b[p+3])<<24 |
		uint64(b[p+4])<<32 | uint64(b[p+5])<<40 | uint64(b[p+6])<<48 | uint64(b[p+7])<<56
}

func (r *reader[T]) ints(n int, nulls []bool) ([]int64, error) {
	base, err := r.varint()
	if err != nil {
		return nil, err
	}
	w8, err := r.byte()
	if err != nil {
		return nil, err
	}
	w := int(w8)
	if w < 1 || w > 8 {
		return nil, corrupt("int width %d", w)
	}
	if n*w > r.left() {
		return nil, ErrTruncated
	}
	out := make([]int64, n)
	src := r.b[r.p:]
	switch w {
	case 1:
		for i := range out {
			out[i] = base + int64(src[i])
		}
	case 2:
		for i := range out {
			out[i] = base + int64(uint16(src[2*i])|uint16(src[2*i+1])<<8)
		}
	case 8:
		for i := range out {
			out[i] = base + int64(le64(src, 8*i))
		}
	default:
		// Load 8 bytes and mask while they lie inside the input, then
		// finish byte by byte.
		mask := uint64(1)<<(8*w) - 1
		i := 0
		for ; i < n && i*w+8 <= len(src); i++ {
			out[i] = base + int64(le64(src, i*w)&mask)
		}
		for ; i < n; i++ {
			var d uint64
			for k := w - 1; k >= 0; k-- {
				d = d<<8 | uint64(src[i*w+k])
			}
			out[i] = base + int64(d)
		}
	}
	r.p += n * w
	for i, null := range nulls {
		if null {
			out[i] = 0
		}
	}
	return out, nil
}

// lengths reads n uvarint lengths and returns where they start and the sum,
// checking that the bytes they measure follow.
func (r *reader[T]) lengths(n int) (int, int, error) {
	start, total := r.p, 0
	for range n {
		k, err := r.count(1)
		if err != nil {
			return 0, 0, err
		}
		total += k
	}
	if total > r.left() {
		return 0, 0, ErrTruncated
	}
	return start, total, nil
}

func (r *reader[T]) strs(n int) ([]string, error) {
	start, total, err := r.lengths(n)
	if err != nil {
		return nil, err
	}
	all := string(r.b[r.p : r.p+total]) // the one copy
	out := make([]string, n)
	lr := reader[T]{b: r.b, p: start}
	off := 0
	for i := range out {
		var k int
		if c := lr.b[lr.p]; c < 0x80 {
			k = int(c)
			lr.p++
		} else {
			u, _ := lr.uvarint() // checked by lengths
			k = int(u)
		}
		out[i] = all[off : off+k]
		off += k
	}
	r.p += total
	return out, nil
}

func (r *reader[T]) bins(n int, nulls []bool) ([][]byte, error) {
	start, total, err := r.lengths(n)
	if err != nil {
		return nil, err
	}
	all := []byte(r.b[r.p : r.p+total]) // the one copy
	out := make([][]byte, n)
	lr := reader[T]{b: r.b, p: start}
	off := 0
	for i := range out {
		u, _ := lr.uvarint() // checked by lengths
		k := int(u)
		if nulls == nil || !nulls[i] {
			out[i] = all[off : off+k : off+k]
		}
		off += k
	}
	r.p += total
	return out, nil
}

func (r *reader[T]) decimals(n int, nulls []bool) ([]decimal.Decimal, error) {
	present := n
	for _, null := range nulls {
		if null {
			present--
		}
	}
	if 2*present > r.left() { // a dec takes 2 bytes at least
		return nil, ErrTruncated
	}
	out := make([]decimal.Decimal, n)
	for i := range out {
		if nulls != nil && nulls[i] {
			continue
		}
		d, err := r.decimal()
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		out[i] = d
	}
	return out, nil
}

func (r *reader[T]) decimal() (decimal.Decimal, error) {
	h, err := r.uvarint()
	if err != nil {
		return decimal.Decimal{}, err
	}
	u := h >> 1
	exp := int64(u>>1) ^ -int64(u&1)
	if exp < math.MinInt32 || exp > math.MaxInt32 {
		return decimal.Decimal{}, corrupt("decimal exponent %d", exp)
	}
	if h&1 == 0 {
		c, err := r.varint()
		if err != nil {
			return decimal.Decimal{}, err
		}
		if c == 0 && exp == 0 {
			return decimal.Decimal{}, nil
		}
		return decimal.New(c, int32(exp)), nil
	}
	m, err := r.uvarint()
	if err != nil {
		return decimal.Decimal{}, err
	}
	if m>>1 > uint64(r.left()) {
		return decimal.Decimal{}, ErrTruncated
	}
	mag, _ := r.take(int(m >> 1))
	c := new(big.Int).SetBytes([]byte(mag))
	if m&1 != 0 {
		c.Neg(c)
	}
	return decimal.NewFromBigInt(c, int32(exp)), nil
}

func (r *reader[T]) anys(n int) ([]any, error) {
	size, err := r.count(1)
	if err != nil {
		return nil, err
	}
	if n > size { // a value takes a byte at least
		return nil, ErrTruncated
	}
	raw, _ := r.take(size)
	vr := reader[string]{b: string(raw)} // the one copy; strings inside slice it
	out := make([]any, n)
	for i := range out {
		if out[i], err = vr.value(0); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	if vr.left() != 0 {
		return nil, corrupt("%d bytes after the values", vr.left())
	}
	return out, nil
}

func (r *reader[T]) value(depth int) (any, error) {
	tag, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagNull:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagInt:
		return r.varint()
	case tagFloat:
		raw, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(le64(raw, 0)), nil
	case tagDecimal:
		return r.decimal()
	case tagString:
		s, err := r.str()
		return string(s), err // no copy when T is string
	case tagBytes:
		s, err := r.str()
		return []byte(s), err
	case tagTime:
		sec, err := r.varint()
		if err != nil {
			return nil, err
		}
		ns, err := r.uvarint()
		if err != nil {
			return nil, err
		}
		if ns >= 1e9 {
			return nil, corrupt("%d nanoseconds", ns)
		}
		return time.Unix(sec, int64(ns)).UTC(), nil
	case tagDuration:
		v, err := r.varint()
		return time.Duration(v), err
	case tagList, tagMap:
		if depth >= maxDepth {
			return nil, corrupt("values nested deeper than %d", maxDepth)
		}
		each := 1
		if tag == tagMap {
			each = 2
		}
		k, err := r.count(each)
		if err != nil {
			return nil, err
		}
		if tag == tagList {
			out := make([]any, k)
			for i := range out {
				if out[i], err = r.value(depth + 1); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		m := &MapValue{Keys: make([]any, k), Values: make([]any, k)}
		for i := range k {
			if m.Keys[i], err = r.value(depth + 1); err != nil {
				return nil, err
			}
			if m.Values[i], err = r.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	return nil, corrupt("value tag %d", tag)
}
