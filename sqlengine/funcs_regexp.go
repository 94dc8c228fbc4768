package sqlengine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stactor/stactor/row"
)

// Regular expression functions: REGEXP_REPLACE, REGEXP_LIKE,
// REGEXP_SUBSTR and SPLIT. SeaTunnel uses Java's java.util.regex; stactor
// uses Go's regexp (RE2) on the pattern as translateJavaRegex rewrites it
// (Java's POSIX classes, \s). RE2 has no back-references or look-around;
// such patterns are reported as errors, at plan time when the pattern is
// a constant.

// javaRegex compiles a Java regex with SeaTunnel's flags string (i, c, n,
// m). Go's regexp lacks some Java constructs (back-references,
// look-around); such patterns are reported as errors.
func javaRegex(pattern, flags string) (*regexp.Regexp, error) {
	ci, dotall, multi := false, false, false
	for _, f := range flags {
		switch f {
		case 'i':
			ci = true
		case 'c':
			ci = false
		case 'n':
			dotall = true
		case 'm':
			multi = true
		default:
			return nil, fmt.Errorf("unsupported regexp flag %q (allowed: i, c, n, m)", f)
		}
	}
	prefix := ""
	if ci {
		prefix += "i"
	}
	if dotall {
		prefix += "s"
	}
	if multi {
		prefix += "m"
	}
	pattern, err := translateJavaRegex(pattern)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression: %v", err)
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression: %v", err)
	}
	return re, nil
}

// regexCache compiles patterns, remembering the last one.
type regexCache struct {
	pat, flags string
	re         *regexp.Regexp
}

func (r *regexCache) get(pat, flags string) (*regexp.Regexp, error) {
	if r.re != nil && r.pat == pat && r.flags == flags {
		return r.re, nil
	}
	re, err := javaRegex(pat, flags)
	if err != nil {
		return nil, err
	}
	r.pat, r.flags, r.re = pat, flags, re
	return re, nil
}

// checkRegexConst reports a bad constant pattern or flags at plan time.
func checkRegexConst(call *callNode, args []evaluator, pat, flags int) error {
	p, ok := constString(args[pat])
	if !ok {
		return nil
	}
	f := ""
	if flags < len(args) {
		if fs, ok := constString(args[flags]); ok {
			f = fs
		}
	}
	if _, err := javaRegex(p, f); err != nil {
		return errAt(call.args[pat].pos(), "function %s: %v", strings.ToUpper(call.name), err)
	}
	return nil
}

// javaReplacement turns a Java replacement string ($1, ${name}, \$) for
// re into Go's template syntax (${1}, $$). As Java's Matcher: digits after
// $ extend the group number only while such a group exists ($12 with one
// group is group 1 and a "2"), and a group re does not have is an error.
func javaReplacement(r string, re *regexp.Regexp) (string, error) {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		switch ch := r[i]; ch {
		case '\\':
			i++
			if i >= len(r) {
				return "", fmt.Errorf("character to be escaped is missing in replacement %q", r)
			}
			if r[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(r[i])
			}
		case '$':
			i++
			if i >= len(r) {
				return "", fmt.Errorf("illegal group reference in replacement %q", r)
			}
			if r[i] == '{' {
				end := strings.IndexByte(r[i:], '}')
				if end < 0 {
					return "", fmt.Errorf("named group reference is not closed in %q", r)
				}
				name := r[i+1 : i+end]
				if re.SubexpIndex(name) < 0 {
					return "", fmt.Errorf("no group with name {%s} in replacement %q", name, r)
				}
				b.WriteString("${" + name + "}")
				i += end
				continue
			}
			if r[i] < '0' || r[i] > '9' {
				return "", fmt.Errorf("illegal group reference in replacement %q", r)
			}
			g := int(r[i] - '0')
			if g > re.NumSubexp() {
				return "", fmt.Errorf("no group %d in replacement %q", g, r)
			}
			for i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9' {
				next := g*10 + int(r[i+1]-'0')
				if next > re.NumSubexp() {
					break
				}
				g = next
				i++
			}
			b.WriteString("${" + strconv.Itoa(g) + "}")
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), nil
}

func buildRegexpReplace(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	if err := checkRegexConst(call, args, 1, 3); err != nil {
		return nil, err
	}
	var cache regexCache
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null || a[1].null || a[2].null {
			o.null = true
			return nil
		}
		flags := ""
		if len(a) == 4 && !a[3].null {
			flags = a[3].s
		}
		re, err := cache.get(a[1].s, flags)
		if err != nil {
			return err
		}
		repl, err := javaReplacement(a[2].s, re)
		if err != nil {
			return err
		}
		o.s = re.ReplaceAllString(a[0].s, repl)
		if len(o.s) > maxString {
			return tooLong("REGEXP_REPLACE")
		}
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

func buildRegexpLike(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	if err := checkRegexConst(call, args, 1, 2); err != nil {
		return nil, err
	}
	var cache regexCache
	return c.scalar(call, args, row.Boolean, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		flags := ""
		if len(a) == 3 && !a[2].null {
			flags = a[2].s
		}
		re, err := cache.get(a[1].s, flags)
		if err != nil {
			return err
		}
		o.b = re.MatchString(a[0].s)
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

func buildRegexpSubstr(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aString, aInt, aInt, aString, aInt); err != nil {
		return nil, err
	}
	if err := checkRegexConst(call, args, 1, 4); err != nil {
		return nil, err
	}
	var cache regexCache
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		// SeaTunnel reads the optional arguments only when all six are
		// given; with three to five it returns NULL.
		if len(a) > 2 && len(a) < 6 {
			o.null = true
			return nil
		}
		pos, occ, group, flags := 0, 1, 0, ""
		if len(a) == 6 {
			if !a[2].null {
				pos = javaInt(a[2].i) - 1
			}
			if !a[3].null {
				occ = javaInt(a[3].i)
			}
			if !a[4].null {
				flags = a[4].s
			}
			if !a[5].null {
				group = javaInt(a[5].i)
			}
		}
		re, err := cache.get(a[1].s, flags)
		if err != nil {
			return err
		}
		s := a[0].s
		if pos < 0 || int64(pos) > utf16Len(s) {
			return fmt.Errorf("REGEXP_SUBSTR position %d is out of range", pos+1)
		}
		from := unitOffset(s, pos)
		var m []int
		for k := 0; k < max(occ, 1); k++ {
			m = re.FindStringSubmatchIndex(s[from:])
			if m == nil {
				o.null = true
				return nil
			}
			for j := range m {
				if m[j] >= 0 {
					m[j] += from
				}
			}
			next := m[1]
			if m[1] == m[0] {
				if m[1] >= len(s) {
					next = len(s) + 1
				} else {
					_, size := utf8.DecodeRuneInString(s[m[1]:])
					next = m[1] + size
				}
			}
			if k < max(occ, 1)-1 {
				if next > len(s) {
					o.null = true
					return nil
				}
				from = next
			}
		}
		if group < 0 || 2*group+1 >= len(m) {
			return fmt.Errorf("REGEXP_SUBSTR: no group %d", group)
		}
		if m[2*group] < 0 {
			o.null = true
			return nil
		}
		o.s = s[m[2*group]:m[2*group+1]]
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

// javaSplit is String.split(regex): trailing empty strings are dropped,
// and a zero-width match at the start makes no leading empty string.
func javaSplit(s string, re *regexp.Regexp) []any {
	var out []any
	index := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if index == 0 && m[0] == 0 && m[1] == 0 {
			continue
		}
		out = append(out, s[index:m[0]])
		index = m[1]
	}
	if index == 0 {
		return []any{s}
	}
	out = append(out, s[index:])
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func buildSplit(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	if len(args) == 2 {
		if err := checkRegexConst(call, args, 1, 99); err != nil {
			return nil, err
		}
	}
	var cache regexCache
	return c.scalar(call, args, row.ArrayOf(row.String), func(a []val, o *val) error {
		if a[0].null || a[0].s == "" {
			o.null = true
			return nil
		}
		delim := ""
		if len(a) == 2 {
			if a[1].null {
				o.null = true
				return nil
			}
			delim = a[1].s
		}
		re, err := cache.get(delim, "")
		if err != nil {
			return err
		}
		o.a = javaSplit(a[0].s, re)
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}
