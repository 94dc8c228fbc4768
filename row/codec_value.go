package row

// Nested values (arrays, maps, rows): tagged boxed values, written and read.

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/shopspring/decimal"
)

// elemType is the declared type of element i of a list value of type t, or
// nil when unknown; it is only used to convert values that are not boxed
// as Value describes.
func elemType(t *Type, i int) *Type {
	switch {
	case t == nil:
		return nil
	case t.ID == TypeArray:
		return t.Elem
	case t.ID == TypeRow && i < len(t.Fields):
		return t.Fields[i].Type
	}
	return nil
}

func mapTypes(t *Type) (k, v *Type) {
	if t != nil && t.ID == TypeMap {
		return t.Key, t.Elem
	}
	return nil, nil
}

// unboxed converts v, which is not a boxed value, to the boxed form of t;
// ok is false when it cannot, and v is then encoded as null.
func unboxed(t *Type, v any) (any, bool) {
	if t == nil {
		return nil, false
	}
	cv, err := Convert(t, v)
	if err != nil {
		return nil, false
	}
	switch cv.(type) {
	case nil, bool, int64, float64, decimal.Decimal, string, []byte, time.Time, time.Duration, []any, *MapValue:
		return cv, true
	}
	return nil, false
}

func appendValue(dst []byte, t *Type, v any, depth int) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, tagNull)
	case bool:
		if x {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case int64:
		return binary.AppendVarint(append(dst, tagInt), x)
	case float64:
		return binary.LittleEndian.AppendUint64(append(dst, tagFloat), math.Float64bits(x))
	case decimal.Decimal:
		return appendDecimal(append(dst, tagDecimal), x)
	case string:
		return appendStr(append(dst, tagString), x)
	case []byte:
		dst = binary.AppendUvarint(append(dst, tagBytes), uint64(len(x)))
		return append(dst, x...)
	case time.Time:
		if x.Location() != time.UTC { // a timestamp_tz; boxed timestamps are UTC
			sec, nano, off := TimestampTZOf(x)
			dst = binary.AppendVarint(append(dst, tagTimeTZ), sec)
			dst = binary.AppendUvarint(dst, uint64(nano))
			return binary.AppendVarint(dst, int64(off))
		}
		dst = binary.AppendVarint(append(dst, tagTime), x.Unix())
		return binary.AppendUvarint(dst, uint64(x.Nanosecond()))
	case time.Duration:
		return binary.AppendVarint(append(dst, tagDuration), int64(x))
	case []any:
		if depth >= maxDepth {
			return append(dst, tagNull)
		}
		dst = binary.AppendUvarint(append(dst, tagList), uint64(len(x)))
		for i, e := range x {
			dst = appendValue(dst, elemType(t, i), e, depth+1)
		}
		return dst
	case *MapValue:
		if x == nil || depth >= maxDepth {
			return append(dst, tagNull)
		}
		kt, vt := mapTypes(t)
		m := min(len(x.Keys), len(x.Values))
		dst = binary.AppendUvarint(append(dst, tagMap), uint64(m))
		for i := range m {
			dst = appendValue(dst, kt, x.Keys[i], depth+1)
			dst = appendValue(dst, vt, x.Values[i], depth+1)
		}
		return dst
	}
	if cv, ok := unboxed(t, v); ok {
		return appendValue(dst, t, cv, depth)
	}
	return append(dst, tagNull)
}

// valueSize is the length appendValue writes.
func valueSize(t *Type, v any) int { return valueSizeAt(t, v, 0) }

func valueSizeAt(t *Type, v any, depth int) int {
	switch x := v.(type) {
	case nil, bool:
		return 1
	case int64:
		return 1 + varintLen(x)
	case float64:
		return 9
	case decimal.Decimal:
		return 1 + decimalSize(x)
	case string:
		return 1 + strSize(x)
	case []byte:
		return 1 + uvarintLen(uint64(len(x))) + len(x)
	case time.Time:
		size := 1 + varintLen(x.Unix()) + uvarintLen(uint64(x.Nanosecond()))
		if x.Location() != time.UTC {
			_, off := x.Zone()
			size += varintLen(int64(off))
		}
		return size
	case time.Duration:
		return 1 + varintLen(int64(x))
	case []any:
		if depth >= maxDepth {
			return 1
		}
		size := 1 + uvarintLen(uint64(len(x)))
		for i, e := range x {
			size += valueSizeAt(elemType(t, i), e, depth+1)
		}
		return size
	case *MapValue:
		if x == nil || depth >= maxDepth {
			return 1
		}
		kt, vt := mapTypes(t)
		m := min(len(x.Keys), len(x.Values))
		size := 1 + uvarintLen(uint64(m))
		for i := range m {
			size += valueSizeAt(kt, x.Keys[i], depth+1) + valueSizeAt(vt, x.Values[i], depth+1)
		}
		return size
	}
	if cv, ok := unboxed(t, v); ok {
		return valueSizeAt(t, cv, depth)
	}
	return 1
}

func (r *reader[T]) anys(n int) ([]any, error) {
	size, err := r.count(1)
	if err != nil {
		return nil, err
	}
	if n > size { // a value takes a byte at least
		return nil, ErrTruncated
	}
	raw, _ := r.take(size)
	vr := reader[string]{b: string(raw)} // the one copy; strings inside slice it
	out := make([]any, n)
	for i := range out {
		if out[i], err = vr.value(0); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	if vr.left() != 0 {
		return nil, corrupt("%d bytes after the values", vr.left())
	}
	return out, nil
}

func (r *reader[T]) value(depth int) (any, error) {
	tag, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagNull:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagInt:
		return r.varint()
	case tagFloat:
		raw, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(le64(raw, 0)), nil
	case tagDecimal:
		return r.decimal()
	case tagString:
		s, err := r.str()
		return string(s), err // no copy when T is string
	case tagBytes:
		s, err := r.str()
		return []byte(s), err
	case tagTime, tagTimeTZ:
		sec, err := r.varint()
		if err != nil {
			return nil, err
		}
		ns, err := r.uvarint()
		if err != nil {
			return nil, err
		}
		if ns >= 1e9 {
			return nil, corrupt("%d nanoseconds", ns)
		}
		if tag == tagTime {
			return time.Unix(sec, int64(ns)).UTC(), nil
		}
		off, err := r.varint()
		if err != nil {
			return nil, err
		}
		if off < -MaxOffsetSec || off > MaxOffsetSec {
			return nil, corrupt("zone offset of %d seconds", off)
		}
		return TimestampTZTime(sec, int32(ns), int32(off)), nil
	case tagDuration:
		v, err := r.varint()
		return time.Duration(v), err
	case tagList, tagMap:
		if depth >= maxDepth {
			return nil, corrupt("values nested deeper than %d", maxDepth)
		}
		each := 1
		if tag == tagMap {
			each = 2
		}
		k, err := r.count(each)
		if err != nil {
			return nil, err
		}
		if tag == tagList {
			out := make([]any, k)
			for i := range out {
				if out[i], err = r.value(depth + 1); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		m := &MapValue{Keys: make([]any, k), Values: make([]any, k)}
		for i := range k {
			if m.Keys[i], err = r.value(depth + 1); err != nil {
				return nil, err
			}
			if m.Values[i], err = r.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	return nil, corrupt("value tag %d", tag)
}
