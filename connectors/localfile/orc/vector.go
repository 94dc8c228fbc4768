package orc

import "github.com/shopspring/decimal"

// Vector is a batch of values of one column. Nulls has Len entries; the
// value vector of the column's kind has Len entries too, a zero value
// where the row is null:
//
//	boolean, tinyint, smallint, int, bigint   Ints (booleans as 0 and 1)
//	date                                      Ints (days since 1970-01-01)
//	float, double                             Floats
//	string, varchar, char, binary             Bytes (valid until the next batch)
//	decimal                                   Decimals
//	timestamp                                 Secs, Nanos: wall clock seconds
//	                                          since 1970-01-01T00:00 and the
//	                                          nanoseconds within the second
//	list, map                                 Offsets: row i's elements are
//	                                          Offsets[i]..Offsets[i+1] of
//	                                          Children (one; key and value)
//	struct                                    Children, one per field, Len each
type Vector struct {
	Type     *Type
	Len      int
	Nulls    []bool
	Ints     []int64
	Floats   []float64
	Bytes    [][]byte
	Decimals []decimal.Decimal
	Secs     []int64
	Nanos    []int32
	Offsets  []int
	Children []*Vector
}

// NewVector is an empty vector for values of type t.
func NewVector(t *Type) *Vector {
	v := &Vector{Type: t}
	for _, c := range t.Children {
		v.Children = append(v.Children, NewVector(c))
	}
	v.Reset()
	return v
}

// Reset empties the vector (and its children) for the next batch.
func (v *Vector) Reset() {
	v.Len = 0
	v.Nulls = v.Nulls[:0]
	v.Ints = v.Ints[:0]
	v.Floats = v.Floats[:0]
	clear(v.Bytes)
	v.Bytes = v.Bytes[:0]
	v.Decimals = v.Decimals[:0]
	v.Secs = v.Secs[:0]
	v.Nanos = v.Nanos[:0]
	v.Offsets = append(v.Offsets[:0], 0)
	for _, c := range v.Children {
		c.Reset()
	}
}

// IsNull tells whether row i is null.
func (v *Vector) IsNull(i int) bool { return v.Nulls[i] }

// AppendNull appends a null row, a zero value in the vector of its kind.
func (v *Vector) AppendNull() {
	v.Nulls = append(v.Nulls, true)
	v.Len++
	switch v.Type.Kind {
	case KindBoolean, KindByte, KindShort, KindInt, KindLong, KindDate:
		v.Ints = append(v.Ints, 0)
	case KindFloat, KindDouble:
		v.Floats = append(v.Floats, 0)
	case KindString, KindVarchar, KindChar, KindBinary:
		v.Bytes = append(v.Bytes, nil)
	case KindDecimal:
		v.Decimals = append(v.Decimals, decimal.Decimal{})
	case KindTimestamp, KindTimestampInstant:
		v.Secs = append(v.Secs, 0)
		v.Nanos = append(v.Nanos, 0)
	case KindList, KindMap:
		v.Offsets = append(v.Offsets, v.Offsets[len(v.Offsets)-1])
	case KindStruct:
		for _, c := range v.Children {
			c.AppendNull()
		}
	}
}
