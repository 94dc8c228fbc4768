package row

// Sizes: the exact length of an encoding without writing it, and splitting
// a batch by encoded size.

import (
	"encoding/binary"
	"math/bits"
)

// EncodedSize is the exact length of b's encoding. It reads every value's
// length (strings, decimals, nested values) but copies nothing.
func EncodedSize(b *Batch) int {
	n := b.N
	ss := schemaSize(b.Schema)
	size := 1 + uvarintLen(uint64(ss)) + ss + uvarintLen(uint64(n)) + 1
	if b.change != nil {
		return size - 1 + len(appendChange(nil, b.change)) // a schema-change batch: its schema and change, no kinds, no columns (AppendBatch)
	}
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
		case StoreTimestamp, StoreTimestampTZ:
			nulls := nullsOf(c, n)
			_, w := intFrame(c.Secs[:n], nulls)
			fixed += binary.MaxVarintLen64 + 2
			perRow += w
			if nanosNonZero(c.Nanos[:n], nulls) {
				perRow += 4
			}
			if st == StoreTimestampTZ {
				fixed += 1 + binary.MaxVarintLen32
				if _, same := sameOffset(c.Offs[:n], nulls); !same {
					perRow += binary.MaxVarintLen32
				}
			}
		case StoreFloat:
			perRow += 8
		case StoreBool:
			bitmaps++
		case StoreString:
			for i := range n {
				s := c.Str(i)
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

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func varintLen(x int64) int { return uvarintLen(zigzag(x)) }

func zigzag(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }

func strSize(s string) int { return uvarintLen(uint64(len(s))) + len(s) }

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
	case StoreTimestamp:
		size += timestampsSize(c, n, nulls)
	case StoreTimestampTZ:
		size += timestampsSize(c, n, nulls) + offsetsSize(c.Offs[:n], nulls)
	case StoreFloat:
		size += 8 * n
	case StoreBool:
		size += bitmapLen(n)
	case StoreString:
		if c.Bounds != nil {
			size += packedSize(c.Bounds[:n+1])
			break
		}
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
