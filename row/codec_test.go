package row

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"
)

// roundTrip encodes b, checks EncodedSize, decodes and checks the result
// equals b.
func roundTrip(t *testing.T, b *Batch) *Batch {
	t.Helper()
	enc := AppendBatch([]byte("prefix"), b)[len("prefix"):]
	if got := EncodedSize(b); got != len(enc) {
		t.Fatalf("EncodedSize = %d, encoding has %d bytes", got, len(enc))
	}
	got, rest, err := NewDecoder().Decode(append(enc, "next"...))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if string(rest) != "next" {
		t.Fatalf("rest = %q, want %q", rest, "next")
	}
	if err := batchEqual(b, got); err != nil {
		t.Fatal(err)
	}
	for j, c := range got.Cols {
		if c.Len() != got.N {
			t.Fatalf("column %d has %d values for %d rows", j, c.Len(), got.N)
		}
		if c.Nulls != nil && c.Type.ID != TypeNull && !hasNull(c.Nulls, got.N) {
			t.Fatalf("column %d has a null bitmap without nulls", j)
		}
	}
	return got
}

// batchEqual compares schemas, kinds and values; floats bit for bit,
// decimals by value and exponent, times by instant.
func batchEqual(want, got *Batch) error {
	ws, gs := want.Schema, got.Schema
	if ws.TableID != gs.TableID || fmt.Sprint(ws.PrimaryKey) != fmt.Sprint(gs.PrimaryKey) || len(ws.Fields) != len(gs.Fields) {
		return fmt.Errorf("schema %s %v, want %s %v", gs, gs.PrimaryKey, ws, ws.PrimaryKey)
	}
	for j, f := range ws.Fields {
		g := gs.Fields[j]
		if f.Name != g.Name || f.Nullable != g.Nullable || f.Comment != g.Comment || !f.Type.Equal(g.Type) || f.Type.String() != g.Type.String() {
			return fmt.Errorf("field %d = %+v %s, want %+v %s", j, g, g.Type, f, f.Type)
		}
	}
	if want.N != got.N || len(got.Cols) != len(want.Cols) {
		return fmt.Errorf("%d rows of %d columns, want %d of %d", got.N, len(got.Cols), want.N, len(want.Cols))
	}
	for i := 0; i < want.N; i++ {
		if want.Kind(i) != got.Kind(i) {
			return fmt.Errorf("row %d: kind %s, want %s", i, got.Kind(i), want.Kind(i))
		}
		for j := range want.Cols {
			if w, g := want.Value(i, j), got.Value(i, j); !valueEqual(w, g) {
				return fmt.Errorf("row %d field %s: %#v, want %#v", i, ws.Fields[j].Name, g, w)
			}
		}
	}
	return nil
}

func valueEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y) && x.Exponent() == y.Exponent()
	case time.Time: // same instant and offset; a boxed timestamp is UTC, a timestamp_tz never
		y, ok := b.(time.Time)
		if !ok {
			return false
		}
		_, xo := x.Zone()
		_, yo := y.Zone()
		return x.Equal(y) && xo == yo && (x.Location() == time.UTC) == (y.Location() == time.UTC)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valueEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case *MapValue:
		y, ok := b.(*MapValue)
		if !ok || len(x.Keys) != len(y.Keys) || len(x.Values) != len(y.Values) {
			return false
		}
		for i := range x.Keys {
			if !valueEqual(x.Keys[i], y.Keys[i]) || !valueEqual(x.Values[i], y.Values[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func mustBuild(t testing.TB, s *Schema, kinds []Kind, rows ...[]any) *Batch {
	t.Helper()
	bl := NewBuilder(s, len(rows))
	for i, r := range rows {
		k := Insert
		if kinds != nil {
			k = kinds[i]
		}
		if err := bl.AppendRow(k, r); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	b := bl.Build()
	if b == nil {
		b = &Batch{Schema: s, Cols: make([]*Column, len(s.Fields))}
		for j, f := range s.Fields {
			b.Cols[j] = NewColumn(f.Type, 0)
		}
	}
	return b
}

var inner = RowOf(Field{Name: "x", Type: Int}, Field{Name: "y name", Type: String}, Field{Name: "z", Type: ArrayOf(Double)})

// everyType has a field of each SeaTunnel type, nested ones included.
var everyType = MustSchema("db.every",
	Field{Name: "id", Type: BigInt, Comment: "the key"},
	Field{Name: "s", Type: String, Nullable: true},
	Field{Name: "b", Type: Boolean, Nullable: true},
	Field{Name: "ti", Type: TinyInt, Nullable: true},
	Field{Name: "si", Type: SmallInt, Nullable: true},
	Field{Name: "i", Type: Int, Nullable: true},
	Field{Name: "f", Type: Float, Nullable: true},
	Field{Name: "d", Type: Double, Nullable: true},
	Field{Name: "dec", Type: DecimalOf(10, 2), Nullable: true},
	Field{Name: "bigdec", Type: DecimalOf(38, 18), Nullable: true},
	Field{Name: "bin", Type: Bytes, Nullable: true},
	Field{Name: "date", Type: Date, Nullable: true},
	Field{Name: "time", Type: Time, Nullable: true},
	Field{Name: "ts", Type: Timestamp, Nullable: true},
	Field{Name: "nul", Type: Null, Nullable: true},
	Field{Name: "arr", Type: ArrayOf(String), Nullable: true},
	Field{Name: "rows", Type: ArrayOf(inner), Nullable: true},
	Field{Name: "m", Type: MapOf(String, Int), Nullable: true},
	Field{Name: "mrow", Type: MapOf(Int, MapOf(String, ArrayOf(Timestamp))), Nullable: true},
	Field{Name: "r", Type: RowOf(Field{Name: "a`b", Type: DecimalOf(20, 4)}, Field{Name: "c, d", Type: inner}, Field{Name: "e", Type: Date}, Field{Name: "t", Type: Time}, Field{Name: "bb", Type: Bytes}, Field{Name: "bo", Type: Boolean}), Nullable: true},
)

func everyTypeRows(t testing.TB) *Batch {
	om := func(kv ...any) OrderedMap {
		var m OrderedMap
		for i := 0; i < len(kv); i += 2 {
			m = append(m, KV{Key: kv[i].(string), Value: kv[i+1]})
		}
		return m
	}
	rows := [][]any{
		{int64(1), "héllo", true, int64(-128), int64(32767), int64(math.MinInt32), 1.5, math.Inf(-1), "12.34", "1.000000000000000001",
			[]byte{0, 1, 255}, "1969-07-20", "23:59:59.999999999", "2262-04-11 23:47:16.854775807", nil,
			[]any{"a", nil, ""}, []any{[]any{int64(1), "p q", []any{0.5, nil}}, nil, []any{nil, nil, nil}},
			om("k1", int64(1), "k2", nil, "", int64(-3)), &MapValue{Keys: []any{int64(7)}, Values: []any{om("z", []any{"2024-01-31T12:30:00.5", nil})}},
			[]any{"-99999999999999.9999", []any{int64(3), nil, []any{}}, "2000-02-29", "00:00", []byte("raw"), false}},
		{int64(math.MinInt64), "", false, int64(127), int64(-32768), int64(math.MaxInt32), -0.25, math.Copysign(0, -1), "-0.01", "-12345678901234567890.123456789012345678",
			[]byte{}, "2024-01-31", "00:00:00", "1677-09-21 00:12:43.145224192", nil,
			[]any{}, []any{}, om(), &MapValue{}, []any{nil, nil, nil, nil, nil, nil}},
		{int64(math.MaxInt64), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{int64(0), "日本語", true, int64(0), int64(0), int64(0), math.MaxFloat32, math.NaN(), "0", "0",
			nil, "1970-01-01", "12:00", "1970-01-01T00:00:00", nil,
			[]any{"x"}, []any{[]any{nil, nil, nil}}, om("only", nil), &MapValue{Keys: []any{int64(0)}, Values: []any{nil}},
			[]any{"1", []any{nil, nil, nil}, nil, nil, nil, true}},
	}
	return mustBuild(t, everyType, []Kind{Insert, UpdateBefore, UpdateAfter, Delete}, rows...)
}

func TestCodecEveryType(t *testing.T) {
	b := everyTypeRows(t)
	// NaN payloads and the sign of zero survive.
	b.Cols[7].Floats[3] = math.Float64frombits(0x7ff8_0000_dead_beef)
	got := roundTrip(t, b)
	if bits := math.Float64bits(got.Cols[7].Floats[3]); bits != 0x7ff8_0000_dead_beef {
		t.Errorf("NaN bits %#x", bits)
	}
	if !math.Signbit(got.Cols[7].Floats[1]) {
		t.Error("-0.0 lost its sign")
	}
	if ts := got.Cols[13]; got.Cols[12].Ints[0] != b.Cols[12].Ints[0] || ts.Secs[0] != 9223372036 || ts.Nanos[0] != 854775807 || ts.Secs[1] != b.Cols[13].Secs[1] || ts.Nanos[1] != b.Cols[13].Nanos[1] {
		t.Error("time or timestamp not exact")
	}
	// Slices of every shape encode as the rows they show.
	for from := 0; from <= b.N; from++ {
		for to := from; to <= b.N; to++ {
			roundTrip(t, b.Slice(from, to))
		}
	}
}

// DecodeOwned decodes what Decode does, with its string and byte values in
// src's own memory; Decode's are in memory of their own.
func TestDecodeOwnedAliases(t *testing.T) {
	b := everyTypeRows(t)
	enc := AppendBatch(nil, b)
	inside := func(p unsafe.Pointer) bool {
		a := uintptr(unsafe.Pointer(unsafe.SliceData(enc)))
		return uintptr(p) >= a && uintptr(p) < a+uintptr(len(enc))
	}
	owned, rest, err := NewDecoder().DecodeOwned(enc)
	if err != nil || len(rest) != 0 {
		t.Fatalf("DecodeOwned: %v, %d bytes left", err, len(rest))
	}
	if err := batchEqual(b, owned); err != nil {
		t.Fatal(err)
	}
	copied, _, err := NewDecoder().Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	aliased := 0
	for j, c := range owned.Cols {
		if c.Type.Storage() == StoreString && !c.Packed() {
			t.Errorf("column %d: decoded as a vector, not packed", j)
		}
		for i := range c.Len() {
			s := ""
			if c.Type.Storage() == StoreString {
				s = c.Str(i)
			}
			if s == "" {
				continue
			}
			if !inside(unsafe.Pointer(unsafe.StringData(s))) {
				t.Errorf("DecodeOwned: column %d row %d: %q not in the input", j, i, s)
			}
			if inside(unsafe.Pointer(unsafe.StringData(copied.Cols[j].Str(i)))) {
				t.Errorf("Decode: column %d row %d: %q points into the input", j, i, s)
			}
			aliased++
		}
		for i, v := range c.Bins {
			if len(v) > 0 && !inside(unsafe.Pointer(unsafe.SliceData(v))) {
				t.Errorf("DecodeOwned: column %d row %d: bytes not in the input", j, i)
			}
			if len(v) > 0 && cap(v) != len(v) {
				t.Errorf("DecodeOwned: column %d row %d: bytes with room to append into the input", j, i)
			}
			aliased++
		}
	}
	if aliased == 0 {
		t.Fatal("no string or byte values decoded")
	}
}

func TestCodecDecimals(t *testing.T) {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890123456789012", 10)
	decs := []decimal.Decimal{
		{}, decimal.New(0, -2), decimal.New(0, 3), decimal.New(5, 3), decimal.New(-1, -18),
		decimal.New(math.MaxInt64, -4), decimal.New(math.MinInt64, 0),
		decimal.NewFromBigInt(new(big.Int).Lsh(big.NewInt(1), 63), -2),
		decimal.NewFromBigInt(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63)), -2), // fits int64
		decimal.NewFromBigInt(huge, -30), decimal.NewFromBigInt(huge, math.MaxInt32), decimal.NewFromBigInt(huge, math.MinInt32),
		decimal.RequireFromString("3.14159265358979323846264338327950288"),
	}
	for _, scale := range []int{0, 2, 9, 18, 38} {
		s := MustSchema("d", Field{Name: "v", Type: DecimalOf(38, scale)}, Field{Name: "a", Type: ArrayOf(DecimalOf(38, scale))})
		c, a := NewColumn(s.Fields[0].Type, 0), NewColumn(s.Fields[1].Type, 0)
		for _, d := range decs {
			if e := d.Exponent(); e > -100 && e < 100 { // rounding 10^MaxInt32 takes forever
				d = d.Round(int32(scale))
			}
			c.AppendDecimal(d)
			a.AppendAny([]any{d, nil})
		}
		c.AppendNull()
		a.AppendAny([]any{})
		roundTrip(t, NewBatch(s, nil, []*Column{c, a}))
	}
	// Unrounded, exponents as they are.
	s := MustSchema("d", Field{Name: "v", Type: DecimalOf(38, 4)})
	c := NewColumn(s.Fields[0].Type, 0)
	for _, d := range decs {
		c.AppendDecimal(d)
	}
	roundTrip(t, NewBatch(s, nil, []*Column{c}))
}

// TestCodecUnboxed checks that nested values of a Go type that Value does
// not use are converted to the declared type, or become null when they
// cannot be; boxed values of another type than declared stay as they are.
func TestCodecUnboxed(t *testing.T) {
	s := MustSchema("u", Field{Name: "a", Type: ArrayOf(BigInt)}, Field{Name: "m", Type: MapOf(String, RowOf(Field{Name: "x", Type: Double}))})
	a, m := NewColumn(s.Fields[0].Type, 0), NewColumn(s.Fields[1].Type, 0)
	a.AppendAny([]any{3, int32(4), "5", "bad", struct{}{}})
	m.AppendAny(map[string]any{"k": []any{1}, "j": map[string]any{"x": "2.5"}})
	a.AppendAny([]string{"not", "boxed"})
	m.AppendAny(&MapValue{Keys: []any{"short"}})
	b := NewBatch(s, nil, []*Column{a, m})
	enc := AppendBatch(nil, b)
	if EncodedSize(b) != len(enc) {
		t.Fatalf("EncodedSize %d, encoding %d", EncodedSize(b), len(enc))
	}
	got, _, err := NewDecoder().Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	wa, wm := NewColumn(s.Fields[0].Type, 0), NewColumn(s.Fields[1].Type, 0)
	wa.AppendAny([]any{int64(3), int64(4), "5", "bad", nil})
	wm.AppendAny(&MapValue{Keys: []any{"j", "k"}, Values: []any{[]any{2.5}, []any{1.0}}})
	wa.AppendAny(nil)
	wm.AppendAny(&MapValue{})
	want := NewBatch(s, nil, []*Column{wa, wm})
	if err := batchEqual(want, got); err != nil {
		t.Fatal(err)
	}
}

func TestCodecEmptyAndAllNull(t *testing.T) {
	roundTrip(t, mustBuild(t, everyType, nil))

	n := 21
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, len(everyType.Fields))
		rows[i][0] = int64(i)
	}
	b := mustBuild(t, everyType, nil, rows...)
	b.Cols[0].AppendNull() // all of the key null too
	b.Cols[0] = b.Cols[0].Take(make([]int, n))
	for i := range b.Cols[0].Nulls {
		b.Cols[0].Nulls[i] = true
	}
	roundTrip(t, b)

	// No fields: the row count alone.
	none := MustSchema("none")
	got := roundTrip(t, &Batch{Schema: none, N: 1000, Cols: []*Column{}})
	if got.N != 1000 {
		t.Fatalf("N = %d", got.N)
	}
}

func TestCodecKinds(t *testing.T) {
	s := MustSchema("k", Field{Name: "v", Type: Int})
	rows := [][]any{{int64(1)}, {int64(2)}, {int64(3)}}
	allInsert := mustBuild(t, s, []Kind{Insert, Insert, Insert}, rows...)
	allInsert.Kinds = []Kind{Insert, Insert, Insert}
	withKinds := mustBuild(t, s, []Kind{Delete, Insert, UpdateAfter}, rows...)
	if got := roundTrip(t, allInsert); got.Kinds != nil {
		t.Error("all-INSERT kinds were encoded")
	}
	if len(AppendBatch(nil, withKinds)) != len(AppendBatch(nil, allInsert))+3 {
		t.Error("kinds should cost a byte a row")
	}
	roundTrip(t, withKinds)
	roundTrip(t, withKinds.Slice(1, 2)) // an INSERT-only view of a batch with kinds
}

func TestCodecIntWidths(t *testing.T) {
	cases := map[string][]int64{
		"constant": {7, 7, 7},
		"byte":     {-100, 0, 155},
		"2":        {1 << 20, 1<<20 + 65535},
		"3":        {0, 1 << 23, -(1 << 23)},
		"4":        {math.MinInt32, math.MaxInt32},
		"5":        {0, 1 << 39, 12345},
		"6":        {-(1 << 47), 1 << 47, 3},
		"7":        {5, 1 << 55, 1 << 54, 1<<55 + 1, 1<<55 + 2, 1<<55 + 3, 9},
		"8":        {math.MinInt64, math.MaxInt64, 0, -1},
		"wrap":     {math.MaxInt64, math.MaxInt64 - 1, math.MinInt64 + 5},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			s := MustSchema("w", Field{Name: "v", Type: BigInt}, Field{Name: "n", Type: BigInt, Nullable: true})
			a, nc := NewColumn(BigInt, 0), NewColumn(BigInt, 0)
			for i, x := range v {
				a.AppendInt(x)
				if i%2 == 0 {
					nc.AppendNull() // outside the range: must not widen it
				} else {
					nc.AppendInt(x)
				}
			}
			b := NewBatch(s, nil, []*Column{a, nc})
			roundTrip(t, b)
			// Also as the very last bytes of the input, where the decoder
			// cannot load 8 bytes past a value.
			enc := AppendBatch(nil, NewBatch(MustSchema("w", s.Fields[0]), nil, []*Column{a}))
			got, _, err := NewDecoder().Decode(enc[:len(enc):len(enc)])
			if err != nil || fmt.Sprint(got.Cols[0].Ints) != fmt.Sprint(v) {
				t.Fatalf("got %v, %v; want %v", got, err, v)
			}
		})
	}
}

func TestTypeStringRoundTrip(t *testing.T) {
	awkward := []string{"a b", "x`y", "``", "", "日本", "row", "int", "a,b", "a<b>", "1", "_", `q"q`, "c:d", " lead", "tab\t", ")"}
	var fields []Field
	for _, n := range awkward {
		fields = append(fields, Field{Name: n, Type: Int})
	}
	types := []*Type{
		Null, String, Boolean, TinyInt, SmallInt, Int, BigInt, Float, Double, Bytes, Date, Time, Timestamp, TimestampTZ, ArrayOf(TimestampTZ),
		DecimalOf(1, 0), DecimalOf(38, 18), DecimalOf(38, 38),
		ArrayOf(ArrayOf(MapOf(String, Bytes))), MapOf(DecimalOf(5, 2), RowOf()),
		RowOf(fields...), ArrayOf(RowOf(Field{Name: "in ner", Type: RowOf(fields...)}, Field{Name: "m", Type: MapOf(String, RowOf(fields[:3]...))})),
		inner, everyType.Fields[len(everyType.Fields)-1].Type,
	}
	for _, typ := range types {
		s := typ.String()
		got, err := ParseType(s)
		if err != nil {
			t.Errorf("ParseType(%q): %v", s, err)
			continue
		}
		if !got.Equal(typ) || got.String() != s {
			t.Errorf("ParseType(%q) = %s", s, got)
		}
	}
	// The plain forms people write are unchanged.
	if s := RowOf(Field{Name: "a_1", Type: Int}, Field{Name: "B", Type: String}).String(); s != "row<a_1 int, B string>" {
		t.Errorf("String() = %s", s)
	}
	for _, s := range []string{"row<`a b` int, \"c\"\"d\" string>", "row<>", "struct<a: int>"} {
		if _, err := ParseType(s); err != nil {
			t.Errorf("ParseType(%q): %v", s, err)
		}
	}
	for _, s := range []string{"row<`a int>", "row<a int,>", "row<,>"} {
		if _, err := ParseType(s); err == nil {
			t.Errorf("ParseType(%q) succeeded", s)
		}
	}
}

func TestCodecStream(t *testing.T) {
	b := everyTypeRows(t)
	other := benchBatch(10)
	var buf []byte
	for range 3 {
		buf = AppendBatch(buf, b)
		buf = AppendBatch(buf, other)
	}
	d := NewDecoder()
	var schemas []*Schema
	for i := 0; len(buf) > 0; i++ {
		got, rest, err := d.Decode(buf)
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		want := b
		if i%2 == 1 {
			want = other
		}
		if err := batchEqual(want, got); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		schemas = append(schemas, got.Schema)
		buf = rest
	}
	if len(schemas) != 6 || schemas[0] != schemas[2] || schemas[1] != schemas[5] || schemas[0] == schemas[1] {
		t.Error("schemas not cached")
	}
}

func TestDecodeTruncatedAndCorrupt(t *testing.T) {
	for _, b := range []*Batch{everyTypeRows(t), benchBatch(100), mustBuild(t, everyType, nil)} {
		enc := AppendBatch(nil, b)
		for k := 0; k < len(enc); k++ {
			// A copy of exactly k bytes, so that reading past it panics
			// rather than reading the rest of enc.
			_, _, err := NewDecoder().Decode(bytes.Clone(enc[:k]))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%d of %d bytes: err = %v, want ErrCorrupt", k, len(enc), err)
			}
		}
		// Any single byte changed: an error or a batch, never a panic.
		for k := range enc {
			for _, x := range []byte{0, 1, 0x7f, 0x80, 0xff, enc[k] ^ 0x55} {
				bad := bytes.Clone(enc)
				bad[k] = x
				NewDecoder().Decode(bad)
			}
		}
	}
	for _, v := range []byte{0, codecVersion + 1} {
		if _, _, err := NewDecoder().Decode([]byte{v}); !errors.Is(err, ErrVersion) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	// Hostile counts do not allocate: a billion rows of a tiny input.
	enc := AppendBatch(nil, benchBatch(1))
	bad := append([]byte{}, enc[:1+1+int(enc[1])]...)
	bad = append(bad, 0x80, 0x94, 0xeb, 0xdc, 0x03) // 1e9
	bad = append(bad, enc[len(bad)-4:]...)
	if _, _, err := NewDecoder().Decode(bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a billion rows: %v", err)
	}
}

func TestSplitBySize(t *testing.T) {
	s := MustSchema("split", Field{Name: "id", Type: BigInt}, Field{Name: "s", Type: String, Nullable: true},
		Field{Name: "a", Type: ArrayOf(String)}, Field{Name: "d", Type: DecimalOf(38, 10), Nullable: true})
	var rows [][]any
	var kinds []Kind
	for i := range 500 {
		var str any = strings.Repeat("x", i%37*i%101)
		if i%9 == 0 {
			str = nil
		}
		dec := any(fmt.Sprintf("%d.%d", i*7919, i))
		if i%5 == 0 {
			dec = nil
		}
		rows = append(rows, []any{int64(i * 1000), str, []any{fmt.Sprint(i), strings.Repeat("y", i%13)}, dec})
		kinds = append(kinds, Kind(i%4))
	}
	rows[250][1] = strings.Repeat("big", 3000) // 9 KB, over the smaller limits
	b := mustBuild(t, s, kinds, rows...)
	total := EncodedSize(b)
	for _, limit := range []int{1, 100, 1000, 4096, 20000, total - 1, total, 1 << 20} {
		parts := SplitBySize(b, limit)
		next := 0
		for _, p := range parts {
			if p.N == 0 {
				t.Fatalf("limit %d: an empty part", limit)
			}
			if size := len(AppendBatch(nil, p)); size > limit && p.N > 1 {
				t.Fatalf("limit %d: a part of %d rows encodes to %d bytes", limit, p.N, size)
			}
			if err := batchEqual(b.Slice(next, next+p.N), roundTrip(t, p)); err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			next += p.N
		}
		if next != b.N {
			t.Fatalf("limit %d: parts hold %d rows of %d", limit, next, b.N)
		}
		if limit >= total && len(parts) != 1 {
			t.Fatalf("limit %d: %d parts for a batch that fits", limit, len(parts))
		}
		if limit >= 4096 && len(parts) > 2*total/limit+2 {
			t.Fatalf("limit %d: %d parts for %d bytes", limit, len(parts), total)
		}
	}
	if parts := SplitBySize(mustBuild(t, s, nil), 1); len(parts) != 1 || parts[0].N != 0 {
		t.Fatalf("empty batch: %v", parts)
	}
}

// TestCodecAllocs checks that fixed-width columns cost no allocation per row.
func TestCodecAllocs(t *testing.T) {
	s := MustSchema("f", Field{Name: "id", Type: BigInt}, Field{Name: "v", Type: Double}, Field{Name: "ok", Type: Boolean, Nullable: true})
	allocs := func(n int) (enc, dec float64) {
		bl := NewBuilder(s, n)
		for i := range n {
			bl.Col(0).AppendInt(int64(i))
			bl.Col(1).AppendFloat(float64(i))
			if i%3 == 0 {
				bl.Col(2).AppendNull()
			} else {
				bl.Col(2).AppendBool(i%2 == 0)
			}
			bl.EndRow(Insert)
		}
		b := bl.Build()
		buf := make([]byte, 0, EncodedSize(b))
		enc = testing.AllocsPerRun(20, func() { AppendBatch(buf[:0], b) })
		data := AppendBatch(nil, b)
		d := NewDecoder()
		dec = testing.AllocsPerRun(20, func() {
			if _, _, err := d.Decode(data); err != nil {
				t.Fatal(err)
			}
		})
		return enc, dec
	}
	e1, d1 := allocs(16)
	e2, d2 := allocs(4096)
	if e2 > e1 || d2 > d1 {
		t.Errorf("allocations grow with rows: encode %v→%v, decode %v→%v", e1, e2, d1, d2)
	}
	if d2 > 10 {
		t.Errorf("decode allocates %v times a batch", d2)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(AppendBatch(nil, everyTypeRows(f)))
	f.Add(AppendBatch(nil, benchBatch(20)))
	f.Add(AppendBatch(nil, mustBuild(f, everyType, nil)))
	f.Add(AppendBatch(AppendBatch(nil, benchBatch(3)), benchBatch(2)))
	// Each field alone, so that mutations land in its values more often.
	every := everyTypeRows(f)
	for j, fl := range everyType.Fields {
		f.Add(AppendBatch(nil, NewBatch(MustSchema("one", fl), every.Kinds, []*Column{every.Cols[j]})))
	}
	tz := tzBatch(f) // timestamp_tz columns and nested values (version 3)
	f.Add(AppendBatch(nil, tz))
	for j, fl := range tzSchema.Fields {
		f.Add(AppendBatch(nil, NewBatch(MustSchema("one", fl), nil, []*Column{tz.Cols[j]})))
	}
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder()
		for range 4 {
			b, rest, err := d.Decode(data)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
					t.Fatalf("error %v is neither ErrCorrupt nor ErrVersion", err)
				}
				return
			}
			if len(rest) >= len(data) {
				t.Fatalf("Decode consumed nothing")
			}
			owned, _, err := NewDecoder().DecodeOwned(bytes.Clone(data))
			if err != nil {
				t.Fatalf("DecodeOwned fails where Decode does not: %v", err)
			}
			if err := batchEqual(b, owned); err != nil {
				t.Fatalf("DecodeOwned: %v", err)
			}
			// What decodes re-encodes to the same batch.
			enc := AppendBatch(nil, b)
			if EncodedSize(b) != len(enc) {
				t.Fatalf("EncodedSize %d, encoding %d", EncodedSize(b), len(enc))
			}
			again, tail, err := NewDecoder().Decode(enc)
			if err != nil || len(tail) != 0 {
				t.Fatalf("re-decoding: %v, %d bytes left", err, len(tail))
			}
			if err := batchEqual(b, again); err != nil {
				t.Fatalf("re-decoding: %v", err)
			}
			data = rest
		}
	})
}

var benchSchema = MustSchema("bench", Field{Name: "id", Type: BigInt}, Field{Name: "name", Type: String}, Field{Name: "score", Type: Double})

// benchBatch is n rows of (id bigint, name string, score double): ids from
// an auto-increment key, names of 8 to 16 bytes, scores spread wide.
func benchBatch(n int) *Batch {
	bl := NewBuilder(benchSchema, n)
	for i := range n {
		bl.Col(0).AppendInt(1_000_000_000 + int64(i))
		bl.Col(1).AppendString(fmt.Sprintf("name-%d%s", i, strings.Repeat("_", i%7)))
		bl.Col(2).AppendFloat(float64(i) * 1.37e-3 * float64(i%97))
		bl.EndRow(Insert)
	}
	return bl.Build()
}

func BenchmarkEncode(b *testing.B) {
	batch := benchBatch(4096)
	buf := AppendBatch(nil, batch)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendBatch(buf[:0], batch)
	}
	b.ReportMetric(float64(batch.N)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkDecode(b *testing.B) {
	batch := benchBatch(4096)
	buf := AppendBatch(nil, batch)
	d := NewDecoder()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := d.Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch.N)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkDecodeRecycled is a cross-node channel's decode: into recycled
// vectors, strings packed and aliasing the input, released after use.
func BenchmarkDecodeRecycled(b *testing.B) {
	batch := benchBatch(4096)
	buf := AppendBatch(nil, batch)
	d := NewDecoder().Recycle()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		out, _, err := d.DecodeOwned(buf)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(batch.N)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkEncodedSize(b *testing.B) {
	batch := benchBatch(4096)
	for b.Loop() {
		EncodedSize(batch)
	}
}
