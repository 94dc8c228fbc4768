package sqlengine

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// appendJava appends what Java's toString gives for value v of type t:
// SeaTunnel's CAST(x AS STRING), CONCAT and TO_CHAR print values that way
// (1.0 for a double, 2024-01-31T12:30 for a timestamp). Bytes print as
// their text rather than Java's "[B@1b6d3586".
func appendJava(buf []byte, t *row.Type, v *val) []byte {
	if v.null {
		return append(buf, "null"...)
	}
	switch t.ID {
	case row.TypeString:
		return append(buf, v.s...)
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return strconv.AppendInt(buf, v.i, 10)
	case row.TypeDouble:
		return append(buf, row.JavaFloat(v.f, 64)...)
	case row.TypeFloat:
		return append(buf, row.JavaFloat(v.f, 32)...)
	case row.TypeBoolean:
		return strconv.AppendBool(buf, v.b)
	case row.TypeDecimal:
		return append(buf, javaDecimal(v.d, t.Scale)...)
	case row.TypeBytes:
		return append(buf, v.bin...)
	case row.TypeDate:
		return appendDate(buf, v.i)
	case row.TypeTime:
		return append(buf, row.JavaTime(time.Duration(v.i))...)
	case row.TypeTimestamp:
		return appendTimestamp(buf, v.i)
	case row.TypeNull:
		return append(buf, "null"...)
	}
	return append(buf, row.Text(t, v.a)...)
}

func javaString(t *row.Type, v *val) string {
	if t.ID == row.TypeString && !v.null {
		return v.s
	}
	return string(appendJava(nil, t, v))
}

const nanosPerDay = int64(24 * time.Hour)

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func appendDate(buf []byte, days int64) []byte {
	return time.Unix(days*86400, 0).UTC().AppendFormat(buf, "2006-01-02")
}

func appendTimestamp(buf []byte, ns int64) []byte {
	buf = appendDate(buf, floorDiv(ns, nanosPerDay))
	buf = append(buf, 'T')
	return append(buf, row.JavaTime(time.Duration(floorMod(ns, nanosPerDay)))...)
}

// javaDecimal renders d at the given scale as Java's BigDecimal.toString:
// plain digits, or scientific notation when the adjusted exponent is
// below -6 (0E-8 for a zero at scale 8).
func javaDecimal(d decimal.Decimal, scale int) string {
	if -int(d.Exponent()) != scale {
		d = d.Round(int32(scale))
	}
	coeff := new(big.Int).Set(d.Coefficient())
	sc := -int(d.Exponent())
	neg := coeff.Sign() < 0
	digits := coeff.Abs(coeff).String()
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if sc == 0 {
		b.WriteString(digits)
		return b.String()
	}
	adjusted := -sc + len(digits) - 1
	if sc > 0 && adjusted >= -6 {
		if pad := sc - len(digits); pad >= 0 {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", pad))
			b.WriteString(digits)
		} else {
			b.WriteString(digits[:len(digits)-sc])
			b.WriteByte('.')
			b.WriteString(digits[len(digits)-sc:])
		}
		return b.String()
	}
	b.WriteString(digits[:1])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('E')
	if adjusted >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.Itoa(adjusted))
	return b.String()
}

// decimalString renders d with its own scale, as BigDecimal.toString.
func decimalString(d decimal.Decimal) string {
	sc := -int(d.Exponent())
	if sc < 0 {
		d = d.Round(0)
		sc = 0
	}
	return javaDecimal(d, sc)
}
