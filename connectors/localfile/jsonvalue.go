package localfile

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// jsonScanner reads one JSON document (a line of a json file) in place.
type jsonScanner struct {
	b       []byte
	i       int
	scratch []byte
}

var errJSONEnd = errors.New("unexpected end of JSON")

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *jsonScanner) expect(c byte) error {
	if s.peek() != c {
		return s.errorf("expected %q", c)
	}
	s.i++
	return nil
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	if s.i >= len(s.b) {
		return fmt.Errorf("%s at end of JSON", fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s at offset %d (found %q)", fmt.Sprintf(format, args...), s.i, s.b[s.i])
}

// str reads a string; the result is valid until the next call.
func (s *jsonScanner) str() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			out := s.b[start:s.i]
			s.i++
			return out, nil
		}
		if c == '\\' {
			return s.strEscaped(start)
		}
		if c < 0x20 {
			return nil, s.errorf("control character in string")
		}
		s.i++
	}
	return nil, errJSONEnd
}

func (s *jsonScanner) strEscaped(start int) ([]byte, error) {
	out := append(s.scratch[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			s.scratch = out
			return out, nil
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return nil, errJSONEnd
			}
			e := s.b[s.i+1]
			s.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := s.hex4()
				if !ok {
					return nil, s.errorf("bad \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
						s.i += 2
						if lo, ok := s.hex4(); ok {
							r2 = utf16.DecodeRune(r, lo)
						}
					}
					r = r2
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, s.errorf("bad escape")
			}
		case c < 0x20:
			return nil, s.errorf("control character in string")
		default:
			out = append(out, c)
			s.i++
		}
	}
	return nil, errJSONEnd
}

func (s *jsonScanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// raw skips one value and returns its text.
func (s *jsonScanner) raw() ([]byte, error) {
	s.ws()
	start := s.i
	if err := s.skip(); err != nil {
		return nil, err
	}
	return s.b[start:s.i], nil
}

func (s *jsonScanner) skip() error {
	switch c := s.peek(); c {
	case '"':
		_, err := s.str()
		return err
	case '{', '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		s.i++
		if s.peek() == close {
			s.i++
			return nil
		}
		for {
			if c == '{' {
				if _, err := s.str(); err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if err := s.skip(); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.i++
			case close:
				s.i++
				return nil
			default:
				return s.errorf("expected ',' or %q", close)
			}
		}
	case 0:
		return errJSONEnd
	default:
		_, err := s.scalar()
		return err
	}
}

// scalar reads a number, true, false or null and returns its text.
func (s *jsonScanner) scalar() ([]byte, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			break
		}
		s.i++
	}
	tok := s.b[start:s.i]
	if len(tok) == 0 {
		return nil, s.errorf("expected a value")
	}
	switch string(tok) {
	case "true", "false", "null":
		return tok, nil
	}
	if c := tok[0]; c != '-' && (c < '0' || c > '9') {
		s.i = start
		return nil, s.errorf("invalid value")
	}
	if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			s.i = start
			return nil, s.errorf("invalid number")
		}
	}
	return tok, nil
}

// jsonValues reads json values into typed columns, as SeaTunnel's
// JsonToRowConverters: a string field takes any value's text, numbers may
// come as strings, bytes are base64, dates and times are strings.
type jsonValues struct {
	text *textValues
}

// appendValue reads the value at s into c.
func (p *jsonValues) appendValue(c *row.Column, s *jsonScanner) error {
	t := c.Type
	switch s.peek() {
	case 'n':
		tok, err := s.scalar()
		if err != nil {
			return err
		}
		if string(tok) != "null" {
			return fmt.Errorf("invalid value %q", tok)
		}
		c.AppendNull()
		return nil
	case '{', '[':
		switch t.ID {
		case row.TypeArray, row.TypeMap, row.TypeRow:
			v, err := p.boxed(t, s)
			if err != nil {
				return err
			}
			c.AppendAny(v)
			return nil
		case row.TypeString:
			raw, err := s.raw()
			if err != nil {
				return err
			}
			c.AppendString(string(raw))
			return nil
		}
		return fmt.Errorf("cannot read a JSON %s as %s", map[byte]string{'{': "object", '[': "array"}[s.peek()], t)
	case '"':
		b, err := s.str()
		if err != nil {
			return err
		}
		switch t.ID {
		case row.TypeString:
			c.AppendString(string(b))
			return nil
		case row.TypeBytes:
			v, err := base64.StdEncoding.DecodeString(string(b))
			if err != nil {
				return fmt.Errorf("cannot read %q as base64 bytes", b)
			}
			c.AppendBytes(v)
			return nil
		case row.TypeArray, row.TypeMap, row.TypeRow:
			return fmt.Errorf("cannot read a JSON string as %s", t)
		}
		str := strings.TrimSpace(string(b))
		if str == "" && t.ID != row.TypeString {
			c.AppendNull()
			return nil
		}
		return p.text.appendValue(c, str)
	case 0:
		return errJSONEnd
	}
	tok, err := s.scalar()
	if err != nil {
		return err
	}
	switch t.ID {
	case row.TypeString:
		c.AppendString(string(tok))
	case row.TypeBoolean:
		if string(tok) != "true" && string(tok) != "false" {
			return fmt.Errorf("cannot read %s as boolean", tok)
		}
		c.AppendBool(tok[0] == 't')
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		n, err := strconv.ParseInt(string(tok), 10, intBits(t.ID))
		if err != nil {
			return fmt.Errorf("cannot read %s as %s", tok, t)
		}
		c.AppendInt(n)
	case row.TypeFloat, row.TypeDouble:
		f, err := strconv.ParseFloat(string(tok), 64)
		if err != nil {
			return fmt.Errorf("cannot read %s as %s", tok, t)
		}
		if t.ID == row.TypeFloat {
			f = float64(float32(f))
		}
		c.AppendFloat(f)
	case row.TypeDecimal:
		d, err := decimal.NewFromString(string(tok))
		if err != nil {
			return fmt.Errorf("cannot read %s as %s", tok, t)
		}
		if d, err = fitDecimal(t, d); err != nil {
			return err
		}
		c.AppendDecimal(d)
	case row.TypeNull:
		c.AppendNull()
	default:
		return fmt.Errorf("cannot read %s as %s", tok, t)
	}
	return nil
}

// boxed reads a value of type t into its boxed form (see row.Value).
func (p *jsonValues) boxed(t *row.Type, s *jsonScanner) (any, error) {
	if s.peek() == 'n' {
		if tok, err := s.scalar(); err != nil || string(tok) != "null" {
			return nil, s.errorf("invalid value")
		}
		return nil, nil
	}
	switch t.ID {
	case row.TypeArray:
		if err := s.expect('['); err != nil {
			return nil, err
		}
		out := []any{}
		if s.peek() == ']' {
			s.i++
			return out, nil
		}
		for {
			v, err := p.boxed(t.Elem, s)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			if done, err := s.more(']'); err != nil || done {
				return out, err
			}
		}
	case row.TypeMap, row.TypeRow:
		if err := s.expect('{'); err != nil {
			return nil, err
		}
		m := &row.MapValue{}
		var fields []any
		if t.ID == row.TypeRow {
			fields = make([]any, len(t.Fields))
		}
		if s.peek() == '}' {
			s.i++
		} else {
			for {
				kb, err := s.str()
				if err != nil {
					return nil, err
				}
				key := string(kb)
				if err := s.expect(':'); err != nil {
					return nil, err
				}
				if t.ID == row.TypeRow {
					idx := -1
					for i, f := range t.Fields {
						if f.Name == key {
							idx = i
							break
						}
					}
					if idx < 0 {
						if err := s.skip(); err != nil {
							return nil, err
						}
					} else if fields[idx], err = p.boxed(t.Fields[idx].Type, s); err != nil {
						return nil, fmt.Errorf("field %s: %w", key, err)
					}
				} else {
					// A string key is the key as it is, "" too, as
					// SeaTunnel's JsonToRowConverters reads a TextNode;
					// other key types are parsed from its text.
					var k any = key
					if t.Key.ID != row.TypeString {
						if k, err = p.text.boxed(t.Key, key, 0); err != nil {
							return nil, fmt.Errorf("map key: %w", err)
						}
					}
					v, err := p.boxed(t.Elem, s)
					if err != nil {
						return nil, fmt.Errorf("map value of %s: %w", key, err)
					}
					m.Keys = append(m.Keys, k)
					m.Values = append(m.Values, v)
				}
				if done, err := s.more('}'); err != nil {
					return nil, err
				} else if done {
					break
				}
			}
		}
		if t.ID == row.TypeRow {
			return fields, nil
		}
		return m, nil
	}
	c := row.NewColumn(t, 1)
	if err := p.appendValue(c, s); err != nil {
		return nil, err
	}
	return c.Value(0), nil
}

// more reads a ',' (false) or the closing character (true).
func (s *jsonScanner) more(close byte) (bool, error) {
	switch s.peek() {
	case ',':
		s.i++
		return false, nil
	case close:
		s.i++
		return true, nil
	}
	return false, s.errorf("expected ',' or %q", close)
}

// appendJSONCol writes value i of c as SeaTunnel's RowToJsonConverters
// with Jackson's defaults: dates as yyyy-MM-dd, times as HH:mm:ss[.f],
// timestamps as ISO local date-times, decimals as numbers
// (BigDecimal.toString), bytes as base64, maps and rows as objects.
func appendJSONCol(b []byte, c *row.Column, i int) []byte {
	if c.IsNull(i) {
		return append(b, "null"...)
	}
	t := c.Type
	switch t.ID {
	case row.TypeString:
		return row.AppendJSONString(b, c.Str(i))
	case row.TypeBoolean:
		return strconv.AppendBool(b, c.Bools[i])
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return strconv.AppendInt(b, c.Ints[i], 10)
	case row.TypeFloat, row.TypeDouble:
		bits := 64
		if t.ID == row.TypeFloat {
			bits = 32
		}
		n := len(b)
		b = appendJavaFloat(b, c.Floats[i], bits)
		if c := b[n]; c == 'N' || c == 'I' || (c == '-' && b[n+1] == 'I') {
			// Jackson quotes non-numeric numbers (QUOTE_NON_NUMERIC_NUMBERS).
			s := string(b[n:])
			return row.AppendJSONString(b[:n], s)
		}
		return b
	case row.TypeDecimal:
		return row.AppendJavaDecimal(b, c.Decs[i], t.Scale)
	case row.TypeBytes:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, c.Bins[i])
		return append(b, '"')
	case row.TypeDate:
		b = append(b, '"')
		b = row.AppendDate(b, c.Ints[i])
		return append(b, '"')
	case row.TypeTime:
		b = append(b, '"')
		b = row.AppendClock(b, c.Ints[i], true)
		return append(b, '"')
	case row.TypeTimestamp:
		b = append(b, '"')
		b = row.AppendTimestamp(b, c.Secs[i], c.Nanos[i], 'T', true)
		return append(b, '"')
	case row.TypeTimestampTZ: // ISO_OFFSET_DATE_TIME: 2024-01-01T10:00:00+08:00
		b = append(b, '"')
		b = row.AppendTimestampTZ(b, c.Secs[i], c.Nanos[i], c.Offs[i], 'T', true)
		return append(b, '"')
	case row.TypeNull:
		return append(b, "null"...)
	}
	return appendJSONBoxed(b, t, c.Anys[i])
}

func appendJSONBoxed(b []byte, t *row.Type, v any) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	switch t.ID {
	case row.TypeArray:
		b = append(b, '[')
		for i, e := range v.([]any) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONBoxed(b, t.Elem, e)
		}
		return append(b, ']')
	case row.TypeMap:
		m := v.(*row.MapValue)
		b = append(b, '{')
		for i := range m.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			key := ""
			if m.Keys[i] != nil {
				key = row.Text(t.Key, m.Keys[i])
			}
			b = row.AppendJSONString(b, key)
			b = append(b, ':')
			b = appendJSONBoxed(b, t.Elem, m.Values[i])
		}
		return append(b, '}')
	case row.TypeRow:
		b = append(b, '{')
		for i, e := range v.([]any) {
			if i >= len(t.Fields) {
				break
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = row.AppendJSONString(b, t.Fields[i].Name)
			b = append(b, ':')
			b = appendJSONBoxed(b, t.Fields[i].Type, e)
		}
		return append(b, '}')
	}
	c := row.NewColumn(t, 1)
	if err := c.AppendValue(v); err != nil {
		return row.AppendJSONString(b, row.Text(t, v))
	}
	return appendJSONCol(b, c, 0)
}
