package row

// Decimals: the dec encoding of codec.go, written and read.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/shopspring/decimal"
)

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
