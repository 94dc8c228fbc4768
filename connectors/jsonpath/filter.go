package jsonpath

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

// expr is a filter expression, [?(...)], evaluated against the current
// element @ (and the document $) with Jayway's semantics: comparisons
// between values of different kinds are false, a missing path compares as
// undefined, and a lone path tests that the path exists.
type expr interface {
	eval(cur, root any) bool
}

type orExpr struct{ l, r expr }
type andExpr struct{ l, r expr }
type notExpr struct{ e expr }

// relExpr is left op right; op "exists" has no right.
type relExpr struct {
	left, right operand
	op          string
}

func (e orExpr) eval(cur, root any) bool  { return e.l.eval(cur, root) || e.r.eval(cur, root) }
func (e andExpr) eval(cur, root any) bool { return e.l.eval(cur, root) && e.r.eval(cur, root) }
func (e notExpr) eval(cur, root any) bool { return !e.e.eval(cur, root) }

// operand is a literal, a regular expression or a path.
type operand struct {
	lit  any
	re   *regexp.Regexp
	path *path
}

// undefined is the value of a path that reaches nothing.
type undefinedValue struct{}

var undefined = undefinedValue{}

func (o operand) value(cur, root any) any {
	if o.path == nil {
		return o.lit
	}
	doc := cur
	if o.path.root == '$' {
		doc = root
	}
	v, err := o.path.read(doc, root)
	if err != nil {
		return undefined
	}
	return v
}

func (p *pathParser) orExpr() (expr, error) {
	l, err := p.andExpr()
	if err != nil {
		return nil, err
	}
	for {
		p.blanks()
		if !strings.HasPrefix(p.s[p.i:], "||") {
			return l, nil
		}
		p.i += 2
		r, err := p.andExpr()
		if err != nil {
			return nil, err
		}
		l = orExpr{l, r}
	}
}

func (p *pathParser) andExpr() (expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		p.blanks()
		if !strings.HasPrefix(p.s[p.i:], "&&") {
			return l, nil
		}
		p.i += 2
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = andExpr{l, r}
	}
}

func (p *pathParser) unary() (expr, error) {
	p.blanks()
	if p.at('!') && !strings.HasPrefix(p.s[p.i:], "!=") {
		p.i++
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notExpr{e}, nil
	}
	if p.at('(') {
		p.i++
		e, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		p.blanks()
		if !p.at(')') {
			return nil, p.fail("expected ')'")
		}
		p.i++
		return e, nil
	}
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	p.blanks()
	if !p.more() || p.at(')') || strings.HasPrefix(p.s[p.i:], "&&") || strings.HasPrefix(p.s[p.i:], "||") {
		if left.path == nil {
			return nil, p.fail("expected a comparison")
		}
		return relExpr{left: left, op: "exists"}, nil
	}
	op := p.operator()
	if op == "" {
		return nil, p.fail("expected a comparison operator")
	}
	p.blanks()
	right, err := p.operand()
	if err != nil {
		return nil, err
	}
	return relExpr{left: left, right: right, op: op}, nil
}

var symbolOps = []string{"===", "!==", "==", "!=", "<=", ">=", "=~", "<", ">"}
var wordOps = []string{"nin", "in", "contains", "subsetof", "anyof", "noneof", "size", "empty", "all"}

func (p *pathParser) operator() string {
	rest := p.s[p.i:]
	for _, op := range symbolOps {
		if strings.HasPrefix(rest, op) {
			p.i += len(op)
			return op
		}
	}
	lower := strings.ToLower(rest)
	for _, op := range wordOps {
		if strings.HasPrefix(lower, op) && (len(rest) == len(op) || !isWordChar(rest[len(op)])) {
			p.i += len(op)
			return op
		}
	}
	return ""
}

func isWordChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *pathParser) operand() (operand, error) {
	p.blanks()
	if !p.more() {
		return operand{}, p.fail("expected a value")
	}
	switch c := p.peek(); {
	case c == '@' || c == '$':
		pa, err := p.path(true)
		if err != nil {
			return operand{}, err
		}
		return operand{path: pa}, nil
	case c == '\'' || c == '"':
		s, err := p.quoted()
		return operand{lit: s}, err
	case c == '/':
		return p.regex()
	case c == '[' || c == '{':
		jp := jsonParser{s: p.s, i: p.i}
		v, err := jp.value(0, stopTop) // starts with [ or {: ends at its bracket
		if err != nil {
			return operand{}, p.fail("bad JSON literal: %v", err)
		}
		p.i = jp.i
		return operand{lit: v}, nil
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		for p.more() && strings.IndexByte("-+.eE0123456789", p.peek()) >= 0 {
			p.i++
		}
		n, err := parseNumber(p.s[start:p.i])
		if err != nil {
			return operand{}, p.fail("bad number %q", p.s[start:p.i])
		}
		return operand{lit: n}, nil
	}
	for _, w := range []struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(p.s[p.i:], w.word) {
			p.i += len(w.word)
			return operand{lit: w.v}, nil
		}
	}
	return operand{}, p.fail("unexpected %q in filter", p.peek())
}

// regex reads /pattern/flags; flags i, m and s are Go's, others are
// dropped when Go has no equivalent that matters here (u, U, d) and refused
// otherwise.
func (p *pathParser) regex() (operand, error) {
	p.i++ // /
	var b strings.Builder
	for {
		if !p.more() {
			return operand{}, p.fail("unterminated regular expression")
		}
		c := p.peek()
		p.i++
		if c == '\\' && p.at('/') {
			b.WriteByte('/')
			p.i++
			continue
		}
		if c == '/' {
			break
		}
		b.WriteByte(c)
	}
	flags := ""
	for p.more() && isWordChar(p.peek()) {
		switch f := p.peek(); f {
		case 'i', 'm', 's':
			flags += string(f)
		case 'u', 'U', 'd':
		default:
			return operand{}, p.fail("regular expression flag %q is not supported", f)
		}
		p.i++
	}
	src := `\A(?:` + b.String() + `)\z` // Jayway uses Matcher.matches(): the whole input
	if flags != "" {
		src = "(?" + flags + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return operand{}, p.fail("bad regular expression /%s/: %v", b.String(), err)
	}
	return operand{re: re}, nil
}

func (e relExpr) eval(cur, root any) bool {
	if e.op == "exists" {
		return exists(e.left, cur, root)
	}
	l := e.left.value(cur, root)
	if e.op == "=~" {
		switch {
		case e.right.re != nil && e.left.re == nil:
			return e.right.re.MatchString(regexInput(l))
		case e.left.re != nil && e.right.re == nil:
			return e.left.re.MatchString(regexInput(e.right.value(cur, root)))
		}
		return false
	}
	r := e.right.value(cur, root)
	switch e.op {
	case "==":
		return jsonEqual(l, r)
	case "!=":
		return !jsonEqual(l, r)
	case "===":
		return sameKind(l, r) && jsonEqual(l, r)
	case "!==":
		return !(sameKind(l, r) && jsonEqual(l, r))
	case "<", "<=", ">", ">=":
		c, ok := compare(l, r)
		if !ok {
			return false
		}
		switch e.op {
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		}
		return c >= 0
	case "in", "nin":
		list, ok := r.([]any)
		in := ok && contains(list, l)
		if e.op == "nin" {
			return !in
		}
		return in
	case "contains":
		if ls, ok := l.(string); ok {
			rs, ok := r.(string)
			return ok && strings.Contains(ls, rs)
		}
		list, ok := l.([]any)
		return ok && contains(list, r)
	case "subsetof", "anyof", "noneof", "all":
		ll, ok1 := l.([]any)
		rl, ok2 := r.([]any)
		if !ok1 || !ok2 {
			return e.op == "all" && ok2 && isJSON(l) // Jayway: all over a non-list node is true
		}
		switch e.op {
		case "subsetof":
			for _, x := range ll {
				if !contains(rl, x) {
					return false
				}
			}
			return true
		case "all":
			for _, x := range rl {
				if !contains(ll, x) {
					return false
				}
			}
			return true
		case "anyof":
			for _, x := range ll {
				if contains(rl, x) {
					return true
				}
			}
			return false
		}
		for _, x := range ll {
			if contains(rl, x) {
				return false
			}
		}
		return true
	case "size":
		n, ok := r.(number)
		if !ok {
			return false
		}
		return length(l) == int(n.f)
	case "empty":
		b, ok := r.(bool)
		if !ok || length(l) < 0 {
			return false
		}
		return (length(l) == 0) == b
	}
	return false
}

func isJSON(v any) bool {
	switch v.(type) {
	case []any, *object:
		return true
	}
	return false
}

// length is the length of a string (in UTF-16 units, as Java counts),
// array or object; -1 for anything else.
func length(v any) int {
	switch x := v.(type) {
	case string:
		n := 0
		for _, r := range x {
			n++
			if r > 0xFFFF {
				n++
			}
		}
		return n
	case []any:
		return len(x)
	case *object:
		return len(x.keys)
	}
	return -1
}

// exists is Jayway's existence check: the path reaches something (with
// every property on the way required).
func exists(o operand, cur, root any) bool {
	doc := cur
	if o.path.root == '$' {
		doc = root
	}
	_, err := o.path.readStrict(doc, root)
	return err == nil
}

func regexInput(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case number:
		return x.text()
	case bool:
		return fmt.Sprint(x)
	}
	return ""
}

func contains(list []any, v any) bool {
	for _, e := range list {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

func sameKind(a, b any) bool { return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) }

// jsonEqual is Jayway's == between value nodes: numbers by value, a number
// and a string through the other's text, containers deeply, undefined
// never.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case undefinedValue:
		return false
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case number:
		switch y := b.(type) {
		case number:
			return numbersEqual(x, y)
		case string:
			n, err := parseNumber(strings.TrimSpace(y))
			return err == nil && numbersEqual(x, n)
		}
		return false
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case number:
			return x == y.text()
		}
		return false
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case *object:
		y, ok := b.(*object)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for i, k := range x.keys {
			w, ok := y.get(k)
			if !ok || !jsonEqual(x.vals[i], w) {
				return false
			}
		}
		return true
	}
	return false
}

func numbersEqual(a, b number) bool {
	if a.kind == numInt && b.kind == numInt {
		return a.i == b.i
	}
	return a.f == b.f
}

// compare orders two numbers or two strings; ok is false for anything
// else, which makes every ordering comparison false.
func compare(a, b any) (int, bool) {
	switch x := a.(type) {
	case number:
		y, ok := b.(number)
		if !ok {
			return 0, false
		}
		if x.kind == numInt && y.kind == numInt {
			return cmp3(x.i < y.i, x.i > y.i), true
		}
		if math.IsNaN(x.f) || math.IsNaN(y.f) {
			return 0, false
		}
		return cmp3(x.f < y.f, x.f > y.f), true
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(x, y), true
	}
	return 0, false
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}
