package sqlengine

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/stactor/stactor/row"
)

// The vectorized string functions: LENGTH, CONCAT (and ||), UPPER and
// LOWER. They build a batch's strings in one buffer instead of allocating
// one string per row.

// lengthEval is CHAR_LENGTH / LENGTH, vectorized.
type lengthEval struct {
	exprBase
	x evaluator
}

func buildCharLength(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString); err != nil {
		return nil, err
	}
	e := &lengthEval{x: args[0]}
	e.t, e.src = row.BigInt, call
	e.derive(args[0])
	return c.add(e), nil
}

func (e *lengthEval) eval(c *evalCtx) (*row.Column, error) {
	x, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(row.BigInt, c.n)
	if x.Type.ID == row.TypeNull {
		return e.out.allNull(row.BigInt, c.n), nil
	}
	for i, s := range x.Strs[:c.n] {
		out.Ints[i] = utf16Len(s)
	}
	if x.Nulls != nil {
		copy(e.out.nullsOf(out, c.n), x.Nulls[:c.n])
	}
	return out, nil
}

// textBuf builds many strings of a batch into one buffer and hands them
// out as substrings of it: one allocation per batch instead of one per
// row. The buffer is fresh for every batch and never written once its
// strings are handed out, which is what makes unsafe.String safe here.
type textBuf struct {
	buf  []byte
	ends []int
}

func (t *textBuf) reset(sizeHint int) {
	t.buf = make([]byte, 0, sizeHint)
	t.ends = t.ends[:0]
}

// start is where the current string began.
func (t *textBuf) start() int {
	if len(t.ends) == 0 {
		return 0
	}
	return t.ends[len(t.ends)-1]
}

// end closes the current string.
func (t *textBuf) end() { t.ends = append(t.ends, len(t.buf)) }

// all is the whole buffer as a string; the buffer must not change after.
func (t *textBuf) all() string {
	if len(t.buf) == 0 {
		return ""
	}
	s := unsafe.String(&t.buf[0], len(t.buf))
	t.buf = nil
	return s
}

// strings writes the strings closed so far into out (out[k] for the k-th).
func (t *textBuf) strings(out []string) {
	ends := t.ends
	all := t.all()
	start := 0
	for k, e := range ends {
		out[k] = all[start:e]
		start = e
	}
}

// concatEval is CONCAT(a, b, ...) and a || b: NULL arguments are skipped
// (SeaTunnel turns || into CONCAT), non-strings print as Java prints them.
type concatEval struct {
	exprBase
	args []evaluator
	cols []*row.Column
	tb   textBuf
	hint int // bytes the last batch needed
}

func newConcat(src node, args []evaluator) *concatEval {
	e := &concatEval{args: args, cols: make([]*row.Column, len(args))}
	e.t, e.src = row.String, src
	e.derive(args...)
	return e
}

func buildConcat(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return c.add(newConcat(call, args)), nil
}

func (e *concatEval) eval(c *evalCtx) (*row.Column, error) {
	for k, a := range e.args {
		col, err := a.eval(c)
		if err != nil {
			return nil, err
		}
		e.cols[k] = col
	}
	n := c.n
	out := e.out.get(row.String, n)
	e.tb.reset(e.hint)
	var v val
	for i := 0; i < n; i++ {
		for _, col := range e.cols {
			if isNull(col, i) {
				continue
			}
			if col.Type.ID == row.TypeString {
				e.tb.buf = append(e.tb.buf, col.Strs[i]...)
				continue
			}
			readVal(col, i, &v)
			e.tb.buf = appendJava(e.tb.buf, col.Type, &v)
		}
		if start := e.tb.start(); len(e.tb.buf)-start > maxString {
			return nil, failRow(c, e, i, "CONCAT: the result would be longer than %d bytes", maxString)
		}
		e.tb.end()
	}
	e.hint = len(e.tb.buf) + len(e.tb.buf)/8
	e.tb.strings(out.Strs[:n])
	clear(e.cols)
	return out, nil
}

// caseMapEval is UPPER / LOWER, vectorized: ASCII strings are mapped into
// one buffer per batch, strings already in the target case are shared.
// Other strings are mapped as Java's String.toUpperCase / toLowerCase do,
// with Unicode's full case mapping: 'straße' is 'STRASSE', a final sigma
// lowers to 'ς' and 'İ' to 'i̇' (the strings package maps rune by rune).
type caseMapEval struct {
	exprBase
	x     evaluator
	upper bool
	caser cases.Caser // not safe for concurrent use: one per evaluator
	rows  []int
}

func buildCaseMap(upper bool) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aString); err != nil {
			return nil, err
		}
		e := &caseMapEval{x: args[0], upper: upper, caser: cases.Lower(language.Und)}
		if upper {
			e.caser = cases.Upper(language.Und)
		}
		e.t, e.src = row.String, call
		e.derive(args[0])
		return c.add(e), nil
	}
}

func (e *caseMapEval) eval(c *evalCtx) (*row.Column, error) {
	x, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	n := c.n
	if x.Type.ID == row.TypeNull {
		return e.out.allNull(row.String, n), nil
	}
	out := e.out.get(row.String, n)
	// Pass 1: strings already in the target case are shared, non-ASCII
	// ones mapped by the caser; the rest are counted.
	rows := e.rows[:0]
	total := 0
	for i, s := range x.Strs[:n] {
		switch asciiCase(s, e.upper) {
		case caseSame:
			out.Strs[i] = s
		case caseOther:
			out.Strs[i] = e.caser.String(s)
		default:
			rows = append(rows, i)
			total += len(s)
		}
	}
	// Pass 2: map the rest into one buffer.
	if len(rows) > 0 {
		buf := make([]byte, total)
		off := 0
		for _, i := range rows {
			s := x.Strs[i]
			mapASCII(buf[off:off+len(s)], s, e.upper)
			off += len(s)
		}
		all := unsafe.String(&buf[0], len(buf))
		off = 0
		for _, i := range rows {
			l := len(x.Strs[i])
			out.Strs[i] = all[off : off+l]
			off += l
		}
	}
	e.rows = rows
	if x.Nulls != nil {
		copy(e.out.nullsOf(out, n), x.Nulls[:n])
	}
	return out, nil
}

const (
	caseSame  = iota // ASCII, already in the target case
	caseMap          // ASCII with letters to change
	caseOther        // not ASCII
)

const (
	swarHigh = 0x8080808080808080
	swarOnes = 0x0101010101010101
)

// letterMask has 0x80 in each byte of w (all ASCII) that is a letter in
// lo..hi.
func letterMask(w uint64, lo, hi byte) uint64 {
	return (w + swarOnes*uint64(0x80-lo)) &^ (w + swarOnes*uint64(0x80-hi-1)) & swarHigh
}

// asciiCase classifies s for UPPER (upper) or LOWER, eight bytes at a time.
func asciiCase(s string, upper bool) int {
	lo, hi := byte('a'), byte('z')
	if !upper {
		lo, hi = 'A', 'Z'
	}
	change := false
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		if w&swarHigh != 0 {
			return caseOther
		}
		if letterMask(w, lo, hi) != 0 {
			change = true
		}
	}
	for ; i < len(s); i++ {
		b := s[i]
		if b >= utf8.RuneSelf {
			return caseOther
		}
		if b >= lo && b <= hi {
			change = true
		}
	}
	if change {
		return caseMap
	}
	return caseSame
}

// mapASCII writes s (ASCII) into dst in upper or lower case.
func mapASCII(dst []byte, s string, upper bool) {
	lo, hi := byte('a'), byte('z')
	if !upper {
		lo, hi = 'A', 'Z'
	}
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		binary.LittleEndian.PutUint64(dst[i:], w^letterMask(w, lo, hi)>>2)
	}
	for ; i < len(s); i++ {
		b := s[i]
		if b >= lo && b <= hi {
			b ^= 0x20
		}
		dst[i] = b
	}
}
