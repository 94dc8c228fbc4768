package sqlengine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/stactor/stactor/row"
)

// compiler checks an expression tree against the input schema and turns
// it into evaluators: columns are resolved, types derived by SeaTunnel's
// rules, implicit conversions inserted, and constant parts folded.
type compiler struct {
	in   *row.Schema
	prog *program
}

// add registers e's buffer as scratch and folds e when it is constant.
func (c *compiler) add(e evaluator) evaluator {
	m := e.meta()
	c.prog.scratch[&m.out.col] = true
	if _, isConst := e.(*constEval); isConst || !m.constant {
		return e
	}
	return c.fold(e)
}

// fold evaluates a constant expression once; if that fails (1/0), the
// expression stays and fails at run time for the rows that reach it.
func (c *compiler) fold(e evaluator) evaluator {
	ctx := &evalCtx{prog: c.prog, n: 1, now: c.prog.now()}
	col, err := e.eval(ctx)
	if err != nil {
		return e
	}
	var v val
	readVal(col, 0, &v)
	m := e.meta()
	return newConst(m.t, v, m.src)
}

func (c *compiler) columns() string {
	return strings.Join(c.in.Names(), ", ")
}

func (c *compiler) expr(n node) (evaluator, error) {
	switch x := n.(type) {
	case *parenNode:
		return c.expr(x.x)
	case *identNode:
		return c.ident(x)
	case *numberNode:
		return c.number(x)
	case *stringNode:
		return newConst(row.String, val{s: x.val}, x), nil
	case *boolNode:
		return newConst(row.Boolean, val{b: x.val}, x), nil
	case *nullNode:
		return newConst(row.Null, val{null: true}, x), nil
	case *typedLitNode:
		return c.typedLit(x)
	case *unaryNode:
		return c.unary(x)
	case *binaryNode:
		return c.binary(x)
	case *isNullNode:
		v, err := c.expr(x.x)
		if err != nil {
			return nil, err
		}
		e := &isNullEval{x: v, not: x.not}
		e.t, e.src = row.Boolean, x
		e.derive(v)
		return c.add(e), nil
	case *inNode:
		return c.in_(x)
	case *betweenNode:
		return c.between(x)
	case *likeNode:
		return c.like(x)
	case *caseNode:
		return c.caseExpr(x)
	case *castNode:
		return c.cast(x)
	case *callNode:
		return c.call(x)
	case *extractNode:
		return c.extract(x)
	case *trimNode:
		return c.trimSQL(x)
	case *indexNode:
		return c.index(x)
	}
	return nil, errAt(n.pos(), "unsupported expression")
}

// condition compiles an expression that must be boolean (WHERE, AND, OR,
// NOT, WHEN).
func (c *compiler) condition(n node, what string) (evaluator, error) {
	e, err := c.expr(n)
	if err != nil {
		return nil, err
	}
	t := typeOf(e)
	if t.ID == row.TypeNull {
		return c.add(newConst(row.Boolean, val{null: true}, n)), nil
	}
	if t.ID != row.TypeBoolean {
		return nil, errAt(n.pos(), "%s must be a boolean condition, got %s %s", what, t, render(n))
	}
	return e, nil
}

// ident resolves a column reference: a column, table.column, or a path
// into a row or map column (c_row.next_row.c_string, as SeaTunnel's
// struct query).
func (c *compiler) ident(n *identNode) (evaluator, error) {
	j := c.in.Index(n.parts[0].name)
	nested := j >= 0 && len(n.parts) > 1 && (c.in.Fields[j].Type.ID == row.TypeRow || c.in.Fields[j].Type.ID == row.TypeMap)
	if !nested {
		last := n.parts[len(n.parts)-1]
		if k := c.in.Index(last.name); k >= 0 {
			e := &colRef{idx: k}
			e.t, e.src = c.in.Fields[k].Type, n
			return e, nil
		}
		if j < 0 || len(n.parts) == 1 {
			at, name := n.parts[0].at, n.parts[0].name
			if j >= 0 || len(n.parts) > 1 {
				at, name = last.at, render(n)
			}
			return nil, &QueryError{Pos: at, Msg: fmt.Sprintf("unknown column %q", name), Hint: "columns: " + c.columns()}
		}
	}
	t := c.in.Fields[j].Type
	var steps []pathStep
	for k, p := range n.parts[1:] {
		switch t.ID {
		case row.TypeRow:
			idx := -1
			for fi, f := range t.Fields {
				if f.Name == p.name {
					idx = fi
					break
				}
			}
			if idx < 0 {
				names := make([]string, len(t.Fields))
				for fi, f := range t.Fields {
					names[fi] = f.Name
				}
				return nil, &QueryError{Pos: p.at, Msg: fmt.Sprintf("unknown field %q of %s", p.name, render(&identNode{parts: n.parts[:k+1]})), Hint: "fields: " + strings.Join(names, ", ")}
			}
			steps = append(steps, pathStep{field: idx})
			t = t.Fields[idx].Type
		case row.TypeMap:
			if t.Key.ID != row.TypeString {
				return nil, errAt(p.at, "%s is a %s: only maps with string keys can be read as map.key", render(&identNode{parts: n.parts[:k+1]}), t)
			}
			steps = append(steps, pathStep{key: p.name, isMap: true})
			t = t.Elem
			if k < len(n.parts)-2 && t.ID == row.TypeMap {
				return nil, errAt(n.parts[k+2].at, "a map nested in a map cannot be read by a path (SeaTunnel: the map must be the last struct)")
			}
		default:
			return nil, errAt(p.at, "%s is %s, not a row or map: it has no field %q", render(&identNode{parts: n.parts[:k+1]}), t, p.name)
		}
	}
	e := &pathEval{idx: j, steps: steps}
	e.t, e.src = t, n
	return c.add(e), nil
}

func (c *compiler) number(n *numberNode) (evaluator, error) {
	if n.isInt {
		v, err := strconv.ParseInt(n.raw, 10, 64)
		if err != nil {
			// Too big for a bigint: SeaTunnel has no bigger integer literal.
			f, ferr := strconv.ParseFloat(n.raw, 64)
			if ferr != nil {
				return nil, errAt(n.at, "number %s is out of range", n.raw)
			}
			return newConst(row.Double, val{f: f}, n), nil
		}
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return newConst(row.Int, val{i: v}, n), nil
		}
		return newConst(row.BigInt, val{i: v}, n), nil
	}
	f, err := strconv.ParseFloat(n.raw, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, errAt(n.at, "bad number %s", n.raw)
	}
	return newConst(row.Double, val{f: f}, n), nil
}

func (c *compiler) typedLit(n *typedLitNode) (evaluator, error) {
	switch n.kind {
	case "DATE":
		t, err := row.ParseDate(n.lit.val)
		if err != nil {
			return nil, errAt(n.lit.at, "bad DATE literal %s: %v", n.lit.raw, err)
		}
		return newConst(row.Date, val{i: row.DateOf(t)}, n), nil
	case "TIME":
		d, err := row.ParseTime(n.lit.val)
		if err != nil {
			return nil, errAt(n.lit.at, "bad TIME literal %s: %v", n.lit.raw, err)
		}
		return newConst(row.Time, val{i: int64(d)}, n), nil
	}
	t, err := row.ParseTimestamp(n.lit.val)
	if err != nil {
		return nil, errAt(n.lit.at, "bad TIMESTAMP literal %s: %v", n.lit.raw, err)
	}
	sec, nano := row.TimestampOf(t)
	return newConst(row.Timestamp, val{i: sec, nano: nano}, n), nil
}

func (c *compiler) unary(n *unaryNode) (evaluator, error) {
	if n.op == "NOT" {
		x, err := c.condition(n.x, "the operand of NOT")
		if err != nil {
			return nil, err
		}
		e := &notEval{x: x}
		e.t, e.src = row.Boolean, n
		e.derive(x)
		return c.add(e), nil
	}
	x, err := c.expr(n.x)
	if err != nil {
		return nil, err
	}
	t := typeOf(x)
	if !isNumType(t) && !isNullType(t) {
		return nil, errAt(n.at, "type mismatch: cannot apply unary %s to %s", n.op, t)
	}
	if n.op == "+" {
		return x, nil
	}
	e := &negEval{x: x}
	e.t, e.src = t, n
	e.derive(x)
	return c.add(e), nil
}

// coerce converts e to t implicitly (a widening the compiler inserts).
func (c *compiler) coerce(e evaluator, t *row.Type) (evaluator, error) {
	if typeOf(e).Equal(t) {
		return e, nil
	}
	if k, ok := asConst(e); ok && k.v.null {
		return newConst(t, val{null: true}, k.src), nil
	}
	if !implicitOK(typeOf(e), t) {
		return nil, fmt.Errorf("no implicit conversion from %s to %s", typeOf(e), t)
	}
	ce, err := newCast(e, t, false, e.meta().src)
	if err != nil {
		return nil, err
	}
	if ce == e {
		return e, nil
	}
	return c.add(ce), nil
}

// implicitOK tells whether the compiler may convert from to to on its
// own: between numbers, from a date to a timestamp, from NULL to anything.
func implicitOK(from, to *row.Type) bool {
	switch {
	case from.Equal(to), isNullType(from):
		return true
	case isNumType(from) && isNumType(to):
		return true
	case from.ID == row.TypeDate && to.ID == row.TypeTimestamp:
		return true
	}
	return false
}

func (c *compiler) binary(n *binaryNode) (evaluator, error) {
	switch n.op {
	case "AND", "OR":
		l, err := c.condition(n.l, "the left operand of "+n.op)
		if err != nil {
			return nil, err
		}
		r, err := c.condition(n.r, "the right operand of "+n.op)
		if err != nil {
			return nil, err
		}
		e := &logicEval{l: l, r: r, or: n.op == "OR"}
		e.t, e.src = row.Boolean, n
		e.derive(l, r)
		return c.add(e), nil
	case "||":
		l, err := c.expr(n.l)
		if err != nil {
			return nil, err
		}
		r, err := c.expr(n.r)
		if err != nil {
			return nil, err
		}
		return c.add(newConcat(n, []evaluator{l, r})), nil
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		l, err := c.expr(n.l)
		if err != nil {
			return nil, err
		}
		r, err := c.expr(n.r)
		if err != nil {
			return nil, err
		}
		return c.compare(n, n.op, l, r, n.opAt)
	}
	l, err := c.expr(n.l)
	if err != nil {
		return nil, err
	}
	r, err := c.expr(n.r)
	if err != nil {
		return nil, err
	}
	return c.arith(n, n.op[0], l, r)
}

func (c *compiler) cast(n *castNode) (evaluator, error) {
	x, err := c.expr(n.x)
	if err != nil {
		return nil, err
	}
	t, err := castTarget(n.typ)
	if err != nil {
		return nil, err
	}
	try := strings.EqualFold(n.kw, "TRY_CAST")
	e, err := newCast(x, t, true, n)
	switch {
	case err != nil && try:
		// No value of x's type converts: every row is NULL.
		return newConst(t, val{null: true}, n), nil
	case err != nil:
		return nil, errAt(n.typ.at, "cannot CAST %s to %s", typeOf(x), strings.ToUpper(t.String()))
	case e == x:
		return x, nil
	}
	if ce, ok := e.(*castEval); ok && try {
		ce.try, ce.fails = true, false
	}
	return c.add(e), nil
}

func (c *compiler) index(n *indexNode) (evaluator, error) {
	x, err := c.expr(n.x)
	if err != nil {
		return nil, err
	}
	k, err := c.expr(n.index)
	if err != nil {
		return nil, err
	}
	xt := typeOf(x)
	e := &indexEval{x: x}
	switch xt.ID {
	case row.TypeArray:
		if !isIntType(typeOf(k)) && !isNullType(typeOf(k)) {
			return nil, errAt(n.index.pos(), "an array index must be an integer, got %s", typeOf(k))
		}
		if k, err = c.coerce(k, row.BigInt); err != nil {
			return nil, err
		}
		e.t = xt.Elem
	case row.TypeMap:
		kt := typeOf(k)
		if !kt.Equal(xt.Key) {
			conv, err := c.coerce(k, xt.Key)
			if err != nil {
				return nil, errAt(n.index.pos(), "type mismatch: the key of %s must be %s, got %s", xt, xt.Key, kt)
			}
			k = conv
		}
		e.isMap = true
		e.t = xt.Elem
	default:
		return nil, errAt(n.at, "%s is %s: only arrays and maps can be indexed", render(n.x), xt)
	}
	e.idx, e.src = k, n
	e.derive(x, k)
	return c.add(e), nil
}
