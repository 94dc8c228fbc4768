package row

// reader: bounds-checked reading of the encoding's primitives.

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// reader reads an encoding from bytes, or, for nested values, from a
// string so that strings inside them need no copy each.
type reader[T []byte | string] struct {
	b   T
	p   int
	ver byte // the encoding's version
	// recycle: decode into columns from the pool (Decoder.Recycle).
	recycle bool
	// alias: strings and byte values may point into b, which the caller
	// has handed over (Decoder.DecodeOwned).
	alias bool
}

// sharedString is b[p:p+k] as a string: a copy, or b's own bytes when the
// reader may alias them (a string reader's substrings never copy).
func (r *reader[T]) sharedString(p, k int) string {
	if b, ok := any(r.b).([]byte); ok && r.alias && k > 0 {
		return unsafe.String(&b[p], k)
	}
	return string(r.b[p : p+k])
}

// sharedBytes is b[p:p+k] as bytes of their own: a copy, unless the reader
// may alias b.
func (r *reader[T]) sharedBytes(p, k int) []byte {
	if b, ok := any(r.b).([]byte); ok && r.alias {
		return b[p : p+k : p+k]
	}
	return []byte(r.b[p : p+k])
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
