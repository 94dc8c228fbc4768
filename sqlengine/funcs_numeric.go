package sqlengine

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// Numeric functions, after SeaTunnel's NumericFunction.

func registerNumericFuncs() {
	register(&fnSpec{1, 1, buildAbs}, "ABS")
	for name, f := range map[string]func(float64) float64{
		"ACOS": javaAcos, "ASIN": javaAsin, "ATAN": javaAtan, "COS": javaCos,
		"COSH": javaCosh, "SIN": javaSin, "SINH": javaSinh, "TAN": javaTan,
		"TANH": javaTanh, "EXP": javaExp, "SQRT": math.Sqrt,
		// Math.toRadians / toDegrees since Java 9: one multiplication.
		"RADIANS": func(x float64) float64 { return x * 0.017453292519943295 },
		"DEGREES": func(x float64) float64 { return x * 57.29577951308232 },
	} {
		register(&fnSpec{1, 1, buildMath(f, "")}, name)
	}
	register(&fnSpec{1, 1, buildMath(func(x float64) float64 { return 1 / javaTan(x) }, "COT")}, "COT")
	register(&fnSpec{1, 1, buildMath(javaLog, "LN")}, "LN")
	register(&fnSpec{1, 1, buildMath(javaLog10, "LOG10")}, "LOG10")
	register(&fnSpec{1, 2, buildLog}, "LOG")
	register(&fnSpec{2, 2, buildMath2(javaAtan2)}, "ATAN2")
	register(&fnSpec{2, 2, buildMath2(javaPow)}, "POWER", "POW")
	register(&fnSpec{0, 0, buildPi}, "PI")
	register(&fnSpec{2, 2, buildMod}, "MOD")
	register(&fnSpec{1, 2, buildCeilFloor(true)}, "CEIL", "CEILING")
	register(&fnSpec{1, 2, buildCeilFloor(false)}, "FLOOR")
	register(&fnSpec{0, 1, buildRand}, "RAND", "RANDOM")
	register(&fnSpec{1, 2, buildRound}, "ROUND")
	register(&fnSpec{1, 1, buildSign}, "SIGN")
	register(&fnSpec{1, 2, buildTrunc}, "TRUNC", "TRUNCATE")
	register(&fnSpec{1, 1, buildTrimScale}, "TRIM_SCALE")
	register(&fnSpec{1, 1, buildArrayMinMax(true)}, "ARRAY_MAX")
	register(&fnSpec{1, 1, buildArrayMinMax(false)}, "ARRAY_MIN")
}

// numAsFloat is v of numeric type t as a double (Java's doubleValue()).
func numAsFloat(t *row.Type, v *val) float64 {
	switch {
	case isIntType(t):
		return float64(v.i)
	case isFloatType(t):
		return v.f
	case t.ID == row.TypeDecimal:
		f, _ := v.d.Float64()
		return f
	}
	return 0
}

// javaD2L is Java's (long) cast of a double: truncation, saturating, NaN
// to 0.
func javaD2L(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// javaD2I is Java's (int) cast of a double.
func javaD2I(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(int32(f))
}

func buildAbs(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aNumber); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	if isNullType(t) {
		t = row.Int
	}
	return c.scalar(call, args, t, func(a []val, o *val) error {
		switch {
		case isIntType(t):
			o.i = a[0].i
			if o.i < 0 {
				o.i = -o.i
			}
			switch t.ID {
			case row.TypeTinyInt, row.TypeSmallInt:
				// SeaTunnel refuses the one value whose absolute value
				// does not fit.
				if lo, _ := intBounds(t.ID); a[0].i == lo {
					return fmt.Errorf("ABS cannot represent the absolute value of %d for %s", lo, strings.ToUpper(t.String()))
				}
			case row.TypeInt:
				// Java's Math.abs of the smallest int is itself.
				o.i = int64(int32(o.i))
			}
		case isFloatType(t):
			o.f = math.Abs(a[0].f)
		default:
			o.d = a[0].d.Abs()
		}
		return nil
	}, fnOpts{fails: true}), nil
}

// buildMath is a double function of one number; check names functions
// that reject some arguments as SeaTunnel does (LN and LOG10 of x <= 0,
// COT where the tangent is 0).
func buildMath(f func(float64) float64, check string) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aNumber); err != nil {
			return nil, err
		}
		t := typeOf(args[0])
		return c.scalar(call, args, row.Double, func(a []val, o *val) error {
			x := numAsFloat(t, &a[0])
			switch check {
			case "LN", "LOG10":
				if x <= 0 {
					return fmt.Errorf("%s of %s: the argument must be positive", check, row.JavaFloat(x, 64))
				}
			case "COT":
				if javaTan(x) == 0 {
					return fmt.Errorf("division by zero")
				}
			}
			o.f = f(x)
			return nil
		}, fnOpts{fails: check != ""}), nil
	}
}

func buildMath2(f func(a, b float64) float64) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aNumber, aNumber); err != nil {
			return nil, err
		}
		t0, t1 := typeOf(args[0]), typeOf(args[1])
		return c.scalar(call, args, row.Double, func(a []val, o *val) error {
			o.f = f(numAsFloat(t0, &a[0]), numAsFloat(t1, &a[1]))
			return nil
		}, fnOpts{}), nil
	}
}

// buildLog is LOG(base, x), and LOG(x) as LN.
func buildLog(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if len(args) == 1 {
		return buildMath(javaLog, "LN")(c, call, args)
	}
	if err := c.checkArgs(call, args, aNumber, aNumber); err != nil {
		return nil, err
	}
	t0, t1 := typeOf(args[0]), typeOf(args[1])
	return c.scalar(call, args, row.Double, func(a []val, o *val) error {
		if a[0].null {
			o.null = true
			return nil
		}
		base := numAsFloat(t0, &a[0])
		if base <= 0 {
			return fmt.Errorf("LOG base %s must be positive", row.JavaFloat(base, 64))
		}
		if a[1].null {
			o.null = true
			return nil
		}
		x := numAsFloat(t1, &a[1])
		if x <= 0 {
			return fmt.Errorf("LOG of %s: the argument must be positive", row.JavaFloat(x, 64))
		}
		switch base {
		case math.E:
			o.f = javaLog(x)
		case 10:
			o.f = javaLog10(x)
		default:
			o.f = javaLog(x) / javaLog(base)
		}
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

func buildPi(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return newConst(row.Double, val{f: math.Pi}, call), nil
}

// buildMod is MOD(a, b), as SeaTunnel's NumericFunction.mod: the
// remainder of the operands as Java BigDecimals (a double by its shortest
// decimal text, so MOD(13, 5.4) is 2.2 and not 2.1999999999999993), with
// the sign of a, in b's type; a zero divisor is an error.
func buildMod(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aNumber, aNumber); err != nil {
		return nil, err
	}
	t0, t1 := typeOf(args[0]), typeOf(args[1])
	rt := t1
	if isNullType(rt) {
		rt = row.Int
	}
	return c.scalar(call, args, rt, func(a []val, o *val) error {
		if isIntType(t0) && isIntType(t1) {
			if a[1].i == 0 {
				return fmt.Errorf("MOD by zero")
			}
			o.i = a[0].i % a[1].i
			if rt.ID == row.TypeInt {
				o.i = int64(int32(o.i))
			}
			return nil
		}
		x, err := javaBigDecimal(t0, &a[0])
		if err != nil {
			return err
		}
		y, err := javaBigDecimal(t1, &a[1])
		if err != nil {
			return err
		}
		if y.Sign() == 0 {
			return fmt.Errorf("MOD by zero")
		}
		r := x.Mod(y)
		switch {
		case rt.ID == row.TypeInt:
			o.i = int64(int32(r.IntPart()))
		case isIntType(rt):
			o.i = r.IntPart()
		case rt.ID == row.TypeFloat:
			f, _ := r.Rat().Float32()
			o.f = float64(f)
		case isFloatType(rt):
			o.f, _ = r.Rat().Float64()
		default:
			o.d = r
		}
		return nil
	}, fnOpts{fails: true}), nil
}

// javaBigDecimal is SeaTunnel's NumericFunction.toBigDecimal of a number:
// integers and decimals exactly, a float or double by BigDecimal.valueOf
// of its double value (the shortest text that reads back as that double),
// NaN and the infinities an error as Java's NumberFormatException.
func javaBigDecimal(t *row.Type, v *val) (decimal.Decimal, error) {
	if isFloatType(t) {
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return decimal.Decimal{}, fmt.Errorf("cannot make %s a decimal", row.JavaFloat(v.f, 64))
		}
		return decimal.NewFromFloat(v.f), nil
	}
	return decimalOf(t, v)
}

type roundMode uint8

const (
	roundHalfUp roundMode = iota
	roundCeil
	roundFloor
	roundDown
)

// roundDecimal rounds d to scale digits after the point.
func roundDecimal(d decimal.Decimal, scale int32, m roundMode) decimal.Decimal {
	switch m {
	case roundCeil:
		return d.RoundCeil(scale)
	case roundFloor:
		return d.RoundFloor(scale)
	case roundDown:
		return d.Truncate(scale)
	}
	if scale < 0 {
		return d.Round(scale)
	}
	return d.Round(scale) // shopspring rounds half away from zero: HALF_UP
}

// roundNumber is SeaTunnel's NumericFunction.round: integers change only
// for a negative scale, wrapping to their type as Java's narrowing does
// (a tinyint that leaves its range is an error there); doubles round
// through their decimal text (BigDecimal.valueOf), so ROUND(1.005, 2) is
// 1.01.
func roundNumber(t *row.Type, v *val, scale int32, m roundMode, o *val) error {
	switch {
	case isIntType(t):
		o.i = v.i
		if scale < 0 {
			r := roundDecimal(decimal.NewFromInt(v.i), scale, m).BigInt()
			o.i = int64(new(big.Int).And(r, maxUint64).Uint64()) // BigDecimal.longValue
			switch t.ID {
			case row.TypeTinyInt:
				if o.i < math.MinInt8 || o.i > math.MaxInt8 {
					return fmt.Errorf("rounded value %d is out of range for TINYINT", o.i)
				}
			case row.TypeSmallInt:
				o.i = int64(int16(o.i))
			case row.TypeInt:
				o.i = int64(int32(o.i))
			}
		}
	case isFloatType(t):
		f := v.f
		switch {
		case (math.IsNaN(f) || math.IsInf(f, 0)) && (scale != 0 || m == roundHalfUp):
			// Java's BigDecimal.valueOf refuses them.
			return fmt.Errorf("cannot round %s", row.JavaFloat(f, 64))
		case math.IsNaN(f) || math.IsInf(f, 0):
			o.f = f
		case scale == 0 && m == roundCeil:
			o.f = math.Ceil(f)
		case scale == 0 && m == roundFloor:
			o.f = math.Floor(f)
		case scale == 0 && m == roundDown:
			o.f = math.Trunc(f)
		default:
			// BigDecimal.valueOf(doubleValue()), for a float too.
			r := roundDecimal(decimal.NewFromFloat(f), scale, m).Rat()
			if t.ID == row.TypeFloat {
				f32, _ := r.Float32()
				o.f = float64(f32)
			} else {
				o.f, _ = r.Float64()
			}
		}
		if t.ID == row.TypeFloat {
			o.f = float64(float32(o.f))
		}
	case t.ID == row.TypeDecimal:
		o.d = roundDecimal(v.d, scale, m)
	}
	return nil
}

// maxUint64 masks a big.Int to its low 64 bits, two's complement.
var maxUint64 = new(big.Int).SetUint64(math.MaxUint64)

func scaleArg(a []val) (int32, bool) {
	if len(a) < 2 {
		return 0, true
	}
	if a[1].null {
		return 0, true
	}
	s := javaInt(a[1].i)
	if s > 1000 || s < -1000 {
		return 0, false
	}
	return int32(s), true
}

// buildCeilFloor is CEIL / FLOOR: SeaTunnel returns an int (Java's
// intValue() of the rounded number).
func buildCeilFloor(ceil bool) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aNumber, aInt); err != nil {
			return nil, err
		}
		t := typeOf(args[0])
		m := roundFloor
		if ceil {
			m = roundCeil
		}
		return c.scalar(call, args, row.Int, func(a []val, o *val) error {
			if a[0].null {
				o.null = true
				return nil
			}
			scale, ok := scaleArg(a)
			if !ok {
				return fmt.Errorf("scale out of range")
			}
			var r val
			if err := roundNumber(t, &a[0], scale, m, &r); err != nil {
				return err
			}
			switch {
			case isIntType(t):
				o.i = int64(int32(r.i))
			case isFloatType(t):
				o.i = javaD2I(r.f)
			default:
				o.i = int64(int32(r.d.IntPart()))
			}
			return nil
		}, fnOpts{lenient: true, fails: true}), nil
	}
}

func buildRound(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aNumber, aInt); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	if isNullType(t) {
		t = row.Int
	}
	return c.scalar(call, args, t, func(a []val, o *val) error {
		if a[0].null {
			o.null = true
			return nil
		}
		scale, ok := scaleArg(a)
		if !ok {
			return fmt.Errorf("scale out of range")
		}
		return roundNumber(t, &a[0], scale, roundHalfUp, o)
	}, fnOpts{lenient: true, fails: true}), nil
}

// buildTrunc is TRUNC / TRUNCATE: SeaTunnel types it double.
func buildTrunc(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aNumber, aInt); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	return c.scalar(call, args, row.Double, func(a []val, o *val) error {
		if a[0].null {
			o.null = true
			return nil
		}
		scale, ok := scaleArg(a)
		if !ok {
			return fmt.Errorf("scale out of range")
		}
		var r val
		if err := roundNumber(t, &a[0], scale, roundDown, &r); err != nil {
			return err
		}
		switch {
		case isIntType(t):
			o.f = float64(r.i)
		case isFloatType(t):
			o.f = r.f
		default:
			o.f, _ = r.d.Float64()
		}
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

// buildTrimScale is TRIM_SCALE: the number without trailing zeros after
// the point, as text (NumericFunction.trimScale returns
// new BigDecimal(x.toString()).stripTrailingZeros().toPlainString()).
func buildTrimScale(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aNumber); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		var d decimal.Decimal
		switch {
		case isFloatType(t) && (math.IsNaN(a[0].f) || math.IsInf(a[0].f, 0)):
			return fmt.Errorf("cannot make %s a decimal", row.JavaFloat(a[0].f, 64))
		case t.ID == row.TypeFloat:
			d = decimal.NewFromFloat32(float32(a[0].f)) // Float.toString
		case t.ID == row.TypeDouble:
			d = decimal.NewFromFloat(a[0].f) // Double.toString
		default:
			var err error
			if d, err = decimalOf(t, &a[0]); err != nil {
				return err
			}
		}
		o.s = d.String() // plain, without trailing zeros
		return nil
	}, fnOpts{fails: true}), nil
}

// buildSign is SIGN: -1, 0 (also for NaN) or 1.
func buildSign(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aNumber); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	return c.scalar(call, args, row.Int, func(a []val, o *val) error {
		var s int
		switch {
		case isIntType(t):
			s = int(max(-1, min(1, a[0].i)))
		case t.ID == row.TypeDecimal:
			s = a[0].d.Sign()
		default:
			f := a[0].f
			switch {
			case f > 0:
				s = 1
			case f < 0:
				s = -1
			}
		}
		o.i = int64(s)
		return nil
	}, fnOpts{}), nil
}

// buildRand is RAND / RANDOM: a fresh pseudo-random double, or with a
// seed the first double of java.util.Random(seed) — the same value
// SeaTunnel gives.
func buildRand(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aInt); err != nil {
		return nil, err
	}
	volatile := len(args) == 0
	if len(args) == 1 {
		if _, isConst := asConst(args[0]); !isConst {
			volatile = true
		}
	}
	return c.scalar(call, args, row.Double, func(a []val, o *val) error {
		if len(a) == 1 && !a[0].null {
			o.f = newJavaRandom(int64(javaInt(a[0].i))).nextDouble()
			return nil
		}
		o.f = rand.Float64()
		return nil
	}, fnOpts{lenient: true, volatile: volatile}), nil
}

// javaRandom is java.util.Random's linear congruential generator.
type javaRandom struct{ seed int64 }

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ 0x5DEECE66D) & (1<<48 - 1)}
}

func (r *javaRandom) next(bits uint) int64 {
	r.seed = (r.seed*0x5DEECE66D + 0xB) & (1<<48 - 1)
	return int64(int32(r.seed >> (48 - bits)))
}

func (r *javaRandom) nextDouble() float64 {
	return float64(r.next(26)<<27+r.next(27)) * (1.0 / (1 << 53))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildArrayMinMax is ARRAY_MAX / ARRAY_MIN of an array of strings or
// numbers, of the element type; NULL elements are skipped.
func buildArrayMinMax(isMax bool) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aArray); err != nil {
			return nil, err
		}
		at := typeOf(args[0])
		if isNullType(at) {
			return newConst(row.Null, val{null: true}, call), nil
		}
		et := at.Elem
		if et.ID != row.TypeString && !isNumType(et) {
			return nil, errAt(call.args[0].pos(), "function %s needs an array of strings or numbers, got %s", call.name, at)
		}
		return c.scalar(call, args, et, func(a []val, o *val) error {
			xs, _ := a[0].a.([]any)
			var best any
			var bestV val
			for _, x := range xs {
				if x == nil {
					continue
				}
				var v val
				unboxVal(et, x, &v)
				if best != nil {
					var cmp int
					switch {
					case et.ID == row.TypeString:
						cmp = compareStrings(v.s, bestV.s)
					case isIntType(et):
						cmp = cmpInt(v.i, bestV.i) // exactly, beyond 2^53 too
					case et.ID == row.TypeDecimal:
						cmp = v.d.Cmp(bestV.d)
					default:
						fx, fb := numAsFloat(et, &v), numAsFloat(et, &bestV)
						switch {
						case fx < fb:
							cmp = -1
						case fx > fb:
							cmp = 1
						}
					}
					if isMax && cmp <= 0 || !isMax && cmp >= 0 {
						continue
					}
				}
				best, bestV = x, v
			}
			if best == nil {
				o.null = true
				return nil
			}
			*o = bestV
			return nil
		}, fnOpts{}), nil
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
