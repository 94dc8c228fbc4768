package row

// Java's renderings of values: SeaTunnel prints doubles, decimals and times
// with Java's toString, and every connector that writes text must print
// them the same way. This file is the one copy of each.

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// JavaFloat formats f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) does: at least one digit after the point, and
// scientific notation outside [1e-3, 1e7).
func JavaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.ContainsRune(s, '.') {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits) // 1.5E+10
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.ContainsRune(mant, '.') {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// JavaTime formats a time of day as Java's LocalTime.toString: HH:mm,
// HH:mm:ss, or with a fraction of 3, 6 or 9 digits.
func JavaTime(d time.Duration) string {
	ns := int64(d)
	h, m, s, frac := ns/int64(time.Hour), ns/int64(time.Minute)%60, ns/int64(time.Second)%60, ns%int64(time.Second)
	out := fmt.Sprintf("%02d:%02d", h, m)
	if s == 0 && frac == 0 {
		return out
	}
	out += fmt.Sprintf(":%02d", s)
	switch {
	case frac == 0:
	case frac%1e6 == 0:
		out += fmt.Sprintf(".%03d", frac/1e6)
	case frac%1e3 == 0:
		out += fmt.Sprintf(".%06d", frac/1e3)
	default:
		out += fmt.Sprintf(".%09d", frac)
	}
	return out
}

// pow10 are the powers of ten that fit an int64.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// JavaDecimal renders d rounded to scale (half away from zero) as Java's
// BigDecimal.toString does: plain digits when the scale is 0, or positive
// with an adjusted exponent of -6 or more; otherwise scientific notation
// (0.00000001 at scale 8 is 1E-8, zero at scale 8 is 0E-8, 1000 at scale -3
// is 1E+3). SeaTunnel's csv, json and console output print decimals this
// way, at the column type's scale.
func JavaDecimal(d decimal.Decimal, scale int) string {
	var buf [40]byte
	return string(AppendJavaDecimal(buf[:0], d, scale))
}

// AppendJavaDecimal appends JavaDecimal(d, scale) to b; it allocates
// nothing when d's digits at scale fit an int64.
func AppendJavaDecimal(b []byte, d decimal.Decimal, scale int) []byte {
	if e := int(d.Exponent()) + scale; e >= 0 && e < len(pow10) && d.NumDigits() <= 18-e {
		u := d.CoefficientInt64() * pow10[e]
		neg := u < 0
		if neg {
			u = -u
		}
		var tmp [20]byte
		return appendJavaDigits(b, neg, strconv.AppendInt(tmp[:0], u, 10), scale)
	}
	d = d.Round(int32(scale)) // its exponent is now -scale
	c := d.Coefficient()
	neg := c.Sign() < 0
	return appendJavaDigits(b, neg, new(big.Int).Abs(c).Append(nil, 10), scale)
}

// appendJavaDigits lays out an unscaled magnitude's digits at scale as
// BigDecimal.layoutChars does.
func appendJavaDigits(b []byte, neg bool, digits []byte, scale int) []byte {
	if neg {
		b = append(b, '-')
	}
	if scale == 0 {
		return append(b, digits...)
	}
	adjusted := -scale + len(digits) - 1
	switch {
	case scale > 0 && adjusted >= -6 && len(digits) <= scale:
		b = append(b, '0', '.')
		for i := len(digits); i < scale; i++ {
			b = append(b, '0')
		}
		return append(b, digits...)
	case scale > 0 && adjusted >= -6:
		b = append(b, digits[:len(digits)-scale]...)
		b = append(b, '.')
		return append(b, digits[len(digits)-scale:]...)
	}
	b = append(b, digits[0])
	if len(digits) > 1 {
		b = append(b, '.')
		b = append(b, digits[1:]...)
	}
	if adjusted != 0 { // never 0 here, but Java checks it
		b = append(b, 'E')
		if adjusted > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(adjusted), 10)
	}
	return b
}
