package sqlengine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a place in the query: byte offset, and 1-based line and column
// (columns count characters, not bytes).
type Pos struct {
	Off, Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // bare identifier or keyword
	tQuoted         // "identifier" or `identifier`
	tNumber         // 12, 1.5, 1e3, .5
	tString         // 'text' (Val holds it with '' unescaped)
	tOp             // punctuation and operators
)

// token is one lexeme. Raw is the text as written; Val is the identifier
// without quotes, the string without quotes and escapes, or the operator.
type token struct {
	kind tokKind
	pos  Pos
	raw  string
	val  string
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tIdent:
		if isReserved(t.val) {
			return "keyword " + strings.ToUpper(t.val)
		}
		return fmt.Sprintf("identifier %q", t.val)
	case tQuoted:
		return fmt.Sprintf("identifier %s", t.raw)
	case tNumber:
		return "number " + t.raw
	case tString:
		return "string " + t.raw
	}
	return fmt.Sprintf("%q", t.raw)
}

// is tells whether t is the keyword kw (kw in upper case); quoted
// identifiers are never keywords.
func (t token) is(kw string) bool {
	return t.kind == tIdent && strings.EqualFold(t.val, kw)
}

func (t token) isOp(op string) bool { return t.kind == tOp && t.val == op }

// reserved words cannot be bare column names or aliases.
var reserved = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AS": true, "AND": true, "OR": true,
	"NOT": true, "IN": true, "IS": true, "NULL": true, "TRUE": true, "FALSE": true,
	"LIKE": true, "BETWEEN": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true,
	"END": true, "CAST": true, "LATERAL": true, "JOIN": true, "GROUP": true, "ORDER": true,
	"LIMIT": true, "UNION": true, "HAVING": true, "ON": true, "DISTINCT": true, "OFFSET": true,
	"ESCAPE": true, "INNER": true, "CROSS": true, "EXCEPT": true, "INTERSECT": true,
}

func isReserved(word string) bool { return reserved[strings.ToUpper(word)] }

// lexer turns a query into tokens; it never fails on its own but records
// the first error as a token of kind tEOF with err set.
type lexer struct {
	src  string
	off  int
	line int
	col  int
	err  *QueryError
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1, col: 1} }

func (l *lexer) pos() Pos { return Pos{Off: l.off, Line: l.line, Col: l.col} }

// advance moves past n bytes, keeping line and column.
func (l *lexer) advance(n int) {
	end := l.off + n
	for l.off < end {
		r, size := utf8.DecodeRuneInString(l.src[l.off:])
		l.off += size
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
	}
}

func (l *lexer) peekByte(k int) byte {
	if l.off+k < len(l.src) {
		return l.src[l.off+k]
	}
	return 0
}

// skipSpace skips white space and comments (-- to end of line, /* */).
func (l *lexer) skipSpace() {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.advance(1)
		case c == '-' && l.peekByte(1) == '-':
			end := strings.IndexByte(l.src[l.off:], '\n')
			if end < 0 {
				end = len(l.src) - l.off
			}
			l.advance(end)
		case c == '/' && l.peekByte(1) == '*':
			start := l.pos()
			end := strings.Index(l.src[l.off+2:], "*/")
			if end < 0 {
				l.err = syntaxErr(start, "comment /* is not closed")
				l.advance(len(l.src) - l.off)
				return
			}
			l.advance(end + 4)
		default:
			r, _ := utf8.DecodeRuneInString(l.src[l.off:])
			if r != utf8.RuneError && unicode.IsSpace(r) {
				l.advance(utf8.RuneLen(r))
				continue
			}
			return
		}
	}
}

func isIdentStart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// twoCharOps are the operators of two characters, tried before single ones.
var twoCharOps = []string{"<>", "!=", "<=", ">=", "||"}

// next returns the next token; at the end, or after an error, tEOF.
func (l *lexer) next() token {
	l.skipSpace()
	if l.err != nil || l.off >= len(l.src) {
		return token{kind: tEOF, pos: l.pos()}
	}
	start := l.pos()
	rest := l.src[l.off:]
	c := rest[0]
	r, size := utf8.DecodeRuneInString(rest)
	switch {
	case isIdentStart(r) && r != utf8.RuneError:
		n := size
		for n < len(rest) {
			r2, s2 := utf8.DecodeRuneInString(rest[n:])
			if r2 == utf8.RuneError || !isIdentPart(r2) {
				break
			}
			n += s2
		}
		l.advance(n)
		return token{kind: tIdent, pos: start, raw: rest[:n], val: rest[:n]}
	case c >= '0' && c <= '9' || c == '.' && l.peekByte(1) >= '0' && l.peekByte(1) <= '9':
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n < len(rest) && rest[n] == '.' {
			n++
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
		}
		if n < len(rest) && (rest[n] == 'e' || rest[n] == 'E') {
			m := n + 1
			if m < len(rest) && (rest[m] == '+' || rest[m] == '-') {
				m++
			}
			if m < len(rest) && rest[m] >= '0' && rest[m] <= '9' {
				for m < len(rest) && rest[m] >= '0' && rest[m] <= '9' {
					m++
				}
				n = m
			}
		}
		if n < len(rest) {
			if r2, _ := utf8.DecodeRuneInString(rest[n:]); isIdentStart(r2) {
				l.advance(n)
				l.err = syntaxErr(l.pos(), fmt.Sprintf("unexpected %q after number %s", r2, rest[:n]))
				return token{kind: tEOF, pos: start}
			}
		}
		l.advance(n)
		return token{kind: tNumber, pos: start, raw: rest[:n], val: rest[:n]}
	case c == '\'':
		var b strings.Builder
		n := 1
		for {
			k := strings.IndexByte(rest[n:], '\'')
			if k < 0 {
				l.err = syntaxErr(start, "string literal is not closed (missing ')")
				l.advance(len(rest))
				return token{kind: tEOF, pos: start}
			}
			b.WriteString(rest[n : n+k])
			n += k + 1
			if n < len(rest) && rest[n] == '\'' {
				b.WriteByte('\'')
				n++
				continue
			}
			break
		}
		l.advance(n)
		return token{kind: tString, pos: start, raw: rest[:n], val: b.String()}
	case c == '"' || c == '`':
		var b strings.Builder
		n := 1
		for {
			k := strings.IndexByte(rest[n:], c)
			if k < 0 {
				l.err = syntaxErr(start, fmt.Sprintf("quoted identifier is not closed (missing %c)", c))
				l.advance(len(rest))
				return token{kind: tEOF, pos: start}
			}
			b.WriteString(rest[n : n+k])
			n += k + 1
			if n < len(rest) && rest[n] == c {
				b.WriteByte(c)
				n++
				continue
			}
			break
		}
		if b.Len() == 0 {
			l.err = syntaxErr(start, "empty quoted identifier")
			l.advance(n)
			return token{kind: tEOF, pos: start}
		}
		l.advance(n)
		return token{kind: tQuoted, pos: start, raw: rest[:n], val: b.String()}
	}
	for _, op := range twoCharOps {
		if strings.HasPrefix(rest, op) {
			l.advance(2)
			return token{kind: tOp, pos: start, raw: op, val: op}
		}
	}
	switch c {
	case '+', '-', '*', '/', '%', '=', '<', '>', '(', ')', ',', '.', '[', ']', ';':
		l.advance(1)
		return token{kind: tOp, pos: start, raw: rest[:1], val: rest[:1]}
	}
	if r == utf8.RuneError && size <= 1 {
		l.err = syntaxErr(start, "invalid UTF-8 in query")
	} else {
		l.err = syntaxErr(start, fmt.Sprintf("unexpected character %q", r))
	}
	return token{kind: tEOF, pos: start}
}
