package hocon

import (
	"strings"
	"unicode/utf8"
)

// keySeg is one key of a path expression, with where it starts.
type keySeg struct {
	name string
	pos  Pos
}

const badDots = "a path cannot have a leading, trailing or double '.' (quote the key to use '.' in it)"

// parsePath splits a path expression such as a.b."c.d" into keys.
// Unquoted text splits at '.', quoted parts never do. It returns an
// error message, or "".
func parsePath(s string) ([]string, string) {
	s = strings.TrimFunc(s, isSpace)
	if s == "" {
		return nil, "empty path"
	}
	var segs []string
	var cur strings.Builder
	has := false // the current key has text or a quoted part
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '"':
			lx := newLexer([]byte(s[i:]), "")
			t := lx.next()
			if t.kind != tString {
				if t.err != nil {
					return nil, t.err.Msg
				}
				return nil, "bad quoted key"
			}
			cur.WriteString(t.text)
			has = true
			i += lx.off
		case '.':
			if !has {
				return nil, badDots
			}
			segs = append(segs, cur.String())
			cur.Reset()
			has = false
			i++
		default:
			cur.WriteByte(c)
			has = true
			i++
		}
	}
	if !has {
		return nil, badDots
	}
	return append(segs, cur.String()), ""
}

// substExpr is the inside of ${...}.
type substExpr struct {
	text      string   // the whole source, "${...}"
	path      []string // the path looked up in the document
	name      string   // the name given to Options.Resolve: the path joined by '.'
	optional  bool     // ${?...}
	hasDef    bool     // SeaTunnel's ${name:default}
	def       string
	defQuoted bool
}

// parseSubst parses the inside of a substitution: a path, and in
// SeaTunnel's form a ':' and a default (quoted or not, possibly empty).
func parseSubst(raw, text string, optional bool) (*substExpr, string) {
	s := &substExpr{text: text, optional: optional}
	pathText := raw
	if i := indexOutsideQuotes(raw, ':'); i >= 0 {
		pathText = raw[:i]
		s.hasDef = true
		def := strings.TrimFunc(raw[i+1:], isSpace)
		if strings.HasPrefix(def, `"`) {
			lx := newLexer([]byte(def), "")
			t := lx.next()
			if t.kind != tString || lx.off != len(def) {
				return nil, "the default after ':' must be plain text or one quoted string"
			}
			def, s.defQuoted = t.text, true
		}
		s.def = def
	}
	path, msg := parsePath(pathText)
	if msg != "" {
		return nil, msg
	}
	s.path = path
	s.name = strings.Join(path, ".")
	return s, ""
}

func indexOutsideQuotes(s string, c byte) int {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch {
		case quoted && s[i] == '\\':
			i++
		case s[i] == '"':
			quoted = !quoted
		case !quoted && s[i] == c:
			return i
		}
	}
	return -1
}

// keyPath turns the tokens of a key (unquoted text, quoted strings and
// the whitespace between them) into path segments. Unquoted text splits
// at '.', quoted strings are one key. It also returns the key as written.
func keyPath(toks []token) ([]keySeg, string, *Error) {
	var raw strings.Builder
	for _, t := range toks {
		switch {
		case t.kind == tString && t.triple:
			raw.WriteString(`"""` + t.text + `"""`)
		case t.kind == tString:
			writeJSONString(&raw, t.text)
		default:
			raw.WriteString(t.text)
		}
	}
	keyText := raw.String()

	var segs []keySeg
	var cur strings.Builder
	var curPos, lastDot Pos
	started, quoted := false, false
	finish := func(at Pos) *Error {
		if !quoted && cur.Len() == 0 {
			return errorf(at, "invalid key %s: %s", keyShort(keyText), badDots)
		}
		segs = append(segs, keySeg{name: cur.String(), pos: curPos})
		cur.Reset()
		started, quoted = false, false
		return nil
	}
	begin := func(p Pos) {
		if !started {
			started, curPos = true, p
		}
	}
	for _, t := range toks {
		switch t.kind {
		case tSpace:
			begin(t.pos)
			cur.WriteString(t.text)
		case tString:
			begin(t.pos)
			cur.WriteString(t.text)
			quoted = true
		case tUnquoted:
			off := 0
			for j, part := range strings.Split(t.text, ".") {
				p := t.pos
				p.Col += utf8.RuneCountInString(t.text[:off])
				if j > 0 {
					lastDot = p
					lastDot.Col--
					if err := finish(lastDot); err != nil {
						return nil, keyText, err
					}
				}
				if part != "" {
					begin(p)
				} else if !started {
					curPos = p // an empty key so far; a quoted part may follow
				}
				cur.WriteString(part)
				off += len(part) + 1
			}
		}
	}
	if err := finish(lastDot); err != nil {
		return nil, keyText, err
	}
	return segs, keyText, nil
}
