package jsonpath

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stactor/stactor/row"
)

// A JSON value here is nil (null), bool, string, number, []any (array) or
// *object. Objects keep their keys in document order, as Jayway's
// json-smart provider (LinkedHashMap) does, so rendering a sub-document
// gives the keys back in the order they were read.

// object is a JSON object.
type object struct {
	keys []string
	vals []any
}

func newObject() *object {
	return &object{keys: make([]string, 0, 4), vals: make([]any, 0, 4)}
}

func (o *object) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// set adds k, or replaces its value in place (a repeated key: the last
// value wins, at the first key's position).
func (o *object) set(k string, v any) {
	for i, key := range o.keys {
		if key == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// numKind is how json-smart (Jayway's default provider) would hold a
// number: Integer/Long, Double, BigInteger or BigDecimal. The kind decides
// how Jackson converts and prints it afterwards.
type numKind uint8

const (
	numInt   numKind = iota // fits a long
	numFloat                // a double
	numBig                  // an integer beyond long
	numDec                  // a decimal literal of more than 18 characters
)

// number is a JSON number.
type number struct {
	kind numKind
	i    int64
	f    float64
	lit  string // numBig, numDec: the literal
}

func intNumber(i int64) number     { return number{kind: numInt, i: i, f: float64(i)} }
func floatNumber(f float64) number { return number{kind: numFloat, f: f} }

// parseNumber reads a number literal as json-smart does in its permissive
// mode: integers as Long (or BigInteger), other literals as Double unless
// longer than 18 characters (then BigDecimal).
func parseNumber(lit string) (number, error) {
	if !strings.ContainsAny(lit, ".eE") {
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return intNumber(i), nil
		}
		if !isDigits(strings.TrimPrefix(lit, "-")) {
			return number{}, fmt.Errorf("bad number %q", lit)
		}
		f, _ := strconv.ParseFloat(lit, 64)
		return number{kind: numBig, f: f, lit: lit}, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return number{}, fmt.Errorf("bad number %q", lit)
	}
	if len(lit) > 18 {
		return number{kind: numDec, f: f, lit: lit}, nil
	}
	return floatNumber(f), nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// text is the number as Jackson's asText() gives it.
func (n number) text() string {
	switch n.kind {
	case numInt:
		return strconv.FormatInt(n.i, 10)
	case numFloat:
		return row.JavaFloat(n.f, 64)
	case numBig:
		digits := strings.TrimLeft(strings.TrimPrefix(n.lit, "-"), "0")
		if strings.HasPrefix(n.lit, "-") {
			return "-" + digits
		}
		return digits
	}
	return bigDecimalString(n.lit)
}

// bigDecimalString renders a decimal literal as Java's
// BigDecimal.toString does: plain unless the exponent is below -6 or the
// scale negative, scientific (1.5E+20) otherwise.
func bigDecimalString(lit string) string {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimLeft(lit, "+-")
	mant, exp := lit, 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
		e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		if err != nil {
			return lit
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	coeff := strings.TrimLeft(intPart+frac, "0")
	if coeff == "" {
		coeff = "0"
	}
	scale := len(frac) - exp
	adjusted := -scale + len(coeff) - 1
	var s string
	switch {
	case scale == 0:
		s = coeff
	case scale > 0 && adjusted >= -6:
		if len(coeff) > scale {
			s = coeff[:len(coeff)-scale] + "." + coeff[len(coeff)-scale:]
		} else {
			s = "0." + strings.Repeat("0", scale-len(coeff)) + coeff
		}
	default:
		s = coeff[:1]
		if len(coeff) > 1 {
			s += "." + coeff[1:]
		}
		s += "E"
		if adjusted >= 0 {
			s += "+"
		}
		s += strconv.Itoa(adjusted)
	}
	if neg && coeff != "0" {
		s = "-" + s
	}
	return s
}

// maxDepth bounds nesting, as json-smart's LIMIT_JSON_DEPTH does.
const maxDepth = 400

// parseJSON reads a JSON document. Beyond strict JSON it accepts, as
// json-smart's permissive mode does, single-quoted strings and raw control
// characters inside strings.
func parseJSON(s string) (any, error) {
	p := jsonParser{s: s}
	p.space()
	if p.i == len(s) {
		return nil, errors.New("invalid JSON: empty text")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(s) {
		return nil, p.fail("unexpected %q after the JSON value", p.s[p.i])
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
}

func (p *jsonParser) fail(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.fail("nested deeper than %d", maxDepth)
	}
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return nil, nil
	default:
		return nil, p.fail("unexpected %q", c)
	}
}

func (p *jsonParser) object(depth int) (any, error) {
	p.i++ // {
	o := newObject()
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return o, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\'') {
			return nil, p.fail("expected a quoted key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.fail("expected ':' after key %q", k)
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		o.set(k.(string), v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return o, nil
		default:
			return nil, p.fail("expected ',' or '}' in object")
		}
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.i++ // [
	out := make([]any, 0, 4)
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return out, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return out, nil
		default:
			return nil, p.fail("expected ',' or ']' in array")
		}
	}
}

func (p *jsonParser) str() (any, error) {
	quote := p.s[p.i]
	p.i++
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.s) && p.s[p.i] != quote && p.s[p.i] != '\\' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == quote {
		p.i++
		return p.s[start : p.i-1], nil
	}
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == quote:
			p.i++
			return b.String(), nil
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			break
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/', '\'':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, p.fail(`bad \u escape`)
			}
			if utf16.IsSurrogate(r) && strings.HasPrefix(p.s[p.i:], `\u`) {
				save := p.i
				p.i += 2
				if r2, ok := p.hex4(); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						b.WriteRune(d)
						continue
					}
				}
				p.i = save
			}
			b.WriteRune(r)
		default:
			return nil, p.fail("bad escape \\%c", e)
		}
	}
	return nil, p.fail("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return nil, p.fail("bad number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	n, err := parseNumber(p.s[start:p.i])
	if err != nil {
		return nil, p.fail("%v", err)
	}
	return n, nil
}

// writeJSON renders v compactly, as Jackson's JsonNode.toString() does: no
// spaces, doubles as Java prints them, non-ASCII text unescaped.
func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		writeJSONString(b, x)
	case number:
		if x.kind == numFloat && (math.IsNaN(x.f) || math.IsInf(x.f, 0)) {
			writeJSONString(b, x.text()) // Jackson quotes non-numeric numbers
		} else {
			b.WriteString(x.text())
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			writeJSON(b, x.vals[i])
		}
		b.WriteByte('}')
	}
}

const hexDigits = "0123456789ABCDEF"

func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// jsonText is v rendered by writeJSON.
func jsonText(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}
