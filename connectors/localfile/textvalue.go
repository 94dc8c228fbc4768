package localfile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// separators are SeaTunnel's TextFormatConstant.SEPARATOR: [0] is the field
// delimiter (replaced by field_delimiter), the next ones separate the
// elements of nested arrays, maps and rows, one level deeper each.
var separators = [...]string{"\u0001", "\u0002", "\u0003", "\u0004", "\u0005", "\u0006", "\u0007"}

// isBlank is commons-lang's StringUtils.isBlank, which SeaTunnel's text and
// csv readers use to read a field as null: empty or Java whitespace only.
func isBlank(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f:
				i++
				continue
			}
			return false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) || r == 0xa0 || r == 0x2007 || r == 0x202f {
			return false
		}
		i += n
	}
	return true
}

// textValues parses the fields of text and csv records into typed
// columns, as SeaTunnel's TextDeserializationSchema does: blank is null,
// booleans are Boolean.parseBoolean, nested values split on \u0002, \u0003...
type textValues struct {
	times      timeFormats
	nullFormat string
	hasNull    bool
}

// appendField appends s to c, parsed as c's type.
func (p *textValues) appendField(c *row.Column, s string) error {
	if p.null(s) {
		c.AppendNull()
		return nil
	}
	return p.appendValue(c, s)
}

// null tells whether an unquoted field is a null: blank, or null_format.
func (p *textValues) null(s string) bool {
	return isBlank(s) || (p.hasNull && s == p.nullFormat)
}

// appendValue parses s (not blank) into c.
func (p *textValues) appendValue(c *row.Column, s string) error {
	t := c.Type
	switch t.ID {
	case row.TypeString:
		c.AppendString(s)
	case row.TypeBoolean:
		c.AppendBool(strings.EqualFold(s, "true"))
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		n, err := strconv.ParseInt(s, 10, intBits(t.ID))
		if err != nil {
			return fmt.Errorf("cannot parse %q as %s", strings.Clone(s), t)
		}
		c.AppendInt(n)
	case row.TypeFloat, row.TypeDouble:
		f, err := parseJavaFloat(s, t.ID == row.TypeFloat)
		if err != nil {
			return fmt.Errorf("cannot parse %q as %s", strings.Clone(s), t)
		}
		c.AppendFloat(f)
	case row.TypeDecimal:
		d, err := decimal.NewFromString(s)
		if err != nil {
			return fmt.Errorf("cannot parse %q as %s", strings.Clone(s), t)
		}
		if d, err = fitDecimal(t, d); err != nil {
			return err
		}
		c.AppendDecimal(d)
	case row.TypeBytes:
		c.AppendBytes([]byte(s))
	case row.TypeDate:
		d, err := p.times.parseDate(s)
		if err != nil {
			return err
		}
		c.AppendInt(d)
	case row.TypeTime:
		v, err := p.times.parseTime(s)
		if err != nil {
			return err
		}
		c.AppendInt(v)
	case row.TypeTimestamp:
		sec, nano, err := p.times.parseTimestamp(s)
		if err != nil {
			return err
		}
		c.AppendTimestamp(sec, nano)
	case row.TypeTimestampTZ: // OffsetDateTime's text; datetime_format is for timestamps
		v, err := row.ParseTimestampTZ(s)
		if err != nil {
			return fmt.Errorf("cannot parse %q as %s: %v", strings.Clone(s), t, err)
		}
		c.AppendTimestampTZ(row.TimestampTZOf(v))
	case row.TypeNull:
		c.AppendNull()
	default:
		v, err := p.nested(t, s, 0)
		if err != nil {
			return err
		}
		if v == nil {
			c.AppendNull()
		} else {
			c.AppendAny(v)
		}
	}
	return nil
}

func intBits(id row.TypeID) int {
	switch id {
	case row.TypeTinyInt:
		return 8
	case row.TypeSmallInt:
		return 16
	case row.TypeInt:
		return 32
	}
	return 64
}

// parseJavaFloat is Float.parseFloat / Double.parseDouble: surrounding
// whitespace and a trailing f or d are allowed.
func parseJavaFloat(s string, single bool) (float64, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if single {
			return float64(float32(f)), nil
		}
		return f, nil
	}
	s = strings.TrimSpace(s)
	if n := len(s); n > 1 && strings.ContainsRune("fFdD", rune(s[n-1])) {
		s = s[:n-1]
	}
	bits := 64
	if single {
		bits = 32
	}
	return strconv.ParseFloat(s, bits)
}

// javaSplit is Java's String.split(sep) on a literal separator: trailing
// empty strings are dropped.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// nested parses an array, map or row written at level (0 for a top-level
// field) into its boxed form (see row.Value).
func (p *textValues) nested(t *row.Type, s string, level int) (any, error) {
	if level+2 >= len(separators) {
		return nil, fmt.Errorf("%s is nested too deeply for the text format", t)
	}
	switch t.ID {
	case row.TypeArray:
		parts := javaSplit(s, separators[level+1])
		out := make([]any, len(parts))
		for i, e := range parts {
			v, err := p.boxed(t.Elem, e, level+1)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = v
		}
		return out, nil
	case row.TypeMap:
		m := &row.MapValue{}
		for _, kv := range javaSplit(s, separators[level+1]) {
			parts := javaSplit(kv, separators[level+2])
			key := ""
			if len(parts) > 0 {
				key = parts[0]
			}
			k, err := p.boxed(t.Key, key, level+1)
			if err != nil {
				return nil, fmt.Errorf("map key: %w", err)
			}
			var v any
			if len(parts) > 1 {
				if v, err = p.boxed(t.Elem, parts[1], level+1); err != nil {
					return nil, fmt.Errorf("map value: %w", err)
				}
			}
			m.Keys = append(m.Keys, k)
			m.Values = append(m.Values, v)
		}
		return m, nil
	case row.TypeRow:
		parts := strings.Split(s, separators[level+1])
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			if i >= len(parts) {
				break
			}
			v, err := p.boxed(f.Type, parts[i], level+1)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %s is not nested", t)
}

// boxed parses one nested element into its boxed form.
func (p *textValues) boxed(t *row.Type, s string, level int) (any, error) {
	if isBlank(s) {
		return nil, nil
	}
	switch t.ID {
	case row.TypeArray, row.TypeMap, row.TypeRow:
		return p.nested(t, s, level)
	}
	c := row.NewColumn(t, 1)
	if err := p.appendValue(c, s); err != nil {
		return nil, err
	}
	return c.Value(0), nil
}

// textRender writes values as SeaTunnel's TextSerializationSchema and
// CsvSerializationSchema do: null as empty, dates, times and timestamps by
// the sink's formats, decimals plain (text) or as BigDecimal.toString
// (csv), bytes as UTF-8 text, nested values joined by \u0002, \u0003...
type textRender struct {
	seps  [len(separators)]string
	times timeFormats
	csv   bool
	quote string // csv_string_quote_mode: ALL, MINIMAL or NONE
}

func newTextRender(delim string, times timeFormats, csv bool, quote string) *textRender {
	r := &textRender{seps: separators, times: times, csv: csv, quote: quote}
	r.seps[0] = delim
	return r
}

// appendCol appends value i of c.
func (r *textRender) appendCol(b []byte, c *row.Column, i int) []byte {
	if c.IsNull(i) {
		return b
	}
	t := c.Type
	switch t.ID {
	case row.TypeString:
		if r.csv {
			return r.appendCSVString(b, c.Str(i))
		}
		return append(b, c.Str(i)...)
	case row.TypeBoolean:
		return strconv.AppendBool(b, c.Bools[i])
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return strconv.AppendInt(b, c.Ints[i], 10)
	case row.TypeFloat:
		return appendJavaFloat(b, c.Floats[i], 32)
	case row.TypeDouble:
		return appendJavaFloat(b, c.Floats[i], 64)
	case row.TypeDecimal:
		if r.csv {
			return row.AppendJavaDecimal(b, c.Decs[i], t.Scale)
		}
		return append(b, plainDecimal(c.Decs[i])...)
	case row.TypeDate:
		if r.times.date == "2006-01-02" {
			return row.AppendDate(b, c.Ints[i])
		}
		return dateTime(c.Ints[i]).AppendFormat(b, r.times.date)
	case row.TypeTime:
		if r.times.tod == "15:04:05" {
			return row.AppendClock(b, c.Ints[i], false)
		}
		return clockTime(c.Ints[i]).AppendFormat(b, r.times.tod)
	case row.TypeTimestamp:
		if r.times.datetime == "2006-01-02 15:04:05" {
			return row.AppendTimestamp(b, c.Secs[i], c.Nanos[i], ' ', false)
		}
		return row.TimestampTime(c.Timestamp(i)).AppendFormat(b, r.times.datetime)
	case row.TypeTimestampTZ:
		return row.AppendJavaTimestampTZ(b, c.Secs[i], c.Nanos[i], c.Offs[i])
	case row.TypeBytes:
		if r.csv {
			return r.appendCSVSafe(b, c.Bins[i])
		}
		return append(b, c.Bins[i]...)
	case row.TypeNull:
		return b
	}
	if r.csv {
		return r.appendCSVSafe(b, r.appendBoxed(nil, t, c.Anys[i], 0))
	}
	return r.appendBoxed(b, t, c.Anys[i], 0)
}

// appendBoxed appends a boxed value at a nesting level.
func (r *textRender) appendBoxed(b []byte, t *row.Type, v any, level int) []byte {
	if v == nil {
		return b
	}
	if level+2 >= len(r.seps) {
		return append(b, row.Text(t, v)...)
	}
	switch t.ID {
	case row.TypeArray:
		for i, e := range v.([]any) {
			if i > 0 {
				b = append(b, r.seps[level+1]...)
			}
			b = r.appendBoxed(b, t.Elem, e, level+1)
		}
		return b
	case row.TypeMap:
		m := v.(*row.MapValue)
		for i := range m.Keys {
			if i > 0 {
				b = append(b, r.seps[level+1]...)
			}
			b = r.appendBoxed(b, t.Key, m.Keys[i], level+1)
			b = append(b, r.seps[level+2]...)
			b = r.appendBoxed(b, t.Elem, m.Values[i], level+1)
		}
		return b
	case row.TypeRow:
		for i, e := range v.([]any) {
			if i > 0 {
				b = append(b, r.seps[level+1]...)
			}
			if i < len(t.Fields) {
				b = r.appendBoxed(b, t.Fields[i].Type, e, level+1)
			}
		}
		return b
	}
	c := row.NewColumn(t, 1)
	if err := c.AppendValue(v); err != nil {
		return append(b, row.Text(t, v)...)
	}
	if t.ID == row.TypeString && r.csv {
		// Only top-level strings are quoted (CsvSerializationSchema).
		return append(b, c.Str(0)...)
	}
	return r.appendCol(b, c, 0)
}

// appendCSVString quotes a string as commons-csv's CSVFormat.DEFAULT does
// in SeaTunnel's csv_string_quote_mode: MINIMAL quotes an empty string, one
// starting with a character up to '#' or ending with one up to ' ', and one
// holding a delimiter, quote, CR or LF.
func (r *textRender) appendCSVString(b []byte, s string) []byte {
	switch r.quote {
	case "NONE":
		return append(b, s...)
	case "ALL":
		return appendQuoted(b, s)
	}
	if csvMinimalQuote(s, r.seps[0]) {
		return appendQuoted(b, s)
	}
	return append(b, s...)
}

func csvMinimalQuote(s, delim string) bool {
	if len(s) == 0 || s[0] <= '#' || s[len(s)-1] <= ' ' {
		return true
	}
	if strings.ContainsAny(s, "\r\n\",") {
		return true
	}
	return delim != "," && strings.Contains(s, delim)
}

// appendCSVSafe writes a non-string value, quoting it only when it would
// otherwise break the record (SeaTunnel writes these raw).
func (r *textRender) appendCSVSafe(b, v []byte) []byte {
	s := string(v)
	if r.quote != "NONE" && (strings.ContainsAny(s, "\r\n\"") || strings.Contains(s, r.seps[0])) {
		return appendQuoted(b, s)
	}
	return append(b, v...)
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '"')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}

// appendJavaFloat appends f as Java's Float.toString (bits 32) or
// Double.toString (bits 64), without allocating in the common range.
func appendJavaFloat(b []byte, f float64, bits int) []byte {
	if abs := f; (abs >= 1e-3 && abs < 1e7) || (abs <= -1e-3 && abs > -1e7) {
		n := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, bits)
		for _, c := range b[n:] {
			if c == '.' {
				return b
			}
		}
		return append(b, '.', '0')
	}
	return append(b, row.JavaFloat(f, bits)...)
}
