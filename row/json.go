package row

import "unicode/utf8"

const hexDigits = "0123456789ABCDEF"

// AppendJSONString appends s as a JSON string literal the way Jackson
// writes one (SeaTunnel's json format, JsonUtils.toJsonString): \" and \\,
// the short escapes \b \t \n \f \r, other control characters as \u00XX,
// everything else (non-ASCII included) as is. Invalid UTF-8 becomes
// U+FFFD, as Java's decoding to a String makes it.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\uFFFD"...)
				i++
				start = i
				continue
			}
			i += n
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\f':
			b = append(b, '\\', 'f')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
