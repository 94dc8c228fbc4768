package kafka

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// decodedRow is one row a record value stands for.
type decodedRow struct {
	kind row.Kind
	vals []any // boxed, in schema order
}

// decoder turns a record value into rows of schema. A value that does not
// parse is an error (format_error_handle_way says what happens then).
type decoder func(value []byte) ([]decodedRow, error)

// newDecoder is format's decoder for schema; raw is set when the source
// has no schema: the whole value is the one string field, as SeaTunnel's
// "content" table.
func newDecoder(format, delim string, schema *row.Schema, raw bool) decoder {
	if raw {
		return func(v []byte) ([]decodedRow, error) { return []decodedRow{{row.Insert, []any{string(v)}}}, nil }
	}
	switch format {
	case formatText:
		return func(v []byte) ([]decodedRow, error) {
			parts := strings.Split(string(v), delim)
			if len(parts) != len(schema.Fields) {
				return nil, fmt.Errorf("%d fields separated by %q, the schema has %d", len(parts), delim, len(schema.Fields))
			}
			vals := make([]any, len(parts))
			for i, p := range parts {
				var err error
				if vals[i], err = row.Convert(schema.Fields[i].Type, p); err != nil {
					return nil, fmt.Errorf("field %s: %w", schema.Fields[i].Name, err)
				}
			}
			return []decodedRow{{row.Insert, vals}}, nil
		}
	case formatCanal:
		return func(v []byte) ([]decodedRow, error) { return decodeCanal(v, schema) }
	case formatDebezium:
		return func(v []byte) ([]decodedRow, error) { return decodeDebezium(v, schema) }
	}
	return func(v []byte) ([]decodedRow, error) {
		obj, err := parseObject(v)
		if err != nil {
			return nil, err
		}
		vals, err := objectRow(obj, schema)
		if err != nil {
			return nil, err
		}
		return []decodedRow{{row.Insert, vals}}, nil
	}
}

func parseObject(v []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if obj == nil {
		return nil, errors.New("not a JSON object: null")
	}
	return obj, nil
}

// objectRow is a JSON object's fields in schema order; a missing field is
// null.
func objectRow(obj map[string]any, schema *row.Schema) ([]any, error) {
	vals := make([]any, len(schema.Fields))
	for i, f := range schema.Fields {
		v, err := fromJSON(f.Type, obj[f.Name])
		if err != nil {
			return nil, fieldError(f.Name, err)
		}
		vals[i] = v
	}
	return vals, nil
}

func fieldError(name string, err error) error { return fmt.Errorf("field %s: %w", name, err) }

// fromJSON converts a decoded JSON value to the boxed form of t.
func fromJSON(t *row.Type, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.Number:
		switch {
		case t.IsInteger():
			n, err := strconv.ParseInt(string(x), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("cannot use %s as %s", x, t)
			}
			return row.Convert(t, n)
		case t.ID == row.TypeDecimal:
			d, err := decimal.NewFromString(string(x))
			if err != nil {
				return nil, err
			}
			return row.Convert(t, d)
		case t.ID == row.TypeString:
			return string(x), nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, err
		}
		return row.Convert(t, f)
	case string:
		if t.ID == row.TypeBytes {
			b, err := base64.StdEncoding.DecodeString(x)
			if err != nil {
				return nil, fmt.Errorf("bytes must be base64: %w", err)
			}
			return b, nil
		}
	case []any:
		if t.ID == row.TypeArray {
			out := make([]any, len(x))
			for i, e := range x {
				var err error
				if out[i], err = fromJSON(t.Elem, e); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	case map[string]any:
		switch t.ID {
		case row.TypeRow:
			return objectRow(x, &row.Schema{Fields: t.Fields})
		case row.TypeMap:
			out := make(map[string]any, len(x))
			for k, e := range x {
				var err error
				if out[k], err = fromJSON(t.Elem, e); err != nil {
					return nil, err
				}
			}
			return row.Convert(t, out)
		case row.TypeString:
			b, err := json.Marshal(x)
			return string(b), err
		}
	}
	return row.Convert(t, v)
}

// decodeCanal reads Canal's JSON: {"data":[...],"old":[...],"type":...}.
// An UPDATE is -U (the row with the old values of the changed fields) and
// +U, as SeaTunnel's CanalJsonDeserializationSchema; DDL and other types
// give no rows.
func decodeCanal(v []byte, schema *row.Schema) ([]decodedRow, error) {
	obj, err := parseObject(v)
	if err != nil {
		return nil, err
	}
	data, _ := obj["data"].([]any)
	old, _ := obj["old"].([]any)
	typ, _ := obj["type"].(string)
	if isDDL, _ := obj["isDdl"].(bool); isDDL {
		return nil, nil
	}
	var out []decodedRow
	for i, d := range data {
		m, ok := d.(map[string]any)
		if !ok {
			return nil, errors.New("canal data entries must be objects")
		}
		after, err := objectRow(m, schema)
		if err != nil {
			return nil, err
		}
		switch strings.ToUpper(typ) {
		case "INSERT":
			out = append(out, decodedRow{row.Insert, after})
		case "DELETE":
			out = append(out, decodedRow{row.Delete, after})
		case "UPDATE":
			before := m
			if i < len(old) {
				if o, ok := old[i].(map[string]any); ok {
					before = make(map[string]any, len(m))
					for k, x := range m {
						before[k] = x
					}
					for k, x := range o {
						before[k] = x
					}
				}
			}
			b, err := objectRow(before, schema)
			if err != nil {
				return nil, err
			}
			out = append(out, decodedRow{row.UpdateBefore, b}, decodedRow{row.UpdateAfter, after})
		default:
			return nil, fmt.Errorf("unknown canal type %q", typ)
		}
	}
	return out, nil
}

// decodeDebezium reads Debezium's JSON change events, with or without the
// schema envelope ({"schema":...,"payload":{...}}).
func decodeDebezium(v []byte, schema *row.Schema) ([]decodedRow, error) {
	if len(bytes.TrimSpace(v)) == 0 {
		return nil, nil // a tombstone
	}
	obj, err := parseObject(v)
	if err != nil {
		return nil, err
	}
	if p, ok := obj["payload"].(map[string]any); ok {
		obj = p
	}
	side := func(k string) ([]any, error) {
		m, ok := obj[k].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("debezium event without %q", k)
		}
		return objectRow(m, schema)
	}
	op, _ := obj["op"].(string)
	switch op {
	case "c", "r":
		after, err := side("after")
		return []decodedRow{{row.Insert, after}}, err
	case "d":
		before, err := side("before")
		return []decodedRow{{row.Delete, before}}, err
	case "u":
		before, err := side("before")
		if err != nil {
			return nil, err
		}
		after, err := side("after")
		return []decodedRow{{row.UpdateBefore, before}, {row.UpdateAfter, after}}, err
	}
	return nil, fmt.Errorf("unknown debezium op %q", op)
}

// encoder writes row i of a batch as a record value.
type encoder func(dst []byte, b *row.Batch, i int) []byte

func newEncoder(format, delim string) encoder {
	switch format {
	case formatText:
		return func(dst []byte, b *row.Batch, i int) []byte {
			for j, c := range b.Cols {
				if j > 0 {
					dst = append(dst, delim...)
				}
				if v := c.Value(i); v != nil {
					dst = append(dst, row.Text(c.Type, v)...)
				}
			}
			return dst
		}
	case formatDebezium:
		// SeaTunnel's DebeziumJsonSerializationSchema: +I and +U are
		// creates, -U and -D deletes.
		return func(dst []byte, b *row.Batch, i int) []byte {
			if k := b.Kind(i); k == row.Insert || k == row.UpdateAfter {
				dst = append(dst, `{"before":null,"after":`...)
				dst = appendRowObject(dst, b, i)
				return append(dst, `,"op":"c"}`...)
			}
			dst = append(dst, `{"before":`...)
			dst = appendRowObject(dst, b, i)
			return append(dst, `,"after":null,"op":"d"}`...)
		}
	case formatCanal:
		return func(dst []byte, b *row.Batch, i int) []byte {
			typ := "INSERT"
			if k := b.Kind(i); k == row.UpdateBefore || k == row.Delete {
				typ = "DELETE"
			}
			dst = append(dst, `{"data":[`...)
			dst = appendRowObject(dst, b, i)
			dst = append(dst, `],"type":"`...)
			dst = append(dst, typ...)
			return append(dst, `"}`...)
		}
	}
	return appendRowObject
}

func appendRowObject(dst []byte, b *row.Batch, i int) []byte {
	dst = append(dst, '{')
	for j, f := range b.Schema.Fields {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, f.Name)
		dst = append(dst, ':')
		c := b.Cols[j]
		switch {
		case c.IsNull(i):
			dst = append(dst, "null"...)
		case c.Type.Storage() == row.StoreString:
			dst = appendJSONString(dst, c.Str(i))
		case c.Type.IsInteger():
			dst = strconv.AppendInt(dst, c.Ints[i], 10)
		default:
			dst = appendJSON(dst, c.Type, c.Value(i))
		}
	}
	return append(dst, '}')
}

// appendJSON writes a boxed value of type t as SeaTunnel's
// JsonSerializationSchema does: dates, times and timestamps as ISO text
// (a timestamp_tz with its offset),
// bytes as base64, decimals as numbers.
func appendJSON(dst []byte, t *row.Type, v any) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(dst, x)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendJSONString(dst, row.Text(t, x))
		}
		bits := 64
		if t.ID == row.TypeFloat {
			bits = 32
		}
		return strconv.AppendFloat(dst, x, 'g', -1, bits)
	case decimal.Decimal:
		return append(dst, x.String()...)
	case string:
		return appendJSONString(dst, x)
	case []byte:
		return appendJSONString(dst, base64.StdEncoding.EncodeToString(x))
	case time.Time:
		if t.ID == row.TypeDate {
			return appendJSONString(dst, x.Format("2006-01-02"))
		}
		if t.ID == row.TypeTimestampTZ { // ISO_OFFSET_DATE_TIME: 2024-01-01T10:00:00+08:00
			sec, nano, off := row.TimestampTZOf(x)
			dst = append(dst, '"')
			dst = row.AppendTimestampTZ(dst, sec, nano, off, 'T', true)
			return append(dst, '"')
		}
		return appendJSONString(dst, x.Format("2006-01-02T15:04:05.999999999"))
	case time.Duration:
		return appendJSONString(dst, row.JavaTime(x))
	case *row.MapValue:
		dst = append(dst, '{')
		for k := range x.Keys {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, row.Text(t.Key, x.Keys[k]))
			dst = append(dst, ':')
			dst = appendJSON(dst, t.Elem, x.Values[k])
		}
		return append(dst, '}')
	case []any:
		if t.ID == row.TypeRow {
			dst = append(dst, '{')
			for k, f := range t.Fields {
				if k > 0 {
					dst = append(dst, ',')
				}
				dst = appendJSONString(dst, f.Name)
				dst = append(dst, ':')
				if k < len(x) {
					dst = appendJSON(dst, f.Type, x[k])
				} else {
					dst = append(dst, "null"...)
				}
			}
			return append(dst, '}')
		}
		dst = append(dst, '[')
		for k, e := range x {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, t.Elem, e)
		}
		return append(dst, ']')
	}
	return appendJSONString(dst, fmt.Sprint(v))
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c >= 0x20:
				dst = append(dst, c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}
