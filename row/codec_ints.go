package row

// Integer framing: int columns are packed frame-of-reference (see codec.go).

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// intFrame is the base and byte width of ints packed frame-of-reference:
// the least value that is not null, and the bytes the largest distance from
// it needs (at least 1, so that every row costs input when decoding).
func intFrame[I int32 | int64](v []I, nulls []bool) (base int64, width int) {
	var lo, hi I
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
	return int64(lo), max(1, (bits.Len64(uint64(int64(hi)-int64(lo)))+7)/8)
}

func appendInts[I int32 | int64](dst []byte, v []I, nulls []bool) []byte {
	base, w := intFrame(v, nulls)
	dst = binary.AppendVarint(dst, base)
	dst = append(dst, byte(w))
	start := len(dst)
	dst = slices.Grow(dst, len(v)*w+8)
	out := dst[start : start+len(v)*w+8]
	switch {
	case nulls != nil:
		for i, x := range v {
			d := uint64(int64(x) - base)
			if nulls[i] {
				d = 0
			}
			binary.LittleEndian.PutUint64(out[i*w:], d)
		}
	case w == 1:
		for i, x := range v {
			out[i] = byte(int64(x) - base)
		}
	case w == 2:
		for i, x := range v {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(int64(x)-base))
		}
	case w == 4:
		for i, x := range v {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(int64(x)-base))
		}
	case w == 8:
		for i, x := range v {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(int64(x)-base))
		}
	default:
		// Each 8-byte store's high bytes are zero and are overwritten by
		// the next value or cut off below.
		for i, x := range v {
			binary.LittleEndian.PutUint64(out[i*w:], uint64(int64(x)-base))
		}
	}
	return dst[:start+len(v)*w]
}

func le64[T []byte | string](b T, p int) uint64 {
	_ = b[p+7]
	return uint64(b[p]) | uint64(b[p+1])<<8 | uint64(b[p+2])<<16 | uint64(b[p+3])<<24 |
		uint64(b[p+4])<<32 | uint64(b[p+5])<<40 | uint64(b[p+6])<<48 | uint64(b[p+7])<<56
}

// frame reads an int framing's base and width (1..maxWidth) and checks that
// the n values' bytes follow.
func (r *reader[T]) frame(n, maxWidth int) (base int64, w int, err error) {
	if base, err = r.varint(); err != nil {
		return 0, 0, err
	}
	w8, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	if w = int(w8); w < 1 || w > maxWidth {
		return 0, 0, corrupt("int width %d", w)
	}
	if n*w > r.left() {
		return 0, 0, ErrTruncated
	}
	return base, w, nil
}

func (r *reader[T]) ints(n int, nulls []bool) ([]int64, error) {
	base, w, err := r.frame(n, 8)
	if err != nil {
		return nil, err
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
// nanoseconds int-framed.
func appendTimestamps(dst []byte, c *Column, n int, nulls []bool) []byte {
	dst = appendInts(dst, c.Secs[:n], nulls)
	if !nanosNonZero(c.Nanos[:n], nulls) {
		return append(dst, 0)
	}
	return appendInts(append(dst, tsNanos), c.Nanos[:n], nulls)
}

// timestampsSize is the length appendTimestamps writes.
func timestampsSize(c *Column, n int, nulls []bool) int {
	base, w := intFrame(c.Secs[:n], nulls)
	size := varintLen(base) + 1 + n*w + 1
	if nanosNonZero(c.Nanos[:n], nulls) {
		base, w = intFrame(c.Nanos[:n], nulls)
		size += varintLen(base) + 1 + n*w
	}
	return size
}

// timestamps reads what appendTimestamps wrote, or, in a version 1
// encoding, the int-framed nanoseconds since the epoch that it held then.
func (r *reader[T]) timestamps(n int, nulls []bool) (secs []int64, nanos []int32, err error) {
	if r.ver == 1 {
		ns, err := r.ints(n, nulls)
		if err != nil {
			return nil, nil, err
		}
		nanos = make([]int32, n)
		for i, x := range ns {
			ns[i], nanos[i] = TimestampFromNanos(x)
		}
		return ns, nanos, nil
	}
	if secs, err = r.ints(n, nulls); err != nil {
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

// nanos reads int-framed nanoseconds straight into int32s, each checked to
// be below a second.
func (r *reader[T]) nanos(n int, nulls []bool) ([]int32, error) {
	base, w, err := r.frame(n, 4)
	if err != nil {
		return nil, err
	}
	if base < 0 || base >= 1e9 {
		return nil, corrupt("nanoseconds from %d", base)
	}
	src := r.b[r.p : r.p+n*w]
	out := make([]int32, n)
	bad := false
	for i := range out {
		var d uint32
		for k := w - 1; k >= 0; k-- {
			d = d<<8 | uint32(src[i*w+k])
		}
		x := base + int64(d)
		bad = bad || x >= 1e9
		out[i] = int32(x)
	}
	if bad {
		return nil, corrupt("nanoseconds of a second or more")
	}
	r.p += n * w
	for i, null := range nulls {
		if null {
			out[i] = 0
		}
	}
	return out, nil
}
