package sqlengine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// converter turns one value of a type into another; it fails on a value
// that does not fit (a CAST of 'abc' to INT).
type converter func(in, out *val) error

// castEval is CAST(x AS type), and the implicit conversions the compiler
// inserts (an int operand of a double operation, CASE branches of
// different numeric types).
type castEval struct {
	exprBase
	x    evaluator
	conv converter
	// vec, when set, converts a whole vector without nulls (the common
	// widenings).
	vec func(in, out *row.Column, n int)
	try bool // TRY_CAST: a value that does not convert is NULL
}

func (e *castEval) eval(c *evalCtx) (*row.Column, error) {
	in, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	out := e.out.get(e.t, c.n)
	if e.vec != nil {
		e.vec(in, out, c.n)
		if in.Nulls != nil {
			nb := e.out.nullsOf(out, c.n)
			copy(nb, in.Nulls[:c.n])
			for i, x := range nb {
				if x {
					zeroAt(out, i)
				}
			}
		}
		return out, nil
	}
	var a, b val
	for i := 0; i < c.n; i++ {
		readVal(in, i, &a)
		if a.null {
			e.out.setNull(out, c.n, i)
			continue
		}
		b = val{}
		if err := e.conv(&a, &b); err != nil {
			if e.try {
				e.out.setNull(out, c.n, i)
				continue
			}
			return nil, rowFailed(c, e, i, err)
		}
		writeVal(&e.out, out, c.n, i, &b)
	}
	return out, nil
}

var errNoCast = errors.New("no conversion")

// castConverter is the conversion from one type to another. explicit is
// CAST's semantics (SeaTunnel's SystemFunction.castAs: text is parsed,
// decimals round up to the target scale); otherwise the conversion is an
// implicit widening, which keeps decimals exact. It returns errNoCast when
// no value of from can become a to.
func castConverter(from, to *row.Type, explicit bool) (converter, error) {
	if from.ID == row.TypeNull {
		return func(in, out *val) error { out.null = true; return nil }, nil
	}
	switch to.ID {
	case row.TypeString:
		return func(in, out *val) error { out.s = javaString(from, in); return nil }, nil
	case row.TypeBytes:
		if from.ID == row.TypeBytes {
			return func(in, out *val) error { out.bin = in.bin; return nil }, nil
		}
		return func(in, out *val) error { out.bin = []byte(javaString(from, in)); return nil }, nil
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return toIntConverter(from, to)
	case row.TypeFloat, row.TypeDouble:
		return toFloatConverter(from, to)
	case row.TypeDecimal:
		return toDecimalConverter(from, to, explicit)
	case row.TypeBoolean:
		switch {
		case from.ID == row.TypeBoolean:
			return func(in, out *val) error { out.b = in.b; return nil }, nil
		case isIntType(from):
			return func(in, out *val) error { out.b = in.i != 0; return nil }, nil
		case from.ID == row.TypeString:
			return func(in, out *val) error {
				switch strings.ToLower(strings.TrimSpace(in.s)) {
				case "true":
					out.b = true
				case "false":
					out.b = false
				default:
					return fmt.Errorf("cannot cast %q to BOOLEAN", in.s)
				}
				return nil
			}, nil
		}
	case row.TypeDate:
		switch from.ID {
		case row.TypeDate:
			return func(in, out *val) error { out.i = in.i; return nil }, nil
		case row.TypeTimestamp:
			return func(in, out *val) error { out.i = floorDiv(in.i, secsPerDay); return nil }, nil
		case row.TypeTimestampTZ: // the date of its wall clock
			return func(in, out *val) error { out.i = floorDiv(in.i+int64(in.off), secsPerDay); return nil }, nil
		case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
			// yyyyMMdd, as SeaTunnel reads an int.
			return func(in, out *val) error {
				y, m, d := in.i/10000, (in.i/100)%100, in.i%100
				t, ok := makeDate(y, m, d)
				if !ok {
					return fmt.Errorf("cannot cast %d to DATE: not a date yyyyMMdd", in.i)
				}
				out.i = t
				return nil
			}, nil
		case row.TypeString:
			return func(in, out *val) error {
				if t, err := row.ParseDate(in.s); err == nil {
					out.i = row.DateOf(t)
					return nil
				}
				t, err := row.ParseTimestamp(in.s)
				if err != nil {
					return fmt.Errorf("cannot cast %q to DATE", in.s)
				}
				out.i = row.DateOf(t)
				return nil
			}, nil
		}
	case row.TypeTime:
		switch from.ID {
		case row.TypeTime:
			return func(in, out *val) error { out.i = in.i; return nil }, nil
		case row.TypeTimestamp, row.TypeTimestampTZ: // a timestamp_tz's wall clock
			return func(in, out *val) error {
				out.i = floorMod(in.i+int64(in.off), secsPerDay)*int64(time.Second) + int64(in.nano)
				return nil
			}, nil
		case row.TypeDate:
			return func(in, out *val) error { out.i = 0; return nil }, nil
		case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
			// HHmmss, as SeaTunnel reads an int.
			return func(in, out *val) error {
				h, m, s := in.i/10000, (in.i/100)%100, in.i%100
				if in.i < 0 || h > 23 || m > 59 || s > 59 {
					return fmt.Errorf("cannot cast %d to TIME: not a time HHmmss", in.i)
				}
				out.i = (h*3600 + m*60 + s) * int64(time.Second)
				return nil
			}, nil
		case row.TypeString:
			return func(in, out *val) error {
				d, err := row.ParseTime(in.s)
				if err != nil {
					return fmt.Errorf("cannot cast %q to TIME", in.s)
				}
				out.i = int64(d)
				return nil
			}, nil
		}
	case row.TypeTimestamp:
		switch from.ID {
		case row.TypeTimestamp:
			return func(in, out *val) error { out.i, out.nano = in.i, in.nano; return nil }, nil
		case row.TypeTimestampTZ: // OffsetDateTime.toLocalDateTime: the wall clock
			return func(in, out *val) error { out.i, out.nano = in.i+int64(in.off), in.nano; return nil }, nil
		case row.TypeDate:
			return func(in, out *val) error { out.i, out.nano = in.i*secsPerDay, 0; return nil }, nil
		case row.TypeTime:
			// Today at that time, as SeaTunnel's LocalDateTime.of(LocalDate.now(), t).
			return func(in, out *val) error {
				out.i = row.DateOf(time.Now())*secsPerDay + in.i/int64(time.Second)
				out.nano = int32(in.i % int64(time.Second))
				return nil
			}, nil
		case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
			// Epoch milliseconds in the system zone.
			return func(in, out *val) error {
				out.i, out.nano = row.TimestampOf(time.UnixMilli(in.i).In(time.Local))
				return nil
			}, nil
		case row.TypeString:
			return func(in, out *val) error {
				t, err := row.ParseTimestamp(in.s)
				if err != nil {
					return fmt.Errorf("cannot cast %q to TIMESTAMP", in.s)
				}
				out.i, out.nano = row.TimestampOf(t)
				return nil
			}, nil
		}
	case row.TypeTimestampTZ:
		return toTimestampTZConverter(from)
	default:
		if from.Equal(to) {
			return func(in, out *val) error { *out = *in; return nil }, nil
		}
	}
	return nil, errNoCast
}

// toTimestampTZConverter is CAST(x AS TIMESTAMP_TZ): text with an offset
// (OffsetDateTime.parse's), and a timestamp or date as that wall clock at
// offset 0 (UTC), as row.Convert does.
func toTimestampTZConverter(from *row.Type) (converter, error) {
	switch from.ID {
	case row.TypeTimestampTZ:
		return func(in, out *val) error { *out = *in; return nil }, nil
	case row.TypeTimestamp:
		return func(in, out *val) error { out.i, out.nano, out.off = in.i, in.nano, 0; return nil }, nil
	case row.TypeDate:
		return func(in, out *val) error { out.i, out.nano, out.off = in.i*secsPerDay, 0, 0; return nil }, nil
	case row.TypeString:
		return func(in, out *val) error {
			t, err := row.ParseTimestampTZ(in.s)
			if err != nil {
				return fmt.Errorf("cannot cast %q to TIMESTAMP_TZ: %v", in.s, err)
			}
			out.i, out.nano, out.off = row.TimestampTZOf(t)
			return nil
		}, nil
	}
	return nil, errNoCast
}

// makeDate is the stored date of y-m-d, if it is a valid date.
func makeDate(y, m, d int64) (int64, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 || y < -999999 || y > 999999 {
		return 0, false
	}
	t := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
	if t.Day() != int(d) {
		return 0, false
	}
	return row.DateOf(t), true
}

func intBounds(id row.TypeID) (int64, int64) {
	switch id {
	case row.TypeTinyInt:
		return math.MinInt8, math.MaxInt8
	case row.TypeSmallInt:
		return math.MinInt16, math.MaxInt16
	case row.TypeInt:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func toIntConverter(from, to *row.Type) (converter, error) {
	lo, hi := intBounds(to.ID)
	check := func(n int64, orig any) error {
		if n < lo || n > hi {
			return fmt.Errorf("cannot cast %v to %s: out of range", orig, strings.ToUpper(to.String()))
		}
		return nil
	}
	switch {
	case isIntType(from):
		return func(in, out *val) error { out.i = in.i; return check(in.i, in.i) }, nil
	case isFloatType(from):
		return func(in, out *val) error {
			f := in.f
			if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) || f < -9.2233720368547758e18 || f >= 9.2233720368547758e18 {
				return fmt.Errorf("cannot cast %s to %s: not a whole number in range", row.JavaFloat(f, 64), strings.ToUpper(to.String()))
			}
			out.i = int64(f)
			return check(out.i, row.JavaFloat(f, 64))
		}, nil
	case from.ID == row.TypeDecimal:
		return func(in, out *val) error {
			if !in.d.Equal(in.d.Truncate(0)) || !in.d.BigInt().IsInt64() {
				return fmt.Errorf("cannot cast %s to %s: not a whole number in range", in.d, strings.ToUpper(to.String()))
			}
			out.i = in.d.IntPart()
			return check(out.i, in.d)
		}, nil
	case from.ID == row.TypeString:
		// Integer.parseInt: an optional sign and digits, nothing else.
		return func(in, out *val) error {
			n, err := parseJavaInt(in.s)
			if err != nil {
				return fmt.Errorf("cannot cast %q to %s: not an integer", in.s, strings.ToUpper(to.String()))
			}
			out.i = n
			return check(n, strconv.Quote(in.s))
		}, nil
	case from.ID == row.TypeBoolean:
		return func(in, out *val) error {
			out.i = 0
			if in.b {
				out.i = 1
			}
			return nil
		}, nil
	}
	return nil, errNoCast
}

func parseJavaInt(s string) (int64, error) {
	if s == "" || strings.TrimSpace(s) != s {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 10, 64)
}

func toFloatConverter(from, to *row.Type) (converter, error) {
	round := func(f float64) float64 {
		if to.ID == row.TypeFloat {
			return float64(float32(f))
		}
		return f
	}
	switch {
	case isIntType(from):
		return func(in, out *val) error { out.f = round(float64(in.i)); return nil }, nil
	case isFloatType(from):
		return func(in, out *val) error { out.f = round(in.f); return nil }, nil
	case from.ID == row.TypeDecimal:
		return func(in, out *val) error { f, _ := in.d.Float64(); out.f = round(f); return nil }, nil
	case from.ID == row.TypeString:
		return func(in, out *val) error {
			f, err := parseJavaDouble(in.s)
			if err != nil {
				return fmt.Errorf("cannot cast %q to %s: not a number", in.s, strings.ToUpper(to.String()))
			}
			out.f = round(f)
			return nil
		}, nil
	}
	return nil, errNoCast
}

// parseJavaDouble reads a number as Double.parseDouble: surrounding white
// space, a trailing f or d, NaN and Infinity are accepted.
func parseJavaDouble(s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch strings.TrimLeft(s, "+-") {
	case "NaN", "Infinity":
		return strconv.ParseFloat(s, 64)
	case "", "inf", "Inf", "infinity", "nan":
		return 0, strconv.ErrSyntax
	}
	if n := len(s); n > 1 && strings.ContainsRune("fFdD", rune(s[n-1])) {
		s = s[:n-1]
	}
	if strings.ContainsRune(s, '_') {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(s, 64)
}

// decimalOf is v of type t as a decimal: doubles by their shortest text,
// as BigDecimal.valueOf and new BigDecimal(Double.toString) read them.
func decimalOf(t *row.Type, v *val) (decimal.Decimal, error) {
	switch {
	case isIntType(t):
		return decimal.NewFromInt(v.i), nil
	case t.ID == row.TypeFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return decimal.Decimal{}, fmt.Errorf("cannot make %s a decimal", row.JavaFloat(v.f, 32))
		}
		return decimal.NewFromFloat32(float32(v.f)), nil
	case t.ID == row.TypeDouble:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return decimal.Decimal{}, fmt.Errorf("cannot make %s a decimal", row.JavaFloat(v.f, 64))
		}
		return decimal.NewFromFloat(v.f), nil
	case t.ID == row.TypeDecimal:
		return v.d, nil
	case t.ID == row.TypeString:
		s := v.s
		if s == "" || strings.TrimSpace(s) != s || strings.ContainsRune(s, '_') {
			return decimal.Decimal{}, fmt.Errorf("cannot cast %q to DECIMAL: not a number", s)
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			return decimal.Decimal{}, fmt.Errorf("cannot cast %q to DECIMAL: not a number", s)
		}
		return d, nil
	}
	return decimal.Decimal{}, errNoCast
}

// roundCeiling is d at the given scale rounded toward positive infinity,
// as SeaTunnel's CAST (setScale(scale, RoundingMode.CEILING)).
func roundCeiling(d decimal.Decimal, scale int32) decimal.Decimal {
	if -d.Exponent() <= scale {
		return d
	}
	return d.RoundCeil(scale)
}

func toDecimalConverter(from, to *row.Type, explicit bool) (converter, error) {
	if !isNumType(from) && from.ID != row.TypeString {
		return nil, errNoCast
	}
	scale := int32(to.Scale)
	read := decimalOf
	if !explicit {
		// An operand of decimal arithmetic or a comparison: SeaTunnel
		// takes a float by its double value (BigDecimal.valueOf of
		// doubleValue(), so 1.1f is 1.100000023841858), where CAST reads
		// Float.toString ("1.1").
		read = javaBigDecimal
	}
	return func(in, out *val) error {
		d, err := read(from, in)
		if err != nil {
			return err
		}
		if explicit {
			d = roundCeiling(d, scale)
		}
		out.d = d
		return nil
	}, nil
}

// vecCast is a vector loop for the common widenings, or nil.
func vecCast(from, to *row.Type) func(in, out *row.Column, n int) {
	switch {
	case isIntType(from) && to.ID == row.TypeDouble:
		return func(in, out *row.Column, n int) {
			for i, x := range in.Ints[:n] {
				out.Floats[i] = float64(x)
			}
		}
	case from.ID == row.TypeFloat && to.ID == row.TypeDouble:
		return func(in, out *row.Column, n int) { copy(out.Floats, in.Floats[:n]) }
	case isIntType(from) && isIntType(to) && numRank(to) >= numRank(from):
		return func(in, out *row.Column, n int) { copy(out.Ints, in.Ints[:n]) }
	case from.ID == row.TypeDate && to.ID == row.TypeTimestamp:
		return func(in, out *row.Column, n int) {
			for i, x := range in.Ints[:n] {
				out.Secs[i], out.Nanos[i] = x*secsPerDay, 0
			}
		}
	}
	return nil
}

// newCast builds the conversion of x to t, or says why it is impossible.
func newCast(x evaluator, t *row.Type, explicit bool, src node) (evaluator, error) {
	from := typeOf(x)
	if from.Equal(t) && (!explicit || t.ID != row.TypeDecimal) {
		return x, nil
	}
	conv, err := castConverter(from, t, explicit)
	if err != nil {
		return nil, err
	}
	e := &castEval{x: x, conv: conv}
	e.t, e.src = t, src
	if !explicit || isIntType(from) && numRank(t) >= numRank(from) {
		e.vec = vecCast(from, t)
	}
	e.fails = castCanFail(from, t)
	e.derive(x)
	return e, nil
}

// castCanFail tells whether converting from to to can fail for some
// value: parsing text, narrowing numbers, reading ints as dates.
func castCanFail(from, to *row.Type) bool {
	switch {
	case from.Equal(to), from.ID == row.TypeNull, to.ID == row.TypeString, to.ID == row.TypeBytes:
		return false
	case from.ID == row.TypeString:
		return true
	case isIntType(from) && isIntType(to):
		return numRank(to) < numRank(from)
	case isNumType(from) && isFloatType(to):
		return false
	case to.ID == row.TypeDecimal:
		return isFloatType(from) // NaN and Infinity have no decimal
	case to.ID == row.TypeBoolean:
		return false
	case to.ID == row.TypeTimestamp:
		return false
	case isTemporal(from) && isTemporal(to):
		return false
	case from.ID == row.TypeTimestampTZ && isTemporal(to), to.ID == row.TypeTimestampTZ && isTemporal(from):
		return false
	}
	return true
}
