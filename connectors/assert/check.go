package assert

import (
	"bytes"
	"math"
	"time"
	"unicode/utf16"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// The checks follow SeaTunnel's AssertExecutor: for each field rule, the
// value's type, then each value rule in order — its rule_type, and
// equals_to when the value is not null.

// failure says which rule a value broke; "" when it passed.
func (b *boundField) check(v any) (rule string) {
	f := b.rule
	if f.fieldType != nil && v != nil && b.decimals && !decimalsFit(f.fieldType, v) {
		return "field_type " + f.fieldType.String()
	}
	for k := range f.values {
		r := &f.values[k]
		pass := r.typ == ruleNone || checkRule(r, b.colType, v)
		if pass && v != nil && b.hasEq[k] {
			pass = equal(b.colType, v, b.equals[k])
		}
		if !pass {
			return r.describe()
		}
	}
	return ""
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
	}
	return a == b
}

// decimalsFit is checkDecimalType for every decimal in v: the value's
// precision (digits of its unscaled value) is at most the declared one.
// Scales match already: the plan checked the column's scale.
func decimalsFit(t *row.Type, v any) bool {
	if v == nil {
		return true
	}
	switch t.ID {
	case row.TypeDecimal:
		d, ok := v.(decimal.Decimal)
		if !ok {
			return false
		}
		return precision(d) <= t.Precision
	case row.TypeArray:
		for _, e := range v.([]any) {
			if !decimalsFit(t.Elem, e) {
				return false
			}
		}
	case row.TypeMap:
		m := v.(*row.MapValue)
		for i := range m.Keys {
			if !decimalsFit(t.Key, m.Keys[i]) || !decimalsFit(t.Elem, m.Values[i]) {
				return false
			}
		}
	case row.TypeRow:
		xs := v.([]any)
		for i, f := range t.Fields {
			if i < len(xs) && !decimalsFit(f.Type, xs[i]) {
				return false
			}
		}
	}
	return true
}

// precision is BigDecimal.precision(): the digits of the unscaled value.
func precision(d decimal.Decimal) int {
	c := d.Coefficient()
	s := c.Abs(c).String()
	return len(s)
}
