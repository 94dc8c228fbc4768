package sqlengine

import (
	"math"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// Arithmetic follows SeaTunnel's ZetaSQLFunction.executeBinaryExpr: the
// result type comes from arithType; int results wrap around as Java's int
// does, bigint as long; integer and decimal division or modulo by zero is
// an error (Java's ArithmeticException), double division gives Infinity
// or NaN.

type arithKind uint8

const (
	kInt32 arithKind = iota
	kInt64
	kFloat
	kDecimal
)

type arithEval struct {
	exprBase
	op   byte // + - * / %
	kind arithKind
	l, r evaluator
}

func (c *compiler) arith(src node, op byte, l, r evaluator) (evaluator, error) {
	lt, rt := typeOf(l), typeOf(r)
	t, ok := arithType(lt, rt)
	at := src.pos()
	if b, isBin := src.(*binaryNode); isBin {
		at = b.opAt
	}
	if !ok {
		return nil, errAt(at, "type mismatch: cannot apply %c to %s and %s", op, lt, rt)
	}
	if t.ID == row.TypeNull {
		return newConst(row.Null, val{null: true}, src), nil
	}
	e := &arithEval{op: op}
	var operand *row.Type
	switch t.ID {
	case row.TypeInt:
		e.kind, operand = kInt32, row.BigInt
	case row.TypeBigInt:
		e.kind, operand = kInt64, row.BigInt
	case row.TypeDouble:
		e.kind, operand = kFloat, row.Double
	default:
		e.kind, operand = kDecimal, t
	}
	var err error
	if !isIntType(lt) || e.kind == kFloat || e.kind == kDecimal {
		if l, err = c.coerce(l, operand); err != nil {
			return nil, err
		}
	}
	if !isIntType(rt) || e.kind == kFloat || e.kind == kDecimal {
		if r, err = c.coerce(r, operand); err != nil {
			return nil, err
		}
	}
	e.l, e.r = l, r
	e.t, e.src = t, src
	if (op == '/' || op == '%') && e.kind != kFloat {
		k, isConst := asConst(r)
		e.fails = !isConst || k.v.null || (e.kind == kDecimal && k.v.d.IsZero()) || (e.kind != kDecimal && k.v.i == 0)
	}
	e.derive(l, r)
	return c.add(e), nil
}

func (e *arithEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	lk, lConst := asConst(e.l)
	rk, rConst := asConst(e.r)
	if lConst && lk.v.null || rConst && rk.v.null {
		return e.out.allNull(e.t, n), nil
	}
	var a, b *row.Column
	var err error
	if !lConst {
		if a, err = e.l.eval(c); err != nil {
			return nil, err
		}
	}
	if !rConst {
		if b, err = e.r.eval(c); err != nil {
			return nil, err
		}
	}
	if lConst && rConst { // not folded because it fails: evaluate per row
		if a, err = e.l.eval(c); err != nil {
			return nil, err
		}
		lConst = false
	}
	out := e.out.get(e.t, n)
	switch e.kind {
	case kInt32, kInt64:
		err = e.ints(c, a, b, lk, rk, out, n)
		if err == nil && e.kind == kInt32 {
			for i, x := range out.Ints {
				out.Ints[i] = int64(int32(x))
			}
		}
	case kFloat:
		e.floats(a, b, lk, rk, out, n)
	case kDecimal:
		err = e.decimals(c, a, b, lk, rk, out, n)
	}
	if err != nil {
		return nil, err
	}
	var nullCols []*row.Column
	if a != nil {
		nullCols = append(nullCols, a)
	}
	if b != nil {
		nullCols = append(nullCols, b)
	}
	e.out.orNulls(out, n, nullCols...)
	if out.Nulls != nil {
		for i, x := range out.Nulls {
			if x {
				zeroAt(out, i)
			}
		}
	}
	return out, nil
}

// ints computes an integer operation; a (or b) is nil when that operand is
// the constant la (or rb).
func (e *arithEval) ints(c *evalCtx, a, b *row.Column, la, rb *constEval, out *row.Column, n int) error {
	o := out.Ints[:n]
	switch {
	case b == nil:
		x, k := a.Ints[:n], rb.v.i
		switch e.op {
		case '+':
			for i := range o {
				o[i] = x[i] + k
			}
		case '-':
			for i := range o {
				o[i] = x[i] - k
			}
		case '*':
			for i := range o {
				o[i] = x[i] * k
			}
		case '/':
			if k == 0 {
				return e.zeroDivisor(c, a, n)
			}
			if m, ok := log2(k); ok {
				// Truncating division by 2^m: shift, rounding negatives up.
				for i := range o {
					v := x[i]
					o[i] = (v + (v>>63)&(k-1)) >> m
				}
				break
			}
			for i := range o {
				o[i] = x[i] / k
			}
		case '%':
			if k == 0 {
				return e.zeroDivisor(c, a, n)
			}
			if _, ok := log2(k); ok {
				// The remainder of 2^m keeps the dividend's sign.
				mask := k - 1
				for i := range o {
					v := x[i]
					r := v & mask
					if v < 0 && r != 0 {
						r -= k
					}
					o[i] = r
				}
				break
			}
			for i := range o {
				o[i] = x[i] % k
			}
		}
	case a == nil:
		k, y := la.v.i, b.Ints[:n]
		switch e.op {
		case '+':
			for i := range o {
				o[i] = k + y[i]
			}
		case '-':
			for i := range o {
				o[i] = k - y[i]
			}
		case '*':
			for i := range o {
				o[i] = k * y[i]
			}
		case '/', '%':
			for i := range o {
				if y[i] == 0 {
					if isNull(b, i) {
						o[i] = 0
						continue
					}
					return failRow(c, e, i, "division by zero")
				}
				if e.op == '/' {
					o[i] = k / y[i]
				} else {
					o[i] = k % y[i]
				}
			}
		}
	default:
		x, y := a.Ints[:n], b.Ints[:n]
		switch e.op {
		case '+':
			for i := range o {
				o[i] = x[i] + y[i]
			}
		case '-':
			for i := range o {
				o[i] = x[i] - y[i]
			}
		case '*':
			for i := range o {
				o[i] = x[i] * y[i]
			}
		case '/', '%':
			for i := range o {
				if y[i] == 0 {
					if isNull(b, i) || isNull(a, i) {
						o[i] = 0
						continue
					}
					return failRow(c, e, i, "division by zero")
				}
				if e.op == '/' {
					o[i] = x[i] / y[i]
				} else {
					o[i] = x[i] % y[i]
				}
			}
		}
	}
	return nil
}

// log2 is m when k is 2^m (k > 1).
func log2(k int64) (uint, bool) {
	if k <= 1 || k&(k-1) != 0 {
		return 0, false
	}
	m := uint(0)
	for k > 1 {
		k >>= 1
		m++
	}
	return m, true
}

// zeroDivisor reports the first row whose dividend is not null, for a
// constant divisor of zero.
func (e *arithEval) zeroDivisor(c *evalCtx, a *row.Column, n int) error {
	for i := 0; i < n; i++ {
		if !isNull(a, i) {
			return failRow(c, e, i, "division by zero")
		}
	}
	return nil
}

func (e *arithEval) floats(a, b *row.Column, la, rb *constEval, out *row.Column, n int) {
	o := out.Floats[:n]
	switch {
	case b == nil:
		x, k := a.Floats[:n], rb.v.f
		switch e.op {
		case '+':
			for i := range o {
				o[i] = x[i] + k
			}
		case '-':
			for i := range o {
				o[i] = x[i] - k
			}
		case '*':
			for i := range o {
				o[i] = x[i] * k
			}
		case '/':
			for i := range o {
				o[i] = x[i] / k
			}
		case '%':
			for i := range o {
				o[i] = math.Mod(x[i], k)
			}
		}
	case a == nil:
		k, y := la.v.f, b.Floats[:n]
		switch e.op {
		case '+':
			for i := range o {
				o[i] = k + y[i]
			}
		case '-':
			for i := range o {
				o[i] = k - y[i]
			}
		case '*':
			for i := range o {
				o[i] = k * y[i]
			}
		case '/':
			for i := range o {
				o[i] = k / y[i]
			}
		case '%':
			for i := range o {
				o[i] = math.Mod(k, y[i])
			}
		}
	default:
		x, y := a.Floats[:n], b.Floats[:n]
		switch e.op {
		case '+':
			for i := range o {
				o[i] = x[i] + y[i]
			}
		case '-':
			for i := range o {
				o[i] = x[i] - y[i]
			}
		case '*':
			for i := range o {
				o[i] = x[i] * y[i]
			}
		case '/':
			for i := range o {
				o[i] = x[i] / y[i]
			}
		case '%':
			for i := range o {
				o[i] = math.Mod(x[i], y[i])
			}
		}
	}
}

func (e *arithEval) decimals(c *evalCtx, a, b *row.Column, la, rb *constEval, out *row.Column, n int) error {
	o := out.Decs[:n]
	for i := range o {
		if a != nil && isNull(a, i) || b != nil && isNull(b, i) {
			o[i] = decimal.Decimal{}
			continue
		}
		var x, y decimal.Decimal
		if a != nil {
			x = a.Decs[i]
		} else {
			x = la.v.d
		}
		if b != nil {
			y = b.Decs[i]
		} else {
			y = rb.v.d
		}
		switch e.op {
		case '+':
			o[i] = x.Add(y)
		case '-':
			o[i] = x.Sub(y)
		case '*':
			o[i] = x.Mul(y)
		case '/':
			if y.IsZero() {
				return failRow(c, e, i, "division by zero")
			}
			o[i] = divUp(x, y, int32(e.t.Scale))
		case '%':
			if y.IsZero() {
				return failRow(c, e, i, "division by zero")
			}
			o[i] = x.Mod(y)
		}
	}
	return nil
}

// divUp is x / y at the given scale, rounded away from zero (SeaTunnel's
// BigDecimal.divide(y, scale, RoundingMode.UP)).
func divUp(x, y decimal.Decimal, scale int32) decimal.Decimal {
	q, r := x.QuoRem(y, scale)
	if r.IsZero() {
		return q
	}
	unit := decimal.New(1, -scale)
	if x.Sign()*y.Sign() < 0 {
		return q.Sub(unit)
	}
	return q.Add(unit)
}

// negEval is -x.
type negEval struct {
	exprBase
	x evaluator
}

func (e *negEval) eval(c *evalCtx) (*row.Column, error) {
	in, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(e.t, c.n)
	switch e.t.Storage() {
	case row.StoreInt:
		lo, _ := intBounds(e.t.ID)
		for i, x := range in.Ints[:c.n] {
			switch {
			case lo == math.MinInt8:
				out.Ints[i] = int64(-int8(x))
			case lo == math.MinInt16:
				out.Ints[i] = int64(-int16(x))
			case lo == math.MinInt32:
				out.Ints[i] = int64(-int32(x))
			default:
				out.Ints[i] = -x
			}
		}
	case row.StoreFloat:
		for i, x := range in.Floats[:c.n] {
			out.Floats[i] = -x
		}
	case row.StoreDecimal:
		for i, x := range in.Decs[:c.n] {
			out.Decs[i] = x.Neg()
		}
	case row.StoreNone:
		return out, nil
	}
	if in.Nulls != nil {
		copy(e.out.nullsOf(out, c.n), in.Nulls[:c.n])
	}
	return out, nil
}
