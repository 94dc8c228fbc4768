package jsonpath

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/shopspring/decimal"

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

// parseInteger reads an integer literal (digits after an optional '-') as
// json-smart's parseNumber: a long, or a BigInteger when it has more than
// 19 digits or does not fit a long. A lone "-" is 0.
func parseInteger(lit string) number {
	max := 19
	if strings.HasPrefix(lit, "-") {
		max++
	}
	if len(lit) <= max {
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return intNumber(i)
		}
		if lit == "-" {
			return intNumber(0)
		}
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return number{kind: numBig, f: f, lit: lit}
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
		if digits == "" { // leading zeros past 19 digits: a BigInteger 0
			return "0"
		}
		if strings.HasPrefix(n.lit, "-") {
			return "-" + digits
		}
		return digits
	}
	return bigDecimalString(n.lit)
}

// bigDecimalString renders a decimal literal as Java's
// BigDecimal.toString does (new BigDecimal(lit).toString()): plain unless
// the exponent is below -6 or the scale negative, scientific (1.5E+20)
// otherwise.
func bigDecimalString(lit string) string {
	d, err := decimal.NewFromString(lit)
	if err != nil {
		return lit
	}
	return row.JavaDecimal(d, -int(d.Exponent()))
}

// maxDepth bounds nesting, as json-smart's LIMIT_JSON_DEPTH does.
const maxDepth = 400

// parseJSON reads a JSON document as Jayway's default provider does:
// json-smart's JSONParser in MODE_PERMISSIVE, whose reading this follows
// (JSONParserBase, JSONParserMemory). Beyond strict JSON it accepts:
//   - unquoted text wherever a key or value may stand, read up to the next
//     character that may end it (':' for a key; ',' and '}' in an object,
//     ',' and ']' in an array; nothing at the top) and trimmed: {a: b c}
//     is {"a":"b c"}, and a bare true, false, null or NaN is that value;
//   - a number followed by more text before that end is text (2023-10-29);
//   - single-quoted strings; escapes json-smart does not know drop the
//     character; \xHH; raw control characters;
//   - leading zeros, extra commas ([1,,2,] is [1,2]), values not separated
//     by commas in an array, and anything after the first value.
//
// A missing ':' or a value cut short by the end of the text is an error.
func parseJSON(s string) (any, error) {
	p := jsonParser{s: s}
	return p.value(0, stopTop)
}

type jsonParser struct {
	s string
	i int
}

// stop says which characters end unquoted text in a context (json-smart's
// stopX, stopKey, stopValue and stopArray); the end of the text always does.
type stop uint8

const (
	stopTop   stop = iota // the whole document: only the end
	stopKey               // an object key: ':'
	stopValue             // an object value: ',' '}'
	stopArray             // an array item: ',' ']'
)

func (st stop) has(c byte) bool {
	switch st {
	case stopKey:
		return c == ':'
	case stopValue:
		return c == ',' || c == '}'
	case stopArray:
		return c == ',' || c == ']'
	}
	return false
}

func (p *jsonParser) fail(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

// blank is json-smart's loop whitespace; skipSpace (spaceAll) skips every
// character up to ' '.
func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *jsonParser) skipBlank() {
	for p.i < len(p.s) && blank(p.s[p.i]) {
		p.i++
	}
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.s) && p.s[p.i] <= ' ' {
		p.i++
	}
}

func (p *jsonParser) value(depth int, st stop) (any, error) {
	p.skipBlank()
	if p.i >= len(p.s) {
		if st == stopTop {
			return "", nil // json-smart reads an empty text as ""
		}
		return nil, p.fail("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == ':' || c == '}' || c == ']':
		return nil, p.fail("unexpected %q", c)
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"' || c == '\'':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number(st)
	}
	switch t := p.text(p.i, st); t {
	case "null":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "NaN":
		return floatNumber(math.NaN()), nil
	default:
		return t, nil
	}
}

// text reads unquoted text from start up to st's end, trimmed.
func (p *jsonParser) text(start int, st stop) string {
	for p.i < len(p.s) && !st.has(p.s[p.i]) {
		p.i++
	}
	return trimText(p.s[start:p.i])
}

// trimText trims as json-smart's extractStringTrim: Java whitespace at
// both ends, but never the last character left.
func trimText(s string) string {
	for {
		r, n := utf8.DecodeRuneInString(s)
		if n == len(s) || !javaWhitespace(r) {
			break
		}
		s = s[n:]
	}
	for {
		r, n := utf8.DecodeLastRuneInString(s)
		if n == len(s) || !javaWhitespace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// javaWhitespace is Java's Character.isWhitespace.
func javaWhitespace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x1f:
		return true
	case r == 0xa0 || r == 0x2007 || r == 0x202f:
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

func (p *jsonParser) object(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.fail("nested deeper than %d", maxDepth)
	}
	p.i++ // {
	o := newObject()
	for {
		p.skipBlank()
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated object")
		}
		var key string
		switch c := p.s[p.i]; c {
		case ':', ']', '[', '{':
			return nil, p.fail("unexpected %q in object", c)
		case '}':
			p.i++
			return o, nil
		case ',': // extra commas are accepted
			p.i++
			continue
		case '"', '\'':
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k.(string)
		default:
			key = p.text(p.i, stopKey)
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.fail("expected ':' after key %q", key)
		}
		p.i++
		v, err := p.value(depth, stopValue)
		if err != nil {
			return nil, err
		}
		o.set(key, v)
		p.skipSpace()
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
	if depth > maxDepth {
		return nil, p.fail("nested deeper than %d", maxDepth)
	}
	p.i++ // [
	out := make([]any, 0, 4)
	for {
		p.skipBlank()
		if p.i >= len(p.s) {
			return nil, p.fail("unterminated array")
		}
		switch c := p.s[p.i]; c {
		case ']':
			p.i++
			return out, nil
		case ':', '}':
			return nil, p.fail("unexpected %q in array", c)
		case ',': // extra commas are accepted
			p.i++
			continue
		}
		v, err := p.value(depth, stopArray)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// str reads a quoted string. As json-smart, text without a backslash up to
// the closing quote is taken as it is; otherwise escapes are read one by
// one, and raw control characters (and DEL) are dropped.
func (p *jsonParser) str() (any, error) {
	quote := p.s[p.i]
	p.i++
	end := strings.IndexByte(p.s[p.i:], quote)
	if end < 0 {
		return nil, p.fail("unterminated string")
	}
	if raw := p.s[p.i : p.i+end]; strings.IndexByte(raw, '\\') < 0 {
		p.i += end + 1
		return raw, nil
	}
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == quote:
			return b.String(), nil
		case c < 0x20 || c == 0x7f:
			continue
		case c != '\\':
			b.WriteByte(c)
			continue
		}
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
		case 'x':
			r, ok := p.hex(2)
			if !ok {
				return nil, p.fail(`bad \x escape`)
			}
			b.WriteRune(r)
		case 'u':
			r, ok := p.hex(4)
			if !ok {
				return nil, p.fail(`bad \u escape`)
			}
			if utf16.IsSurrogate(r) && strings.HasPrefix(p.s[p.i:], `\u`) {
				save := p.i
				p.i += 2
				if r2, ok := p.hex(4); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						b.WriteRune(d)
						continue
					}
				}
				p.i = save
			}
			b.WriteRune(r)
		default:
			// json-smart drops an unknown escape with its character.
		}
	}
	return nil, p.fail("unterminated string")
}

func (p *jsonParser) hex(n int) (rune, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += n
	return rune(v), true
}

// number reads what starts with a digit or '-' as json-smart's readNumber
// does: a number when it ends where st ends a value, else unquoted text.
func (p *jsonParser) number(st stop) (any, error) {
	start := p.i
	digits := func() {
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	}
	// ends reports whether, after spaces, the value ends here; if not, the
	// whole value is text.
	ends := func() bool {
		end := p.i
		p.skipSpace()
		if p.i < len(p.s) && !st.has(p.s[p.i]) {
			return false
		}
		p.i = end
		return true
	}
	p.i++
	digits()
	isFloat := false
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		digits()
		isFloat = true
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i >= len(p.s) || !(p.s[p.i] == '+' || p.s[p.i] == '-' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
			return p.text(start, st), nil
		}
		p.i++
		digits()
		isFloat = true
	}
	if !ends() {
		return p.text(start, st), nil
	}
	lit := p.s[start:p.i]
	if !isFloat {
		return parseInteger(lit), nil
	}
	n, err := parseNumber(lit)
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

// writeJSONString writes s as Jackson quotes a string.
func writeJSONString(b *strings.Builder, s string) {
	var buf [64]byte
	b.Write(row.AppendJSONString(buf[:0], s))
}

// jsonText is v rendered by writeJSON.
func jsonText(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}
