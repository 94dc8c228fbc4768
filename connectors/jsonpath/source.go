package jsonpath

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// sourceJSON turns a src_field value into the document the path reads.
// SeaTunnel's JsonPathTransform parses a string (or bytes) as JSON text, and
// serializes an array, a map or a row (its fields, as a JSON array) with
// Jackson before Jayway parses that text again; building the document
// directly gives the same values without the round trip.
func sourceJSON(t *row.Type, v any) (any, error) {
	switch x := v.(type) {
	case string:
		return parseJSON(x)
	case []byte:
		return parseJSON(string(x))
	}
	return toJSON(t, v), nil
}

// toJSON is a boxed value of type t as the JSON Jackson would write for it,
// read back as json-smart would: numbers through their Java text, bytes as
// base64, nested rows as arrays of their fields. Dates and times become
// their ISO text.
func toJSON(t *row.Type, v any) any {
	switch x := v.(type) {
	case nil, bool, string:
		return x
	case int64:
		return intNumber(x)
	case float64:
		bits := 64
		if t != nil && t.ID == row.TypeFloat {
			bits = 32
		}
		n, err := parseNumber(row.JavaFloat(x, bits))
		if err != nil { // NaN, Infinity: Jackson writes them as strings
			return row.JavaFloat(x, bits)
		}
		return n
	case decimal.Decimal:
		lit := x.String()
		if t != nil && t.ID == row.TypeDecimal {
			lit = x.StringFixed(int32(t.Scale))
		}
		n, err := parseNumber(lit)
		if err != nil {
			return lit
		}
		return n
	case []byte:
		return row.Base64(x)
	case time.Time, time.Duration:
		return row.Text(t, x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var et *row.Type
			switch {
			case t != nil && t.ID == row.TypeArray:
				et = t.Elem
			case t != nil && t.ID == row.TypeRow && i < len(t.Fields):
				et = t.Fields[i].Type
			}
			out[i] = toJSON(et, e)
		}
		return out
	case *row.MapValue:
		var kt, vt *row.Type
		if t != nil && t.ID == row.TypeMap {
			kt, vt = t.Key, t.Elem
		}
		o := &object{}
		for i, k := range x.Keys {
			o.set(row.Text(kt, k), toJSON(vt, x.Values[i]))
		}
		return o
	}
	return row.Text(t, v)
}
