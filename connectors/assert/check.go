package assert

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// The checks follow SeaTunnel's AssertExecutor: for each field rule, the
// value's type, then each value rule in order — its rule_type, and
// equals_to when the value is not null.

// check returns the rule v broke ("" when it passed), or an error for a
// rule SeaTunnel can only fail at run time (a field not in the table, an
// equals_to that does not convert, a missing rule_value).
func (b *boundField) check(v any) (rule string, err error) {
	f := b.rule
	if b.missing != "" {
		return "", errors.New(b.missing)
	}
	if f.fieldType != nil && !typeFits(b.colType, f.fieldType, v) {
		return "field_type " + f.fieldType.String(), nil
	}
	for k := range f.values {
		r := &f.values[k]
		if r.deferred != "" {
			return "", fmt.Errorf("field %q: %s", f.name, r.deferred)
		}
		pass := r.typ == ruleNone || checkRule(r, b.colType, v)
		if pass && v != nil && b.eqErr[k] != nil {
			return "", b.eqErr[k]
		}
		if pass && v != nil && b.hasEq[k] {
			pass = equal(b.colType, v, b.equals[k])
		}
		if !pass {
			return r.describe(), nil
		}
	}
	return "", nil
}

func checkRule(r *valueRule, t *row.Type, v any) bool {
	switch r.typ {
	case ruleNull:
		return v == nil
	case ruleNotNull:
		return v != nil
	case ruleMin, ruleMax:
		f, ok := number(v) // Java: value instanceof Number, then doubleValue()
		if !ok {
			return false
		}
		if r.typ == ruleMin {
			return f >= r.value
		}
		return f <= r.value
	case ruleMinLength, ruleMaxLength:
		s := ""
		if v != nil {
			s = row.Text(t, v) // String.valueOf(value)
		}
		n := float64(javaLength(s))
		if r.typ == ruleMinLength {
			return n >= r.value
		}
		return n <= r.value
	}
	return false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case decimal.Decimal:
		return x.InexactFloat64(), true
	}
	return 0, false
}

// javaLength is String.length(): UTF-16 code units.
func javaLength(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// equal compares a value with an expected one of the same type, as
// AssertExecutor.compareValue: element by element for rows and arrays,
// by key for maps, byte by byte for bytes, Java equals otherwise (floats
// by bits, so NaN equals NaN). Decimals compare by value.
func equal(t *row.Type, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch t.ID {
	case row.TypeNull:
		return false
	case row.TypeRow:
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			ft := row.Null
			if i < len(t.Fields) {
				ft = t.Fields[i].Type
			}
			if !equal(ft, x[i], y[i]) {
				return false
			}
		}
		return true
	case row.TypeArray:
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(t.Elem, x[i], y[i]) {
				return false
			}
		}
		return true
	case row.TypeMap:
		x, y := a.(*row.MapValue), b.(*row.MapValue)
		if len(x.Keys) != len(y.Keys) {
			return false
		}
	next:
		for i, k := range y.Keys {
			for j, k2 := range x.Keys {
				if equal(t.Key, k2, k) {
					if !equal(t.Elem, x.Values[j], y.Values[i]) {
						return false
					}
					continue next
				}
			}
			return false
		}
		return true
	case row.TypeBytes:
		return bytes.Equal(a.([]byte), b.([]byte))
	case row.TypeDecimal:
		return a.(decimal.Decimal).Cmp(b.(decimal.Decimal)) == 0
	case row.TypeFloat, row.TypeDouble:
		x, y := a.(float64), b.(float64)
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return math.Float64bits(x) == math.Float64bits(y)
	case row.TypeDate, row.TypeTimestamp:
		return a.(time.Time).Equal(b.(time.Time))
	case row.TypeTimestampTZ: // OffsetDateTime.equals: the instant and the offset
		x, y := a.(time.Time), b.(time.Time)
		_, xo := x.Zone()
		_, yo := y.Zone()
		return x.Equal(y) && xo == yo
	}
	return a == b
}

// typeFits is AssertExecutor.checkType: whether value v, of column type
// col, is of the declared type. A null value fits every type (SeaTunnel
// before 2.3.9 failed it unless the type was "null"; its own e2e files, such
// as sql_transform/func_null_return.conf, now rely on the pass), a non-null
// one never fits "null"; a scalar fits when its Java class is the
// declared one (the column's type decides the class); rows, arrays and maps
// are checked element by element, the elements by the same rules; a
// decimal needs the declared scale and at most the declared precision.
func typeFits(col, decl *row.Type, v any) bool {
	if v == nil {
		return true
	}
	switch decl.ID {
	case row.TypeNull:
		return false
	case row.TypeRow:
		xs, ok := v.([]any)
		if col.ID != row.TypeRow || !ok {
			return false
		}
		for i, x := range xs {
			if i >= len(decl.Fields) {
				return false // Java reads past the declared fields and fails
			}
			ct := row.Null
			if i < len(col.Fields) {
				ct = col.Fields[i].Type
			}
			if !typeFits(ct, decl.Fields[i].Type, x) {
				return false
			}
		}
		return true
	case row.TypeArray:
		xs, ok := v.([]any)
		if col.ID != row.TypeArray || !ok {
			return false
		}
		for _, x := range xs {
			if !typeFits(col.Elem, decl.Elem, x) {
				return false
			}
		}
		return true
	case row.TypeMap:
		m, ok := v.(*row.MapValue)
		if col.ID != row.TypeMap || !ok {
			return false
		}
		for i := range m.Keys {
			if !typeFits(col.Key, decl.Key, m.Keys[i]) || !typeFits(col.Elem, decl.Elem, m.Values[i]) {
				return false
			}
		}
		return true
	case row.TypeDecimal:
		d, ok := v.(decimal.Decimal)
		if col.ID != row.TypeDecimal || !ok || col.Scale != decl.Scale {
			return false
		}
		return precision(d, col.Scale) <= decl.Precision
	}
	return col.ID == decl.ID
}

// neverFits tells whether no non-null value of column type col fits the
// declared type: another kind of type, or a decimal of another scale. A
// null column, or a rule of the null type, is left to the values: a null
// column holds only nulls, which pass, and a column typed by a transform
// may hold only nulls too.
func neverFits(col, decl *row.Type) bool {
	if col.ID == row.TypeNull || decl.ID == row.TypeNull {
		return false
	}
	if col.ID != decl.ID {
		return true
	}
	return col.ID == row.TypeDecimal && col.Scale != decl.Scale
}

// precision is BigDecimal.precision() of d held at scale: the digits of
// its unscaled value (1 for zero).
func precision(d decimal.Decimal, scale int) int {
	digits := strings.TrimLeft(strings.Replace(d.Abs().StringFixed(int32(scale)), ".", "", 1), "0")
	if digits == "" {
		return 1
	}
	return len(digits)
}
