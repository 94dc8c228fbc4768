package orc

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// allTypes is a schema with every kind the writer writes, nested too.
func allTypes() *Type {
	inner := Struct([]string{"s", "l"}, Primitive(KindString), List(Primitive(KindInt)))
	return Struct([]string{"b", "t", "sm", "i", "l", "f", "d", "s", "bin", "dec", "date", "ts", "arr", "m", "row", "nested"},
		Primitive(KindBoolean), Primitive(KindByte), Primitive(KindShort), Primitive(KindInt), Primitive(KindLong),
		Primitive(KindFloat), Primitive(KindDouble), Primitive(KindString), Primitive(KindBinary), Decimal(38, 18),
		Primitive(KindDate), Primitive(KindTimestamp), List(Primitive(KindString)), Map(Primitive(KindString), Primitive(KindLong)),
		inner, List(Map(Primitive(KindInt), inner)))
}

// value is one generated value of type t, nil for null.
func value(rng *rand.Rand, t *Type, nulls bool) any {
	if nulls && rng.Intn(5) == 0 {
		return nil
	}
	switch t.Kind {
	case KindBoolean:
		return int64(rng.Intn(2))
	case KindByte:
		return int64(int8(rng.Intn(256)))
	case KindShort:
		return int64(int16(rng.Intn(65536)))
	case KindInt:
		return int64(int32(rng.Uint32()))
	case KindLong:
		return int64(rng.Uint64()) >> rng.Intn(64)
	case KindDate:
		return int64(rng.Intn(4_000_000) - 800_000)
	case KindFloat:
		return float64(float32(rng.NormFloat64() * 1e6))
	case KindDouble:
		return rng.NormFloat64() * 1e300
	case KindString:
		return []byte(strings.Repeat("ü", rng.Intn(4)) + fmt.Sprint(rng.Intn(50)))
	case KindBinary:
		b := make([]byte, rng.Intn(8))
		rng.Read(b)
		return b
	case KindDecimal:
		return decimal.New(rng.Int63()>>rng.Intn(63), int32(-rng.Intn(19)))
	case KindTimestamp:
		if rng.Intn(20) == 0 {
			// around 1970, where seconds round toward zero
			s, ns := []int64{-3, -2, -1, 0, 1}[rng.Intn(5)], int64(rng.Intn(1_000_000_000))
			if s == -1 {
				ns %= 1_000_000 // ORC holds no more in that second
			}
			return [2]int64{s, ns}
		}
		// years 1 to 9999, any nanosecond
		return [2]int64{rng.Int63n(315537897600) - 62135596800, rng.Int63n(1_000_000_000) / []int64{1, 1000, 1_000_000, 1_000_000_000}[rng.Intn(4)] * []int64{1, 1000, 1_000_000, 1_000_000_000}[rng.Intn(4)] % 1_000_000_000}
	case KindList:
		out := []any{}
		for k := rng.Intn(4); k > 0; k-- {
			out = append(out, value(rng, t.Children[0], nulls))
		}
		return out
	case KindMap:
		out := [][2]any{}
		for k := rng.Intn(4); k > 0; k-- {
			out = append(out, [2]any{value(rng, t.Children[0], false), value(rng, t.Children[1], nulls)})
		}
		return out
	case KindStruct:
		out := make([]any, len(t.Children))
		for i, c := range t.Children {
			out[i] = value(rng, c, nulls)
		}
		return out
	}
	panic(t.Kind)
}

// appendValue appends a generated value to v.
func appendValue(v *Vector, x any) {
	if x == nil {
		v.AppendNull()
		return
	}
	v.Nulls = append(v.Nulls, false)
	v.Len++
	switch v.Type.Kind {
	case KindBoolean, KindByte, KindShort, KindInt, KindLong, KindDate:
		v.Ints = append(v.Ints, x.(int64))
	case KindFloat, KindDouble:
		v.Floats = append(v.Floats, x.(float64))
	case KindString, KindBinary:
		v.Bytes = append(v.Bytes, x.([]byte))
	case KindDecimal:
		v.Decimals = append(v.Decimals, x.(decimal.Decimal))
	case KindTimestamp:
		ts := x.([2]int64)
		v.Secs = append(v.Secs, ts[0])
		v.Nanos = append(v.Nanos, int32(ts[1]))
	case KindList:
		for _, e := range x.([]any) {
			appendValue(v.Children[0], e)
		}
		v.Offsets = append(v.Offsets, v.Children[0].Len)
	case KindMap:
		for _, e := range x.([][2]any) {
			appendValue(v.Children[0], e[0])
			appendValue(v.Children[1], e[1])
		}
		v.Offsets = append(v.Offsets, v.Children[0].Len)
	case KindStruct:
		for i, f := range x.([]any) {
			appendValue(v.Children[i], f)
		}
	}
}

// valueAt is row i of v in the generated form.
func valueAt(v *Vector, i int) any {
	if v.Nulls[i] {
		return nil
	}
	switch v.Type.Kind {
	case KindBoolean, KindByte, KindShort, KindInt, KindLong, KindDate:
		return v.Ints[i]
	case KindFloat, KindDouble:
		return v.Floats[i]
	case KindString, KindBinary:
		return append([]byte{}, v.Bytes[i]...)
	case KindDecimal:
		return v.Decimals[i].StringFixed(int32(v.Type.Scale))
	case KindTimestamp:
		return [2]int64{v.Secs[i], int64(v.Nanos[i])}
	case KindList:
		out := []any{}
		for k := v.Offsets[i]; k < v.Offsets[i+1]; k++ {
			out = append(out, valueAt(v.Children[0], k))
		}
		return out
	case KindMap:
		out := [][2]any{}
		for k := v.Offsets[i]; k < v.Offsets[i+1]; k++ {
			out = append(out, [2]any{valueAt(v.Children[0], k), valueAt(v.Children[1], k)})
		}
		return out
	case KindStruct:
		out := make([]any, len(v.Children))
		for k, c := range v.Children {
			out[k] = valueAt(c, i)
		}
		return out
	}
	return nil
}

// normal puts generated values in the form valueAt returns.
func normal(t *Type, x any) any {
	if x == nil {
		return nil
	}
	switch t.Kind {
	case KindDecimal:
		return x.(decimal.Decimal).StringFixed(int32(t.Scale))
	case KindList:
		out := []any{}
		for _, e := range x.([]any) {
			out = append(out, normal(t.Children[0], e))
		}
		return out
	case KindMap:
		out := [][2]any{}
		for _, e := range x.([][2]any) {
			out = append(out, [2]any{normal(t.Children[0], e[0]), normal(t.Children[1], e[1])})
		}
		return out
	case KindStruct:
		out := make([]any, len(t.Children))
		for i, f := range x.([]any) {
			out[i] = normal(t.Children[i], f)
		}
		return out
	}
	return x
}

// writeFile writes rows (generated struct values) of schema in batches.
func writeFile(t testing.TB, schema *Type, rows [][]any, opts WriterOptions, batch int) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for from := 0; from < len(rows); from += batch {
		cols := make([]*Vector, len(schema.Children))
		for i, c := range schema.Children {
			cols[i] = NewVector(c)
		}
		for _, r := range rows[from:min(from+batch, len(rows))] {
			for i, x := range r {
				appendValue(cols[i], x)
			}
		}
		if err := w.Write(cols); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAll reads every row of data (as normal values), batch rows at a time.
func readAll(data []byte, batch int) ([][]any, *File, error) {
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	cols := make([]int, len(f.Schema().Children))
	for i := range cols {
		cols[i] = i
	}
	rows, err := f.Rows(cols)
	if err != nil {
		return nil, f, err
	}
	var out [][]any
	for {
		vs, n, err := rows.Next(batch)
		if err != nil {
			return out, f, err
		}
		if n == 0 {
			return out, f, nil
		}
		for i := 0; i < n; i++ {
			r := make([]any, len(vs))
			for k, v := range vs {
				r[k] = valueAt(v, i)
			}
			out = append(out, r)
		}
	}
}

func genRows(seed int64, schema *Type, n int, nulls bool) [][]any {
	rng := rand.New(rand.NewSource(seed))
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, len(schema.Children))
		for k, c := range schema.Children {
			rows[i][k] = value(rng, c, nulls)
		}
	}
	return rows
}

func TestRoundTrip(t *testing.T) {
	schema := allTypes()
	for _, comp := range []Compression{None, Zlib, Snappy, LZ4, Zstd} {
		for _, nulls := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nulls=%v", comp, nulls), func(t *testing.T) {
				rows := genRows(int64(comp)*2+map[bool]int64{false: 0, true: 1}[nulls], schema, 3000, nulls)
				// small stripes and chunks: many stripes, chunks across values
				data := writeFile(t, schema, rows, WriterOptions{Compression: comp, StripeBytes: 40 << 10, BlockSize: 4 << 10}, 700)
				got, f, err := readAll(data, 333)
				if err != nil {
					t.Fatal(err)
				}
				if f.NumRows() != int64(len(rows)) || len(f.ft.stripes) < 2 {
					t.Fatalf("%d rows in %d stripes", f.NumRows(), len(f.ft.stripes))
				}
				if f.Schema().String() != schema.String() {
					t.Fatalf("schema %s, want %s", f.Schema(), schema)
				}
				if len(got) != len(rows) {
					t.Fatalf("read %d rows, want %d", len(got), len(rows))
				}
				for i := range rows {
					want := normal(schema, rows[i])
					if !reflect.DeepEqual(got[i], want) {
						t.Fatalf("row %d:\n got %v\nwant %v", i, got[i], want)
					}
				}
			})
		}
	}
}

// TestProjectionAndSkip: columns read alone, and rows skipped across
// stripes, give the same values as a full read.
func TestProjectionAndSkip(t *testing.T) {
	schema := allTypes()
	rows := genRows(7, schema, 2500, true)
	data := writeFile(t, schema, rows, WriterOptions{Compression: Zlib, StripeBytes: 30 << 10}, 500)
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{0, 1, 499, 1234, 2499, 2500, 9999} {
		r, err := f.Rows([]int{15, 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Skip(at); err != nil {
			t.Fatal(err)
		}
		i := at
		for {
			vs, n, err := r.Next(97)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			for k := 0; k < n; k++ {
				want := normal(schema, rows[i])
				got := []any{valueAt(vs[0], k), valueAt(vs[1], k)}
				w := want.([]any)
				if !reflect.DeepEqual(got, []any{w[15], w[3]}) {
					t.Fatalf("skip %d, row %d: got %v, want %v", at, i, got, []any{w[15], w[3]})
				}
				i++
			}
		}
		if i != max(at, int64(len(rows))) && !(at > int64(len(rows)) && i == at) {
			t.Fatalf("skip %d: ended at row %d", at, i)
		}
	}
}

func TestWriterErrors(t *testing.T) {
	schema := Struct([]string{"d"}, Decimal(5, 2))
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := NewVector(schema.Children[0])
	appendValue(v, decimal.RequireFromString("1234.5"))
	if err := w.Write([]*Vector{v}); err == nil || !strings.Contains(err.Error(), "does not fit decimal(5,2)") {
		t.Fatalf("got %v", err)
	}
	ts := Struct([]string{"ts"}, Primitive(KindTimestamp))
	w, err = NewWriter(&buf, ts, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v = NewVector(ts.Children[0])
	appendValue(v, [2]int64{-1, 500_000_000})
	if err := w.Write([]*Vector{v}); err == nil || !strings.Contains(err.Error(), "cannot be held") {
		t.Fatalf("1969-12-31T23:59:59.5: got %v", err)
	}
	if _, err := NewWriter(&buf, schema, WriterOptions{Compression: LZO}); err == nil {
		t.Fatal("LZO is written")
	}
	if _, err := NewWriter(&buf, Struct([]string{"u"}, &Type{Kind: KindUnion, Children: []*Type{Primitive(KindInt)}}), WriterOptions{}); err == nil {
		t.Fatal("a union is written")
	}
}

// TestEmptyFile: a file without rows has its schema and no stripe.
func TestEmptyFile(t *testing.T) {
	schema := allTypes()
	data := writeFile(t, schema, nil, WriterOptions{Compression: Zstd}, 10)
	got, f, err := readAll(data, 10)
	if err != nil || len(got) != 0 || f.Schema().String() != schema.String() {
		t.Fatalf("%v %d %v", err, len(got), f.Schema())
	}
}
