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
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
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

// quoteShort renders text for an error message, shortened if long.
func quoteShort(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max {
				s = s[:i] + "..."
				break
			}
			n++
		}
	}
	var b strings.Builder
	writeJSONString(&b, s)
	return b.String()
}
