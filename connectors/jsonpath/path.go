package jsonpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// path is a compiled Jayway JsonPath: a root ($, or @ inside filters) and
// the steps after it. Compiling happens once, at plan time; evaluation
// (eval.go) follows Jayway's PathToken classes.
type path struct {
	src   string
	root  byte // '$' or '@'
	steps []*step
	// scanFn: the path is $..x.fn(); Jayway then applies fn to the whole
	// scan result (CompiledPath.invertScannerFunctionRelationship).
	scanFn *step
}

type stepKind uint8

const (
	stepProp   stepKind = iota // .name, ['a'], ['a','b']
	stepIndex                  // [0], [-1], [0,2]
	stepSlice                  // [1:3], [:2], [-2:]
	stepWild                   // .*, [*]
	stepFilter                 // [?(...)]
	stepScan                   // .. (the next step is applied at every depth)
	stepFunc                   // .length() and friends
)

type step struct {
	kind     stepKind
	names    []string // stepProp
	idx      []int    // stepIndex
	from, to int      // stepSlice
	hasFrom  bool
	hasTo    bool
	filter   expr      // stepFilter
	fn       *function // stepFunc
	leaf     bool      // the last step
	upstream bool      // every step before this one is definite
}

// definite tells whether the step selects at most one value (Jayway's
// isTokenDefinite).
func (s *step) definite() bool {
	switch s.kind {
	case stepProp:
		return len(s.names) == 1 || s.leaf // a leaf ['a','b'] merges into one object
	case stepIndex:
		return len(s.idx) == 1
	case stepFunc:
		return true
	}
	return false
}

// definite tells whether the whole path selects at most one value: then
// reading it gives that value, or fails when there is none; otherwise it
// gives a list of every match.
func (p *path) definite() bool {
	if p.scanFn != nil {
		return true
	}
	for _, s := range p.steps {
		if !s.definite() {
			return false
		}
	}
	return true
}

// compile parses a path as Jayway's PathCompiler does; a path that starts
// with neither $ nor @ is read as "$." + path.
func compile(src string) (*path, error) {
	s := strings.TrimSpace(src)
	if s == "" {
		return nil, errors.New("the path is empty")
	}
	if s[0] != '$' && s[0] != '@' {
		s = "$." + s
	}
	p := &pathParser{s: s}
	pa, err := p.path(false)
	if err != nil {
		return nil, err
	}
	if p.i < len(s) {
		return nil, p.fail("unexpected %q", s[p.i:])
	}
	pa.src = src
	return pa, nil
}

type pathParser struct {
	s string
	i int
}

func (p *pathParser) fail(format string, args ...any) error {
	return fmt.Errorf("bad path at character %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

func (p *pathParser) more() bool     { return p.i < len(p.s) }
func (p *pathParser) peek() byte     { return p.s[p.i] }
func (p *pathParser) at(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

func (p *pathParser) blanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// endsEmbedded tells whether a path inside a filter ends here.
func (p *pathParser) endsEmbedded() bool {
	switch p.peek() {
	case ' ', '\t', '\n', '\r', ')', '=', '!', '<', '>', '&', '|', ',', ']':
		return true
	}
	return false
}

// path reads a root and its steps. Embedded (inside a filter), it stops
// before whatever cannot continue a path.
func (p *pathParser) path(embedded bool) (*path, error) {
	pa := &path{root: p.peek()}
	p.i++
	for p.more() && !(embedded && p.endsEmbedded()) {
		if pa.steps != nil && pa.steps[len(pa.steps)-1].kind == stepFunc {
			return nil, p.fail("a function must end the path")
		}
		switch p.peek() {
		case '.':
			if strings.HasPrefix(p.s[p.i:], "..") {
				p.i += 2
				pa.steps = append(pa.steps, &step{kind: stepScan})
				if !p.more() {
					return nil, p.fail("the path must not end with '..'")
				}
				if p.at('[') {
					continue
				}
			} else {
				p.i++
				if !p.more() || (embedded && p.endsEmbedded()) {
					return nil, p.fail("the path must not end with '.'")
				}
				if p.at('.') {
					return nil, p.fail("'.' is not valid here")
				}
				if p.at('[') {
					continue
				}
			}
			s, err := p.dotStep(embedded)
			if err != nil {
				return nil, err
			}
			pa.steps = append(pa.steps, s)
		case '[':
			s, err := p.bracketStep()
			if err != nil {
				return nil, err
			}
			pa.steps = append(pa.steps, s)
		default:
			return nil, p.fail("unexpected %q; expected '.' or '['", p.peek())
		}
	}
	// $..x.fn(): fn applies to the whole scan result.
	if n := len(pa.steps); n > 1 && pa.steps[0].kind == stepScan && pa.steps[n-1].kind == stepFunc {
		pa.scanFn = pa.steps[n-1]
		pa.steps = pa.steps[:n-1]
	}
	if n := len(pa.steps); n > 0 && pa.steps[n-1].kind == stepScan {
		return nil, p.fail("'..' must be followed by a name, '*' or '['")
	}
	upstream := true
	for k, s := range pa.steps {
		s.leaf = k == len(pa.steps)-1
		s.upstream = upstream
		upstream = upstream && s.definite()
	}
	return pa, nil
}

// dotStep reads what follows a '.': *, a name, or a function call.
func (p *pathParser) dotStep(embedded bool) (*step, error) {
	if p.at('*') {
		p.i++
		return &step{kind: stepWild}, nil
	}
	start := p.i
	for p.more() {
		c := p.peek()
		if c == '.' || c == '[' || c == '(' || (embedded && p.endsEmbedded()) {
			break
		}
		if c == ' ' {
			return nil, p.fail("use bracket notation ['my prop'] for a name with blanks")
		}
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		return nil, p.fail("expected a name")
	}
	if !p.at('(') {
		return &step{kind: stepProp, names: []string{name}}, nil
	}
	fn, err := p.function(name)
	if err != nil {
		return nil, err
	}
	return &step{kind: stepFunc, fn: fn}, nil
}

// bracketStep reads [*], [?(...)], ['a','b'], [0,1] or [from:to].
func (p *pathParser) bracketStep() (*step, error) {
	p.i++ // [
	p.blanks()
	if !p.more() {
		return nil, p.fail("unterminated '['")
	}
	var s *step
	switch c := p.peek(); {
	case c == '*':
		p.i++
		s = &step{kind: stepWild}
	case c == '?':
		p.i++
		p.blanks()
		if !p.at('(') {
			return nil, p.fail("expected '(' after '[?'")
		}
		p.i++
		e, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		p.blanks()
		if !p.at(')') {
			return nil, p.fail("expected ')' to close the filter")
		}
		p.i++
		s = &step{kind: stepFilter, filter: e}
	case c == '\'' || c == '"':
		var names []string
		for {
			p.blanks()
			if !p.at('\'') && !p.at('"') {
				return nil, p.fail("expected a quoted name")
			}
			n, err := p.quoted()
			if err != nil {
				return nil, err
			}
			names = append(names, n)
			p.blanks()
			if !p.at(',') {
				break
			}
			p.i++
		}
		s = &step{kind: stepProp, names: names}
	case c == '-' || c == ':' || c >= '0' && c <= '9':
		end := strings.IndexByte(p.s[p.i:], ']')
		if end < 0 {
			return nil, p.fail("unterminated '['")
		}
		var err error
		if s, err = p.indexes(strings.TrimSpace(p.s[p.i : p.i+end])); err != nil {
			return nil, err
		}
		p.i += end
	default:
		return nil, p.fail("unexpected %q after '['", c)
	}
	p.blanks()
	if !p.at(']') {
		return nil, p.fail("expected ']'")
	}
	p.i++
	return s, nil
}

// indexes reads the inside of [0], [0, 2] or [from:to].
func (p *pathParser) indexes(text string) (*step, error) {
	if from, to, ok := strings.Cut(text, ":"); ok {
		s := &step{kind: stepSlice}
		var err error
		if from = strings.TrimSpace(from); from != "" {
			if s.from, err = strconv.Atoi(from); err != nil {
				return nil, p.fail("bad slice start %q", from)
			}
			s.hasFrom = true
		}
		if to = strings.TrimSpace(to); to != "" {
			if s.to, err = strconv.Atoi(to); err != nil {
				return nil, p.fail("bad slice end %q", to)
			}
			s.hasTo = true
		}
		if !s.hasFrom && !s.hasTo {
			return nil, p.fail("a slice needs a start or an end")
		}
		return s, nil
	}
	s := &step{kind: stepIndex}
	for _, part := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, p.fail("bad array index %q", strings.TrimSpace(part))
		}
		s.idx = append(s.idx, n)
	}
	return s, nil
}

// quoted reads a '...' or "..." name; a backslash escapes the next
// character.
func (p *pathParser) quoted() (string, error) {
	q := p.peek()
	p.i++
	var b strings.Builder
	for p.more() {
		c := p.peek()
		p.i++
		switch {
		case c == '\\' && p.more():
			b.WriteByte(p.peek())
			p.i++
		case c == q:
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return "", p.fail("unterminated quoted name")
}
