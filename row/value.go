package row

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Boxed values, as Column.Value returns them and AppendValue takes them:
//
//	null                      nil
//	boolean                   bool
//	tinyint..bigint           int64
//	float, double             float64
//	decimal                   decimal.Decimal
//	string                    string
//	bytes                     []byte
//	date                      time.Time (midnight, UTC)
//	time                      time.Duration since midnight
//	timestamp                 time.Time (UTC: a wall clock without zone)
//	timestamp_tz              time.Time at the instant, in a fixed zone of its offset (ZoneZ at 0)
//	array                     []any of boxed elements
//	map                       *MapValue
//	row                       []any of boxed fields
//
// Boxing costs an allocation for most types: it is for connectors and
// transforms whose work per value outweighs it, never for a fused hot path.

// MapValue is a boxed map: keys and values in insertion order (SeaTunnel
// prints maps in their order, and a Go map has none).
type MapValue struct {
	Keys   []any
	Values []any
}

func toStoredInt(t *Type, v any) int64 {
	switch t.ID {
	case TypeDate:
		return v.(time.Time).Unix() / 86400
	case TypeTime:
		return int64(v.(time.Duration))
	}
	return v.(int64)
}

func fromStoredInt(t *Type, v int64) any {
	switch t.ID {
	case TypeDate:
		return time.Unix(v*86400, 0).UTC()
	case TypeTime:
		return time.Duration(v)
	}
	return v
}

// DateOf is the stored form of a date: days since 1970-01-01.
func DateOf(t time.Time) int64 {
	y, m, d := t.Date()
	return DaysFromCivil(int64(y), int(m), d)
}

// Convert turns a loosely typed value (as read from a job file, JSON, CSV
// text, or another type's boxed value) into the boxed form of type t. It
// returns an error naming the type when the value does not fit.
func Convert(t *Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func(why string) (any, error) {
		if why != "" {
			why = ": " + why
		}
		return nil, fmt.Errorf("cannot use %v (%T) as %s%s", short(v), v, t, why)
	}
	switch t.ID {
	case TypeNull:
		return nil, nil
	case TypeString:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
		return Text(inferType(v), v), nil
	case TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "yes", "on", "1":
				return true, nil
			case "false", "no", "off", "0":
				return false, nil
			}
		case int64:
			return x != 0, nil
		case int:
			return x != 0, nil
		}
		return bad("")
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt:
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case int:
			n = int64(x)
		case int32:
			n = int64(x)
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) {
				return bad("not a whole number")
			}
			n = int64(x)
		case decimal.Decimal:
			if !x.Equal(x.Truncate(0)) {
				return bad("not a whole number")
			}
			n = x.IntPart()
		case bool:
			if x {
				n = 1
			}
		case string:
			p, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			if err != nil {
				return bad("not an integer")
			}
			n = p
		default:
			return bad("")
		}
		lo, hi := intRange(t.ID)
		if n < lo || n > hi {
			return bad(fmt.Sprintf("out of range %d..%d", lo, hi))
		}
		return n, nil
	case TypeFloat, TypeDouble:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		case int64:
			f = float64(x)
		case int:
			f = float64(x)
		case decimal.Decimal:
			f, _ = x.Float64()
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return bad("not a number")
			}
			f = p
		default:
			return bad("")
		}
		if t.ID == TypeFloat {
			f = float64(float32(f))
		}
		return f, nil
	case TypeDecimal:
		var d decimal.Decimal
		switch x := v.(type) {
		case decimal.Decimal:
			d = x
		case int64:
			d = decimal.NewFromInt(x)
		case int:
			d = decimal.NewFromInt(int64(x))
		case float64:
			d = decimal.NewFromFloat(x)
		case string:
			p, err := decimal.NewFromString(strings.TrimSpace(x))
			if err != nil {
				return bad("not a decimal")
			}
			d = p
		default:
			return bad("")
		}
		d = d.Round(int32(t.Scale))
		if ip := d.Truncate(0).Abs().String(); ip != "0" && len(ip) > t.Precision-t.Scale {
			return bad(fmt.Sprintf("more than %d digits before the point", t.Precision-t.Scale))
		}
		return d, nil
	case TypeBytes:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
		return bad("")
	case TypeDate:
		switch x := v.(type) {
		case time.Time:
			days := DateOf(x)
			if err := CheckDate(days); err != nil {
				return bad(err.Error())
			}
			return time.Unix(days*secsPerDay, 0).UTC(), nil
		case string:
			d, err := ParseDate(x)
			if err != nil {
				return bad(err.Error())
			}
			return d, nil
		case int64:
			if err := CheckDate(x); err != nil {
				return bad(err.Error())
			}
			return time.Unix(x*secsPerDay, 0).UTC(), nil
		}
		return bad("")
	case TypeTime:
		switch x := v.(type) {
		case time.Duration:
			return x, nil
		case time.Time:
			h, m, s := x.Clock()
			return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second + time.Duration(x.Nanosecond()), nil
		case string:
			d, err := ParseTime(x)
			if err != nil {
				return bad(err.Error())
			}
			return d, nil
		case int64:
			return time.Duration(x), nil
		}
		return bad("")
	case TypeTimestamp:
		switch x := v.(type) {
		case time.Time:
			sec, nano := TimestampOf(x)
			if err := CheckTimestamp(sec); err != nil {
				return bad(err.Error())
			}
			return TimestampTime(sec, nano), nil
		case string:
			ts, err := ParseTimestamp(x)
			if err != nil {
				return bad(err.Error())
			}
			return ts, nil
		case int64: // epoch milliseconds, as SeaTunnel reads numbers into timestamps
			return time.UnixMilli(x).UTC(), nil
		}
		return bad("")
	case TypeTimestampTZ:
		var ts time.Time
		switch x := v.(type) {
		case time.Time: // a boxed timestamp (UTC) is that wall clock at offset 0
			ts = x
		case string:
			p, err := ParseTimestampTZ(x)
			if err != nil {
				return bad(err.Error())
			}
			ts = p
		case int64: // epoch milliseconds, at offset 0
			ts = time.UnixMilli(x)
		default:
			return bad("")
		}
		sec, nano, off := TimestampTZOf(ts)
		if err := CheckTimestampTZ(sec, off); err != nil {
			return bad(err.Error())
		}
		return TimestampTZTime(sec, nano, off), nil
	case TypeArray:
		xs, ok := v.([]any)
		if !ok {
			return bad("not an array")
		}
		out := make([]any, len(xs))
		for i, e := range xs {
			ce, err := Convert(t.Elem, e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = ce
		}
		return out, nil
	case TypeMap:
		out := &MapValue{}
		switch x := v.(type) {
		case *MapValue:
			for i := range x.Keys {
				if err := out.add(t, x.Keys[i], x.Values[i]); err != nil {
					return nil, err
				}
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if err := out.add(t, k, x[k]); err != nil {
					return nil, err
				}
			}
		case OrderedMap:
			for _, kv := range x {
				if err := out.add(t, kv.Key, kv.Value); err != nil {
					return nil, err
				}
			}
		default:
			return bad("not a map")
		}
		return out, nil
	case TypeRow:
		switch x := v.(type) {
		case []any:
			if len(x) != len(t.Fields) {
				return bad(fmt.Sprintf("%d values for %d fields", len(x), len(t.Fields)))
			}
			out := make([]any, len(x))
			for i, e := range x {
				ce, err := Convert(t.Fields[i].Type, e)
				if err != nil {
					return nil, fmt.Errorf("field %s: %w", t.Fields[i].Name, err)
				}
				out[i] = ce
			}
			return out, nil
		case map[string]any:
			out := make([]any, len(t.Fields))
			for i, f := range t.Fields {
				ce, err := Convert(f.Type, x[f.Name])
				if err != nil {
					return nil, fmt.Errorf("field %s: %w", f.Name, err)
				}
				out[i] = ce
			}
			return out, nil
		}
		return bad("not a row")
	}
	return bad("")
}

// OrderedMap is a map read from a source that keeps key order (a job file).
type OrderedMap []KV

// KV is one entry of an OrderedMap.
type KV struct {
	Key   string
	Value any
}

func (m *MapValue) add(t *Type, k, v any) error {
	ck, err := Convert(t.Key, k)
	if err != nil {
		return fmt.Errorf("map key: %w", err)
	}
	cv, err := Convert(t.Elem, v)
	if err != nil {
		return fmt.Errorf("map value of %v: %w", k, err)
	}
	m.Keys = append(m.Keys, ck)
	m.Values = append(m.Values, cv)
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func intRange(id TypeID) (int64, int64) {
	switch id {
	case TypeTinyInt:
		return math.MinInt8, math.MaxInt8
	case TypeSmallInt:
		return math.MinInt16, math.MaxInt16
	case TypeInt:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func inferType(v any) *Type {
	switch v.(type) {
	case bool:
		return Boolean
	case int64, int, int32:
		return BigInt
	case float64, float32:
		return Double
	case decimal.Decimal:
		return DecimalOf(38, 18)
	case []byte:
		return Bytes
	case time.Duration:
		return Time
	case time.Time:
		if v.(time.Time).Location() != time.UTC { // boxed timestamps are UTC
			return TimestampTZ
		}
		return Timestamp
	}
	return String
}

var dateLayouts = []string{"2006-01-02", "2006/01/02", "20060102", "2006.01.02"}
var timeLayouts = []string{"15:04:05.999999999", "15:04", "150405"}
var timestampLayouts = []string{
	"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04", "2006-01-02 15:04", "2006/01/02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
	"20060102150405", "2006-01-02",
}

// parseLayouts is s, trimmed, read by the first of layouts that reads it.
func parseLayouts(layouts []string, s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ParseDate reads a date such as 2024-01-31.
func ParseDate(s string) (time.Time, error) {
	if t, ok := parseLayouts(dateLayouts, s); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("not a date (want yyyy-MM-dd)")
}

// ParseTime reads a time of day such as 12:30:00 into the time since midnight.
func ParseTime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			h, m, sec := t.Clock()
			return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second + time.Duration(t.Nanosecond()), nil
		}
	}
	return 0, fmt.Errorf("not a time (want HH:mm:ss)")
}

// ParseTimestamp reads a timestamp such as 2024-01-31T12:30:00 or
// 2024-01-31 12:30:00.123; a zone, if given, is dropped after converting
// to UTC.
func ParseTimestamp(s string) (time.Time, error) {
	if t, ok := parseLayouts(timestampLayouts, s); ok {
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("not a timestamp (want yyyy-MM-ddTHH:mm:ss)")
}

// Text renders a boxed value of type t the way SeaTunnel (Java) prints it:
// doubles as 1.5 or 1.0E10, dates as 2024-01-31, times as 12:30 or
// 12:30:15, timestamps as 2024-01-31T12:30:15, timestamp_tz as
// 2024-01-31T12:30:15+08:00 (OffsetDateTime.toString), arrays as [a, b], maps as
// {k=v}, rows as the fields joined by ", " in brackets, bytes as text, null
// as "null".
func Text(t *Type, v any) string {
	var b strings.Builder
	appendText(&b, t, v)
	return b.String()
}

func appendText(b *strings.Builder, t *Type, v any) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch x := v.(type) {
	case string:
		b.WriteString(x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if t != nil && t.ID == TypeFloat {
			b.WriteString(JavaFloat(x, 32))
		} else {
			b.WriteString(JavaFloat(x, 64))
		}
	case decimal.Decimal:
		if t != nil && t.ID == TypeDecimal {
			b.WriteString(x.StringFixed(int32(t.Scale)))
		} else {
			b.WriteString(x.String())
		}
	case []byte:
		b.WriteString(string(x))
	case time.Duration:
		b.WriteString(JavaTime(x))
	case time.Time:
		var buf [48]byte
		switch {
		case t != nil && t.ID == TypeDate:
			b.Write(AppendDate(buf[:0], DateOf(x)))
		case t != nil && t.ID == TypeTimestampTZ || t == nil && x.Location() != time.UTC:
			sec, nano, off := TimestampTZOf(x)
			b.Write(AppendJavaTimestampTZ(buf[:0], sec, nano, off))
		default:
			sec, nano := TimestampOf(x)
			b.Write(AppendJavaTimestamp(buf[:0], sec, nano))
		}
	case []any:
		var et func(int) *Type
		switch {
		case t != nil && t.ID == TypeArray:
			et = func(int) *Type { return t.Elem }
		case t != nil && t.ID == TypeRow:
			et = func(i int) *Type {
				if i < len(t.Fields) {
					return t.Fields[i].Type
				}
				return nil
			}
		default:
			et = func(int) *Type { return nil }
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			appendText(b, et(i), e)
		}
		b.WriteByte(']')
	case *MapValue:
		var kt, vt *Type
		if t != nil && t.ID == TypeMap {
			kt, vt = t.Key, t.Elem
		}
		b.WriteByte('{')
		for i := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			appendText(b, kt, x.Keys[i])
			b.WriteByte('=')
			appendText(b, vt, x.Values[i])
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

// Base64 is a helper for formats that carry bytes as text.
func Base64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
