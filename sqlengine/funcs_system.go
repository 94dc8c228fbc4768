package sqlengine

import (
	"encoding/hex"
	"math/rand/v2"

	"github.com/stactor/stactor/row"
)

// System functions, after SeaTunnel's SystemFunction and ArrayFunction.

func registerSystemFuncs() {
	register(&fnSpec{1, -1, buildCoalesce}, "COALESCE")
	register(&fnSpec{2, 2, buildCoalesce}, "IFNULL")
	register(&fnSpec{2, 2, buildNullIf}, "NULLIF")
	register(&fnSpec{3, 3, buildCaseWhen}, "CASEWHEN")
	register(&fnSpec{3, -1, buildMultiIf}, "MULTI_IF")
	register(&fnSpec{0, 0, buildUUID}, "UUID")
	register(&fnSpec{0, -1, buildArray}, "ARRAY")
}

// coalesceEval is COALESCE / IFNULL: the first non-NULL argument. Later
// arguments are evaluated only for the rows still NULL.
type coalesceEval struct {
	exprBase
	args      []evaluator
	rem, next []int
}

// buildCoalesce types COALESCE by its first argument, as SeaTunnel does
// (the first argument that is not a NULL literal); the others are
// converted to that type.
func buildCoalesce(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	t := row.Null
	for _, a := range args {
		if !isNullType(typeOf(a)) {
			t = typeOf(a)
			break
		}
	}
	e := &coalesceEval{args: make([]evaluator, len(args))}
	for k, a := range args {
		conv, err := c.coerce(a, t)
		if err != nil {
			// sql-functions.md: a later argument of another type is
			// converted to the first one's, as CAST does (COALESCE(name,
			// id) gives id as text); a value that does not convert fails
			// its row, when it is reached.
			var cast evaluator
			if cast, err = newCast(a, t, true, call.args[k]); err == nil {
				conv = c.add(cast)
			}
		}
		if err != nil {
			return nil, errAt(call.args[k].pos(), "type mismatch: %s argument %d is %s, the result is %s", call.name, k+1, typeOf(a), t)
		}
		e.args[k] = conv
	}
	e.t, e.src = t, call
	e.derive(e.args...)
	return c.add(e), nil
}

func (e *coalesceEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	first, err := e.args[0].eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(e.t, n)
	if e.t.Storage() == row.StoreNone {
		return out, nil
	}
	rem := e.rem[:0]
	for i := 0; i < n; i++ {
		if isNull(first, i) {
			rem = append(rem, i)
		} else {
			copyAt(out, i, first, i)
		}
	}
	for _, a := range e.args[1:] {
		if len(rem) == 0 {
			break
		}
		v, err := a.eval(c.sub(rem))
		if err != nil {
			return nil, err
		}
		next := e.next[:0]
		for k, i := range rem {
			if isNull(v, k) {
				next = append(next, i)
			} else {
				copyAt(out, i, v, k)
			}
		}
		rem, e.next = next, rem
	}
	for _, i := range rem {
		e.out.setNull(out, n, i)
	}
	e.rem = rem
	return out, nil
}

// nullIfEval is NULLIF(a, b): NULL where a = b, else a.
type nullIfEval struct {
	exprBase
	a, eq evaluator
}

// buildNullIf is NULLIF(a, b): NULL where a equals b, as Java's
// a.equals(b): values of different Java classes (an int and a double, a
// number and a string, decimals of different scales) are never equal.
func buildNullIf(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	t0, t1 := typeOf(args[0]), typeOf(args[1])
	var eq evaluator = newConst(row.Boolean, val{b: false}, call)
	if t0.Equal(t1) || t0.ID == t1.ID && t0.ID != row.TypeDecimal {
		var err error
		if eq, err = c.compare(call, "=", args[0], args[1], call.args[1].pos()); err != nil {
			return nil, err
		}
	}
	e := &nullIfEval{a: args[0], eq: eq}
	e.t, e.src = typeOf(args[0]), call
	e.derive(args[0], eq)
	return c.add(e), nil
}

func (e *nullIfEval) eval(c *evalCtx) (*row.Column, error) {
	eq, err := e.eq.eval(c)
	if err != nil {
		return nil, err
	}
	a, err := e.a.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(e.t, c.n)
	for i := 0; i < c.n; i++ {
		if isNull(a, i) || !isNull(eq, i) && eq.Bools[i] {
			e.out.setNull(out, c.n, i)
			continue
		}
		if out.Nulls != nil {
			out.Nulls[i] = false
		}
		copyAt(out, i, a, i)
	}
	return out, nil
}

// buildCaseWhen is H2's CASEWHEN(condition, then, else).
func buildCaseWhen(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return c.caseExpr(&caseNode{at: call.at, whens: []whenClause{{cond: call.args[0], result: call.args[1]}}, els: call.args[2]})
}

// buildMultiIf is MULTI_IF(cond1, then1, cond2, then2, ..., else):
// the result of the first true condition, else the last argument — a
// searched CASE, typed and evaluated as one.
func buildMultiIf(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if len(call.args)%2 == 0 {
		return nil, errAt(call.at, "MULTI_IF takes condition, result pairs and an else result (an odd number of arguments), got %d", len(call.args))
	}
	n := &caseNode{at: call.at, els: call.args[len(call.args)-1]}
	for k := 0; k+1 < len(call.args); k += 2 {
		n.whens = append(n.whens, whenClause{cond: call.args[k], result: call.args[k+1]})
	}
	return c.caseExpr(n)
}

func buildUUID(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		var b [16]byte
		x, y := rand.Uint64(), rand.Uint64()
		for k := 0; k < 8; k++ {
			b[k], b[8+k] = byte(x>>(8*k)), byte(y>>(8*k))
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		var s [36]byte
		hex.Encode(s[0:8], b[0:4])
		s[8] = '-'
		hex.Encode(s[9:13], b[4:6])
		s[13] = '-'
		hex.Encode(s[14:18], b[6:8])
		s[18] = '-'
		hex.Encode(s[19:23], b[8:10])
		s[23] = '-'
		hex.Encode(s[24:], b[10:])
		o.s = string(s[:])
		return nil
	}, fnOpts{volatile: true}), nil
}

// arrayElemType is the element type of ARRAY(...) by SeaTunnel's rules:
// equal argument types keep theirs, numbers widen, anything else is a
// string; and only int, bigint, double, boolean and decimal elements keep
// their type — other kinds (float, dates) become strings. Decimals of
// different precision or scale make a decimal that holds both (as
// SeaTunnel's ARRAY(c_first_decimal, c_second_decimal) e2e expects).
func arrayElemType(ts []*row.Type) *row.Type {
	if dec, ok := arrayDecimalType(ts); ok {
		return dec
	}
	var cur *row.Type
	numeric := func(t *row.Type) bool {
		return t.ID == row.TypeSmallInt || t.ID == row.TypeInt || t.ID == row.TypeBigInt || isFloatType(t)
	}
	for _, t := range ts {
		switch {
		case isNullType(t):
			continue
		case cur == nil || cur.Equal(t):
			cur = t
		case numeric(cur) && numeric(t):
			if numRank(t) > numRank(cur) {
				cur = t
			}
		default:
			cur = row.String
		}
	}
	if cur == nil {
		return row.String
	}
	switch cur.ID {
	case row.TypeInt, row.TypeBigInt, row.TypeDouble, row.TypeBoolean:
		return cur
	}
	return row.String
}

// arrayDecimalType is the decimal type of ARRAY(...) whose arguments are
// all decimals (or NULL): the largest precision and scale.
func arrayDecimalType(ts []*row.Type) (*row.Type, bool) {
	p, sc, seen := 0, 0, false
	for _, t := range ts {
		switch {
		case isNullType(t):
		case t.ID == row.TypeDecimal:
			p, sc, seen = max(p, t.Precision), max(sc, t.Scale), true
		default:
			return nil, false
		}
	}
	if !seen {
		return nil, false
	}
	return row.DecimalOf(p, sc), true
}

func buildArray(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	ts := make([]*row.Type, len(args))
	for k, a := range args {
		ts[k] = typeOf(a)
	}
	et := arrayElemType(ts)
	convs := make([]converter, len(args))
	for k, t := range ts {
		conv, err := castConverter(t, et, false)
		if err != nil {
			return nil, errAt(call.args[k].pos(), "ARRAY cannot hold %s with %s", t, et)
		}
		convs[k] = conv
	}
	return c.scalar(call, args, row.ArrayOf(et), func(a []val, o *val) error {
		xs := make([]any, len(a))
		for k := range a {
			if a[k].null {
				continue
			}
			var v val
			if err := convs[k](&a[k], &v); err != nil {
				return err
			}
			xs[k] = boxVal(et, &v)
		}
		o.a = xs
		return nil
	}, fnOpts{lenient: true}), nil
}
