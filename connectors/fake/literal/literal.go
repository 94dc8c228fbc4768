// Package literal turns values written in a job file into row values of a
// given type, the way SeaTunnel reads them: FakeSource's `rows` and
// Assert's `equals_to` both go through SeaTunnel's JSON-to-row converters,
// so bytes are base64 text, a row is a list of its fields in order (or an
// object by field name), a map is an object whose keys are converted to
// the key type, and numbers, dates and times may be written as strings.
//
// It works on the parsed HOCON value rather than on plain Go values so that
// map keys keep their written order, decimals keep every written digit,
// and a mistake points at the exact nested value that caused it.
//
// It lives under connectors/fake because FakeSource and Assert share it;
// it would sit naturally in row or config.
package literal

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

// Error is a value that does not fit its type. At is the innermost value
// at fault (nil if none), for a positioned message.
type Error struct {
	At  *hocon.Value
	Msg string
}

func (e *Error) Error() string { return e.Msg }

func errAt(v *hocon.Value, format string, args ...any) error {
	return &Error{At: v, Msg: fmt.Sprintf(format, args...)}
}

// wrap prefixes the message of a nested error, keeping its position.
func wrap(err error, format string, args ...any) error {
	prefix := fmt.Sprintf(format, args...)
	if e, ok := err.(*Error); ok {
		return &Error{At: e.At, Msg: prefix + ": " + e.Msg}
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

// Convert reads v as a value of type t, in the boxed form row.Column's
// AppendValue takes (see row's Value doc). A null value, or any value for
// the null type, is nil.
//
// Like SeaTunnel's converters, a scalar where an array or a map belongs
// reads as an empty one.
func Convert(t *row.Type, v *hocon.Value) (any, error) {
	if v == nil || v.Kind == hocon.Null || t.ID == row.TypeNull {
		return nil, nil
	}
	switch t.ID {
	case row.TypeString:
		return v.String(), nil
	case row.TypeBoolean:
		switch v.Kind {
		case hocon.Bool, hocon.String:
			if b, ok := v.Bool(); ok {
				return b, nil
			}
		case hocon.Number:
			if f, ok := v.Float(); ok {
				return f != 0, nil
			}
		}
		return nil, errAt(v, "cannot use %s as boolean", describe(v))
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		if !scalar(v) || v.Kind == hocon.Bool {
			return nil, errAt(v, "cannot use %s as %s", describe(v), t)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64)
		if err != nil {
			return nil, errAt(v, "cannot use %s as %s: not an integer", describe(v), t)
		}
		if lo, hi := intRange(t.ID); n < lo || n > hi {
			return nil, errAt(v, "cannot use %s as %s: out of range %d..%d", describe(v), t, lo, hi)
		}
		return n, nil
	case row.TypeFloat, row.TypeDouble:
		if !scalar(v) || v.Kind == hocon.Bool {
			return nil, errAt(v, "cannot use %s as %s", describe(v), t)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Text), 64)
		if err != nil && !isRangeErr(err) {
			return nil, errAt(v, "cannot use %s as %s: not a number", describe(v), t)
		}
		if t.ID == row.TypeFloat {
			if math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
				return nil, errAt(v, "cannot use %s as float: out of range", describe(v))
			}
			f = float64(float32(f))
		}
		return f, nil
	case row.TypeDecimal, row.TypeDate, row.TypeTime, row.TypeTimestamp, row.TypeTimestampTZ:
		if !scalar(v) || v.Kind == hocon.Bool {
			return nil, errAt(v, "cannot use %s as %s", describe(v), t)
		}
		var in any = v.Text
		if v.Kind == hocon.Number && (t.ID == row.TypeTimestamp || t.ID == row.TypeTimestampTZ) {
			n, ok := v.Int()
			if !ok {
				return nil, errAt(v, "cannot use %s as %s: want epoch milliseconds or text", describe(v), t)
			}
			in = n
		}
		out, err := row.Convert(t, in)
		if err != nil {
			return nil, errAt(v, "%v", err)
		}
		return out, nil
	case row.TypeBytes:
		if !scalar(v) {
			return nil, errAt(v, "cannot use %s as bytes: want base64 text", describe(v))
		}
		s := strings.TrimSpace(v.Text)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return b, nil
		}
		if b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err == nil {
			return b, nil
		}
		return nil, errAt(v, "cannot use %s as bytes: not base64 (SeaTunnel reads bytes as base64 text)", describe(v))
	case row.TypeArray:
		if v.Kind == hocon.Object {
			return nil, errAt(v, "cannot use %s as %s: want a list [ ... ]", describe(v), t)
		}
		// A scalar is an empty array: SeaTunnel sizes the array by the
		// JSON node, and a text node has no elements.
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			e, err := Convert(t.Elem, it)
			if err != nil {
				return nil, wrap(err, "element %d", i)
			}
			out[i] = e
		}
		return out, nil
	case row.TypeMap:
		if v.Kind == hocon.Array {
			return nil, errAt(v, "cannot use %s as %s: want an object { key = value }", describe(v), t)
		}
		// A scalar, such as the string "{ 12:01:26 = v0 }" in SeaTunnel's
		// own Assert example, is an empty map: SeaTunnel reads the fields
		// of the JSON node, and a text node has none.
		out := &row.MapValue{}
		for _, f := range v.Fields {
			kv := &hocon.Value{Kind: hocon.String, Pos: f.KeyPos, Text: f.Key, Quoted: true}
			if t.Key.IsNumeric() && looksNumber(f.Key) {
				kv.Kind, kv.Quoted = hocon.Number, false
			}
			k, err := Convert(t.Key, kv)
			if err != nil {
				return nil, wrap(err, "map key %q", f.Key)
			}
			val, err := Convert(t.Elem, f.Value)
			if err != nil {
				return nil, wrap(err, "map value of %q", f.Key)
			}
			out.Keys = append(out.Keys, k)
			out.Values = append(out.Values, val)
		}
		return out, nil
	case row.TypeRow:
		out := make([]any, len(t.Fields))
		switch v.Kind {
		case hocon.Array:
			if len(v.Items) != len(t.Fields) {
				return nil, errAt(v, "cannot use a list of %d values as %s: it has %d fields", len(v.Items), t, len(t.Fields))
			}
			for i, it := range v.Items {
				e, err := Convert(t.Fields[i].Type, it)
				if err != nil {
					return nil, wrap(err, "field %s", t.Fields[i].Name)
				}
				out[i] = e
			}
		case hocon.Object:
			for i, f := range t.Fields {
				e, err := Convert(f.Type, v.Get(f.Name))
				if err != nil {
					return nil, wrap(err, "field %s", f.Name)
				}
				out[i] = e
			}
		default:
			return nil, errAt(v, "cannot use %s as %s: want a list of its fields", describe(v), t)
		}
		return out, nil
	}
	return nil, errAt(v, "unsupported type %s", t)
}

func scalar(v *hocon.Value) bool { return v.Kind != hocon.Object && v.Kind != hocon.Array }

func describe(v *hocon.Value) string {
	switch v.Kind {
	case hocon.Object:
		return "an object"
	case hocon.Array:
		return "a list"
	}
	s := v.Text
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return strconv.Quote(s)
}

func looksNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func intRange(id row.TypeID) (int64, int64) {
	switch id {
	case row.TypeTinyInt:
		return math.MinInt8, math.MaxInt8
	case row.TypeSmallInt:
		return math.MinInt16, math.MaxInt16
	case row.TypeInt:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}
