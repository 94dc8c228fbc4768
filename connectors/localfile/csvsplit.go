package localfile

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"
)

// field is one field of a text or csv record.
type field struct {
	s      string
	quoted bool
}

var errBadQuote = errors.New("malformed quoted field: a closing quote must be followed by the delimiter or the end of the record")

// splitCSV splits an RFC 4180 record: a field starting with quote runs to
// the matching quote, a doubled quote inside it is one quote, and it may
// hold delimiters and newlines. rec is the record as a string (its fields
// share its memory, except unquoted ones).
func splitCSV(dst []field, rec string, delim string, quote byte) ([]field, error) {
	dst = dst[:0]
	for {
		if len(rec) > 0 && rec[0] == quote {
			var b strings.Builder
			i := 1
			plain := true
			start := 1
			for {
				j := strings.IndexByte(rec[i:], quote)
				if j < 0 {
					return dst, errUnterminatedQuote
				}
				i += j
				if i+1 < len(rec) && rec[i+1] == quote {
					if plain {
						plain = false
						b.Grow(len(rec))
					}
					b.WriteString(rec[start : i+1])
					i += 2
					start = i
					continue
				}
				break
			}
			var s string
			if plain {
				s = rec[start:i]
			} else {
				b.WriteString(rec[start:i])
				s = b.String()
			}
			dst = append(dst, field{s: s, quoted: true})
			rest := rec[i+1:]
			if len(rest) == 0 {
				return dst, nil
			}
			if !strings.HasPrefix(rest, delim) {
				return dst, errBadQuote
			}
			rec = rest[len(delim):]
			continue
		}
		i := indexDelim(rec, delim)
		if i < 0 {
			return append(dst, field{s: rec}), nil
		}
		dst = append(dst, field{s: rec[:i]})
		rec = rec[i+len(delim):]
	}
}

func indexDelim(s, delim string) int {
	if len(delim) == 1 {
		return strings.IndexByte(s, delim[0])
	}
	return strings.Index(s, delim)
}

// textDelimiter is a text field_delimiter: a Java regular expression, as
// SeaTunnel splits text records with String.split(delimiter, -1). Like
// Java's String.split, a delimiter that is one plain character or a
// backslash-escaped punctuation character ("\\|") is split literally; any
// other goes through the regular expression.
func textDelimiter(d string) (literal string, re *regexp.Regexp, err error) {
	switch {
	case len(d) == 1 && !strings.ContainsRune(".$|()[{^?*+\\", rune(d[0])):
		return d, nil, nil
	case len(d) == 2 && d[0] == '\\' && d[1] < utf8.RuneSelf && !isASCIIAlnum(d[1]):
		return d[1:], nil, nil
	case regexp.QuoteMeta(d) == d:
		return d, nil, nil
	}
	re, err = regexp.Compile(d)
	if err != nil {
		return "", nil, err
	}
	return "", re, nil
}

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// splitTextRE is Java's String.split(re, -1): every match separates two
// fields and trailing empty fields are kept, but a zero-width match at the
// very start makes no empty leading field.
func splitTextRE(dst []field, rec string, re *regexp.Regexp) []field {
	dst = dst[:0]
	last := 0
	for _, m := range re.FindAllStringIndex(rec, -1) {
		if m[1] == 0 {
			continue
		}
		dst = append(dst, field{s: rec[last:m[0]]})
		last = m[1]
	}
	return append(dst, field{s: rec[last:]})
}

// splitText splits a text record on a literal delimiter, keeping trailing
// empty fields (Java's split(delim, -1)).
func splitText(dst []field, rec string, delim string) []field {
	dst = dst[:0]
	for {
		i := indexDelim(rec, delim)
		if i < 0 {
			return append(dst, field{s: rec})
		}
		dst = append(dst, field{s: rec[:i]})
		rec = rec[i+len(delim):]
	}
}
