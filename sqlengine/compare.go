package sqlengine

import (
	"bytes"
	"cmp"

	"github.com/stactor/stactor/row"
)

// Comparisons. Numbers compare by value whatever their types (SeaTunnel
// compares their double values; stactor compares integers exactly),
// strings by code points, dates, times and timestamps chronologically (a
// date against a timestamp as its midnight), timestamp_tz values as
// OffsetDateTime.compareTo: by instant, then by wall clock (so = needs the
// same instant at the same offset, as OffsetDateTime.equals; a
// timestamp_tz is not compared with a timestamp: CAST one to the other). A NULL operand makes =, <,
// <=, > and >= NULL, which a WHERE treats as false, as SeaTunnel does.
//
// <> and != follow SeaTunnel rather than the SQL standard: SeaTunnel's
// notEqualsToExpr is true when exactly one side is NULL, so they mean IS
// DISTINCT FROM and never yield NULL. A job filtering `x <> 'a'` keeps the
// rows where x is NULL there, and so it does here.
const notEqualIsDistinct = true

type cmpDomain uint8

const (
	dInt   cmpDomain = iota // integers, dates, times (Ints)
	dFloat                  // Floats
	dDec                    // Decs
	dStr                    // Strs
	dBool                   // Bools
	dBytes                  // Bins
	dTs                     // timestamps (Secs, Nanos)
	dTsTZ                   // timestamp_tz (Secs, Nanos, Offs)
)

// cmpType is the type two values are compared as, if they can be.
func cmpType(a, b *row.Type) (*row.Type, bool) {
	switch {
	case isNullType(a):
		return b, true
	case isNullType(b):
		return a, true
	case isNumType(a) && isNumType(b):
		switch {
		case isFloatType(a) || isFloatType(b):
			return row.Double, true
		case a.ID == row.TypeDecimal || b.ID == row.TypeDecimal:
			return mergeDecimal(a, b), true
		}
		return row.BigInt, true
	case a.ID == row.TypeDate && b.ID == row.TypeTimestamp, a.ID == row.TypeTimestamp && b.ID == row.TypeDate:
		return row.Timestamp, true
	case a.ID == b.ID && (a.ID == row.TypeString || a.ID == row.TypeBoolean || a.ID == row.TypeBytes || isTemporal(a) || a.ID == row.TypeTimestampTZ):
		return a, true
	}
	return nil, false
}

func domainOf(t *row.Type) cmpDomain {
	switch t.Storage() {
	case row.StoreFloat:
		return dFloat
	case row.StoreDecimal:
		return dDec
	case row.StoreString:
		return dStr
	case row.StoreBool:
		return dBool
	case row.StoreBytes:
		return dBytes
	case row.StoreTimestamp:
		return dTs
	case row.StoreTimestampTZ:
		return dTsTZ
	}
	return dInt
}

// literalAs turns a string constant compared with a temporal value into
// that type (c_date > '2024-01-01'); other operands are returned as they
// are.
func (c *compiler) literalAs(e evaluator, t *row.Type) (evaluator, error) {
	k, ok := asConst(e)
	if !ok || !isTemporal(t) && t.ID != row.TypeTimestampTZ || typeOf(e).ID != row.TypeString || k.v.null {
		return e, nil
	}
	conv, err := castConverter(row.String, t, true)
	if err != nil {
		return e, nil
	}
	var out val
	if err := conv(&k.v, &out); err != nil {
		return nil, errAt(k.src.pos(), "cannot compare %s with %s: %v", t, render(k.src), err)
	}
	return newConst(t, out, k.src), nil
}

// cmpOperands converts l and r to the type they are compared as.
func (c *compiler) cmpOperands(l, r evaluator, at Pos) (evaluator, evaluator, cmpDomain, error) {
	var err error
	if l, err = c.literalAs(l, typeOf(r)); err != nil {
		return nil, nil, 0, err
	}
	if r, err = c.literalAs(r, typeOf(l)); err != nil {
		return nil, nil, 0, err
	}
	lt, rt := typeOf(l), typeOf(r)
	t, ok := cmpType(lt, rt)
	if !ok {
		return nil, nil, 0, errAt(at, "type mismatch: cannot compare %s with %s", lt, rt)
	}
	conv := func(e evaluator) (evaluator, error) {
		et := typeOf(e)
		if t.ID == row.TypeBigInt && isIntType(et) || et.Equal(t) {
			return e, nil // integers of any width share their storage
		}
		return c.coerce(e, t)
	}
	if l, err = conv(l); err != nil {
		return nil, nil, 0, err
	}
	if r, err = conv(r); err != nil {
		return nil, nil, 0, err
	}
	return l, r, domainOf(t), nil
}

type cmpOp uint8

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var cmpOps = map[string]cmpOp{"=": opEq, "<>": opNe, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

// flip is the operator with its operands swapped.
func (o cmpOp) flip() cmpOp {
	switch o {
	case opLt:
		return opGt
	case opLe:
		return opGe
	case opGt:
		return opLt
	case opGe:
		return opLe
	}
	return o
}

// cmpEval is a comparison of two operands of one domain.
type cmpEval struct {
	exprBase
	op       cmpOp
	l, r     evaluator
	dom      cmpDomain
	distinct bool
}

func (c *compiler) compare(src node, op string, l, r evaluator, at Pos) (evaluator, error) {
	l, r, dom, err := c.cmpOperands(l, r, at)
	if err != nil {
		return nil, err
	}
	// An operand of the null type is NULL on every row.
	if ln, rn := isNullType(typeOf(l)), isNullType(typeOf(r)); ln || rn {
		if cmpOps[op] != opNe || !notEqualIsDistinct || ln && rn {
			v := val{null: true}
			if ln && rn && cmpOps[op] == opNe && notEqualIsDistinct {
				v = val{b: false}
			}
			return newConst(row.Boolean, v, src), nil
		}
		other := l
		if ln {
			other = r
		}
		e := &isNullEval{x: other, not: true}
		e.t, e.src = row.Boolean, src
		e.derive(other)
		return c.add(e), nil
	}
	e := &cmpEval{op: cmpOps[op], l: l, r: r, dom: dom}
	e.distinct = e.op == opNe && notEqualIsDistinct
	e.t, e.src = row.Boolean, src
	e.derive(l, r)
	return c.add(e), nil
}

func (e *cmpEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	l, r, op := e.l, e.r, e.op
	// A constant goes on the right, where it is compared without a
	// column; of two constants (folding), a NULL one, so that the null
	// case below takes it (a NULL column holds no values to compare).
	if kl, lc := asConst(l); lc {
		if kr, rc := asConst(r); !rc || kl.v.null && !kr.v.null {
			l, r, op = r, l, op.flip()
		}
	}
	a, err := l.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(row.Boolean, n)
	o := out.Bools[:n]
	k, rConst := asConst(r)
	var b *row.Column
	if rConst {
		if k.v.null {
			if e.distinct {
				for i := range o {
					o[i] = !isNull(a, i)
				}
				return out, nil
			}
			return e.out.allNull(row.Boolean, n), nil
		}
	} else if b, err = r.eval(c); err != nil {
		return nil, err
	}
	switch e.dom {
	case dInt:
		if rConst {
			cmpVK(op, a.Ints[:n], k.v.i, o)
		} else {
			cmpVV(op, a.Ints[:n], b.Ints[:n], o)
		}
	case dFloat:
		if rConst {
			cmpVK(op, a.Floats[:n], k.v.f, o)
		} else {
			cmpVV(op, a.Floats[:n], b.Floats[:n], o)
		}
	case dStr:
		if rConst {
			cmpVK(op, a.Strs[:n], k.v.s, o)
		} else {
			cmpVV(op, a.Strs[:n], b.Strs[:n], o)
		}
	case dDec:
		for i := range o {
			if rConst {
				o[i] = op.holds(a.Decs[i].Cmp(k.v.d))
			} else {
				o[i] = op.holds(a.Decs[i].Cmp(b.Decs[i]))
			}
		}
	case dBool:
		for i := range o {
			if rConst {
				o[i] = op.holds(boolCmp(a.Bools[i], k.v.b))
			} else {
				o[i] = op.holds(boolCmp(a.Bools[i], b.Bools[i]))
			}
		}
	case dBytes:
		for i := range o {
			if rConst {
				o[i] = op.holds(bytes.Compare(a.Bins[i], k.v.bin))
			} else {
				o[i] = op.holds(bytes.Compare(a.Bins[i], b.Bins[i]))
			}
		}
	case dTs:
		for i := range o {
			if rConst {
				o[i] = op.holds(tsCmp(a.Secs[i], a.Nanos[i], k.v.i, k.v.nano))
			} else {
				o[i] = op.holds(tsCmp(a.Secs[i], a.Nanos[i], b.Secs[i], b.Nanos[i]))
			}
		}
	case dTsTZ:
		for i := range o {
			if rConst {
				o[i] = op.holds(tzCmp(a.Secs[i], a.Nanos[i], a.Offs[i], k.v.i, k.v.nano, k.v.off))
			} else {
				o[i] = op.holds(tzCmp(a.Secs[i], a.Nanos[i], a.Offs[i], b.Secs[i], b.Nanos[i], b.Offs[i]))
			}
		}
	}
	if a.Nulls == nil && (b == nil || b.Nulls == nil) {
		return out, nil
	}
	if e.distinct {
		for i := range o {
			an, bn := isNull(a, i), b != nil && isNull(b, i)
			if an || bn {
				o[i] = an != bn
			}
		}
		return out, nil
	}
	if b != nil {
		e.out.orNulls(out, n, a, b)
	} else {
		e.out.orNulls(out, n, a)
	}
	for i, x := range out.Nulls {
		if x {
			o[i] = false
		}
	}
	return out, nil
}

// tsCmp orders two stored timestamps.
func tsCmp(s0 int64, n0 int32, s1 int64, n1 int32) int {
	if c := cmp.Compare(s0, s1); c != 0 {
		return c
	}
	return cmp.Compare(n0, n1)
}

// tzCmp orders two stored timestamp_tz values as OffsetDateTime.compareTo:
// by instant, then by wall clock, which for one instant is by offset.
func tzCmp(s0 int64, n0, o0 int32, s1 int64, n1, o1 int32) int {
	if c := tsCmp(s0, n0, s1, n1); c != 0 {
		return c
	}
	return cmp.Compare(o0, o1)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// holds tells whether a three-way comparison result satisfies the operator.
func (o cmpOp) holds(c int) bool {
	switch o {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0
}

func cmpVK[T cmp.Ordered](op cmpOp, x []T, k T, o []bool) {
	switch op {
	case opEq:
		for i := range o {
			o[i] = x[i] == k
		}
	case opNe:
		for i := range o {
			o[i] = x[i] != k
		}
	case opLt:
		for i := range o {
			o[i] = x[i] < k
		}
	case opLe:
		for i := range o {
			o[i] = x[i] <= k
		}
	case opGt:
		for i := range o {
			o[i] = x[i] > k
		}
	case opGe:
		for i := range o {
			o[i] = x[i] >= k
		}
	}
}

func cmpVV[T cmp.Ordered](op cmpOp, x, y []T, o []bool) {
	switch op {
	case opEq:
		for i := range o {
			o[i] = x[i] == y[i]
		}
	case opNe:
		for i := range o {
			o[i] = x[i] != y[i]
		}
	case opLt:
		for i := range o {
			o[i] = x[i] < y[i]
		}
	case opLe:
		for i := range o {
			o[i] = x[i] <= y[i]
		}
	case opGt:
		for i := range o {
			o[i] = x[i] > y[i]
		}
	case opGe:
		for i := range o {
			o[i] = x[i] >= y[i]
		}
	}
}

// between is x [NOT] BETWEEN lo AND hi: x >= lo AND x <= hi.
func (c *compiler) between(n *betweenNode) (evaluator, error) {
	x, err := c.expr(n.x)
	if err != nil {
		return nil, err
	}
	lo, err := c.expr(n.lo)
	if err != nil {
		return nil, err
	}
	hi, err := c.expr(n.hi)
	if err != nil {
		return nil, err
	}
	ge, err := c.compare(n, ">=", x, lo, n.at)
	if err != nil {
		return nil, err
	}
	le, err := c.compare(n, "<=", x, hi, n.at)
	if err != nil {
		return nil, err
	}
	and := &logicEval{l: ge, r: le}
	and.t, and.src = row.Boolean, n
	and.derive(ge, le)
	var e evaluator = c.add(and)
	if n.not {
		not := &notEval{x: e}
		not.t, not.src = row.Boolean, n
		not.derive(e)
		e = c.add(not)
	}
	return e, nil
}
