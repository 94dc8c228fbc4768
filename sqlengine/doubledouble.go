package sqlengine

import "math"

// Double-double arithmetic: a number as the unevaluated sum of two
// doubles, about 104 bits, enough to round the Java math functions
// (javamath.go, javatrig.go) correctly.

// dd is a double-double number hi + lo, |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	v := s - a
	return dd{s, (a - (s - v)) + (b - v)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	return quickTwoSum(s.hi, s.lo+a.lo+b.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p) + (a.hi*b.lo + a.lo*b.hi)
	return quickTwoSum(p, e)
}

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddMul(dd{-q1, 0}, b))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddMul(dd{-q2, 0}, b))
	q3 := r.hi / b.hi
	return ddAdd(quickTwoSum(q1, q2), dd{q3, 0})
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

func ddSqrt(a dd) dd {
	if a.hi <= 0 {
		return dd{}
	}
	s := math.Sqrt(a.hi)
	// One Newton step: s + (a - s²)/(2s).
	r := ddAdd(a, ddNeg(ddMul(dd{s, 0}, dd{s, 0})))
	return ddAdd(dd{s, 0}, dd{r.hi / (2 * s), 0})
}
