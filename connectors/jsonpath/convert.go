package jsonpath

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// convert turns what a path read into a value of the column type t, as
// SeaTunnel's JsonToRowConverters does with the Jackson node of Jayway's
// result: null stays null; numbers for integer columns truncate a double
// and parse any other text; a string column gets text as is and a
// container as compact JSON; an empty string is a null date, time or
// timestamp. A value that does not fit is an error (the caller applies
// column_error_handle_way / row_error_handle_way).
func convert(t *row.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.ID {
	case row.TypeNull:
		return nil, nil
	case row.TypeString:
		if isJSON(v) {
			return jsonText(v), nil
		}
		return asText(v), nil
	case row.TypeBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return strings.EqualFold(strings.TrimSpace(asText(v)), "true"), nil
	case row.TypeTinyInt, row.TypeSmallInt:
		n, err := strconv.ParseInt(strings.TrimSpace(asText(v)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a %s", asText(v), t)
		}
		return checkRange(t, n)
	case row.TypeInt, row.TypeBigInt:
		lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
		if t.ID == row.TypeBigInt {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		if n, ok := v.(number); ok { // canConvertToInt/Long, then asInt/asLong truncates
			switch {
			case n.kind == numInt && n.i >= lo && n.i <= hi:
				return n.i, nil
			case n.kind != numInt && n.f >= float64(lo) && n.f <= float64(hi) && !math.IsNaN(n.f):
				if t.ID == row.TypeBigInt && n.f >= math.MaxInt64 {
					break
				}
				return int64(n.f), nil
			}
		}
		n, err := strconv.ParseInt(strings.TrimSpace(asText(v)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an %s", asText(v), t)
		}
		return checkRange(t, n)
	case row.TypeFloat, row.TypeDouble:
		var f float64
		if n, ok := v.(number); ok && n.kind == numFloat {
			f = n.f
		} else {
			var err error
			if f, err = parseJavaDouble(asText(v)); err != nil {
				return nil, fmt.Errorf("%q is not a %s", asText(v), t)
			}
		}
		if t.ID == row.TypeFloat {
			f = float64(float32(f))
		}
		return f, nil
	case row.TypeDecimal:
		d, err := decimal.NewFromString(asText(v))
		if err != nil {
			return nil, fmt.Errorf("%q is not a decimal", asText(v))
		}
		return row.Convert(t, d)
	case row.TypeBytes:
		s, ok := v.(string)
		if !ok {
			return nil, nil // Jackson's binaryValue() of a non-text node
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("bytes: %q is not base64", s)
		}
		return b, nil
	case row.TypeDate:
		s := asText(v)
		if s == "" {
			return nil, nil
		}
		d, err := row.ParseDate(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a date", s)
		}
		return d, nil
	case row.TypeTime:
		s := asText(v)
		if s == "" {
			return nil, nil
		}
		return parseJavaTime(s)
	case row.TypeTimestamp:
		s := asText(v)
		if s == "" {
			return nil, nil
		}
		ts, err := row.ParseTimestamp(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a timestamp", s)
		}
		return ts, nil
	case row.TypeTimestampTZ:
		s := asText(v)
		if s == "" {
			return nil, nil
		}
		ts, err := row.ParseTimestampTZ(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a timestamp_tz: %v", s, err)
		}
		return ts, nil
	case row.TypeArray:
		var out []any
		switch x := v.(type) {
		case []any:
			out = make([]any, len(x))
			for i, e := range x {
				c, err := convert(t.Elem, e)
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out[i] = c
			}
		case *object: // Jackson: size() is the field count, get(i) is null
			out = make([]any, len(x.keys))
		default:
			out = []any{}
		}
		return out, nil
	case row.TypeMap:
		m := &row.MapValue{}
		if o, ok := v.(*object); ok {
			for i, k := range o.keys {
				ck, err := convert(t.Key, k)
				if err != nil {
					return nil, fmt.Errorf("map key %q: %w", k, err)
				}
				cv, err := convert(t.Elem, o.vals[i])
				if err != nil {
					return nil, fmt.Errorf("map value of %q: %w", k, err)
				}
				m.Keys = append(m.Keys, ck)
				m.Values = append(m.Values, cv)
			}
		}
		return m, nil
	case row.TypeRow:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			var e any
			switch x := v.(type) {
			case []any:
				if i < len(x) {
					e = x[i]
				}
			case *object:
				e, _ = x.get(f.Name)
			}
			c, err := convert(f.Type, e)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			out[i] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

// asText is Jackson's JsonNode.asText(): text as is, numbers and booleans
// as Java prints them, "" for containers.
func asText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case number:
		return x.text()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	return ""
}

func checkRange(t *row.Type, n int64) (any, error) {
	v, err := row.Convert(t, n)
	if err != nil {
		return nil, fmt.Errorf("%d is out of range for %s", n, t)
	}
	return v, nil
}

// parseJavaDouble reads a number as Double.parseDouble does (it trims
// blanks and knows NaN and Infinity by those names only).
func parseJavaDouble(s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch strings.TrimLeft(s, "+-") {
	case "NaN", "Infinity":
	default:
		if strings.ContainsAny(strings.ToLower(s), "inx_") { // Go's inf, hex and digit separators
			return 0, errors.New("not a number")
		}
	}
	return strconv.ParseFloat(s, 64)
}

// parseJavaTime reads HH:mm:ss with an optional fraction of up to nine
// digits, SeaTunnel's TIME_FORMAT.
func parseJavaTime(s string) (any, error) {
	bad := fmt.Errorf("%q is not a time (HH:mm:ss[.fraction])", s)
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return nil, bad
	}
	h, err1 := strconv.Atoi(s[0:2])
	m, err2 := strconv.Atoi(s[3:5])
	sec, err3 := strconv.Atoi(s[6:8])
	if err1 != nil || err2 != nil || err3 != nil || h > 23 || m > 59 || sec > 59 || !isDigits(s[0:2]+s[3:5]+s[6:8]) {
		return nil, bad
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second
	if rest := s[8:]; rest != "" {
		frac := strings.TrimPrefix(rest, ".")
		if frac == rest || len(frac) > 9 || (frac != "" && !isDigits(frac)) {
			return nil, bad
		}
		if frac != "" {
			n, _ := strconv.Atoi(frac + strings.Repeat("0", 9-len(frac)))
			d += time.Duration(n)
		}
	}
	return d, nil
}
