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

func le64[T []byte | string](b T, p int) uint64 {
	_ = b[p+7]
	return uint64(b[p]) | uint64(b[p+1])<<8 | uint64(b[p+2])<<16 | uint64(b[p+3])<<24 |
		uint64(b[p+4])<<32 | uint64(b[p+5])<<40 | uint64(b[p+6])<<48 | uint64(b[p+7])<<56
}

func (r *reader[T]) ints(dst []int64, n int, nulls []bool) ([]int64, error) {
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
	out := sized(dst, n)
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
