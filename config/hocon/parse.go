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
	// KeepDuplicates, if set, is asked for the path from the root of
	// each object the document defines (the root itself is []; objects
	// inside arrays are not asked). Where it returns true, the object
	// keeps repeated keys: every `Key { ... }` or `Key = { ... }`
	// assignment to one of its keys (also as the end of a path, as in
	// source.Key { ... } for a kept source) adds its own Field, in
	// source order, instead of merging with the earlier one, as
	// SeaTunnel keeps two plugins of the same name in a source,
	// transform or sink block. Anything else
	// that names such a key applies to its last field: a path into it
	// (Key.row.num = 5), +=, a non-object value, and substitutions
	// (${source.Key.row.num}). Value.Get and Value.Lookup find the
	// first. Objects inside a kept field merge as usual unless
	// KeepDuplicates holds for their path too. path must not be
	// modified.
	KeepDuplicates func(path []string) bool
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
	b := &builder{opts: &opts}
	root := b.newObject(ast.pos, []string{}, true)
	b.object(ast, root, []string{}, true)
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
