package hocon

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

type tokKind int

const (
	tEOF tokKind = iota
	tError
	tNewline
	tSpace
	tLBrace
	tRBrace
	tLBracket
	tRBracket
	tComma
	tColon
	tEquals
	tPlusEquals
	tString   // quoted or triple-quoted string; text is the value
	tUnquoted // unquoted text; never contains whitespace
	tSubst    // ${path}, ${?path} or ${name:default}; text is the source
)

type token struct {
	kind   tokKind
	pos    Pos
	text   string
	triple bool       // tString: was """triple-quoted"""
	sub    *substExpr // tSubst
	err    *Error     // tError
}

// describe names a token for "found ..." in error messages.
func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tNewline:
		return "newline"
	case tSpace:
		return "whitespace"
	case tLBrace:
		return "'{'"
	case tRBrace:
		return "'}'"
	case tLBracket:
		return "'['"
	case tRBracket:
		return "']'"
	case tComma:
		return "','"
	case tColon:
		return "':'"
	case tEquals:
		return "'='"
	case tPlusEquals:
		return "'+='"
	case tString:
		return "quoted string " + quoteShort(t.text)
	case tUnquoted:
		return quoteShort(t.text)
	case tSubst:
		return "substitution " + t.text
	}
	return "error"
}

// notInUnquoted are the characters that end unquoted text; the HOCON
// spec reserves all of them.
const notInUnquoted = "$\"{}[]:=,+#`^?!@*&\\"

// lexer turns HOCON source into tokens. Comments are dropped; the
// newline that ends them is kept. After an error every call returns the
// same error token.
type lexer struct {
	src       []byte
	file      string
	off       int
	line, col int
	err       *Error
}

func newLexer(src []byte, file string) *lexer {
	lx := &lexer{src: src, file: file, line: 1, col: 1}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		lx.off = 3 // byte order mark
	}
	return lx
}

func (lx *lexer) pos() Pos { return Pos{File: lx.file, Line: lx.line, Col: lx.col} }

// at returns the byte i bytes ahead, or 0 past the end.
func (lx *lexer) at(i int) byte {
	if lx.off+i < len(lx.src) {
		return lx.src[lx.off+i]
	}
	return 0
}

// advance consumes one rune and returns it.
func (lx *lexer) advance() rune {
	r, w := utf8.DecodeRune(lx.src[lx.off:])
	lx.off += w
	if r == '\n' {
		lx.line++
		lx.col = 1
	} else {
		lx.col++
	}
	return r
}

// advanceTo consumes runes up to byte offset end.
func (lx *lexer) advanceTo(end int) {
	for lx.off < end {
		lx.advance()
	}
}

func (lx *lexer) fail(pos Pos, format string, args ...any) token {
	lx.err = errorf(pos, format, args...)
	return token{kind: tError, pos: pos, err: lx.err}
}

// isSpace reports horizontal whitespace: Unicode spaces and the BOM,
// but not the newline, which is a token of its own.
func isSpace(r rune) bool {
	return r != '\n' && (unicode.IsSpace(r) || r == '\uFEFF')
}

func (lx *lexer) next() token {
	if lx.err != nil {
		return token{kind: tError, pos: lx.err.Pos, err: lx.err}
	}
	for {
		start := lx.pos()
		if lx.off >= len(lx.src) {
			return token{kind: tEOF, pos: start}
		}
		c := lx.src[lx.off]
		if c == '#' || (c == '/' && lx.at(1) == '/') {
			for lx.off < len(lx.src) && lx.src[lx.off] != '\n' {
				lx.advance()
			}
			continue
		}
		if c == '\n' {
			lx.advance()
			return token{kind: tNewline, pos: start}
		}
		if r, _ := utf8.DecodeRune(lx.src[lx.off:]); isSpace(r) {
			from := lx.off
			for lx.off < len(lx.src) {
				r, _ := utf8.DecodeRune(lx.src[lx.off:])
				if !isSpace(r) {
					break
				}
				lx.advance()
			}
			return token{kind: tSpace, pos: start, text: string(lx.src[from:lx.off])}
		}
		single := tEOF
		switch c {
		case '{':
			single = tLBrace
		case '}':
			single = tRBrace
		case '[':
			single = tLBracket
		case ']':
			single = tRBracket
		case ',':
			single = tComma
		case ':':
			single = tColon
		case '=':
			single = tEquals
		case '"':
			if lx.at(1) == '"' && lx.at(2) == '"' {
				return lx.tripleString(start)
			}
			return lx.quotedString(start)
		case '$':
			if lx.at(1) == '{' {
				return lx.substitution(start)
			}
			return lx.fail(start, "'$' is only allowed to start a substitution '${...}'; quote the value if it contains '$'")
		case '+':
			if lx.at(1) == '=' {
				lx.advance()
				lx.advance()
				return token{kind: tPlusEquals, pos: start}
			}
			return lx.fail(start, "'+' is only allowed as part of '+='; quote the value if it contains '+'")
		}
		if single != tEOF {
			lx.advance()
			return token{kind: single, pos: start}
		}
		if strings.IndexByte(notInUnquoted, c) >= 0 {
			return lx.fail(start, "reserved character '%c' is not allowed outside quotes; quote the value", c)
		}
		return lx.unquoted(start)
	}
}

func (lx *lexer) unquoted(start Pos) token {
	from := lx.off
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		if c < utf8.RuneSelf {
			if c == '\n' || (c == '/' && lx.at(1) == '/') {
				break
			}
			if strings.IndexByte(notInUnquoted, c) >= 0 {
				// The '+' of an exponent, as in 1e+5, is part of a number.
				if c == '+' && expPrefix(string(lx.src[from:lx.off])) && isDigit(lx.at(1)) {
					lx.advance()
					continue
				}
				break
			}
		}
		r, _ := utf8.DecodeRune(lx.src[lx.off:])
		if isSpace(r) {
			break
		}
		lx.advance()
	}
	return token{kind: tUnquoted, pos: start, text: string(lx.src[from:lx.off])}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// expPrefix reports whether s is a number up to its exponent marker:
// -?[0-9]+(\.[0-9]*)?[eE]
func expPrefix(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	j := skipDigits(s, i)
	if j == i {
		return false
	}
	i = j
	if i < len(s) && s[i] == '.' {
		i = skipDigits(s, i+1)
	}
	return i == len(s)-1 && (s[i] == 'e' || s[i] == 'E')
}

const unterminatedQuoted = "unterminated quoted string (a quoted string must end on the line it starts; use \\n, or a \"\"\"triple-quoted\"\"\" string for several lines)"

// quotedString lexes a JSON string with its escapes.
func (lx *lexer) quotedString(start Pos) token {
	lx.advance() // "
	var sb strings.Builder
	for {
		if lx.off >= len(lx.src) || lx.src[lx.off] == '\n' {
			return lx.fail(start, unterminatedQuoted)
		}
		c := lx.src[lx.off]
		switch c {
		case '"':
			lx.advance()
			return token{kind: tString, pos: start, text: sb.String()}
		case '\\':
			escPos := lx.pos()
			lx.advance()
			if lx.off >= len(lx.src) || lx.src[lx.off] == '\n' {
				return lx.fail(start, unterminatedQuoted)
			}
			e := lx.src[lx.off]
			switch e {
			case '"', '\\', '/':
				sb.WriteByte(e)
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				lx.advance()
				r, ok := lx.hex4()
				if !ok {
					return lx.fail(escPos, "invalid escape: \\u must be followed by four hex digits")
				}
				if utf16.IsSurrogate(r) && lx.at(0) == '\\' && lx.at(1) == 'u' {
					save, line, col := lx.off, lx.line, lx.col
					lx.advance()
					lx.advance()
					if r2, ok := lx.hex4(); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
					} else {
						lx.off, lx.line, lx.col = save, line, col
					}
				}
				sb.WriteRune(r) // a lone surrogate becomes U+FFFD
				continue
			default:
				r, _ := utf8.DecodeRune(lx.src[lx.off:])
				return lx.fail(escPos, "invalid escape '\\%c' in quoted string (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", r)
			}
			lx.advance()
		default:
			from := lx.off
			lx.advance()
			sb.Write(lx.src[from:lx.off]) // raw bytes, even if not valid UTF-8
		}
	}
}

func (lx *lexer) hex4() (rune, bool) {
	var r rune
	for i := 0; i < 4; i++ {
		c := lx.at(0)
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
		lx.advance()
	}
	return r, true
}

// tripleString lexes a raw """multi-line""" string. Extra quotes before
// the closing three belong to the string, as the spec says.
func (lx *lexer) tripleString(start Pos) token {
	lx.advanceTo(lx.off + 3)
	rest := lx.src[lx.off:]
	i := bytes.Index(rest, []byte(`"""`))
	if i < 0 {
		return lx.fail(start, `unterminated triple-quoted string: no closing """`)
	}
	j := i + 3
	for j < len(rest) && rest[j] == '"' {
		j++
	}
	text := string(rest[:j-3])
	lx.advanceTo(lx.off + j)
	return token{kind: tString, pos: start, text: text, triple: true}
}

// substitution lexes ${...} / ${?...}; quoted parts inside may contain '}'.
func (lx *lexer) substitution(start Pos) token {
	from := lx.off
	lx.advance() // $
	lx.advance() // {
	optional := false
	if lx.at(0) == '?' {
		optional = true
		lx.advance()
	}
	contentFrom := lx.off
	for {
		if lx.off >= len(lx.src) || lx.src[lx.off] == '\n' {
			return lx.fail(start, "unterminated substitution: expected '}' to close '${'")
		}
		c := lx.src[lx.off]
		if c == '}' {
			break
		}
		if c == '"' {
			lx.advance()
			for lx.off < len(lx.src) && lx.src[lx.off] != '"' && lx.src[lx.off] != '\n' {
				if lx.src[lx.off] == '\\' && lx.at(1) != '\n' && lx.at(1) != 0 {
					lx.advance()
				}
				lx.advance()
			}
			if lx.off >= len(lx.src) || lx.src[lx.off] == '\n' {
				return lx.fail(start, "unterminated substitution: expected '}' to close '${'")
			}
		}
		lx.advance()
	}
	raw := string(lx.src[contentFrom:lx.off])
	lx.advance() // }
	text := string(lx.src[from:lx.off])
	sub, err := parseSubst(raw, text, optional)
	if err != "" {
		return lx.fail(start, "invalid substitution %s: %s", text, err)
	}
	return token{kind: tSubst, pos: start, text: text, sub: sub}
}
