package orc

import (
	"encoding/binary"
	"math/big"
	"math/bits"
)

// appendByteRLE encodes bytes with byte RLE: runs of 3 to 130 equal bytes,
// literal groups of up to 128.
func appendByteRLE(dst, vals []byte) []byte {
	for i := 0; i < len(vals); {
		r := 1
		for i+r < len(vals) && vals[i+r] == vals[i] && r < 130 {
			r++
		}
		if r >= 3 {
			dst = append(dst, byte(r-3), vals[i])
			i += r
			continue
		}
		j := i
		for j < len(vals) && j-i < 128 {
			if j+2 < len(vals) && vals[j] == vals[j+1] && vals[j] == vals[j+2] {
				break
			}
			j++
		}
		dst = append(dst, byte(-int8(j-i)))
		dst = append(dst, vals[i:j]...)
		i = j
	}
	return dst
}

// appendBoolRLE packs booleans most significant bit first, the last byte
// padded with zeros, then byte RLE.
func appendBoolRLE(dst []byte, vals []bool) []byte {
	packed := make([]byte, (len(vals)+7)/8)
	for i, v := range vals {
		if v {
			packed[i/8] |= 0x80 >> (i % 8)
		}
	}
	return appendByteRLE(dst, packed)
}

// directWidths are the bit widths a DIRECT run uses, and their 5-bit codes.
var directWidths = [...][2]int{{1, 0}, {2, 1}, {4, 3}, {8, 7}, {16, 15}, {24, 23}, {32, 27}, {40, 28}, {48, 29}, {56, 30}, {64, 31}}

// appendRLEv2 encodes integers with RLE v2: SHORT_REPEAT for 3 to 10
// equal values, DELTA (fixed delta 0) for longer runs of equal values,
// DIRECT for the rest. signed values are zigzag-encoded.
func appendRLEv2(dst []byte, vals []int64, signed bool) []byte {
	enc := func(v int64) uint64 {
		if signed {
			return zigzag(v)
		}
		return uint64(v)
	}
	for i := 0; i < len(vals); {
		r := 1
		for i+r < len(vals) && vals[i+r] == vals[i] && r < 512 {
			r++
		}
		if r >= 3 {
			u := enc(vals[i])
			if r <= 10 {
				w := max(1, (bits.Len64(u)+7)/8)
				dst = append(dst, byte((w-1)<<3|(r-3)))
				for k := w - 1; k >= 0; k-- {
					dst = append(dst, byte(u>>(8*k)))
				}
			} else {
				dst = append(dst, 3<<6|byte((r-1)>>8&1), byte(r-1))
				dst = binary.AppendUvarint(dst, u)
				dst = append(dst, 0) // delta 0
			}
			i += r
			continue
		}
		j := i
		for j < len(vals) && j-i < 512 {
			if j+2 < len(vals) && vals[j] == vals[j+1] && vals[j] == vals[j+2] {
				break
			}
			j++
		}
		n := j - i
		need := 0
		for _, v := range vals[i:j] {
			need = max(need, bits.Len64(enc(v)))
		}
		w, code := 64, 31
		for _, d := range directWidths {
			if d[0] >= need {
				w, code = d[0], d[1]
				break
			}
		}
		dst = append(dst, 1<<6|byte(code<<1)|byte((n-1)>>8&1), byte(n-1))
		var acc uint64
		nacc := 0
		for _, v := range vals[i:j] {
			u := enc(v)
			for left := w; left > 0; {
				take := min(left, 8-nacc)
				acc = acc<<take | (u>>(left-take))&(1<<take-1)
				nacc += take
				left -= take
				if nacc == 8 {
					dst = append(dst, byte(acc))
					acc, nacc = 0, 0
				}
			}
		}
		if nacc > 0 {
			dst = append(dst, byte(acc<<(8-nacc)))
		}
		i = j
	}
	return dst
}

// appendDecimal writes an unscaled decimal value as an unbounded zigzag
// varint.
func appendDecimal(dst []byte, u *big.Int) []byte {
	z := new(big.Int).Lsh(u, 1)
	if u.Sign() < 0 {
		z.Neg(z)
		z.Sub(z, big.NewInt(1))
	}
	if z.IsUint64() {
		return binary.AppendUvarint(dst, z.Uint64())
	}
	mask := big.NewInt(0x7f)
	var b big.Int
	for {
		b.And(z, mask)
		z.Rsh(z, 7)
		if z.Sign() == 0 {
			return append(dst, byte(b.Uint64()))
		}
		dst = append(dst, byte(b.Uint64())|0x80)
	}
}

// formatNanos folds a timestamp's trailing decimal zeros into its low 3
// bits, as ORC's writers do.
func formatNanos(ns int64) int64 {
	if ns == 0 {
		return 0
	}
	if ns%100 != 0 {
		return ns << 3
	}
	ns /= 100
	z := int64(1)
	for ns%10 == 0 && z < 7 {
		ns /= 10
		z++
	}
	return ns<<3 | z
}
