package sqlengine

import "math"

// Java's StrictMath.log and StrictMath.log10: fdlibm's e_log.c and
// e_log10.c, which Java's Math.log10 follows (exact for powers of ten,
// within one ulp otherwise). Go's math.Log10 is log2(x)·(ln2/ln10), which
// differs from Java in the last digits (LOG10(5) is 0.6989700043360187
// there, 0.6989700043360189 in Java; LOG10(1e15) is 14.999999999999998).
// Products are converted to float64 one by one so that no platform fuses
// them into a multiply-add that fdlibm does not do.

const (
	fdlibmTwo54   = 1.80143985094819840000e+16 // 0x43500000 00000000
	fdlibmLn2Hi   = 6.93147180369123816490e-01 // 0x3fe62e42 fee00000
	fdlibmLn2Lo   = 1.90821492927058770002e-10 // 0x3dea39ef 35793c76
	fdlibmLg1     = 6.666666666666735130e-01   // 0x3FE55555 55555593
	fdlibmLg2     = 3.999999999940941908e-01   // 0x3FD99999 9997FA04
	fdlibmLg3     = 2.857142874366239149e-01   // 0x3FD24924 94229359
	fdlibmLg4     = 2.222219843214978396e-01   // 0x3FCC71C5 1D8E78AF
	fdlibmLg5     = 1.818357216161805012e-01   // 0x3FC74664 96CB03DE
	fdlibmLg6     = 1.531383769920937332e-01   // 0x3FC39A09 D078C69F
	fdlibmLg7     = 1.479819860511658591e-01   // 0x3FC2F112 DF3E5244
	fdlibmIvln10  = 4.34294481903251816668e-01 // 0x3FDBCB7B 1526E50E
	fdlibmLog2Hi  = 3.01029995663611771306e-01 // 0x3FD34413 509F6000
	fdlibmLog2Lo  = 3.69423907715893078616e-13 // 0x3D59FEF3 11F12B36
	fdlibmOneThrd = 0.33333333333333333
)

func hiWord(x float64) int32  { return int32(math.Float64bits(x) >> 32) }
func loWord(x float64) uint32 { return uint32(math.Float64bits(x)) }

func withHiWord(x float64, hi int32) float64 {
	return math.Float64frombits(uint64(uint32(hi))<<32 | uint64(loWord(x)))
}

// javaLog is StrictMath.log (fdlibm __ieee754_log).
func javaLog(x float64) float64 {
	hx, lx := hiWord(x), loWord(x)
	k := int32(0)
	if hx < 0x00100000 { // x < 2**-1022
		if (hx&0x7fffffff)|int32(lx) == 0 {
			return math.Inf(-1)
		}
		if hx < 0 {
			return math.NaN()
		}
		k -= 54
		x *= fdlibmTwo54 // subnormal: scale up
		hx = hiWord(x)
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	k += (hx >> 20) - 1023
	hx &= 0x000fffff
	i := (hx + 0x95f64) & 0x100000
	x = withHiWord(x, hx|(i^0x3ff00000)) // normalize x or x/2
	k += i >> 20
	f := x - 1.0
	dk := float64(k)
	if (0x000fffff & (2 + hx)) < 3 { // |f| < 2**-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			return float64(dk*fdlibmLn2Hi) + float64(dk*fdlibmLn2Lo)
		}
		r := float64(f*f) * (0.5 - float64(fdlibmOneThrd*f))
		if k == 0 {
			return f - r
		}
		return float64(dk*fdlibmLn2Hi) - ((r - float64(dk*fdlibmLn2Lo)) - f)
	}
	s := f / (2.0 + f)
	z := float64(s * s)
	i = hx - 0x6147a
	w := float64(z * z)
	j := 0x6b851 - hx
	t1 := float64(w * (fdlibmLg2 + float64(w*(fdlibmLg4+float64(w*fdlibmLg6)))))
	t2 := float64(z * (fdlibmLg1 + float64(w*(fdlibmLg3+float64(w*(fdlibmLg5+float64(w*fdlibmLg7)))))))
	i |= j
	r := t2 + t1
	if i > 0 {
		hfsq := float64(0.5*f) * f
		if k == 0 {
			return f - (hfsq - float64(s*(hfsq+r)))
		}
		return float64(dk*fdlibmLn2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(dk*fdlibmLn2Lo))) - f)
	}
	if k == 0 {
		return f - float64(s*(f-r))
	}
	return float64(dk*fdlibmLn2Hi) - ((float64(s*(f-r)) - float64(dk*fdlibmLn2Lo)) - f)
}

// javaLog10 is StrictMath.log10 (fdlibm __ieee754_log10).
func javaLog10(x float64) float64 {
	hx, lx := hiWord(x), loWord(x)
	k := int32(0)
	if hx < 0x00100000 { // x < 2**-1022
		if (hx&0x7fffffff)|int32(lx) == 0 {
			return math.Inf(-1)
		}
		if hx < 0 {
			return math.NaN()
		}
		k -= 54
		x *= fdlibmTwo54
		hx = hiWord(x)
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	k += (hx >> 20) - 1023
	i := int32(uint32(k) & 0x80000000 >> 31)
	hx = (hx & 0x000fffff) | ((0x3ff - i) << 20)
	y := float64(k + i)
	x = withHiWord(x, hx)
	z := float64(y*fdlibmLog2Lo) + float64(fdlibmIvln10*javaLog(x))
	return z + float64(y*fdlibmLog2Hi)
}
