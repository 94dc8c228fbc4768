package sqlengine

import "github.com/stactor/stactor/row"

// AND, OR and NOT use SQL's three-valued logic: NULL AND FALSE is FALSE,
// NULL OR TRUE is TRUE, NOT NULL is NULL, and a WHERE keeps a row only
// when its condition is TRUE.

// logicEval is l AND r, or l OR r. When r may fail on a row (a division,
// a CAST), it is evaluated only for the rows whose result l leaves open,
// so `b <> 0 AND a / b > 1` never divides by zero.
type logicEval struct {
	exprBase
	l, r evaluator
	or   bool
	sel  []int
}

// decided tells whether l's value at row i settles the result.
func (e *logicEval) decided(l *row.Column, i int) bool {
	if isNull(l, i) {
		return false
	}
	return l.Bools[i] == e.or
}

func (e *logicEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	if n == 0 {
		return e.out.get(row.Boolean, 0), nil
	}
	l, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	var r *row.Column
	var rows []int // rows r was evaluated for, when partial
	partial := false
	if e.r.meta().fails {
		sel := e.sel[:0]
		for i := 0; i < n; i++ {
			if !e.decided(l, i) {
				sel = append(sel, i)
			}
		}
		e.sel = sel
		if len(sel) < n {
			rows, partial = sel, true
		}
		if len(sel) > 0 {
			if r, err = e.r.eval(c.sub(sel)); err != nil {
				return nil, err
			}
		}
	} else if r, err = e.r.eval(c); err != nil {
		return nil, err
	}
	out := e.out.get(row.Boolean, n)
	o := out.Bools[:n]
	if !partial && l.Nulls == nil && r.Nulls == nil {
		if e.or {
			for i := range o {
				o[i] = l.Bools[i] || r.Bools[i]
			}
		} else {
			for i := range o {
				o[i] = l.Bools[i] && r.Bools[i]
			}
		}
		return out, nil
	}
	// The general case, row by row: the value of r for row i is at k.
	k := 0
	for i := range o {
		if e.decided(l, i) {
			o[i] = e.or
			if !partial {
				k++
			}
			continue
		}
		if partial && (k >= len(rows) || rows[k] != i) {
			continue // cannot happen: undecided rows are all in rows
		}
		rNull, rVal := isNull(r, k), !isNull(r, k) && r.Bools[k]
		k++
		switch {
		case !rNull && rVal == e.or:
			o[i] = e.or
		case rNull || isNull(l, i):
			o[i] = false
			e.out.nullsOf(out, n)[i] = true
		default:
			o[i] = !e.or
		}
	}
	return out, nil
}

// notEval is NOT x.
type notEval struct {
	exprBase
	x evaluator
}

func (e *notEval) eval(c *evalCtx) (*row.Column, error) {
	x, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(row.Boolean, c.n)
	for i, b := range x.Bools[:c.n] {
		out.Bools[i] = !b
	}
	if x.Nulls != nil {
		nb := e.out.nullsOf(out, c.n)
		copy(nb, x.Nulls[:c.n])
		for i, isN := range nb {
			if isN {
				out.Bools[i] = false
			}
		}
	}
	return out, nil
}

// isNullEval is x IS [NOT] NULL; it is never NULL itself.
type isNullEval struct {
	exprBase
	x   evaluator
	not bool
}

func (e *isNullEval) eval(c *evalCtx) (*row.Column, error) {
	x, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(row.Boolean, c.n)
	for i := range out.Bools {
		out.Bools[i] = isNull(x, i) != e.not
	}
	return out, nil
}
