package console

import (
	"encoding/base64"
	"math"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// Rendering follows ConsoleSinkWriter.fieldToString:
//
//	ARRAY, BYTES -> each element String.valueOf'd, as a List's toString: [1, 2]
//	               (bytes are Java's signed bytes: [97, -1])
//	MAP          -> JsonUtils.toJsonString (Jackson): {"k":"v","n":1}
//	ROW          -> each field through fieldToString, as a List's toString
//	other        -> String.valueOf: Java's toString of the value
//
// Where Java would print an object identity ("[Ljava.lang.Object;@1b6d3586"
// for an array inside an array) or fail (Jackson on a LocalDate inside a
// map), stactor prints the value readably instead: arrays as [a, b], dates
// and times in JSON as ISO strings, nested rows in JSON as arrays.

// appendField renders value i of column c (not null) as fieldToString does.
func appendField(buf []byte, t *row.Type, c *row.Column, i int) []byte {
	switch t.ID {
	case row.TypeString:
		return append(buf, c.Str(i)...)
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return strconv.AppendInt(buf, c.Ints[i], 10)
	case row.TypeDouble:
		return append(buf, row.JavaFloat(c.Floats[i], 64)...)
	case row.TypeFloat:
		return append(buf, row.JavaFloat(c.Floats[i], 32)...)
	case row.TypeBoolean:
		return strconv.AppendBool(buf, c.Bools[i])
	case row.TypeDate:
		return row.AppendDate(buf, c.Ints[i])
	case row.TypeTimestamp:
		return row.AppendJavaTimestamp(buf, c.Secs[i], c.Nanos[i])
	case row.TypeTimestampTZ: // OffsetDateTime.toString: 2024-01-01T10:00+08:00
		return row.AppendJavaTimestampTZ(buf, c.Secs[i], c.Nanos[i], c.Offs[i])
	}
	return appendValue(buf, t, c.Value(i))
}

// appendValue is fieldToString for a boxed value.
func appendValue(buf []byte, t *row.Type, v any) []byte {
	if v == nil {
		return append(buf, "null"...)
	}
	switch t.ID {
	case row.TypeBytes:
		return appendBytes(buf, v.([]byte))
	case row.TypeArray:
		xs := v.([]any)
		buf = append(buf, '[')
		for k, e := range xs {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJava(buf, t.Elem, e)
		}
		return append(buf, ']')
	case row.TypeMap:
		return appendJSON(buf, t, v)
	case row.TypeRow:
		xs := v.([]any)
		buf = append(buf, '[')
		for k, e := range xs {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			var ft *row.Type
			if k < len(t.Fields) {
				ft = t.Fields[k].Type
			}
			if ft == nil {
				buf = appendJava(buf, nil, e)
			} else {
				buf = appendValue(buf, ft, e)
			}
		}
		return append(buf, ']')
	}
	return appendJava(buf, t, v)
}

// appendBytes is a byte[] as Arrays of Java's signed bytes: [97, -1].
func appendBytes(buf []byte, b []byte) []byte {
	buf = append(buf, '[')
	for k, x := range b {
		if k > 0 {
			buf = append(buf, ", "...)
		}
		buf = strconv.AppendInt(buf, int64(int8(x)), 10)
	}
	return append(buf, ']')
}

// appendJava is String.valueOf(v): Java's toString of the boxed value.
// t may be nil when the type is not known.
func appendJava(buf []byte, t *row.Type, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...)
	case string:
		return append(buf, x...)
	case bool:
		return strconv.AppendBool(buf, x)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case float64:
		if t != nil && t.ID == row.TypeFloat {
			return append(buf, row.JavaFloat(x, 32)...)
		}
		return append(buf, row.JavaFloat(x, 64)...)
	case decimal.Decimal:
		return append(buf, decimalText(x, t)...)
	case []byte:
		return appendBytes(buf, x)
	case time.Duration, time.Time:
		id := row.TypeTimestamp
		if tm, ok := v.(time.Time); ok && tm.Location() != time.UTC {
			id = row.TypeTimestampTZ // boxed timestamps are UTC
		}
		if t != nil {
			id = t.ID
		}
		if _, ok := v.(time.Duration); ok {
			id = row.TypeTime
		}
		return append(buf, row.Text(&row.Type{ID: id}, v)...)
	case *row.MapValue: // HashMap.toString: {k=v, k2=v2}
		var kt, vt *row.Type
		if t != nil && t.ID == row.TypeMap {
			kt, vt = t.Key, t.Elem
		}
		buf = append(buf, '{')
		for k := range x.Keys {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJava(buf, kt, x.Keys[k])
			buf = append(buf, '=')
			buf = appendJava(buf, vt, x.Values[k])
		}
		return append(buf, '}')
	case []any:
		if t != nil && t.ID == row.TypeRow { // SeaTunnelRow.toString
			buf = append(buf, "SeaTunnelRow{tableId=, kind=+I, fields=["...)
			for k, e := range x {
				if k > 0 {
					buf = append(buf, ", "...)
				}
				var ft *row.Type
				if k < len(t.Fields) {
					ft = t.Fields[k].Type
				}
				buf = appendJava(buf, ft, e)
			}
			return append(buf, "]}"...)
		}
		var et *row.Type
		if t != nil && t.ID == row.TypeArray {
			et = t.Elem
		}
		buf = append(buf, '[')
		for k, e := range x {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJava(buf, et, e)
		}
		return append(buf, ']')
	}
	return append(buf, row.Text(t, v)...)
}

// decimalText is Java's BigDecimal.toString of d at the scale of t (d's
// own scale when t is not a decimal type).
func decimalText(d decimal.Decimal, t *row.Type) string {
	if t != nil && t.ID == row.TypeDecimal {
		return row.JavaDecimal(d, t.Scale)
	}
	return row.JavaDecimal(d, -int(d.Exponent()))
}

// appendJSON is Jackson's rendering of a value (JsonUtils.toJsonString).
func appendJSON(buf []byte, t *row.Type, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...)
	case string:
		return row.AppendJSONString(buf, x)
	case bool:
		return strconv.AppendBool(buf, x)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case float64:
		bits := 64
		if t != nil && t.ID == row.TypeFloat {
			bits = 32
		}
		s := row.JavaFloat(x, bits)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return row.AppendJSONString(buf, s) // Jackson writes non-finite numbers as strings
		}
		return append(buf, s...)
	case decimal.Decimal:
		return append(buf, decimalText(x, t)...)
	case []byte:
		return row.AppendJSONString(buf, base64.StdEncoding.EncodeToString(x))
	case time.Time, time.Duration:
		return row.AppendJSONString(buf, string(appendJava(nil, t, v)))
	case *row.MapValue:
		var kt, vt *row.Type
		if t != nil && t.ID == row.TypeMap {
			kt, vt = t.Key, t.Elem
		}
		buf = append(buf, '{')
		for k := range x.Keys {
			if k > 0 {
				buf = append(buf, ',')
			}
			buf = row.AppendJSONString(buf, string(appendJava(nil, kt, x.Keys[k]))) // keys are strings in JSON
			buf = append(buf, ':')
			buf = appendJSON(buf, vt, x.Values[k])
		}
		return append(buf, '}')
	case []any:
		buf = append(buf, '[')
		for k, e := range x {
			if k > 0 {
				buf = append(buf, ',')
			}
			var et *row.Type
			switch {
			case t != nil && t.ID == row.TypeArray:
				et = t.Elem
			case t != nil && t.ID == row.TypeRow && k < len(t.Fields):
				et = t.Fields[k].Type
			}
			buf = appendJSON(buf, et, e)
		}
		return append(buf, ']')
	}
	return row.AppendJSONString(buf, row.Text(t, v))
}
