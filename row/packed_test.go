package row

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// packedBatch is a batch of (id bigint, name string) with nulls, empty
// strings and values of 128 bytes and more (two-byte lengths), and the
// same batch decoded, whose name column is packed.
func packedBatch(t *testing.T, n int) (vector, packed *Batch) {
	t.Helper()
	s := &Schema{TableID: "t", Fields: []Field{{Name: "id", Type: BigInt}, {Name: "name", Type: String, Nullable: true}}}
	ids, names := NewColumn(BigInt, n), NewColumn(String, n)
	for i := range n {
		ids.AppendInt(int64(i))
		switch {
		case i%7 == 3:
			names.AppendNull()
		case i%5 == 1:
			names.AppendString("")
		case i%11 == 2:
			names.AppendString(strings.Repeat("long", 40+i))
		default:
			names.AppendString("n" + strings.Repeat("x", i%9))
		}
	}
	vector = NewBatch(s, nil, []*Column{ids, names})
	packed, rest, err := NewDecoder().Decode(AppendBatch(nil, vector))
	if err != nil || len(rest) != 0 {
		t.Fatalf("decode: %v, %d bytes left", err, len(rest))
	}
	if !packed.Cols[1].Packed() || packed.Cols[1].Strs != nil && len(packed.Cols[1].Strs) != 0 {
		t.Fatal("a decoded string column is not packed")
	}
	return vector, packed
}

func columnValues(c *Column) []any {
	out := make([]any, c.Len())
	for i := range out {
		out[i] = c.Value(i)
	}
	return out
}

func TestPackedColumnReadsAsTheVector(t *testing.T) {
	vector, packed := packedBatch(t, 100)
	v, p := vector.Cols[1], packed.Cols[1]
	if p.Len() != v.Len() {
		t.Fatalf("packed: %d values, want %d", p.Len(), v.Len())
	}
	for i := range v.Len() {
		if p.Str(i) != v.Str(i) || p.IsNull(i) != v.IsNull(i) {
			t.Fatalf("value %d: %q (null %v), want %q (null %v)", i, p.Str(i), p.IsNull(i), v.Str(i), v.IsNull(i))
		}
	}
	if !slices.Equal(p.Strings(), v.Strs) {
		t.Error("Strings differs from the vector")
	}
	if got, want := columnValues(p.Slice(17, 60)), columnValues(v.Slice(17, 60)); !slices.Equal(got, want) {
		t.Errorf("Slice(17, 60): %q, want %q", got, want)
	}
	idx := []int{99, 0, 3, 3, 42, 13}
	if got, want := columnValues(p.Take(idx)), columnValues(v.Take(idx)); !slices.Equal(got, want) {
		t.Errorf("Take: %q, want %q", got, want)
	}
	tr := p.TakeRecycled(idx)
	if tr.Packed() || !slices.Equal(columnValues(tr), columnValues(v.Take(idx))) {
		t.Errorf("TakeRecycled: packed %v, %q", tr.Packed(), columnValues(tr))
	}
	if u := p.UnpackedRecycled(); u.Packed() || !slices.Equal(u.Strs, v.Strs) || !slices.Equal(u.Nulls, v.Nulls) {
		t.Errorf("unpacked: packed %v, values differ", u.Packed())
	}
	if p.ByteSize() != v.ByteSize() {
		t.Errorf("ByteSize %d, vector's %d", p.ByteSize(), v.ByteSize())
	}
}

func TestPackedColumnEncodesAsTheVector(t *testing.T) {
	vector, packed := packedBatch(t, 300)
	want := AppendBatch(nil, vector)
	if got := AppendBatch(nil, packed); !bytes.Equal(got, want) {
		t.Fatalf("a packed batch encodes to %d bytes unlike its vector's %d", len(got), len(want))
	}
	if EncodedSize(packed) != EncodedSize(vector) {
		t.Errorf("EncodedSize %d, vector's %d", EncodedSize(packed), EncodedSize(vector))
	}
	// A slice of a packed column starts past its text's first byte.
	vs, ps := vector.Slice(101, 250), packed.Slice(101, 250)
	if !bytes.Equal(AppendBatch(nil, ps), AppendBatch(nil, vs)) {
		t.Error("a slice of a packed batch encodes unlike the vector's slice")
	}
	parts := SplitBySize(packed, 2000)
	if len(parts) < 2 {
		t.Fatalf("SplitBySize: %d parts", len(parts))
	}
	n := 0
	for _, part := range parts {
		if err := batchEqual(vector.Slice(n, n+part.N), part); err != nil {
			t.Fatalf("part at %d: %v", n, err)
		}
		n += part.N
	}
}

func TestAppendingToAPackedColumnUnpacksIt(t *testing.T) {
	vector, packed := packedBatch(t, 20)
	c := packed.Cols[1].Slice(0, 20)
	c.AppendString("more")
	c.AppendNull()
	if c.Packed() || c.Len() != 22 {
		t.Fatalf("after appends: packed %v, %d values", c.Packed(), c.Len())
	}
	want := append(columnValues(vector.Cols[1]), "more", nil)
	if got := columnValues(c); !slices.Equal(got, want) {
		t.Errorf("after appends: %q, want %q", got, want)
	}
	g := packed.Cols[1].Slice(0, 3)
	g.GrowStrings(2)[1] = "grown"
	if g.Packed() || g.Str(4) != "grown" || g.Str(0) != vector.Cols[1].Str(0) {
		t.Errorf("GrowStrings on a packed column: %q", columnValues(g))
	}
}

// A decoder that recycles reuses a released packed column's bounds: no
// allocation for a batch of strings without nulls in steady state (a null
// bitmap is allocated per batch), and nothing of the released batch kept.
func TestRecycledPackedColumnsReuseTheirBounds(t *testing.T) {
	vector, _ := packedBatch(t, 512)
	vector.Cols[1] = &Column{Type: String, Strs: vector.Cols[1].Strs} // its nulls read as ""
	enc := AppendBatch(nil, vector)
	d := NewDecoder().Recycle()
	first, _, err := d.DecodeOwned(enc)
	if err != nil {
		t.Fatal(err)
	}
	text, p := first.Cols[1].Text, first.Cols[1]
	first.Release()
	if p.Packed() || p.Text != "" {
		t.Fatalf("a released packed column keeps its text (%d bytes) or bounds", len(text))
	}
	allocs := testing.AllocsPerRun(20, func() {
		b, _, err := d.DecodeOwned(enc)
		if err != nil {
			t.Fatal(err)
		}
		if b.Cols[1].Str(511) != vector.Cols[1].Str(511) {
			t.Fatalf("value 511: %q", b.Cols[1].Str(511))
		}
		b.Release()
	})
	if allocs > 0 {
		t.Errorf("decoding a recycled batch with a string column: %.0f allocations, want 0", allocs)
	}
}

// Every short length takes its own path through appendStrings (words of 4
// or 8 bytes, or a copy): each decodes to what was written.
func TestStringsOfEveryShortLength(t *testing.T) {
	for _, longest := range []int{127, 128} { // one-byte lengths, then uvarints
		c := NewColumn(String, longest+1)
		for k := range longest + 1 {
			b := make([]byte, k)
			for i := range b {
				b[i] = byte('a' + (i*7+k)%26)
			}
			c.AppendString(string(b))
		}
		s := &Schema{TableID: "t", Fields: []Field{{Name: "s", Type: String}}}
		want := NewBatch(s, nil, []*Column{c})
		got, _, err := NewDecoder().Decode(AppendBatch(nil, want))
		if err != nil {
			t.Fatal(err)
		}
		if err := batchEqual(want, got); err != nil {
			t.Fatalf("lengths 0..%d: %v", longest, err)
		}
	}
}
