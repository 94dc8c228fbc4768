package row

// The encoder: AppendBatch writes a batch as codec.go lays it out.

import (
	"encoding/binary"
	"math"
	"slices"
)

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
	if b.change != nil {
		return appendChange(dst, b.change)
	}
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

func appendStr(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendSchema(dst []byte, s *Schema) []byte {
	dst = appendStr(dst, s.TableID)
	dst = binary.AppendUvarint(dst, uint64(len(s.PrimaryKey)))
	for _, k := range s.PrimaryKey {
		dst = appendStr(dst, k)
	}
	dst = binary.AppendUvarint(dst, uint64(len(s.Fields)))
	for _, f := range s.Fields {
		dst = appendField(dst, f)
	}
	return dst
}

func appendField(dst []byte, f Field) []byte {
	dst = appendStr(dst, f.Name)
	var flags byte
	if f.Nullable {
		flags |= fieldNull
	}
	dst = append(dst, flags)
	dst = appendStr(dst, f.Comment)
	return appendStr(dst, f.Type.String())
}

// appendChange writes a schema-change batch's flags and change: the
// version and the clauses, left out (an older encoding's form) for an
// announcement of version 0.
func appendChange(dst []byte, c *SchemaChange) []byte {
	if c.Version == 0 && len(c.Columns) == 0 {
		return append(dst, batchSchemaChange)
	}
	dst = append(dst, batchSchemaChange|batchChangeDetail)
	dst = binary.AppendVarint(dst, c.Version)
	dst = binary.AppendUvarint(dst, uint64(len(c.Columns)))
	for _, cc := range c.Columns {
		dst = append(dst, byte(cc.Op))
		dst = appendStr(dst, cc.Name)
		if cc.Op != DropColumn {
			dst = appendField(dst, cc.Field)
		}
		dst = appendStr(dst, cc.Default)
		var first byte
		if cc.First {
			first = 1
		}
		dst = append(dst, first)
		dst = appendStr(dst, cc.After)
		dst = appendStr(dst, cc.MySQLType)
	}
	return dst
}

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
	case StoreTimestamp:
		dst = appendTimestamps(dst, c, n, nulls)
	case StoreTimestampTZ:
		dst = appendTimestamps(dst, c, n, nulls)
		dst = appendOffsets(dst, c.Offs[:n], nulls)
	case StoreFloat:
		start := len(dst)
		dst = slices.Grow(dst, 8*n)
		out := dst[start : start+8*n]
		if littleEndian && n > 0 {
			copy(out, floatBytes(c.Floats[:n]))
		} else {
			for i, f := range c.Floats[:n] {
				binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(f))
			}
		}
		dst = dst[:start+8*n]
	case StoreBool:
		dst = appendBitmap(dst, c.Bools[:n])
	case StoreString:
		if c.Bounds != nil {
			dst = appendPacked(dst, c.Text, c.Bounds[:n+1])
		} else {
			dst = appendStrings(dst, c.Strs[:n])
		}
	case StoreBytes:
		dst = appendVarLen(dst, c.Bins[:n])
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

// appendStrings writes a string column's lengths and then its bytes. One
// pass finds the total and the longest; when every length fits one byte
// (the common case) the lengths and the bytes are stored by index into
// room grown once, no append per value.
func appendStrings(dst []byte, strs []string) []byte {
	total, longest := 0, 0
	for _, s := range strs {
		total += len(s)
		longest = max(longest, len(s))
	}
	if longest >= 0x80 {
		return appendVarLen(dst, strs)
	}
	start := len(dst)
	dst = slices.Grow(dst, len(strs)+total)
	out := dst[start : start+len(strs)+total]
	lens, data := out[:len(strs)], out[len(strs):]
	off := 0
	for i, s := range strs {
		k := len(s)
		lens[i] = byte(k)
		// A short value in two overlapping words, without a call to
		// memmove per value (most names, codes, ids).
		switch w := data[off : off+k]; {
		case k >= 8 && k <= 16:
			binary.LittleEndian.PutUint64(w, le64s(s, 0))
			binary.LittleEndian.PutUint64(w[k-8:], le64s(s, k-8))
		case k >= 4 && k < 8:
			binary.LittleEndian.PutUint32(w, le32s(s, 0))
			binary.LittleEndian.PutUint32(w[k-4:], le32s(s, k-4))
		default:
			copy(w, s)
		}
		off += k
	}
	return dst[:start+len(out)]
}

// le64s is the little-endian word at s[i:i+8] (the compiler loads it in one).
func le64s(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// le32s is the little-endian word at s[i:i+4].
func le32s(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// appendPacked is appendStrings for a packed column's values (bounds, n+1
// of them): their lengths, then their bytes in one copy.
func appendPacked(dst []byte, text string, bounds []uint32) []byte {
	n := len(bounds) - 1
	dst = slices.Grow(dst, packedSize(bounds))
	for i := range n {
		dst = binary.AppendUvarint(dst, uint64(bounds[i+1]-bounds[i]))
	}
	return append(dst, text[bounds[0]:bounds[n]]...)
}

// packedSize is appendPacked's output size for bounds.
func packedSize(bounds []uint32) int {
	n := len(bounds) - 1
	size := int(bounds[n] - bounds[0])
	for i := range n {
		size += uvarintLen(uint64(bounds[i+1] - bounds[i]))
	}
	return size
}

// appendVarLen writes values' lengths as uvarints, then their bytes: a
// bytes column, or a string column with a value of 128 bytes or more.
func appendVarLen[T string | []byte](dst []byte, vals []T) []byte {
	size := 0
	for _, v := range vals {
		size += uvarintLen(uint64(len(v))) + len(v)
	}
	dst = slices.Grow(dst, size)
	for _, v := range vals {
		dst = binary.AppendUvarint(dst, uint64(len(v)))
	}
	for _, v := range vals {
		dst = append(dst, v...)
	}
	return dst
}
