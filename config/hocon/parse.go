package hocon

import (
	"fmt"
	"path/filepath"
)

// Options control Parse.
type Options struct {
	// File is the name used in positions and errors, and the base for
	// relative includes.
	File string
	// Resolve supplies variables for substitutions that the document
	// itself does not define (command-line variables, environment). It
	// is called with the substitution's path joined by '.'.
	Resolve func(name string) (string, bool)
	// SubstituteInQuoted also replaces ${name} and ${name:default}
	// inside quoted and triple-quoted strings, as SeaTunnel does. Ones
	// that resolve to nothing are left as written.
	SubstituteInQuoted bool
	// ReadFile reads included files. If nil, include is an error.
	ReadFile func(path string) ([]byte, error)
}

// Parse parses a HOCON (or JSON) document and resolves its
// substitutions. The result is always an object. Every error is an
// *Error with the position of the problem.
func Parse(src []byte, opts Options) (v *Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, &Error{Pos: Pos{File: opts.File, Line: 1, Col: 1}, Msg: fmt.Sprintf("internal error: %v", p)}
		}
	}()
	st := &parseState{opts: &opts}
	if opts.File != "" {
		st.files = []string{filepath.Clean(opts.File)}
	}
	p := &parser{lx: newLexer(src, opts.File), st: st, file: opts.File}
	ast, perr := p.parseRoot()
	if perr != nil {
		return nil, perr
	}
	root := newObjectNode(ast.pos)
	(&builder{opts: &opts}).object(ast, root, []string{}, true)
	r := newResolver(&opts, root)
	rv, rerr := r.resolve(root)
	if rerr != nil {
		return nil, rerr
	}
	out, ferr := r.finish(rv, 0)
	if ferr != nil {
		return nil, ferr
	}
	return out, nil
}
