package sqlengine

import (
	"bytes"

	"github.com/stactor/stactor/row"
)

// x [NOT] IN (a, b, ...) follows SeaTunnel's inExpr: for a non-null x it
// is TRUE (FALSE for NOT IN) when some item equals x, and FALSE (TRUE)
// otherwise — NULL items are skipped, so `5 NOT IN (1, NULL)` is TRUE. A
// NULL x gives NULL (SeaTunnel: false, which a WHERE treats the same).
type inEval struct {
	exprBase
	x     evaluator
	items []evaluator
	dom   cmpDomain
	not   bool
	// Constant items, when all are constants.
	allConst bool
	ints     map[int64]bool
	floats   map[float64]bool
	strs     map[string]bool
}

func (c *compiler) in_(n *inNode) (evaluator, error) {
	x, err := c.expr(n.x)
	if err != nil {
		return nil, err
	}
	items := make([]evaluator, len(n.list))
	t := typeOf(x)
	for k, it := range n.list {
		e, err := c.expr(it)
		if err != nil {
			return nil, err
		}
		if e, err = c.literalAs(e, typeOf(x)); err != nil {
			return nil, err
		}
		nt, ok := cmpType(t, typeOf(e))
		if !ok {
			return nil, errAt(it.pos(), "type mismatch: cannot compare %s with %s in IN list", typeOf(x), typeOf(e))
		}
		t = nt
		items[k] = e
	}
	conv := func(e evaluator) (evaluator, error) {
		et := typeOf(e)
		if t.ID == row.TypeBigInt && isIntType(et) || et.Equal(t) {
			return e, nil
		}
		return c.coerce(e, t)
	}
	if x, err = conv(x); err != nil {
		return nil, err
	}
	if isNullType(typeOf(x)) {
		return newConst(row.Boolean, val{null: true}, n), nil
	}
	e := &inEval{x: x, dom: domainOf(t), not: n.not, allConst: true}
	for k := range items {
		if items[k], err = conv(items[k]); err != nil {
			return nil, err
		}
		if _, ok := asConst(items[k]); !ok {
			e.allConst = false
		}
	}
	e.items = items
	if e.allConst {
		switch e.dom {
		case dInt:
			e.ints = map[int64]bool{}
		case dFloat:
			e.floats = map[float64]bool{}
		case dStr:
			e.strs = map[string]bool{}
		}
		for _, it := range items {
			k, _ := asConst(it)
			if k.v.null {
				continue
			}
			switch e.dom {
			case dInt:
				e.ints[k.v.i] = true
			case dFloat:
				e.floats[k.v.f] = true
			case dStr:
				e.strs[k.v.s] = true
			}
		}
	}
	e.t, e.src = row.Boolean, n
	e.derive(append([]evaluator{x}, items...)...)
	return c.add(e), nil
}

func (e *inEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	x, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(row.Boolean, n)
	o := out.Bools[:n]
	switch {
	case e.allConst && e.dom == dInt:
		for i, v := range x.Ints[:n] {
			o[i] = e.ints[v] != e.not
		}
	case e.allConst && e.dom == dFloat:
		for i, v := range x.Floats[:n] {
			o[i] = e.floats[v] != e.not
		}
	case e.allConst && e.dom == dStr:
		for i, v := range x.Strs[:n] {
			o[i] = e.strs[v] != e.not
		}
	default:
		found := o
		clear(found)
		var a, b val
		for _, it := range e.items {
			col, err := it.eval(c)
			if err != nil {
				return nil, err
			}
			for i := range found {
				if found[i] || isNull(col, i) {
					continue
				}
				readVal(x, i, &a)
				readVal(col, i, &b)
				found[i] = valEqual(e.dom, &a, &b)
			}
		}
		if e.not {
			for i := range o {
				o[i] = !o[i]
			}
		}
	}
	if x.Nulls != nil {
		nb := e.out.nullsOf(out, n)
		copy(nb, x.Nulls[:n])
		for i, isN := range nb {
			if isN {
				o[i] = false
			}
		}
	}
	return out, nil
}

func valEqual(d cmpDomain, a, b *val) bool {
	switch d {
	case dInt:
		return a.i == b.i
	case dFloat:
		return a.f == b.f
	case dStr:
		return a.s == b.s
	case dDec:
		return a.d.Equal(b.d)
	case dBool:
		return a.b == b.b
	case dBytes:
		return bytes.Equal(a.bin, b.bin)
	case dTs:
		return a.i == b.i && a.nano == b.nano
	case dTsTZ: // OffsetDateTime.equals: the instant and the offset
		return a.i == b.i && a.nano == b.nano && a.off == b.off
	}
	return false
}
