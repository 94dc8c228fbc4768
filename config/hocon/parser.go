package hocon

import (
	"fmt"
)

// The parser turns tokens into a syntax tree (astObject and friends)
// that still has every assignment, in order, as written. build.go turns
// that into merged nodes, substitute.go resolves them.

type astObject struct {
	pos     Pos
	entries []*astEntry
}

// astEntry is one `key = value`, `key += value`, `key { ... }`, or an
// include (then include is set and key is nil).
type astEntry struct {
	key     []keySeg
	keyText string
	keyPos  Pos
	append  bool // +=
	value   *astValue
	include *astObject
}

// astValue is a value concatenation: one or more pieces on one line,
// with the whitespace between them. Leading and trailing whitespace is
// already dropped.
type astValue struct {
	pos    Pos
	pieces []piece
}

type pieceKind int

const (
	pUnquoted pieceKind = iota
	pQuoted
	pSpace
	pSubst
	pObject
	pArray
)

type piece struct {
	kind pieceKind
	pos  Pos
	text string
	sub  *substExpr
	obj  *astObject
	arr  *astArray
}

type astArray struct {
	pos   Pos
	items []*astValue
}

// singleObject returns the object if the value is exactly one object.
func (v *astValue) singleObject() *astObject {
	if len(v.pieces) == 1 && v.pieces[0].kind == pObject {
		return v.pieces[0].obj
	}
	return nil
}

// maxNesting bounds how deeply objects and arrays may nest.
const maxNesting = 1000

// parseState is shared by a parser and the parsers of its includes.
type parseState struct {
	opts  *Options
	files []string // the include chain, outermost first
}

type parser struct {
	lx    *lexer
	look  []token
	st    *parseState
	file  string
	depth int
}

func (p *parser) peekAt(i int) token {
	for len(p.look) <= i {
		p.look = append(p.look, p.lx.next())
	}
	return p.look[i]
}

func (p *parser) peek() token { return p.peekAt(0) }

func (p *parser) next() token {
	t := p.peek()
	p.look = p.look[1:]
	return t
}

func (p *parser) skipSpace() {
	for p.peek().kind == tSpace {
		p.next()
	}
}

// skipBlank skips whitespace and newlines (comments are already gone).
func (p *parser) skipBlank() {
	for k := p.peek().kind; k == tSpace || k == tNewline; k = p.peek().kind {
		p.next()
	}
}

// unexpected reports t where something else was expected; a lexer error
// wins, since it is what is really wrong there.
func (p *parser) unexpected(t token, expected string) *Error {
	if t.kind == tError {
		return t.err
	}
	return errorf(t.pos, "%s, found %s", expected, describe(t))
}

func (p *parser) enter(pos Pos) *Error {
	p.depth++
	if p.depth > maxNesting {
		return errorf(pos, "objects and arrays are nested too deeply (more than %d levels)", maxNesting)
	}
	return nil
}

// separator consumes what may follow a field or an array element:
// whitespace, newlines and at most one comma. It reports whether a
// separator (comma or newline) was seen.
func (p *parser) separator() bool {
	sawNewline := false
	for {
		switch p.peek().kind {
		case tSpace:
			p.next()
		case tNewline:
			p.next()
			sawNewline = true
		case tComma:
			p.next()
			return true
		default:
			return sawNewline
		}
	}
}

// parseRoot parses a whole document: an object with or without braces.
func (p *parser) parseRoot() (*astObject, *Error) {
	p.skipBlank()
	switch t := p.peek(); t.kind {
	case tError:
		return nil, t.err
	case tLBrace:
		obj, err := p.parseObject()
		if err != nil {
			return nil, err
		}
		p.skipBlank()
		if t := p.peek(); t.kind != tEOF {
			return nil, p.unexpected(t, "expected end of file after the '}' that closes the root object")
		}
		return obj, nil
	case tLBracket:
		return nil, errorf(t.pos, "the root of a document must be an object, found an array")
	}
	obj := &astObject{pos: Pos{File: p.file, Line: 1, Col: 1}}
	if err := p.body(obj, false, Pos{}); err != nil {
		return nil, err
	}
	return obj, nil
}

func (p *parser) parseObject() (*astObject, *Error) {
	open := p.next() // {
	if err := p.enter(open.pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	obj := &astObject{pos: open.pos}
	if err := p.body(obj, true, open.pos); err != nil {
		return nil, err
	}
	return obj, nil
}

// body parses fields up to the closing '}' (braced) or the end of file.
func (p *parser) body(obj *astObject, braced bool, open Pos) *Error {
	for {
		p.skipBlank()
		t := p.peek()
		switch t.kind {
		case tError:
			return t.err
		case tRBrace:
			if braced {
				p.next()
				return nil
			}
			return errorf(t.pos, "unexpected '}' without a matching '{'")
		case tEOF:
			if braced {
				return errorf(t.pos, "expected '}' to close the object opened at %s, found end of file", open.lineCol())
			}
			return nil
		}
		e, err := p.entry(braced)
		if err != nil {
			return err
		}
		obj.entries = append(obj.entries, e)
		if p.separator() {
			continue
		}
		t = p.peek()
		if t.kind == tRBrace || t.kind == tEOF {
			continue
		}
		what := "after include"
		if e.include == nil {
			what = "after the value of key " + keyShort(e.keyText)
		}
		if braced {
			what = "expected ',', newline or '}' " + what
		} else {
			what = "expected ',' or newline " + what
		}
		err = p.unexpected(t, what)
		if t.kind == tColon {
			err.Msg += " (quote values that contain ':')"
		}
		return err
	}
}

// entry parses one field or include.
func (p *parser) entry(braced bool) (*astEntry, *Error) {
	t := p.peek()
	switch t.kind {
	case tUnquoted:
		if t.text == "include" && p.isInclude() {
			return p.includeEntry()
		}
	case tString:
	case tSubst:
		return nil, errorf(t.pos, "a substitution cannot be used as a key")
	default:
		if braced {
			return nil, p.unexpected(t, "expected a key or '}'")
		}
		return nil, p.unexpected(t, "expected a key")
	}
	var toks []token
	for k := p.peek().kind; k == tUnquoted || k == tString || k == tSpace; k = p.peek().kind {
		toks = append(toks, p.next())
	}
	for toks[len(toks)-1].kind == tSpace {
		toks = toks[:len(toks)-1]
	}
	key, keyText, err := keyPath(toks)
	if err != nil {
		return nil, err
	}
	e := &astEntry{key: key, keyText: keyText, keyPos: toks[0].pos}
	p.skipBlank()
	t = p.peek()
	switch t.kind {
	case tEquals, tColon, tPlusEquals:
		sep := p.next()
		e.append = sep.kind == tPlusEquals
		sepText := describe(sep)
		v, err := p.value(fmt.Sprintf("after %s for key %s", sepText, keyShort(keyText)))
		if err != nil {
			return nil, err
		}
		if v.pos.Line > sep.pos.Line {
			// `a =` with nothing after it, then the next field on the
			// next line: say so instead of complaining about that field.
			p.skipSpace()
			if k := p.peek().kind; k == tEquals || k == tColon || k == tPlusEquals {
				return nil, errorf(sep.pos, "missing value after %s for key %s", sepText, keyShort(keyText))
			}
		}
		e.value = v
	case tLBrace:
		v, err := p.value("")
		if err != nil {
			return nil, err
		}
		e.value = v
	default:
		return nil, p.unexpected(t, fmt.Sprintf("expected '=', ':' or '{' after key %s", keyShort(keyText)))
	}
	return e, nil
}

// value parses a value concatenation. It may start on a later line;
// it ends at a newline, ',', '}', ']' or the end of file.
func (p *parser) value(context string) (*astValue, *Error) {
	p.skipBlank()
	v := &astValue{}
	add := func(pc piece) {
		if len(v.pieces) == 0 {
			v.pos = pc.pos
		}
		v.pieces = append(v.pieces, pc)
	}
loop:
	for {
		t := p.peek()
		switch t.kind {
		case tSpace:
			p.next()
			if len(v.pieces) > 0 {
				add(piece{kind: pSpace, pos: t.pos, text: t.text})
			}
		case tString:
			p.next()
			add(piece{kind: pQuoted, pos: t.pos, text: t.text})
		case tUnquoted:
			p.next()
			add(piece{kind: pUnquoted, pos: t.pos, text: t.text})
		case tSubst:
			p.next()
			add(piece{kind: pSubst, pos: t.pos, text: t.text, sub: t.sub})
		case tLBrace:
			obj, err := p.parseObject()
			if err != nil {
				return nil, err
			}
			add(piece{kind: pObject, pos: obj.pos, obj: obj})
		case tLBracket:
			arr, err := p.parseArray()
			if err != nil {
				return nil, err
			}
			add(piece{kind: pArray, pos: arr.pos, arr: arr})
		default:
			break loop
		}
	}
	for n := len(v.pieces); n > 0 && v.pieces[n-1].kind == pSpace; n-- {
		v.pieces = v.pieces[:n-1]
	}
	if len(v.pieces) == 0 {
		return nil, p.unexpected(p.peek(), "expected a value "+context)
	}
	return v, nil
}

func (p *parser) parseArray() (*astArray, *Error) {
	open := p.next() // [
	if err := p.enter(open.pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	arr := &astArray{pos: open.pos}
	for {
		p.skipBlank()
		t := p.peek()
		switch t.kind {
		case tError:
			return nil, t.err
		case tRBracket:
			p.next()
			return arr, nil
		case tEOF:
			return nil, errorf(t.pos, "expected ']' to close the array opened at %s, found end of file", open.pos.lineCol())
		}
		v, err := p.value("or ']'")
		if err != nil {
			return nil, err
		}
		arr.items = append(arr.items, v)
		if p.separator() {
			continue
		}
		t = p.peek()
		if t.kind == tRBracket || t.kind == tEOF {
			continue
		}
		err = p.unexpected(t, "expected ',', newline or ']' after an array element")
		if t.kind == tColon {
			err.Msg += " (quote values that contain ':')"
		}
		return nil, err
	}
}
