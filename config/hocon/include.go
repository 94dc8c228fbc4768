package hocon

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// maxIncludeDepth bounds chains of includes.
const maxIncludeDepth = 32

// isInclude reports whether the unquoted `include` at the start of a
// field is an include statement rather than a key named include.
func (p *parser) isInclude() bool {
	if p.peekAt(1).kind != tSpace {
		return false
	}
	t := p.peekAt(2)
	if t.kind == tString {
		return true
	}
	if t.kind != tUnquoted {
		return false
	}
	for _, pre := range []string{"file(", "required(", "url(", "classpath("} {
		if strings.HasPrefix(t.text, pre) {
			return true
		}
	}
	return false
}

const includeSyntax = `expected include "file", include file("file") or include required(file("file"))`

// includeEntry parses an include statement and the included file.
func (p *parser) includeEntry() (*astEntry, *Error) {
	kw := p.next() // include
	var prefix, suffix strings.Builder
	var name *token
loop:
	for {
		t := p.peek()
		switch t.kind {
		case tSpace:
		case tUnquoted:
			if name == nil {
				prefix.WriteString(t.text)
			} else {
				suffix.WriteString(t.text)
			}
		case tString:
			if name != nil {
				return nil, errorf(t.pos, "invalid include: %s", includeSyntax)
			}
			name = &t
		case tError:
			return nil, t.err
		default:
			break loop
		}
		p.next()
	}
	if name == nil {
		return nil, p.unexpected(p.peek(), "expected a quoted file name after include")
	}
	pre := prefix.String()
	opens := strings.Count(pre, "(")
	required := false
	if rest, ok := strings.CutPrefix(pre, "required("); ok {
		required, pre = true, rest
	}
	switch pre {
	case "", "file(":
	case "url(", "classpath(":
		return nil, errorf(kw.pos, "include %s...) is not supported, only files: %s", pre, includeSyntax)
	default:
		return nil, errorf(kw.pos, "invalid include: %s", includeSyntax)
	}
	if suffix.String() != strings.Repeat(")", opens) {
		return nil, errorf(kw.pos, "invalid include: unbalanced parentheses; %s", includeSyntax)
	}
	obj, err := p.include(name.text, required, name.pos)
	if err != nil {
		return nil, err
	}
	return &astEntry{keyPos: kw.pos, include: obj}, nil
}

// include reads and parses an included file. Its path is relative to
// the directory of the including file. A missing file is skipped unless
// the include is required(...), as in HOCON.
func (p *parser) include(name string, required bool, pos Pos) (*astObject, *Error) {
	read := p.st.opts.ReadFile
	if read == nil {
		return nil, errorf(pos, "cannot include %s: includes are disabled (Options.ReadFile is nil)", quoteShort(name))
	}
	if name == "" {
		return nil, errorf(pos, "include needs a file name")
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(p.file), path)
	}
	for _, f := range p.st.files {
		if f == path {
			return nil, errorf(pos, "include cycle: %s is already being included", quoteShort(path))
		}
	}
	if len(p.st.files) >= maxIncludeDepth {
		return nil, errorf(pos, "includes are nested too deeply (more than %d)", maxIncludeDepth)
	}
	data, err := read(path)
	if err != nil {
		if !required && errors.Is(err, fs.ErrNotExist) {
			return &astObject{pos: pos}, nil
		}
		return nil, errorf(pos, "cannot include %s: %v", quoteShort(name), err)
	}
	sub := &parser{lx: newLexer(data, path), st: p.st, file: path, depth: p.depth}
	p.st.files = append(p.st.files, path)
	defer func() { p.st.files = p.st.files[:len(p.st.files)-1] }()
	return sub.parseRoot()
}
