package sqlengine

import (
	"strconv"
	"time"

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
		return append(buf, row.JavaDecimal(v.d, t.Scale)...)
	case row.TypeBytes:
		return append(buf, v.bin...)
	case row.TypeDate:
		return appendDate(buf, v.i)
	case row.TypeTime:
		return append(buf, row.JavaTime(time.Duration(v.i))...)
	case row.TypeTimestamp:
		return row.AppendJavaTimestamp(buf, v.i, v.nano)
	case row.TypeTimestampTZ:
		return row.AppendJavaTimestampTZ(buf, v.i, v.nano, v.off)
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

const (
	nanosPerDay = int64(24 * time.Hour)
	secsPerDay  = 86400
)

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func appendDate(buf []byte, days int64) []byte { return row.AppendDate(buf, days) }
