package sqlengine

import (
	"strings"

	"github.com/stactor/stactor/row"
)

// LATERAL VIEW [OUTER] EXPLODE(x) AS col turns each row into one row per
// element of the array x, as SeaTunnel's ZetaSQLFunction.lateralView does:
// x is a column of the select list (by name) or an expression over the
// input; col is a column of the select list that takes the element, or a
// new column appended to it. Without OUTER a NULL or empty array yields no
// row and NULL elements are dropped; with OUTER they yield a NULL.

type lateral struct {
	outer  bool
	outCol int       // the select-list column holding the arrays, or -1
	arg    evaluator // else the expression computing them
	alias  int       // the output column taking the elements
	elem   *row.Type
	src    node
}

func (c *compiler) lateral(lv lateralView, fields []row.Field, items []evaluator) (lateral, error) {
	if !strings.EqualFold(lv.fn.name, "EXPLODE") {
		return lateral{}, errAt(lv.fn.at, "unsupported LATERAL VIEW function %s (only EXPLODE)", lv.fn.name)
	}
	if len(lv.fn.args) != 1 {
		return lateral{}, errAt(lv.fn.at, "EXPLODE takes 1 argument, got %d", len(lv.fn.args))
	}
	l := lateral{outer: lv.outer, outCol: -1, alias: len(fields), src: lv.fn}
	for k, f := range fields {
		if f.Name == lv.alias {
			l.alias = k
		}
	}
	var at *row.Type
	argNode := lv.fn.args[0]
	if id, ok := argNode.(*identNode); ok {
		name := id.parts[len(id.parts)-1].name
		for k, f := range fields {
			if f.Name == name {
				l.outCol = k
				at = f.Type
			}
		}
		if l.outCol < 0 {
			return lateral{}, errAt(argNode.pos(), "the LATERAL VIEW column %q must be in the select list", name)
		}
	} else {
		e, err := c.expr(argNode)
		if err != nil {
			return lateral{}, err
		}
		l.arg, at = e, typeOf(e)
	}
	if at.ID != row.TypeArray {
		return lateral{}, errAt(argNode.pos(), "EXPLODE needs an array, got %s", at)
	}
	l.elem = at.Elem
	return l, nil
}

// explode applies the lateral views to the projected batch b, whose rows
// are the rows of ctx.
func (t *Query) explode(ctx *evalCtx, b *row.Batch) (*row.Batch, error) {
	origin := make([]int, b.Len()) // the ctx row of each row of b
	for i := range origin {
		origin[i] = i
	}
	for _, l := range t.laterals {
		var arrays *row.Column
		if l.outCol >= 0 {
			arrays = b.Cols[l.outCol]
		} else {
			col, err := l.arg.eval(ctx)
			if err != nil {
				return nil, err
			}
			arrays = col
		}
		var rep []int
		elems := row.NewColumn(l.elem, b.Len())
		for r := 0; r < b.Len(); r++ {
			k := r
			if l.outCol < 0 {
				k = origin[r]
			}
			var xs []any
			if !isNull(arrays, k) {
				xs, _ = arrays.Anys[k].([]any)
			}
			if len(xs) == 0 {
				if l.outer {
					rep = append(rep, r)
					elems.AppendNull()
				}
				continue
			}
			for _, x := range xs {
				if x == nil && !l.outer {
					continue
				}
				if err := elems.AppendValue(x); err != nil {
					return nil, err
				}
				rep = append(rep, r)
			}
		}
		cols := make([]*row.Column, 0, len(b.Cols)+1)
		for j, col := range b.Cols {
			if j == l.alias {
				cols = append(cols, elems)
			} else {
				cols = append(cols, col.Take(rep))
			}
		}
		if l.alias == len(b.Cols) {
			cols = append(cols, elems)
		}
		var kinds []row.Kind
		if b.Kinds != nil {
			kinds = make([]row.Kind, len(rep))
			for k, r := range rep {
				kinds[k] = b.Kinds[r]
			}
		}
		next := make([]int, len(rep))
		for k, r := range rep {
			next[k] = origin[r]
		}
		origin = next
		b = &row.Batch{Schema: t.out, Kinds: kinds, Cols: cols, N: len(rep)}
	}
	if b.Len() == 0 {
		return nil, nil
	}
	return b, nil
}
