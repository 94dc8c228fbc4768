package replace

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// template is a parsed Java replacement string: literal text and group
// references, in order.
type template []piece

type piece struct {
	lit   string
	group int // -1 for a literal
}

// parseReplacement reads a replacement as Matcher.appendReplacement does:
// "\x" is x, "$n" is group n (taking further digits while the number stays
// a group of re), "${name}" is a named group.
func parseReplacement(s string, re *regexp.Regexp) (template, error) {
	var (
		t   template
		lit strings.Builder
	)
	flush := func() {
		if lit.Len() > 0 {
			t = append(t, piece{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	groups := re.NumSubexp()
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\\':
			i++
			if i == len(s) {
				return nil, errors.New(`character to be escaped is missing after the final \`)
			}
			lit.WriteByte(s[i])
			i++
		case '$':
			i++
			if i == len(s) {
				return nil, errors.New("illegal group reference: group index is missing after the final $")
			}
			var ref int
			if s[i] == '{' {
				end := i + 1
				for end < len(s) && isAlnum(s[end]) {
					end++
				}
				name := s[i+1 : end]
				if name == "" {
					return nil, errors.New("named capturing group has 0 length name")
				}
				if end == len(s) || s[end] != '}' {
					return nil, errors.New("named capturing group is missing trailing '}'")
				}
				if name[0] >= '0' && name[0] <= '9' {
					return nil, fmt.Errorf("capturing group name {%s} starts with digit character", name)
				}
				if ref = re.SubexpIndex(name); ref < 0 {
					return nil, fmt.Errorf("no group with name {%s}", name)
				}
				i = end + 1
			} else {
				if s[i] < '0' || s[i] > '9' {
					return nil, fmt.Errorf("illegal group reference $%c", s[i])
				}
				ref = int(s[i] - '0')
				i++
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					next := ref*10 + int(s[i]-'0')
					if next > groups {
						break
					}
					ref = next
					i++
				}
				if ref > groups {
					return nil, fmt.Errorf("no group %d (the pattern has %d)", ref, groups)
				}
			}
			flush()
			t = append(t, piece{group: ref})
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return t, nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// replace replaces the first n matches of re in s (all when n < 0). A group
// that took no part in a match inserts nothing, as in Java.
func (t template) replace(re *regexp.Regexp, s string, n int) string {
	matches := re.FindAllStringSubmatchIndex(s, n)
	if matches == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		for _, p := range t {
			if p.group < 0 {
				b.WriteString(p.lit)
			} else if m[2*p.group] >= 0 {
				b.WriteString(s[m[2*p.group]:m[2*p.group+1]])
			}
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
