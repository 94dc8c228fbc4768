package sqlengine

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// evaluator is a compiled expression. eval computes its value for every
// row of the context at once and returns it as a column of exactly c.n
// values; the column is the evaluator's own buffer (see slot), an input
// column, or a shared constant, and callers must not modify it.
//
// The tree of evaluators is built once per transform instance and used by
// one goroutine: buffers are reused from batch to batch.
type evaluator interface {
	meta() *exprBase
	eval(c *evalCtx) (*row.Column, error)
}

// exprBase is what every evaluator carries.
type exprBase struct {
	t        *row.Type
	src      node
	fails    bool // may fail on some row (division by zero, bad CAST, ...)
	constant bool // the same value for every row; folded at plan time
	volatile bool // differs from call to call (RAND(), UUID(), NOW()): never folded
	out      slot
}

func (b *exprBase) meta() *exprBase { return b }

func typeOf(e evaluator) *row.Type { return e.meta().t }

// derive sets b's flags from its operands.
func (b *exprBase) derive(kids ...evaluator) {
	b.constant = !b.volatile
	for _, k := range kids {
		if k == nil {
			continue
		}
		m := k.meta()
		b.fails = b.fails || m.fails
		b.constant = b.constant && m.constant
	}
}

// program is what the evaluators of one transform instance share.
type program struct {
	// scratch holds the reused buffers of inner evaluators: a result that
	// leaves the transform must not be one of them.
	scratch map[*row.Column]bool
	// now is the clock of CURRENT_DATE and friends (tests fix it).
	now func() time.Time
	// outCols are the input columns the select list passes through: only
	// they are taken into fresh columns for the selected rows. Columns read
	// only to compute something are gathered into reused buffers.
	outCols  map[int]bool
	gathered map[int]*row.Column
	identity []int // 0, 1, 2 …: all rows, for gather
}

func newProgram() *program {
	return &program{scratch: map[*row.Column]bool{}, now: time.Now, outCols: map[int]bool{}, gathered: map[int]*row.Column{}}
}

// gather puts the rows sel of input column j into a buffer reused from
// batch to batch.
func (p *program) gather(j int, src *row.Column, sel []int) *row.Column {
	g := p.gathered[j]
	if g == nil {
		g = &row.Column{}
		p.gathered[j] = g
		p.scratch[g] = true
	}
	n := len(sel)
	g.Type = src.Type
	g.Nulls = nil
	if src.Nulls != nil {
		nb := grow(g.Nulls[:0:cap(g.Nulls)], n)
		for k, i := range sel {
			nb[k] = src.Nulls[i]
		}
		g.Nulls = nb
	}
	switch src.Type.Storage() {
	case row.StoreInt:
		g.Ints = gatherInto(g.Ints, src.Ints, sel)
	case row.StoreTimestamp:
		g.Secs = gatherInto(g.Secs, src.Secs, sel)
		g.Nanos = gatherInto(g.Nanos, src.Nanos, sel)
	case row.StoreTimestampTZ:
		g.Secs = gatherInto(g.Secs, src.Secs, sel)
		g.Nanos = gatherInto(g.Nanos, src.Nanos, sel)
		g.Offs = gatherInto(g.Offs, src.Offs, sel)
	case row.StoreFloat:
		g.Floats = gatherInto(g.Floats, src.Floats, sel)
	case row.StoreString:
		if src.Packed() {
			g.Strs = grow(g.Strs, n)
			for k, i := range sel {
				g.Strs[k] = src.Str(i)
			}
		} else {
			g.Strs = gatherInto(g.Strs, src.Strs, sel)
		}
	case row.StoreBool:
		g.Bools = gatherInto(g.Bools, src.Bools, sel)
	case row.StoreBytes:
		g.Bins = gatherInto(g.Bins, src.Bins, sel)
	case row.StoreDecimal:
		g.Decs = gatherInto(g.Decs, src.Decs, sel)
	case row.StoreAny:
		g.Anys = gatherInto(g.Anys, src.Anys, sel)
	case row.StoreNone:
		g.Nulls = grow(g.Nulls, n)
		for k := range g.Nulls {
			g.Nulls[k] = true
		}
	}
	return g
}

// all is the selection of rows [0, n), reused.
func (p *program) all(n int) []int {
	for len(p.identity) < n {
		p.identity = append(p.identity, len(p.identity))
	}
	return p.identity[:n]
}

func gatherInto[T any](dst, src []T, sel []int) []T {
	dst = grow(dst, len(sel))
	for k, i := range sel {
		dst[k] = src[i]
	}
	return dst
}

// evalCtx is the rows an expression is evaluated over: all or some rows of
// the input batch. Input columns are taken for the context's rows when an
// expression first asks for them.
type evalCtx struct {
	prog   *program
	in     *row.Batch
	parent *evalCtx
	sel    []int // rows of the parent (or of in) this context covers; nil: all
	cols   []*row.Column
	n      int
	now    time.Time
	// taken are the passed-through input columns taken for the selected
	// rows into columns from the row pool: the output batch owns them.
	taken []*row.Column
}

func newCtx(p *program, in *row.Batch, sel []int) *evalCtx {
	c := &evalCtx{}
	c.reset(p, in, sel)
	return c
}

// reset makes c the context of rows sel of in, reusing its buffers.
func (c *evalCtx) reset(p *program, in *row.Batch, sel []int) {
	n := in.Len()
	if sel != nil {
		n = len(sel)
	}
	cols := c.cols
	if cap(cols) < len(in.Cols) {
		cols = make([]*row.Column, len(in.Cols))
	}
	cols = cols[:len(in.Cols)]
	clear(cols)
	clear(c.taken)
	*c = evalCtx{prog: p, in: in, sel: sel, cols: cols, n: n, now: p.now(), taken: c.taken[:0]}
}

// col is input column j for the context's rows.
func (c *evalCtx) col(j int) *row.Column {
	if col := c.cols[j]; col != nil {
		return col
	}
	var src *row.Column
	if c.parent == nil {
		src = c.in.Cols[j]
		if c.sel != nil && !c.prog.outCols[j] {
			c.cols[j] = c.prog.gather(j, src, c.sel)
			return c.cols[j]
		}
		if c.sel == nil && src.Packed() {
			// The evaluator works on string vectors; a packed column
			// (a batch decoded from another node, row/packed.go) is
			// unpacked once per batch: into the reused buffer when it
			// is only read, into a pooled column the output owns
			// (taken) when it is passed through.
			if !c.prog.outCols[j] {
				c.cols[j] = c.prog.gather(j, src, c.prog.all(src.Len()))
				return c.cols[j]
			}
			src = src.UnpackedRecycled()
			c.taken = append(c.taken, src)
			c.cols[j] = src
			return src
		}
	} else {
		src = c.parent.col(j)
	}
	if c.sel != nil && c.parent == nil {
		src = src.TakeRecycled(c.sel)
		c.taken = append(c.taken, src)
	} else if c.sel != nil {
		src = src.Take(c.sel)
	}
	c.cols[j] = src
	return src
}

// sub is the context of the rows sel (ascending indexes into c's rows).
func (c *evalCtx) sub(sel []int) *evalCtx {
	if len(sel) == c.n {
		return c
	}
	return &evalCtx{prog: c.prog, in: c.in, parent: c, sel: sel, cols: make([]*row.Column, len(c.cols)), n: len(sel), now: c.now}
}

// inputRow is the input batch's row for row i of the context.
func (c *evalCtx) inputRow(i int) int {
	for ; c != nil; c = c.parent {
		if c.sel != nil && i >= 0 && i < len(c.sel) {
			i = c.sel[i]
		}
	}
	return i
}

// constEval is a literal or a folded constant expression.
type constEval struct {
	exprBase
	v     val
	cache *row.Column // the last broadcast column; shared, never modified
}

func newConst(t *row.Type, v val, src node) *constEval {
	e := &constEval{v: v}
	e.t, e.src, e.constant = t, src, true
	if t.ID == row.TypeNull {
		e.v = val{null: true}
	}
	return e
}

func (e *constEval) eval(c *evalCtx) (*row.Column, error) {
	if e.cache != nil && e.cache.Len() == c.n {
		return e.cache, nil
	}
	col := newVec(e.t, c.n)
	if e.v.null {
		if col.Nulls == nil {
			col.Nulls = make([]bool, c.n)
		}
		for i := range col.Nulls {
			col.Nulls[i] = true
		}
	} else {
		switch e.t.Storage() {
		case row.StoreInt:
			for i := range col.Ints {
				col.Ints[i] = e.v.i
			}
		case row.StoreTimestamp:
			for i := range col.Secs {
				col.Secs[i], col.Nanos[i] = e.v.i, e.v.nano
			}
		case row.StoreTimestampTZ:
			for i := range col.Secs {
				col.Secs[i], col.Nanos[i], col.Offs[i] = e.v.i, e.v.nano, e.v.off
			}
		case row.StoreFloat:
			for i := range col.Floats {
				col.Floats[i] = e.v.f
			}
		case row.StoreString:
			for i := range col.Strs {
				col.Strs[i] = e.v.s
			}
		case row.StoreBool:
			for i := range col.Bools {
				col.Bools[i] = e.v.b
			}
		case row.StoreBytes:
			for i := range col.Bins {
				col.Bins[i] = e.v.bin
			}
		case row.StoreDecimal:
			for i := range col.Decs {
				col.Decs[i] = e.v.d
			}
		case row.StoreAny:
			for i := range col.Anys {
				col.Anys[i] = e.v.a
			}
		}
	}
	e.cache = col
	return col, nil
}

// asConst is e's constant value, if e is a literal or folded constant.
func asConst(e evaluator) (*constEval, bool) {
	c, ok := e.(*constEval)
	return c, ok
}

// colRef is an input column, passed through without copying.
type colRef struct {
	exprBase
	idx int
}

func (e *colRef) eval(c *evalCtx) (*row.Column, error) { return c.col(e.idx), nil }

// pathStep is one step of a nested access: a field of a row, or a key of
// a map.
type pathStep struct {
	field int
	key   string
	isMap bool
}

// pathEval reads a value nested in a row or map column:
// c_row.c_inner.c_int or c_map.some_key.
type pathEval struct {
	exprBase
	idx   int
	steps []pathStep
}

func (e *pathEval) eval(c *evalCtx) (*row.Column, error) {
	src := c.col(e.idx)
	out := e.out.get(e.t, c.n)
	var v val
	for i := 0; i < c.n; i++ {
		var x any
		if !isNull(src, i) {
			x = src.Anys[i]
		}
		for _, s := range e.steps {
			if x == nil {
				break
			}
			if s.isMap {
				m, ok := x.(*row.MapValue)
				x = nil
				if ok {
					for k, key := range m.Keys {
						if ks, ok := key.(string); ok && ks == s.key {
							x = m.Values[k]
							break
						}
					}
				}
				continue
			}
			xs, ok := x.([]any)
			if !ok || s.field >= len(xs) {
				x = nil
				continue
			}
			x = xs[s.field]
		}
		unboxVal(e.t, x, &v)
		writeVal(&e.out, out, c.n, i, &v)
	}
	return out, nil
}

// indexEval is arr[i] (0-based, as SeaTunnel's c_array[0]) or map[key].
type indexEval struct {
	exprBase
	x, idx evaluator
	isMap  bool
}

func (e *indexEval) eval(c *evalCtx) (*row.Column, error) {
	xs, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	ks, err := e.idx.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(e.t, c.n)
	var v, kv val
	for i := 0; i < c.n; i++ {
		var x any
		if !isNull(xs, i) && !isNull(ks, i) {
			if e.isMap {
				if m, ok := xs.Anys[i].(*row.MapValue); ok {
					readVal(ks, i, &kv)
					key := boxVal(ks.Type, &kv)
					for k := range m.Keys {
						if boxedEqual(m.Keys[k], key) {
							x = m.Values[k]
							break
						}
					}
				}
			} else if arr, ok := xs.Anys[i].([]any); ok {
				k := ks.Ints[i]
				if k >= 0 && k < int64(len(arr)) {
					x = arr[k]
				}
			}
		}
		unboxVal(e.t, x, &v)
		writeVal(&e.out, out, c.n, i, &v)
	}
	return out, nil
}

// boxedEqual compares two boxed values of the same type.
func boxedEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case time.Duration:
		y, ok := b.(time.Duration)
		return ok && x == y
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	}
	return false
}
