package sqlengine

import (
	"fmt"
	"strings"
)

// javaPOSIX maps Java's POSIX character classes (\p{Alpha}, US-ASCII
// only, as Java's default) to Go's bracket names.
var javaPOSIX = map[string]string{
	"Lower": "lower", "Upper": "upper", "ASCII": "ascii", "Alpha": "alpha",
	"Digit": "digit", "Alnum": "alnum", "Punct": "punct", "Graph": "graph",
	"Print": "print", "Blank": "blank", "Cntrl": "cntrl", "XDigit": "xdigit",
	"Space": "space",
}

// translateJavaRegex rewrites the parts of a java.util.regex pattern that
// Go's RE2 spells differently or reads differently without an error:
// \p{Alpha} and the other POSIX classes, \s (Java's includes \x0B),
// \p{IsLatin} for a script or category. Java constructs RE2 lacks and
// would otherwise misread, nested classes and class intersections
// ([a-z&&[^x]]), are errors; the rest RE2 refuses itself (look-around,
// back-references, possessive quantifiers).
func translateJavaRegex(p string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch n {
			case 'Q': // literal up to \E, copied as is
				end := strings.Index(p[i+2:], `\E`)
				if end < 0 {
					b.WriteString(p[i:])
					return b.String(), nil
				}
				b.WriteString(p[i : i+2+end+2])
				i += 2 + end + 1
				continue
			case 's', 'S':
				b.WriteString(posixClass("space", n == 'S', inClass))
				i++
				continue
			case 'p', 'P':
				if i+2 < len(p) && p[i+2] == '{' {
					end := strings.IndexByte(p[i+2:], '}')
					if end > 0 {
						name := p[i+3 : i+2+end]
						if class, ok := javaPOSIX[name]; ok {
							b.WriteString(posixClass(class, n == 'P', inClass))
						} else {
							// Java's \p{IsLatin} / \p{IsL} is Go's \p{Latin} / \p{L}.
							b.WriteString(`\` + string(n) + "{" + strings.TrimPrefix(name, "Is") + "}")
						}
						i += 2 + end
						continue
					}
				}
			}
			b.WriteByte(c)
			b.WriteByte(n)
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal in both dialects.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass:
			return "", fmt.Errorf("a character class inside a character class ([a[b]]) is not supported; write its characters in one class")
		case c == '&' && inClass && i+1 < len(p) && p[i+1] == '&':
			return "", fmt.Errorf("character class intersection (&&) is not supported")
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// posixClass is Go's spelling of a POSIX class, negated or not, inside a
// bracket expression or standing alone.
func posixClass(name string, negated, inClass bool) string {
	if negated {
		name = "^" + name
	}
	if inClass {
		return "[:" + name + ":]"
	}
	return "[[:" + name + ":]]"
}
