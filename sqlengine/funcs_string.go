package sqlengine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stactor/stactor/row"
)

// String functions, after SeaTunnel's StringFunction. Java counts string
// positions in UTF-16 units, and so do these functions: a character
// outside the Basic Multilingual Plane (an emoji) counts two, as in
// LENGTH, and a cut between its halves leaves U+FFFD.

func registerStringFuncs() {
	register(&fnSpec{1, 1, buildASCII}, "ASCII")
	register(&fnSpec{1, 1, buildBitLength}, "BIT_LENGTH")
	register(&fnSpec{1, 1, buildCharLength}, "CHAR_LENGTH", "LENGTH")
	register(&fnSpec{1, 1, buildOctetLength}, "OCTET_LENGTH")
	register(&fnSpec{1, 1, buildChr}, "CHAR", "CHR")
	register(&fnSpec{1, -1, buildConcat}, "CONCAT")
	register(&fnSpec{2, -1, buildConcatWs}, "CONCAT_WS")
	register(&fnSpec{1, 1, buildHexToRaw}, "HEXTORAW")
	register(&fnSpec{1, 1, buildRawToHex}, "RAWTOHEX")
	register(&fnSpec{4, 4, buildInsert}, "INSERT")
	register(&fnSpec{1, 1, buildCaseMap(false)}, "LOWER", "LCASE")
	register(&fnSpec{1, 1, buildCaseMap(true)}, "UPPER", "UCASE")
	register(&fnSpec{2, 2, buildLeftRight(false)}, "LEFT")
	register(&fnSpec{2, 2, buildLeftRight(true)}, "RIGHT")
	register(&fnSpec{2, 3, buildLocate}, "LOCATE")
	register(&fnSpec{2, 2, buildLocate}, "POSITION")
	register(&fnSpec{2, 3, buildInstr}, "INSTR")
	register(&fnSpec{2, 3, buildPad(false)}, "LPAD")
	register(&fnSpec{2, 3, buildPad(true)}, "RPAD")
	register(&fnSpec{1, 2, buildTrim(true, false)}, "LTRIM")
	register(&fnSpec{1, 2, buildTrim(false, true)}, "RTRIM")
	register(&fnSpec{1, 2, buildTrim(true, true)}, "TRIM")
	register(&fnSpec{3, 4, buildRegexpReplace}, "REGEXP_REPLACE")
	register(&fnSpec{2, 3, buildRegexpLike}, "REGEXP_LIKE")
	register(&fnSpec{2, 6, buildRegexpSubstr}, "REGEXP_SUBSTR")
	register(&fnSpec{2, 2, buildRepeat}, "REPEAT")
	register(&fnSpec{2, 3, buildReplace}, "REPLACE")
	register(&fnSpec{1, 2, buildSplit}, "SPLIT")
	register(&fnSpec{1, 1, buildSoundex}, "SOUNDEX")
	register(&fnSpec{1, 1, buildSpace}, "SPACE")
	register(&fnSpec{2, 3, buildSubstring}, "SUBSTRING", "SUBSTR")
	register(&fnSpec{1, 2, buildToChar}, "TO_CHAR")
	register(&fnSpec{3, 3, buildTranslate}, "TRANSLATE")
}

// maxString bounds the length of a string a function builds (16 MiB):
// REPEAT('x', 2147483647) fails instead of exhausting memory (Java runs
// out of memory there).
const maxString = 1 << 24

func tooLong(name string) error {
	return fmt.Errorf("%s: the result would be longer than %d bytes", name, maxString)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// utf16Len is Java's String.length().
func utf16Len(s string) int64 {
	if isASCII(s) {
		return int64(len(s))
	}
	n := int64(0)
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// chars is s as Java's chars: UTF-16 code units, one per element (a
// character outside the BMP is two surrogates).
func chars(s string) []rune {
	r := []rune(s)
	for _, c := range r {
		if c >= 0x10000 {
			u := utf16.Encode(r)
			r = r[:0]
			for _, x := range u {
				r = append(r, rune(x))
			}
			return r
		}
	}
	return r
}

// unitOffset is the byte offset in s of its UTF-16 unit k (past a
// character whose second half k is).
func unitOffset(s string, k int) int {
	for i, r := range s {
		if k <= 0 {
			return i
		}
		k--
		if r >= 0x10000 {
			k--
		}
	}
	return len(s)
}

// fromChars is the string of Java chars c (from chars); a surrogate
// without its other half becomes U+FFFD.
func fromChars(c []rune) string {
	for _, x := range c {
		if utf16.IsSurrogate(x) {
			u := make([]uint16, len(c))
			for i, x := range c {
				u[i] = uint16(x)
			}
			return string(utf16.Decode(u))
		}
	}
	return string(c)
}

// javaInt is Java's intValue() of a long: its low 32 bits.
func javaInt(x int64) int { return int(int32(x)) }

func buildASCII(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.Int, func(a []val, o *val) error {
		if a[0].s == "" {
			o.null = true
			return nil
		}
		r, _ := utf8.DecodeRuneInString(a[0].s)
		if r >= 0x10000 {
			r, _ = utf16.EncodeRune(r) // Java's charAt(0): the high surrogate
		}
		o.i = int64(r)
		return nil
	}, fnOpts{}), nil
}

func buildBitLength(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aStrBytes); err != nil {
		return nil, err
	}
	isBytes := typeOf(args[0]).ID == row.TypeBytes
	return c.scalar(call, args, row.BigInt, func(a []val, o *val) error {
		if isBytes {
			o.i = int64(len(a[0].bin)) * 8
		} else {
			o.i = int64(len(a[0].s)) * 8
		}
		return nil
	}, fnOpts{}), nil
}

func buildOctetLength(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aStrBytes); err != nil {
		return nil, err
	}
	isBytes := typeOf(args[0]).ID == row.TypeBytes
	return c.scalar(call, args, row.BigInt, func(a []val, o *val) error {
		if isBytes {
			o.i = int64(len(a[0].bin))
		} else {
			o.i = int64(len(a[0].s))
		}
		return nil
	}, fnOpts{}), nil
}

func buildChr(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aInt); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		o.s = string(rune(uint16(a[0].i)))
		return nil
	}, fnOpts{}), nil
}

func buildConcatWs(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args[:1], aString); err != nil {
		return nil, err
	}
	types := make([]*row.Type, len(args))
	for k, a := range args {
		types[k] = typeOf(a)
	}
	var b []byte
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		b = b[:0]
		sep, hasSep := a[0].s, !a[0].null
		first := true
		for k := 1; k < len(a); k++ {
			if a[k].null {
				continue
			}
			if hasSep && !first {
				b = append(b, sep...)
			}
			first = false
			if types[k].ID == row.TypeArray {
				xs, _ := a[k].a.([]any)
				firstElem := true
				for _, x := range xs {
					if x == nil {
						continue
					}
					if !firstElem && hasSep {
						b = append(b, sep...)
					}
					firstElem = false
					b = append(b, row.Text(types[k].Elem, x)...)
				}
				continue
			}
			b = appendJava(b, types[k], &a[k])
			if len(b) > maxString {
				return tooLong("CONCAT_WS")
			}
		}
		o.s = string(b)
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

func buildHexToRaw(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		s := a[0].s
		if len(s)%4 != 0 {
			return fmt.Errorf("HEXTORAW needs 4 hex digits per character, got %d digits", len(s))
		}
		// Each group is (char) Integer.parseInt(group, 16): a sign is
		// allowed, and two groups may be the halves of one character.
		units := make([]rune, 0, len(s)/4)
		for i := 0; i < len(s); i += 4 {
			n, err := strconv.ParseInt(s[i:i+4], 16, 32)
			if err != nil {
				return fmt.Errorf("HEXTORAW: %q is not hexadecimal", s[i:i+4])
			}
			units = append(units, rune(uint16(n)))
		}
		o.s = fromChars(units)
		return nil
	}, fnOpts{fails: true}), nil
}

func buildRawToHex(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	t := typeOf(args[0])
	const hex = "0123456789abcdef"
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if t.ID == row.TypeBytes {
			if 2*len(a[0].bin) > maxString {
				return tooLong("RAWTOHEX")
			}
			b := make([]byte, 0, 2*len(a[0].bin))
			for _, x := range a[0].bin {
				b = append(b, hex[x>>4], hex[x&15])
			}
			o.s = string(b)
			return nil
		}
		s := javaString(t, &a[0])
		if 4*len(s) > maxString {
			return tooLong("RAWTOHEX")
		}
		b := make([]byte, 0, 4*len(s))
		unit := func(u rune) {
			b = append(b, hex[u>>12&15], hex[u>>8&15], hex[u>>4&15], hex[u&15])
		}
		for _, r := range s {
			if r >= 0x10000 {
				r -= 0x10000
				unit(0xD800 + (r >> 10))
				unit(0xDC00 + (r & 0x3FF))
				continue
			}
			unit(r)
		}
		o.s = string(b)
		return nil
	}, fnOpts{}), nil
}

func buildInsert(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aInt, aInt, aString); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[1].null || a[2].null {
			o.null = true
			return nil
		}
		s1, s2 := a[0], a[3]
		switch {
		case s1.null:
			*o = s2
			return nil
		case s2.null:
			*o = s1
			return nil
		}
		r1 := chars(s1.s)
		start, length := javaInt(a[1].i)-1, javaInt(a[2].i)
		if start < 0 || length <= 0 || s2.s == "" || start > len(r1) {
			o.s = s1.s
			return nil
		}
		if start+length > len(r1) {
			length = len(r1) - start
		}
		if len(s1.s)+len(s2.s) > maxString {
			return tooLong("INSERT")
		}
		o.s = fromChars(r1[:start]) + s2.s + fromChars(r1[start+length:])
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

func buildLeftRight(right bool) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aString, aInt); err != nil {
			return nil, err
		}
		return c.scalar(call, args, row.String, func(a []val, o *val) error {
			s, k := a[0].s, max(0, javaInt(a[1].i))
			if isASCII(s) {
				k = min(k, len(s))
				if right {
					o.s = s[len(s)-k:]
				} else {
					o.s = s[:k]
				}
				return nil
			}
			r := chars(s)
			k = min(k, len(r))
			if right {
				o.s = fromChars(r[len(r)-k:])
			} else {
				o.s = fromChars(r[:k])
			}
			return nil
		}, fnOpts{}), nil
	}
}

// locate is SeaTunnel's location/instr: the 1-based position of search
// in s at or after start (Java's indexOf), from the right for a negative
// start (lastIndexOf(search, length + start)); 0 when absent. Positions
// are in UTF-16 units, as Java's.
func locate(search, s string, start int) int64 {
	if isASCII(s) && isASCII(search) {
		return int64(javaIndex(len(s), len(search), start, func(from int) int {
			return strings.Index(s[from:], search)
		}, func(upTo int) int {
			return strings.LastIndex(s[:upTo+len(search)], search)
		}) + 1)
	}
	sc, qc := chars(s), chars(search)
	return int64(javaIndex(len(sc), len(qc), start, func(from int) int {
		for i := 0; from+i+len(qc) <= len(sc); i++ {
			if slices.Equal(sc[from+i:from+i+len(qc)], qc) {
				return i
			}
		}
		return -1
	}, func(upTo int) int {
		for i := upTo; i >= 0; i-- {
			if slices.Equal(sc[i:i+len(qc)], qc) {
				return i
			}
		}
		return -1
	}) + 1)
}

// javaIndex is Java's s.indexOf(q, start-1) (start 0 as 1), or for a
// negative start s.lastIndexOf(q, n+start), for s of n units and q of m;
// index finds q at or after from (giving the offset from from) and last
// at or before upTo (upTo+m <= n).
func javaIndex(n, m, start int, index func(from int) int, last func(upTo int) int) int {
	if start < 0 {
		from := min(n+start, n-m)
		if from < 0 {
			return -1
		}
		return last(from)
	}
	from := max(start-1, 0)
	if from >= n {
		if m == 0 {
			return n
		}
		return -1
	}
	if i := index(from); i >= 0 {
		return from + i
	}
	return -1
}

func buildLocate(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aString, aInt); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.Int, func(a []val, o *val) error {
		if a[1].null {
			o.i = 0
			return nil
		}
		if a[0].null || len(a) == 3 && a[2].null {
			o.null = true
			return nil
		}
		start := 1
		if len(a) == 3 {
			start = javaInt(a[2].i)
		}
		o.i = locate(a[0].s, a[1].s, start)
		return nil
	}, fnOpts{lenient: true}), nil
}

func buildInstr(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aString, aInt); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.Int, func(a []val, o *val) error {
		if a[0].null {
			o.i = 0
			return nil
		}
		if a[1].null || len(a) == 3 && a[2].null {
			o.null = true
			return nil
		}
		start := 1
		if len(a) == 3 {
			start = javaInt(a[2].i)
		}
		o.i = locate(a[1].s, a[0].s, start)
		return nil
	}, fnOpts{lenient: true}), nil
}

func buildPad(right bool) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aString, aInt, aString); err != nil {
			return nil, err
		}
		return c.scalar(call, args, row.String, func(a []val, o *val) error {
			if a[0].null || a[1].null {
				o.null = true
				return nil
			}
			n := javaInt(a[1].i)
			if n > maxString {
				return tooLong(strings.ToUpper(call.name))
			}
			pad := " "
			if len(a) == 3 && !a[2].null && a[2].s != "" {
				// Java's charAt(0): half of a character beyond the BMP.
				if r, size := utf8.DecodeRuneInString(a[2].s); r >= 0x10000 {
					pad = "\uFFFD"
				} else {
					pad = a[2].s[:size]
				}
			}
			r := chars(a[0].s)
			if n < 0 {
				n = 0
			}
			switch {
			case n < len(r):
				o.s = fromChars(r[:n])
			case n == len(r):
				o.s = a[0].s
			default:
				p := strings.Repeat(pad, n-len(r))
				if right {
					o.s = a[0].s + p
				} else {
					o.s = p + a[0].s
				}
			}
			return nil
		}, fnOpts{lenient: true}), nil
	}
}

// trimChars removes the first character of sp (a space when sp is empty)
// from the ends of s, as SeaTunnel's trim.
func trimChars(s string, leading, trailing bool, sp string) string {
	ch := " "
	if sp != "" {
		_, size := utf8.DecodeRuneInString(sp)
		ch = sp[:size]
	}
	if leading {
		for strings.HasPrefix(s, ch) {
			s = s[len(ch):]
		}
	}
	if trailing {
		for strings.HasSuffix(s, ch) {
			s = s[:len(s)-len(ch)]
		}
	}
	return s
}

func buildTrim(leading, trailing bool) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aString, aString); err != nil {
			return nil, err
		}
		return c.scalar(call, args, row.String, func(a []val, o *val) error {
			if a[0].null {
				o.null = true
				return nil
			}
			sp := ""
			if len(a) == 2 && !a[1].null {
				sp = a[1].s
			}
			o.s = trimChars(a[0].s, leading, trailing, sp)
			return nil
		}, fnOpts{lenient: true}), nil
	}
}

// trimSQL is TRIM([LEADING|TRAILING|BOTH] [chars] FROM x).
func (c *compiler) trimSQL(n *trimNode) (evaluator, error) {
	call := &callNode{at: n.at, name: "TRIM", args: []node{n.x}}
	if n.chars != nil {
		call.args = append(call.args, n.chars)
	}
	args := make([]evaluator, len(call.args))
	for k, a := range call.args {
		e, err := c.expr(a)
		if err != nil {
			return nil, err
		}
		args[k] = e
	}
	build := buildTrim(n.where != "TRAILING", n.where != "LEADING")
	e, err := build(c, call, args)
	if err != nil {
		return nil, err
	}
	e.meta().src = n
	return e, nil
}

func buildRepeat(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aInt); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		k := javaInt(a[1].i)
		if k <= 0 {
			o.s = ""
			return nil
		}
		if int64(len(a[0].s))*int64(k) > maxString {
			return tooLong("REPEAT")
		}
		o.s = strings.Repeat(a[0].s, k)
		return nil
	}, fnOpts{fails: true}), nil
}

func buildReplace(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		after := ""
		if len(a) == 3 && !a[2].null {
			after = a[2].s
		}
		if a[1].s == "" {
			o.s = a[0].s
			return nil
		}
		if grow := len(after) - len(a[1].s); grow > 0 && len(a[0].s)+strings.Count(a[0].s, a[1].s)*grow > maxString {
			return tooLong("REPLACE")
		}
		o.s = strings.ReplaceAll(a[0].s, a[1].s, after)
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

const soundexIndex = "71237128722455712623718272\x00\x00\x00\x00\x00\x0071237128722455712623718272"

func soundex(s string) string {
	out := []byte{'0', '0', '0', '0'}
	var last byte = '0'
	j := 0
	for _, c := range s {
		if j >= 4 {
			break
		}
		if c < 'A' || c > 'z' {
			continue
		}
		d := soundexIndex[c-'A']
		if d == 0 {
			continue
		}
		switch {
		case j == 0:
			out[j] = byte(c) & 0xdf
			j++
			last = d
		case d <= '6':
			if d != last {
				out[j] = d
				j++
				last = d
			}
		case d == '7':
			last = d
		}
	}
	return string(out)
}

func buildSoundex(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		o.s = soundex(a[0].s)
		return nil
	}, fnOpts{}), nil
}

func buildSpace(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aInt); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		k := max(0, javaInt(a[0].i))
		if k > maxString {
			return tooLong("SPACE")
		}
		o.s = strings.Repeat(" ", k)
		return nil
	}, fnOpts{fails: true}), nil
}

// substring is SeaTunnel's (H2's) SUBSTRING: 1-based, a start of 0 is 1, a
// negative start counts from the end; an empty result is NULL.
func substring(s string, start int, length *int) (string, bool) {
	var r []rune
	ascii := isASCII(s)
	sl := len(s)
	if !ascii {
		r = chars(s)
		sl = len(r)
	}
	if start == 0 {
		start = 1
	} else if start < 0 {
		start = sl + start + 1
	}
	end := max(sl+1, start)
	if length != nil {
		end = start + *length
	}
	start = max(start, 1)
	end = min(end, sl+1)
	if start > sl || end <= start {
		return "", false
	}
	if ascii {
		return s[start-1 : end-1], true
	}
	return fromChars(r[start-1 : end-1]), true
}

func buildSubstring(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	// SeaTunnel's substring takes any value as its text: a timestamp as
	// 'yyyy-MM-dd HH:mm:ss', a date, time, number or boolean as Java's
	// toString.
	switch t := typeOf(args[0]); {
	case t.ID == row.TypeTimestamp:
		format := c.add(newConst(row.String, val{s: "yyyy-MM-dd HH:mm:ss"}, call))
		text, err := buildFormatDateTime(c, call, []evaluator{args[0], format})
		if err != nil {
			return nil, err
		}
		args[0] = text
	case isNumType(t) || t.ID == row.TypeBoolean || t.ID == row.TypeDate || t.ID == row.TypeTime:
		text, err := newCast(args[0], row.String, true, call.args[0])
		if err != nil {
			return nil, err
		}
		args[0] = c.add(text)
	}
	if err := c.checkArgs(call, args, aString, aInt, aInt); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		var length *int
		if len(a) == 3 && !a[2].null {
			l := javaInt(a[2].i)
			length = &l
		}
		s, ok := substring(a[0].s, javaInt(a[1].i), length)
		o.s, o.null = s, !ok
		return nil
	}, fnOpts{lenient: true}), nil
}

func buildToChar(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	t := typeOf(args[0])
	if isTemporal(t) {
		if len(args) < 2 {
			return nil, errAt(call.at, "function TO_CHAR of a %s needs a format, e.g. TO_CHAR(x, 'yyyy-MM-dd')", t)
		}
		return buildFormatDateTime(c, call, args)
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null {
			o.null = true
			return nil
		}
		o.s = javaString(t, &a[0])
		return nil
	}, fnOpts{lenient: true}), nil
}

func buildTranslate(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aString, aString); err != nil {
		return nil, err
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		find := chars(a[1].s)
		var repl []rune
		if !a[2].null {
			repl = chars(a[2].s)
		}
		// The first position of each character to find.
		pos := make(map[rune]int, len(find))
		for k := len(find) - 1; k >= 0; k-- {
			pos[find[k]] = k
		}
		in := chars(a[0].s)
		for i, ch := range in {
			if k, ok := pos[ch]; ok && k < len(repl) {
				in[i] = repl[k]
			}
		}
		o.s = fromChars(in)
		return nil
	}, fnOpts{lenient: true}), nil
}
