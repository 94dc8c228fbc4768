package row

// Timestamp columns: the seconds int-framed, the nanoseconds after them
// (see codec.go), and version 1's int64 nanoseconds read back.

import (
	"encoding/binary"
	"slices"
)

// nanosNonZero tells whether a timestamp column's nanoseconds (the first n)
// hold anything but zeros outside null rows: timestamps to the second, the
// common case, then cost no byte per row for them.
func nanosNonZero(v []int32, nulls []bool) bool {
	for i, x := range v {
		if x != 0 && (nulls == nil || !nulls[i]) {
			return true
		}
	}
	return false
}

// appendTimestamps writes a timestamp column's values: the seconds
// int-framed, then a flag and, when some nanosecond is not 0, the
// nanoseconds as 4 bytes each. Frame-of-reference would not shorten them:
// fractions of a second spread over the whole second.
func appendTimestamps(dst []byte, c *Column, n int, nulls []bool) []byte {
	dst = appendInts(dst, c.Secs[:n], nulls)
	if !nanosNonZero(c.Nanos[:n], nulls) {
		return append(dst, 0)
	}
	dst = append(dst, tsNanos)
	start := len(dst)
	dst = slices.Grow(dst, 4*n)[:start+4*n]
	out := dst[start:]
	for i, x := range c.Nanos[:n] {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	for i, null := range nulls {
		if null {
			binary.LittleEndian.PutUint32(out[4*i:], 0)
		}
	}
	return dst
}

// timestampsSize is the length appendTimestamps writes.
func timestampsSize(c *Column, n int, nulls []bool) int {
	base, w := intFrame(c.Secs[:n], nulls)
	size := varintLen(base) + 1 + n*w + 1
	if nanosNonZero(c.Nanos[:n], nulls) {
		size += 4 * n
	}
	return size
}

// timestamps reads what appendTimestamps wrote, or, in a version 1
// encoding, the int-framed nanoseconds since the epoch that it held then.
func (r *reader[T]) timestamps(n int, nulls []bool) (secs []int64, nanos []int32, err error) {
	if r.ver == 1 {
		ns, err := r.ints(nil, n, nulls)
		if err != nil {
			return nil, nil, err
		}
		nanos = make([]int32, n)
		for i, x := range ns {
			ns[i], nanos[i] = TimestampFromNanos(x)
		}
		return ns, nanos, nil
	}
	if secs, err = r.ints(nil, n, nulls); err != nil {
		return nil, nil, err
	}
	flags, err := r.byte()
	if err != nil {
		return nil, nil, err
	}
	switch flags {
	case 0:
		return secs, make([]int32, n), nil
	case tsNanos:
	default:
		return nil, nil, corrupt("timestamp flags %#x", flags)
	}
	if nanos, err = r.nanos(n, nulls); err != nil {
		return nil, nil, err
	}
	return secs, nanos, nil
}

// nanos reads n nanoseconds of 4 bytes each, each checked to be below a
// second.
func (r *reader[T]) nanos(n int, nulls []bool) ([]int32, error) {
	raw, err := r.take(4 * n)
	if err != nil {
		return nil, err
	}
	out := make([]int32, n)
	bad := false
	for i := range out {
		x := uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24
		bad = bad || x >= 1e9
		out[i] = int32(x)
	}
	if bad {
		return nil, corrupt("nanoseconds of a second or more")
	}
	for i, null := range nulls {
		if null {
			out[i] = 0
		}
	}
	return out, nil
}

// sameOffset is the offset all rows of a timestamp_tz column that are not
// null have (0 when all are null), and whether they all have it: a column
// written at one zone, the common case, then costs one varint.
func sameOffset(offs []int32, nulls []bool) (int32, bool) {
	var first int32
	seen := false
	for i, o := range offs {
		if nulls != nil && nulls[i] {
			continue
		}
		if !seen {
			first, seen = o, true
		} else if o != first {
			return 0, false
		}
	}
	return first, true
}

// appendOffsets writes a timestamp_tz column's offsets after its instants
// (codec.go).
func appendOffsets(dst []byte, offs []int32, nulls []bool) []byte {
	if o, same := sameOffset(offs, nulls); same {
		return binary.AppendVarint(append(dst, 0), int64(o))
	}
	dst = append(dst, tsOffsets)
	for i, o := range offs {
		if nulls != nil && nulls[i] {
			o = 0
		}
		dst = binary.AppendVarint(dst, int64(o))
	}
	return dst
}

// offsetsSize is the length appendOffsets writes.
func offsetsSize(offs []int32, nulls []bool) int {
	if o, same := sameOffset(offs, nulls); same {
		return 1 + varintLen(int64(o))
	}
	size := 1
	for i, o := range offs {
		if nulls != nil && nulls[i] {
			o = 0
		}
		size += varintLen(int64(o))
	}
	return size
}

// offsets reads what appendOffsets wrote, each checked to be within ±18:00.
func (r *reader[T]) offsets(n int, nulls []bool) ([]int32, error) {
	flags, err := r.byte()
	if err != nil {
		return nil, err
	}
	out := make([]int32, n)
	read := func() (int32, error) {
		o, err := r.varint()
		if err != nil {
			return 0, err
		}
		if o < -MaxOffsetSec || o > MaxOffsetSec {
			return 0, corrupt("zone offset of %d seconds", o)
		}
		return int32(o), nil
	}
	switch flags {
	case 0:
		o, err := read()
		if err != nil {
			return nil, err
		}
		for i := range out {
			if nulls == nil || !nulls[i] {
				out[i] = o
			}
		}
	case tsOffsets:
		if n > r.left() { // a varint takes a byte at least
			return nil, ErrTruncated
		}
		for i := range out {
			if out[i], err = read(); err != nil {
				return nil, err
			}
			if nulls != nil && nulls[i] {
				out[i] = 0
			}
		}
	default:
		return nil, corrupt("timestamp_tz offset flags %#x", flags)
	}
	return out, nil
}
