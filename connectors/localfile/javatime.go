package localfile

import (
	"fmt"
	"strings"
)

// javaLayout turns a java.time pattern, as SeaTunnel's date_format,
// datetime_format, time_format and filename_time_format take, into a Go
// layout. It knows the letters those options use: y M d H h m s S a E and
// 'quoted' literals; S must follow a '.' or ',' (Go writes fractions only
// there).
func javaLayout(pattern string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(pattern); {
		c := pattern[i]
		if c == '\'' {
			end := strings.IndexByte(pattern[i+1:], '\'')
			if end < 0 {
				return "", fmt.Errorf("unterminated quote in %q", pattern)
			}
			if end == 0 {
				b.WriteByte('\'')
			} else {
				b.WriteString(pattern[i+1 : i+1+end])
			}
			i += end + 2
			continue
		}
		if !isLetter(c) {
			b.WriteByte(c)
			i++
			continue
		}
		n := 1
		for i+n < len(pattern) && pattern[i+n] == c {
			n++
		}
		var tok string
		switch c {
		case 'y', 'u':
			switch n {
			case 2:
				tok = "06"
			default:
				tok = "2006"
			}
		case 'M':
			tok = [...]string{"1", "01", "Jan", "January"}[min(n, 4)-1]
		case 'd':
			tok = [...]string{"2", "02"}[min(n, 2)-1]
		case 'H':
			if n != 2 {
				return "", fmt.Errorf("%q: only HH is supported for hours of day", pattern)
			}
			tok = "15"
		case 'h':
			tok = [...]string{"3", "03"}[min(n, 2)-1]
		case 'm':
			tok = [...]string{"4", "04"}[min(n, 2)-1]
		case 's':
			tok = [...]string{"5", "05"}[min(n, 2)-1]
		case 'S':
			s := b.String()
			if len(s) == 0 || (s[len(s)-1] != '.' && s[len(s)-1] != ',') {
				return "", fmt.Errorf("%q: fractions of a second (S) must follow '.' or ','", pattern)
			}
			tok = strings.Repeat("0", min(n, 9))
		case 'a':
			tok = "PM"
		case 'E':
			if n >= 4 {
				tok = "Monday"
			} else {
				tok = "Mon"
			}
		default:
			return "", fmt.Errorf("%q: pattern letter %q is not supported", pattern, c)
		}
		b.WriteString(tok)
		i += n
	}
	return b.String(), nil
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
