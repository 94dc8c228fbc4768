package localfile

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// fitDecimal rounds d to t's scale and checks that it fits t's precision,
// as row.Convert does for every other source.
func fitDecimal(t *row.Type, d decimal.Decimal) (decimal.Decimal, error) {
	d = d.Round(int32(t.Scale))
	if ip := d.Truncate(0).Abs().String(); ip != "0" && len(ip) > t.Precision-t.Scale {
		return d, fmt.Errorf("%s does not fit %s: more than %d digits before the point", d.String(), t, t.Precision-t.Scale)
	}
	return d, nil
}

// unscaled is d as an integer times 10^-scale.
func unscaled(d decimal.Decimal, scale int) *big.Int {
	d = d.Round(int32(scale))
	c := new(big.Int).Set(d.Coefficient())
	if e := int(d.Exponent()) + scale; e > 0 {
		c.Mul(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil))
	} else if e < 0 {
		c.Quo(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-e)), nil))
	}
	return c
}

// pow10 are the powers of ten that fit an int64.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// unscaled64 is unscaled for values whose digits fit an int64 without
// rounding: the common case, with no big.Int.
func unscaled64(d decimal.Decimal, scale int) (int64, bool) {
	e := int(d.Exponent()) + scale
	if e < 0 || e >= len(pow10) || d.NumDigits() > 18-e {
		return 0, false
	}
	return d.CoefficientInt64() * pow10[e], true
}

// appendJavaDecimal appends javaDecimal(d, scale).
func appendJavaDecimal(b []byte, d decimal.Decimal, scale int) []byte {
	u, ok := unscaled64(d, scale)
	if !ok {
		return append(b, javaDecimal(d, scale)...)
	}
	if u < 0 {
		b = append(b, '-')
		u = -u
	}
	var tmp [20]byte
	digits := strconv.AppendInt(tmp[:0], u, 10)
	adjusted := -scale + len(digits) - 1
	switch {
	case scale == 0:
		return append(b, digits...)
	case adjusted >= -6 && len(digits) <= scale:
		b = append(b, '0', '.')
		for i := len(digits); i < scale; i++ {
			b = append(b, '0')
		}
		return append(b, digits...)
	case adjusted >= -6:
		b = append(b, digits[:len(digits)-scale]...)
		b = append(b, '.')
		return append(b, digits[len(digits)-scale:]...)
	}
	b = append(b, digits[0])
	if len(digits) > 1 {
		b = append(b, '.')
		b = append(b, digits[1:]...)
	}
	b = append(b, 'E')
	return strconv.AppendInt(b, int64(adjusted), 10)
}

// javaDecimal renders d at the given scale as Java's BigDecimal.toString:
// plain unless the adjusted exponent is below -6 (0.00000001 at scale 8 is
// 1E-8). SeaTunnel's csv and json writers print decimals this way.
func javaDecimal(d decimal.Decimal, scale int) string {
	u := unscaled(d, scale)
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	adjusted := -scale + len(digits) - 1
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if scale == 0 {
		b.WriteString(digits)
		return b.String()
	}
	if adjusted >= -6 {
		if len(digits) <= scale {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", scale-len(digits)))
			b.WriteString(digits)
		} else {
			b.WriteString(digits[:len(digits)-scale])
			b.WriteByte('.')
			b.WriteString(digits[len(digits)-scale:])
		}
		return b.String()
	}
	b.WriteByte(digits[0])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	fmt.Fprintf(&b, "E%d", adjusted)
	return b.String()
}

// plainDecimal is Java's stripTrailingZeros().toPlainString(), SeaTunnel's
// text rendering of decimals.
func plainDecimal(d decimal.Decimal) string { return d.String() }
