package orc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
)

// errEOS: a stream ended before the values its column needs.
var errEOS = errors.New("stream ends before its values")

// byteReader decodes byte RLE: a control byte 0..127 is a run of
// control+3 copies of the next byte, -128..-1 that many literal bytes.
type byteReader struct {
	b       []byte
	run     int // values left in the current group
	literal bool
	val     byte
}

func (r *byteReader) next() (byte, error) {
	if r.run == 0 {
		if len(r.b) < 2 {
			return 0, errEOS
		}
		c := int8(r.b[0])
		if c >= 0 {
			r.run, r.literal, r.val = int(c)+3, false, r.b[1]
			r.b = r.b[2:]
		} else {
			r.run, r.literal = -int(c), true
			r.b = r.b[1:]
		}
	}
	r.run--
	if !r.literal {
		return r.val, nil
	}
	if len(r.b) == 0 {
		return 0, errEOS
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v, nil
}

// boolReader decodes booleans: bits of byte RLE bytes, most significant
// first.
type boolReader struct {
	bytes byteReader
	cur   byte
	left  int
}

func (r *boolReader) next() (bool, error) {
	if r.left == 0 {
		b, err := r.bytes.next()
		if err != nil {
			return false, err
		}
		r.cur, r.left = b, 8
	}
	r.left--
	return r.cur>>r.left&1 == 1, nil
}

// intReader decodes a stream of integers.
type intReader interface {
	next() (int64, error)
}

func newIntReader(b []byte, signed bool, enc encoding) intReader {
	if enc == encDirectV2 || enc == encDictionaryV2 {
		return &rleV2{b: b, signed: signed}
	}
	return &rleV1{b: b, signed: signed}
}

func varint(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		if n == 0 {
			return 0, 0, errEOS
		}
		return 0, 0, fmt.Errorf("varint overflows 64 bits")
	}
	return v, n, nil
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// rleV1 decodes integer RLE version 1.
type rleV1 struct {
	b       []byte
	signed  bool
	run     int
	literal bool
	val     int64
	delta   int64
}

func (r *rleV1) read() (int64, error) {
	u, n, err := varint(r.b)
	if err != nil {
		return 0, err
	}
	r.b = r.b[n:]
	if r.signed {
		return unzigzag(u), nil
	}
	return int64(u), nil
}

func (r *rleV1) next() (int64, error) {
	if r.run == 0 {
		if len(r.b) == 0 {
			return 0, errEOS
		}
		c := int8(r.b[0])
		r.b = r.b[1:]
		if c >= 0 {
			if len(r.b) == 0 {
				return 0, errEOS
			}
			r.run, r.literal, r.delta = int(c)+3, false, int64(int8(r.b[0]))
			r.b = r.b[1:]
			v, err := r.read()
			if err != nil {
				return 0, err
			}
			r.val = v
			r.run--
			return v, nil
		}
		r.run, r.literal = -int(c), true
	}
	r.run--
	if r.literal {
		return r.read()
	}
	r.val += r.delta
	return r.val, nil
}

// rleV2 decodes integer RLE version 2, a run (at most 512 values) at a
// time.
type rleV2 struct {
	b      []byte
	signed bool
	vals   [512]int64
	n, i   int
}

func (r *rleV2) next() (int64, error) {
	if r.i == r.n {
		if err := r.decodeRun(); err != nil {
			return 0, err
		}
	}
	v := r.vals[r.i]
	r.i++
	return v, nil
}

// widths is the 5-bit width encoding of RLE v2.
func decodeWidth(e int) int {
	switch {
	case e <= 23:
		return e + 1
	case e == 24:
		return 26
	case e == 25:
		return 28
	case e == 26:
		return 30
	case e == 27:
		return 32
	case e == 28:
		return 40
	case e == 29:
		return 48
	case e == 30:
		return 56
	}
	return 64
}

// bitReader reads big-endian bit-packed values.
type bitReader struct {
	b    []byte
	pos  int // bit position
	size int // bits in b
}

func (br *bitReader) read(w int) uint64 {
	var v uint64
	for w > 0 {
		byteI, off := br.pos>>3, br.pos&7
		take := min(8-off, w)
		cur := uint64(br.b[byteI]>>(8-off-take)) & (1<<take - 1)
		v = v<<take | cur
		br.pos += take
		w -= take
	}
	return v
}

// unpack reads n values of w bits from r.b into dst (as unsigned).
func (r *rleV2) unpack(dst []int64, w int) error {
	need := (len(dst)*w + 7) / 8
	if need > len(r.b) {
		return errEOS
	}
	br := bitReader{b: r.b[:need]}
	for i := range dst {
		dst[i] = int64(br.read(w))
	}
	r.b = r.b[need:]
	return nil
}

func (r *rleV2) decodeRun() error {
	if len(r.b) == 0 {
		return errEOS
	}
	h := r.b[0]
	r.i = 0
	switch h >> 6 {
	case 0: // short repeat
		w, count := int(h>>3&7)+1, int(h&7)+3
		if len(r.b) < 1+w {
			return errEOS
		}
		var u uint64
		for _, c := range r.b[1 : 1+w] {
			u = u<<8 | uint64(c)
		}
		r.b = r.b[1+w:]
		v := int64(u)
		if r.signed {
			v = unzigzag(u)
		}
		for k := 0; k < count; k++ {
			r.vals[k] = v
		}
		r.n = count
	case 1: // direct
		if len(r.b) < 2 {
			return errEOS
		}
		w := decodeWidth(int(h >> 1 & 0x1f))
		n := (int(h&1)<<8 | int(r.b[1])) + 1
		r.b = r.b[2:]
		if err := r.unpack(r.vals[:n], w); err != nil {
			return err
		}
		if r.signed {
			for k := range r.vals[:n] {
				r.vals[k] = unzigzag(uint64(r.vals[k]))
			}
		}
		r.n = n
	case 2: // patched base
		return r.patchedBase()
	case 3: // delta
		if len(r.b) < 2 {
			return errEOS
		}
		ew := int(h >> 1 & 0x1f)
		w := 0
		if ew != 0 {
			w = decodeWidth(ew)
		}
		n := (int(h&1)<<8 | int(r.b[1])) + 1
		r.b = r.b[2:]
		u, k, err := varint(r.b)
		if err != nil {
			return err
		}
		r.b = r.b[k:]
		base := int64(u)
		if r.signed {
			base = unzigzag(u)
		}
		du, k, err := varint(r.b)
		if err != nil {
			return err
		}
		r.b = r.b[k:]
		delta := unzigzag(du)
		r.vals[0] = base
		if w == 0 {
			for j := 1; j < n; j++ {
				r.vals[j] = r.vals[j-1] + delta
			}
		} else {
			if n < 2 {
				return fmt.Errorf("RLE v2 delta run of %d values with deltas", n)
			}
			r.vals[1] = base + delta
			if err := r.unpack(r.vals[2:n], w); err != nil {
				return err
			}
			for j := 2; j < n; j++ {
				if delta < 0 {
					r.vals[j] = r.vals[j-1] - r.vals[j]
				} else {
					r.vals[j] = r.vals[j-1] + r.vals[j]
				}
			}
		}
		r.n = n
	}
	return nil
}

// closestFixedBits pads a patch's width as the specification's table.
func closestFixedBits(n int) int {
	switch {
	case n <= 24:
		return max(n, 1)
	case n <= 26:
		return 26
	case n <= 28:
		return 28
	case n <= 30:
		return 30
	case n <= 32:
		return 32
	case n <= 40:
		return 40
	case n <= 48:
		return 48
	case n <= 56:
		return 56
	}
	return 64
}

func (r *rleV2) patchedBase() error {
	if len(r.b) < 4 {
		return errEOS
	}
	h := r.b
	w := decodeWidth(int(h[0] >> 1 & 0x1f))
	n := (int(h[0]&1)<<8 | int(h[1])) + 1
	bw := int(h[2]>>5&7) + 1
	pw := decodeWidth(int(h[2] & 0x1f))
	pgw := int(h[3]>>5&7) + 1
	pll := int(h[3] & 0x1f)
	r.b = r.b[4:]
	if len(r.b) < bw {
		return errEOS
	}
	var ub uint64
	for _, c := range r.b[:bw] {
		ub = ub<<8 | uint64(c)
	}
	r.b = r.b[bw:]
	msb := uint64(1) << (8*bw - 1)
	base := int64(ub)
	if ub&msb != 0 {
		base = -int64(ub &^ msb)
	}
	if err := r.unpack(r.vals[:n], w); err != nil {
		return err
	}
	if pgw+pw > 64 {
		return fmt.Errorf("RLE v2 patch of %d bits", pgw+pw)
	}
	cfb := closestFixedBits(pgw + pw)
	patches := make([]int64, pll)
	if err := r.unpack(patches, cfb); err != nil {
		return err
	}
	mask := uint64(1)<<pw - 1
	if pw == 64 {
		mask = ^uint64(0)
	}
	idx := 0
	for p := 0; p < pll; p++ {
		gap := int(uint64(patches[p]) >> pw)
		patch := uint64(patches[p]) & mask
		idx += gap
		if patch == 0 {
			// a gap past 255 values is a patch of 0
			continue
		}
		if idx >= n {
			return fmt.Errorf("RLE v2 patch at value %d of a run of %d", idx, n)
		}
		if w < 64 {
			r.vals[idx] = int64(uint64(r.vals[idx]) | patch<<w)
		}
	}
	for k := range r.vals[:n] {
		r.vals[k] += base
	}
	r.n = n
	return nil
}

// readDecimal reads an unbounded zigzag varint (a decimal's unscaled
// value); at most 128 bits, as a 38-digit decimal needs.
func readDecimal(b []byte, x *big.Int) (int, error) {
	var lo, hi uint64
	shift := uint(0)
	for i := 0; ; i++ {
		if i >= len(b) {
			return 0, errEOS
		}
		if shift >= 128 {
			return 0, fmt.Errorf("decimal varint longer than 128 bits")
		}
		c := uint64(b[i] & 0x7f)
		if shift < 64 {
			lo |= c << shift
			if shift > 57 {
				hi |= c >> (64 - shift)
			}
		} else {
			hi |= c << (shift - 64)
		}
		shift += 7
		if b[i]&0x80 == 0 {
			neg := lo&1 == 1
			// unzigzag the 128-bit value: (u >> 1) ^ -(u & 1)
			lo = lo>>1 | hi<<63
			hi >>= 1
			x.SetUint64(hi)
			x.Lsh(x, 64)
			x.Or(x, new(big.Int).SetUint64(lo))
			if neg {
				x.Add(x, big.NewInt(1))
				x.Neg(x)
			}
			return i + 1, nil
		}
	}
}
