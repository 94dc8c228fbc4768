package sqlengine

import "math"

// Java's Math.log and Math.log10, which on the JVMs SeaTunnel runs on
// (HotSpot's x86_64 intrinsics) are correctly rounded: the double nearest
// the exact logarithm, so LOG10(10^n) is n. Go's math.Log10 is
// log2(x)·(ln2/ln10) and differs from Java in the last digits
// (LOG10(5) is 0.6989700043360187 there, 0.6989700043360189 in Java;
// LOG10(1e15) is 14.999999999999998). Here the logarithm is computed in
// double-double arithmetic (about 104 bits) and rounded once.

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

var (
	ddLn2     = dd{0.6931471805599453, 2.3190468138462996e-17}
	ddInvLn10 = dd{0.4342944819032518, 1.098319650216765e-17}
	// ddInvOdd[k] is 1/(2k+1).
	ddInvOdd = func() []dd {
		t := make([]dd, 24)
		for k := range t {
			t[k] = ddDiv(dd{1, 0}, dd{float64(2*k + 1), 0})
		}
		return t
	}()
)

// ddLog is ln(x) for a finite x > 0: x = m·2^e with m in [√½, √2), and
// ln(m) = 2·atanh(s), s = (m-1)/(m+1), |s| < 0.172, summed until s^46 is
// below 2^-116.
func ddLog(x float64) dd {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	s := ddDiv(dd{m - 1, 0}, twoSum(m, 1)) // m-1 is exact
	s2 := ddMul(s, s)
	t := ddInvOdd[len(ddInvOdd)-1]
	for k := len(ddInvOdd) - 2; k >= 0; k-- {
		t = ddAdd(ddMul(t, s2), ddInvOdd[k])
	}
	lnm := ddMul(ddMul(dd{2, 0}, s), t)
	return ddAdd(ddMul(dd{float64(e), 0}, ddLn2), lnm)
}

// logSpecial is the logarithm of x where it is not a finite positive
// number, as Java's: NaN below zero, -Infinity at zero.
func logSpecial(x float64) (float64, bool) {
	switch {
	case math.IsNaN(x) || x < 0:
		return math.NaN(), true
	case x == 0:
		return math.Inf(-1), true
	case math.IsInf(x, 1):
		return x, true
	}
	return 0, false
}

// javaLog is Java's Math.log.
func javaLog(x float64) float64 {
	if r, ok := logSpecial(x); ok {
		return r
	}
	return ddLog(x).hi
}

// javaLog10 is Java's Math.log10.
func javaLog10(x float64) float64 {
	if r, ok := logSpecial(x); ok {
		return r
	}
	return ddMul(ddLog(x), ddInvLn10).hi
}
