package hocon

import (
	"strings"
	"unicode/utf8"
)

// writeCompact renders v as compact JSON (valid HOCON as well). Numbers
// are written as in the source.
func writeCompact(b *strings.Builder, v *Value) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.Kind {
	case Object:
		b.WriteByte('{')
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, f.Key)
			b.WriteByte(':')
			writeCompact(b, f.Value)
		}
		b.WriteByte('}')
	case Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, it)
		}
		b.WriteByte(']')
	case String:
		writeJSONString(b, v.Text)
	case Number, Bool:
		b.WriteString(v.Text)
	default:
		b.WriteString("null")
	}
}

const hexDigits = "0123456789abcdef"

// writeJSONString writes s as a JSON string literal.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
				b.WriteByte(c)
			} else if !writeControl(b, c) {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // invalid UTF-8 becomes U+FFFD
		i += w
	}
	b.WriteByte('"')
}

// writeControl writes an ASCII control character escaped as in JSON and
// reports whether c was one.
func writeControl(b *strings.Builder, c byte) bool {
	switch {
	case c == '\n':
		b.WriteString(`\n`)
	case c == '\r':
		b.WriteString(`\r`)
	case c == '\t':
		b.WriteString(`\t`)
	case c < 0x20 || c == 0x7f:
		b.WriteString(`\u00`)
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xf])
	default:
		return false
	}
	return true
}

// shorten cuts s after 40 characters, marking the cut with "...".
func shorten(s string) string {
	const max = 40
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "..."
		}
		n++
	}
	return s
}

// quoteShort renders text for an error message, shortened if long.
func quoteShort(s string) string {
	var b strings.Builder
	writeJSONString(&b, shorten(s))
	return b.String()
}

// keyShort renders a key as written (its text from keyPath) for an
// error message, shortened if long. A key with a quoted part already
// shows its own quotes, so it is not quoted again (which would escape
// them); only control characters from """triple-quoted""" parts are
// escaped, to keep the message on one line.
func keyShort(text string) string {
	if !strings.Contains(text, `"`) { // unquoted text cannot hold '"'
		return quoteShort(text)
	}
	s := shorten(text)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if !writeControl(&b, s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
