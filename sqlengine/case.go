package sqlengine

import (
	"github.com/stactor/stactor/row"
)

// CASE has SeaTunnel's type: the widest type of its THEN and ELSE results
// (getMaxType: numbers widen, other types must agree), each result being
// converted to it. A branch is evaluated only for the rows that reach it,
// so a branch that could fail (a division) fails only for those rows.

type caseArm struct {
	cond, val evaluator
}

type caseEval struct {
	exprBase
	arms []caseArm
	els  evaluator // nil: NULL
	// Row lists, reused from batch to batch.
	rem, next, hit []int
}

func (c *compiler) caseExpr(n *caseNode) (evaluator, error) {
	var operand evaluator
	var err error
	if n.operand != nil {
		if operand, err = c.expr(n.operand); err != nil {
			return nil, err
		}
	}
	e := &caseEval{}
	t := row.Null
	results := make([]evaluator, 0, len(n.whens)+1)
	srcs := make([]node, 0, len(n.whens)+1)
	for _, w := range n.whens {
		var cond evaluator
		if operand == nil {
			if cond, err = c.condition(w.cond, "a WHEN of CASE"); err != nil {
				return nil, err
			}
		} else {
			v, err := c.expr(w.cond)
			if err != nil {
				return nil, err
			}
			// SeaTunnel takes a boolean WHEN of a simple CASE as a
			// condition (CASE x WHEN x > 1 THEN ...).
			if typeOf(v).ID == row.TypeBoolean && typeOf(operand).ID != row.TypeBoolean {
				cond = v
			} else if cond, err = c.compare(w.cond, "=", operand, v, w.cond.pos()); err != nil {
				return nil, err
			}
		}
		r, err := c.expr(w.result)
		if err != nil {
			return nil, err
		}
		e.arms = append(e.arms, caseArm{cond: cond})
		results = append(results, r)
		srcs = append(srcs, w.result)
	}
	if n.els != nil {
		r, err := c.expr(n.els)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
		srcs = append(srcs, n.els)
	}
	for k, r := range results {
		nt, ok := maxType(t, typeOf(r))
		if !ok {
			return nil, errAt(srcs[k].pos(), "type mismatch: CASE results of types %s and %s", t, typeOf(r))
		}
		t = nt
	}
	kids := []evaluator{operand}
	for k := range results {
		if results[k], err = c.coerce(results[k], t); err != nil {
			return nil, errAt(srcs[k].pos(), "type mismatch: cannot use %s as %s in CASE", typeOf(results[k]), t)
		}
		if k < len(e.arms) {
			e.arms[k].val = results[k]
			kids = append(kids, e.arms[k].cond)
		} else {
			e.els = results[k]
		}
		kids = append(kids, results[k])
	}
	e.t, e.src = t, n
	e.derive(kids...)
	return c.add(e), nil
}

func (e *caseEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	out := e.out.get(e.t, n)
	if n == 0 {
		return out, nil
	}
	// rem: the rows no WHEN has matched yet, as indexes into c.
	rem := grow(e.rem, n)
	for i := range rem {
		rem[i] = i
	}
	for _, arm := range e.arms {
		if len(rem) == 0 {
			break
		}
		cc := c.sub(rem)
		cond, err := arm.cond.eval(cc)
		if err != nil {
			return nil, err
		}
		hit, next := e.hit[:0], e.next[:0]
		for k, i := range rem {
			if !isNull(cond, k) && cond.Bools[k] {
				hit = append(hit, i)
			} else {
				next = append(next, i)
			}
		}
		e.hit, e.next = hit, next
		if len(hit) > 0 {
			v, err := arm.val.eval(c.sub(hit))
			if err != nil {
				return nil, err
			}
			scatter(&e.out, out, n, hit, v)
		}
		rem, e.next = next, rem[:0]
	}
	if len(rem) > 0 {
		if e.els != nil {
			v, err := e.els.eval(c.sub(rem))
			if err != nil {
				return nil, err
			}
			scatter(&e.out, out, n, rem, v)
		} else {
			for _, i := range rem {
				e.out.setNull(out, n, i)
			}
		}
	}
	e.rem = rem
	return out, nil
}
