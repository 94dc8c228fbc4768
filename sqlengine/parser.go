package sqlengine

import (
	"fmt"
	"strconv"
	"strings"
)

// maxDepth bounds expression nesting so that a hostile query cannot
// exhaust the stack.
const maxDepth = 200

// parser is a recursive-descent parser over the query's tokens. It builds
// the syntax tree of one SELECT; every error is a *QueryError with the
// position of the token at fault and what was expected there.
type parser struct {
	toks  []token
	i     int
	depth int
}

// parse reads a query: SELECT items FROM table [LATERAL VIEW ...] [WHERE
// condition] [;].
func parse(src string) (*selectStmt, error) {
	l := newLexer(src)
	var toks []token
	for {
		t := l.next()
		if l.err != nil {
			return nil, l.err
		}
		toks = append(toks, t)
		if t.kind == tEOF {
			break
		}
	}
	p := &parser{toks: toks}
	return p.parseSelect()
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errExpected(what string) error {
	t := p.peek()
	return syntaxErr(t.pos, fmt.Sprintf("expected %s, found %s", what, t.describe()))
}

func (p *parser) expectOp(op string) (token, error) {
	if !p.peek().isOp(op) {
		return token{}, p.errExpected(fmt.Sprintf("%q", op))
	}
	return p.advance(), nil
}

func (p *parser) expectKw(kw string) (token, error) {
	if !p.peek().is(kw) {
		return token{}, p.errExpected(kw)
	}
	return p.advance(), nil
}

func unsupported(t token, what string) error {
	return syntaxErr(t.pos, what+" is not supported by the Sql transform (only SELECT ... FROM one table [LATERAL VIEW ...] [WHERE ...])")
}

// clauseUnsupported reports SQL clauses SeaTunnel's Sql transform rejects.
func (p *parser) clauseUnsupported() error {
	t := p.peek()
	switch {
	case t.is("GROUP"), t.is("HAVING"):
		return unsupported(t, "GROUP BY / HAVING (aggregation)")
	case t.is("ORDER"):
		return unsupported(t, "ORDER BY")
	case t.is("LIMIT"), t.is("OFFSET"):
		return unsupported(t, "LIMIT / OFFSET")
	case t.is("UNION"), t.is("EXCEPT"), t.is("INTERSECT"):
		return unsupported(t, strings.ToUpper(t.val))
	case t.is("JOIN"), t.is("INNER"), t.is("CROSS"), t.is("LEFT") && p.peekAt(1).is("JOIN"),
		t.is("RIGHT") && p.peekAt(1).is("JOIN"), t.is("FULL") && p.peekAt(1).is("JOIN"), t.isOp(","):
		return unsupported(t, "a join of several tables")
	}
	return nil
}

func (p *parser) parseSelect() (*selectStmt, error) {
	t := p.peek()
	if !t.is("SELECT") {
		if t.kind == tIdent && !t.is("SELECT") {
			switch strings.ToUpper(t.val) {
			case "INSERT", "UPDATE", "DELETE", "WITH", "CREATE", "DROP", "MERGE":
				return nil, syntaxErr(t.pos, "only SELECT queries are supported, found "+strings.ToUpper(t.val))
			}
		}
		return nil, p.errExpected("SELECT")
	}
	p.advance()
	if p.peek().is("DISTINCT") {
		return nil, unsupported(p.peek(), "SELECT DISTINCT")
	}
	s := &selectStmt{}
	for {
		it, err := p.parseSelectItem()
		if err != nil {
			return nil, err
		}
		s.items = append(s.items, it)
		if !p.peek().isOp(",") {
			break
		}
		p.advance()
	}
	if !p.peek().is("FROM") {
		if p.peek().kind == tEOF {
			return nil, p.errExpected("FROM <table>")
		}
		return nil, p.errExpected(`"," or FROM`)
	}
	p.advance()
	t = p.peek()
	switch {
	case t.isOp("("):
		return nil, unsupported(t, "a subquery")
	case t.kind == tQuoted, t.kind == tIdent && !isReserved(t.val):
		p.advance()
		s.table, s.tableAt = t.val, t.pos
	default:
		return nil, p.errExpected("a table name")
	}
	if p.peek().isOp(".") {
		return nil, syntaxErr(p.peek().pos, "a schema-qualified table name is not supported; name the input table alone (or use dual)")
	}
	if t := p.peek(); t.is("AS") || t.kind == tQuoted || t.kind == tIdent && !isReserved(t.val) && !t.is("LEFT") && !t.is("RIGHT") && !t.is("FULL") {
		return nil, syntaxErr(t.pos, "a table alias is not supported")
	}
	if err := p.clauseUnsupported(); err != nil {
		return nil, err
	}
	for p.peek().is("LATERAL") {
		lv, err := p.parseLateral()
		if err != nil {
			return nil, err
		}
		s.laterals = append(s.laterals, lv)
	}
	if p.peek().is("WHERE") {
		p.advance()
		w, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		s.where = w
	}
	if err := p.clauseUnsupported(); err != nil {
		return nil, err
	}
	if p.peek().isOp(";") {
		p.advance()
	}
	if p.peek().kind != tEOF {
		if s.where == nil {
			return nil, p.errExpected("WHERE, LATERAL VIEW or end of query")
		}
		return nil, p.errExpected("an operator or end of query")
	}
	return s, nil
}

func (p *parser) parseSelectItem() (selectItem, error) {
	t := p.peek()
	if t.isOp("*") {
		p.advance()
		return selectItem{star: true, starAt: t.pos}, nil
	}
	// table.* selects every column too.
	if (t.kind == tIdent && !isReserved(t.val) || t.kind == tQuoted) && p.peekAt(1).isOp(".") && p.peekAt(2).isOp("*") {
		p.advance()
		p.advance()
		p.advance()
		return selectItem{star: true, starAt: t.pos}, nil
	}
	if t.kind == tEOF || t.is("FROM") {
		return selectItem{}, p.errExpected("a select item (an expression or *)")
	}
	e, err := p.parseExpr()
	if err != nil {
		return selectItem{}, err
	}
	it := selectItem{expr: e}
	switch a := p.peek(); {
	case a.is("AS"):
		p.advance()
		n := p.peek()
		if n.kind == tQuoted || n.kind == tIdent && !isReserved(n.val) {
			p.advance()
			it.alias, it.aliasAt = n.val, n.pos
		} else {
			return selectItem{}, p.errExpected("an alias name after AS")
		}
	case a.kind == tQuoted, a.kind == tIdent && !isReserved(a.val):
		p.advance()
		it.alias, it.aliasAt = a.val, a.pos
	}
	return it, nil
}

func (p *parser) parseLateral() (lateralView, error) {
	lt := p.advance() // LATERAL
	if _, err := p.expectKw("VIEW"); err != nil {
		return lateralView{}, err
	}
	lv := lateralView{at: lt.pos}
	if p.peek().is("OUTER") {
		p.advance()
		lv.outer = true
	}
	t := p.peek()
	if t.kind != tIdent || isReserved(t.val) || !p.peekAt(1).isOp("(") {
		return lateralView{}, p.errExpected("a generator function such as EXPLODE(...)")
	}
	fn, err := p.parsePrimary()
	if err != nil {
		return lateralView{}, err
	}
	call, ok := fn.(*callNode)
	if !ok {
		return lateralView{}, syntaxErr(t.pos, "expected a generator function such as EXPLODE(...)")
	}
	lv.fn = call
	// An optional table alias, then AS column.
	if n := p.peek(); (n.kind == tIdent && !isReserved(n.val)) || n.kind == tQuoted {
		p.advance()
	}
	if _, err := p.expectKw("AS"); err != nil {
		return lateralView{}, err
	}
	n := p.peek()
	if n.kind != tQuoted && (n.kind != tIdent || isReserved(n.val)) {
		return lateralView{}, p.errExpected("a column name after AS")
	}
	p.advance()
	lv.alias, lv.aliasAt = n.val, n.pos
	return lv, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return syntaxErr(p.peek().pos, fmt.Sprintf("expression nested more than %d levels deep", maxDepth))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) parseExpr() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.parseOr()
}

func (p *parser) parseOr() (node, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.peek().is("OR") {
		op := p.advance()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: "OR", opRaw: op.raw, opAt: op.pos, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseAnd() (node, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.peek().is("AND") {
		op := p.advance()
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: "AND", opRaw: op.raw, opAt: op.pos, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseNot() (node, error) {
	if t := p.peek(); t.is("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.advance()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &unaryNode{at: t.pos, op: "NOT", kw: t.raw, x: x}, nil
	}
	return p.parsePredicate()
}

var compOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

func (p *parser) parsePredicate() (node, error) {
	l, err := p.parseConcat()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tOp && compOps[t.val]:
		p.advance()
		r, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		return &binaryNode{op: t.val, opRaw: t.raw, opAt: t.pos, l: l, r: r}, nil
	case t.is("IS"):
		p.advance()
		not := false
		if p.peek().is("NOT") {
			p.advance()
			not = true
		}
		if _, err := p.expectKw("NULL"); err != nil {
			return nil, err
		}
		return &isNullNode{x: l, not: not, at: t.pos}, nil
	}
	not := false
	if t.is("NOT") && (p.peekAt(1).is("IN") || p.peekAt(1).is("LIKE") || p.peekAt(1).is("BETWEEN")) {
		p.advance()
		not = true
	}
	kw := p.peek()
	switch {
	case kw.is("IN"):
		p.advance()
		if _, err := p.expectOp("("); err != nil {
			return nil, err
		}
		if p.peek().is("SELECT") {
			return nil, unsupported(p.peek(), "a subquery")
		}
		var list []node
		for {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			list = append(list, e)
			if !p.peek().isOp(",") {
				break
			}
			p.advance()
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return &inNode{x: l, list: list, not: not, at: t.pos}, nil
	case kw.is("BETWEEN"):
		p.advance()
		lo, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectKw("AND"); err != nil {
			return nil, err
		}
		hi, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		return &betweenNode{x: l, lo: lo, hi: hi, not: not, at: t.pos}, nil
	case kw.is("LIKE"):
		p.advance()
		pat, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		n := &likeNode{x: l, pattern: pat, not: not, at: t.pos}
		if p.peek().is("ESCAPE") {
			p.advance()
			if n.escape, err = p.parseConcat(); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return l, nil
}

func (p *parser) parseConcat() (node, error) {
	l, err := p.parseAdditive()
	if err != nil {
		return nil, err
	}
	for p.peek().isOp("||") {
		op := p.advance()
		r, err := p.parseAdditive()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: "||", opRaw: op.raw, opAt: op.pos, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseAdditive() (node, error) {
	l, err := p.parseMul()
	if err != nil {
		return nil, err
	}
	for p.peek().isOp("+") || p.peek().isOp("-") {
		op := p.advance()
		r, err := p.parseMul()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: op.val, opRaw: op.raw, opAt: op.pos, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseMul() (node, error) {
	l, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for p.peek().isOp("*") || p.peek().isOp("/") || p.peek().isOp("%") {
		op := p.advance()
		r, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: op.val, opRaw: op.raw, opAt: op.pos, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseUnary() (node, error) {
	t := p.peek()
	if t.isOp("-") || t.isOp("+") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.advance()
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return &unaryNode{at: t.pos, op: t.val, kw: t.raw, x: x}, nil
	}
	return p.parsePostfix()
}

func (p *parser) parsePostfix() (node, error) {
	x, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for p.peek().isOp("[") {
		open := p.advance()
		idx, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectOp("]"); err != nil {
			return nil, err
		}
		x = &indexNode{x: x, index: idx, at: open.pos}
	}
	return x, nil
}

// timeKeys are the niladic functions SQL writes without parentheses.
var timeKeys = map[string]bool{"CURRENT_DATE": true, "CURRENT_TIME": true, "CURRENT_TIMESTAMP": true}

func (p *parser) parsePrimary() (node, error) {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.advance()
		return &numberNode{at: t.pos, raw: t.raw, isInt: !strings.ContainsAny(t.raw, ".eE")}, nil
	case tString:
		p.advance()
		return &stringNode{at: t.pos, raw: t.raw, val: t.val}, nil
	case tQuoted:
		return p.parsePath()
	case tOp:
		if t.isOp("(") {
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			p.advance()
			if p.peek().is("SELECT") {
				return nil, unsupported(p.peek(), "a subquery")
			}
			x, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return &parenNode{at: t.pos, x: x}, nil
		}
		return nil, p.errExpected("an expression")
	case tEOF:
		return nil, p.errExpected("an expression")
	}
	// An identifier or keyword.
	up := strings.ToUpper(t.val)
	next := p.peekAt(1)
	switch up {
	case "NULL":
		p.advance()
		return &nullNode{at: t.pos, raw: t.raw}, nil
	case "TRUE", "FALSE":
		p.advance()
		return &boolNode{at: t.pos, raw: t.raw, val: up == "TRUE"}, nil
	case "CASE":
		return p.parseCase()
	case "CAST":
		return p.parseCast()
	case "CONVERT", "TRY_CAST":
		if next.isOp("(") {
			return p.parseCast()
		}
	case "EXTRACT":
		if next.isOp("(") {
			return p.parseExtract()
		}
	case "TRIM":
		if next.isOp("(") {
			return p.parseTrim()
		}
	case "DATE", "TIME", "TIMESTAMP":
		if next.kind == tString {
			p.advance()
			lit := p.advance()
			return &typedLitNode{at: t.pos, kind: up, kw: t.raw, lit: &stringNode{at: lit.pos, raw: lit.raw, val: lit.val}}, nil
		}
	}
	if isReserved(t.val) {
		return nil, p.errExpected("an expression")
	}
	if next.isOp("(") {
		return p.parseCall()
	}
	if timeKeys[up] {
		p.advance()
		return &callNode{at: t.pos, name: t.raw, noParens: true}, nil
	}
	return p.parsePath()
}

// parsePath reads a column reference: name(.name)*.
func (p *parser) parsePath() (node, error) {
	t := p.advance()
	n := &identNode{parts: []identPart{{name: t.val, raw: t.raw, quoted: t.kind == tQuoted, at: t.pos}}}
	for p.peek().isOp(".") {
		p.advance()
		f := p.peek()
		if f.kind != tIdent && f.kind != tQuoted || f.kind == tIdent && isReserved(f.val) {
			return nil, p.errExpected("a field name after \".\"")
		}
		p.advance()
		n.parts = append(n.parts, identPart{name: f.val, raw: f.raw, quoted: f.kind == tQuoted, at: f.pos})
	}
	if p.peek().isOp("(") {
		return nil, syntaxErr(p.peek().pos, "a qualified function name is not supported")
	}
	return n, nil
}

func (p *parser) parseCall() (node, error) {
	name := p.advance()
	p.advance() // (
	c := &callNode{at: name.pos, name: name.raw}
	if p.peek().isOp(")") {
		p.advance()
		return c, nil
	}
	if t := p.peek(); t.isOp("*") || t.is("DISTINCT") {
		return nil, syntaxErr(t.pos, fmt.Sprintf("aggregate functions such as %s(%s ...) are not supported by the Sql transform", strings.ToUpper(name.val), strings.ToUpper(t.raw)))
	}
	for {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, e)
		if !p.peek().isOp(",") {
			break
		}
		p.advance()
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return c, nil
}

func (p *parser) parseCase() (node, error) {
	t := p.advance()
	c := &caseNode{at: t.pos}
	if !p.peek().is("WHEN") {
		op, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		c.operand = op
	}
	for p.peek().is("WHEN") {
		p.advance()
		cond, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		res, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		c.whens = append(c.whens, whenClause{cond: cond, result: res})
	}
	if len(c.whens) == 0 {
		return nil, p.errExpected("WHEN")
	}
	if p.peek().is("ELSE") {
		p.advance()
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		c.els = e
	}
	if _, err := p.expectKw("END"); err != nil {
		return nil, p.errExpected("WHEN, ELSE or END")
	}
	return c, nil
}

func (p *parser) parseCast() (node, error) {
	kw := p.advance()
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	x, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if p.peek().isOp(",") && strings.EqualFold(kw.val, "CONVERT") {
		p.advance()
	} else if _, err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	tn := p.peek()
	if tn.kind != tIdent {
		return nil, p.errExpected("a type name")
	}
	p.advance()
	typ := typeName{at: tn.pos, name: tn.raw}
	if p.peek().isOp("(") {
		p.advance()
		for {
			n := p.peek()
			if n.kind != tNumber || strings.ContainsAny(n.raw, ".eE") {
				return nil, p.errExpected("a whole number")
			}
			v, err := strconv.Atoi(n.raw)
			if err != nil || v > 1000 {
				return nil, syntaxErr(n.pos, "type argument "+n.raw+" is out of range")
			}
			p.advance()
			typ.args = append(typ.args, v)
			if !p.peek().isOp(",") {
				break
			}
			p.advance()
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return &castNode{at: kw.pos, kw: kw.raw, x: x, typ: typ}, nil
}

func (p *parser) parseExtract() (node, error) {
	kw := p.advance()
	p.advance() // (
	f := p.peek()
	if f.kind != tIdent && f.kind != tString {
		return nil, p.errExpected("a date-time field such as YEAR")
	}
	p.advance()
	if _, err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	x, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	field := f.raw
	if f.kind == tString {
		field = f.val
	}
	return &extractNode{at: kw.pos, field: field, fAt: f.pos, x: x}, nil
}

func (p *parser) parseTrim() (node, error) {
	kw := p.advance()
	p.advance() // (
	n := &trimNode{at: kw.pos}
	if t := p.peek(); t.is("LEADING") || t.is("TRAILING") || t.is("BOTH") {
		n.where = strings.ToUpper(t.val)
		p.advance()
	}
	if p.peek().is("FROM") {
		p.advance()
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		n.x = x
	} else {
		first, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		switch {
		case p.peek().is("FROM"):
			p.advance()
			x, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			n.chars, n.x = first, x
		case n.where != "":
			return nil, p.errExpected("FROM")
		default:
			// TRIM(x[, chars]) is an ordinary call.
			c := &callNode{at: kw.pos, name: kw.raw, args: []node{first}}
			for p.peek().isOp(",") {
				p.advance()
				e, err := p.parseExpr()
				if err != nil {
					return nil, err
				}
				c.args = append(c.args, e)
			}
			if _, err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return c, nil
		}
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return n, nil
}
