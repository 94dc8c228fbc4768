package row

import (
	"strings"
	"testing"
)

func recycleSchema() *Schema {
	return MustSchema("t", Field{Name: "id", Type: BigInt}, Field{Name: "name", Type: String}, Field{Name: "score", Type: Double})
}

func buildRecycled(bl *Builder, from, n int) *Batch {
	for i := from; i < from+n; i++ {
		bl.Col(0).AppendInt(int64(i))
		bl.Col(1).AppendString("n" + strings.Repeat("x", i%3))
		bl.Col(2).AppendFloat(float64(i) / 2)
		bl.EndRow(Insert)
	}
	return bl.Build()
}

// A recycled builder's vectors come back to it once the batch is released,
// and only then: a batch with a reader left keeps its own.
func TestRecycledBuilderReusesVectorsAfterLastRelease(t *testing.T) {
	bl := NewBuilder(recycleSchema(), 64, Recycling())
	a := buildRecycled(bl, 0, 64)
	if !a.Recycled() {
		t.Fatal("a recycling builder built a batch that is not recycled")
	}
	ids := &a.Cols[0].Ints[:1][0]
	a.Retain() // a second reader
	a.Release()
	b := buildRecycled(bl, 100, 64)
	if &b.Cols[0].Ints[:1][0] == ids {
		t.Fatal("a batch with a reader left gave its vectors to the next batch")
	}
	if a.Cols[0].Ints[5] != 5 || a.Cols[1].Strs[5] != "nxx" || a.N != 64 {
		t.Fatalf("a batch still read was changed: id %d name %q", a.Cols[0].Ints[5], a.Cols[1].Strs[5])
	}
	freed := map[*int64]bool{ids: true, &b.Cols[0].Ints[:1][0]: true}
	a.Release()
	b.Release()
	// Both batches' columns are free now; the next builds reuse them.
	seen := false
	for range 3 {
		c := buildRecycled(bl, 0, 64)
		seen = seen || freed[&c.Cols[0].Ints[:1][0]]
		c.Release()
	}
	if !seen {
		t.Fatal("released vectors never came back to the builder")
	}
}

func TestReleaseMoreThanRetainedPanics(t *testing.T) {
	b := buildRecycled(NewBuilder(recycleSchema(), 8, Recycling()), 0, 8)
	b.Release()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "released more often") {
			t.Fatalf("recover() = %v, want the over-release panic", r)
		}
	}()
	b.Release()
}

// A batch that shares another's columns holds it: the shared vectors stay
// valid until the sharer is released, whatever happens to the original's
// own reference.
func TestHoldKeepsSharedColumns(t *testing.T) {
	bl := NewBuilder(recycleSchema(), 16, Recycling())
	in := buildRecycled(bl, 0, 16)
	out := NewRecycledBatch(in.Schema, nil, in.N)
	copy(out.Cols, in.Cols)
	out.Hold(in)
	out.Hold(in) // twice is once
	in.Release()
	for range 4 { // churn the pool
		buildRecycled(bl, 500, 16).Release()
	}
	if got := out.Cols[0].Ints[7]; got != 7 {
		t.Fatalf("a held batch's column was recycled: id = %d, want 7", got)
	}
	out.Release()
	if in.rc.refs.Load() != 0 {
		t.Fatalf("the held batch has %d references left after its holder went", in.rc.refs.Load())
	}
}

// Release poisons released values in race builds, so a reader that was not
// done sees wrong rows; without the race detector it clears pointers.
func TestReleasedColumnsKeepNoStrings(t *testing.T) {
	bl := NewBuilder(recycleSchema(), 8, Recycling())
	b := buildRecycled(bl, 0, 8)
	strs := b.Cols[1].Strs[:8]
	b.Release()
	for i, s := range strs {
		if s != "" && !(poisonReleased && s == "\x00released") {
			t.Fatalf("released string %d is still %q", i, s)
		}
	}
}

// A vector last used for fewer values than it once held (a filter's
// output) keeps no strings past its length either: a pooled column would
// keep their buffers alive.
func TestReleasedColumnsKeepNoStringsPastTheirLength(t *testing.T) {
	b := buildRecycled(NewBuilder(recycleSchema(), 8, Recycling()), 0, 8)
	c := b.Cols[1]
	all := c.Strs[:8]
	c.Strs = c.Strs[:3] // reused for 3 of the 8 rows
	b.N = 3
	b.Release()
	for i, s := range all {
		if s != "" && !(poisonReleased && i < 3 && s == "\x00released") {
			t.Fatalf("released string %d is still %q", i, s)
		}
	}
}

func TestBatchesThatAreNotRecycledIgnoreReferences(t *testing.T) {
	b := buildRecycled(NewBuilder(recycleSchema(), 4), 0, 4)
	if b.Recycled() {
		t.Fatal("a plain builder built a recycled batch")
	}
	b.Retain()
	b.Release()
	b.Release()
	b.Release()
	if b.Cols[0].Ints[3] != 3 {
		t.Fatal("a batch that is not recycled was changed by Release")
	}
}

func TestTakeRecycled(t *testing.T) {
	b := buildRecycled(NewBuilder(recycleSchema(), 10), 0, 10)
	b.Cols[1].AppendNull()
	idx := []int{1, 4, 10}
	for j, c := range b.Cols[:1] {
		got, want := c.TakeRecycled(idx[:2]), c.Take(idx[:2])
		for k := range 2 {
			if got.Value(k) != want.Value(k) {
				t.Fatalf("column %d row %d: %v, want %v", j, k, got.Value(k), want.Value(k))
			}
		}
	}
	got := b.Cols[1].TakeRecycled(idx)
	if got.Len() != 3 || !got.IsNull(2) || got.Value(1) != "nx" {
		t.Fatalf("TakeRecycled with a null: %v %v %v", got.Value(0), got.Value(1), got.Value(2))
	}
}

func TestApproxByteSize(t *testing.T) {
	b := buildRecycled(NewBuilder(recycleSchema(), 3000), 0, 3000)
	exact, approx := b.ByteSize(), b.ApproxByteSize()
	if approx < exact*9/10 || approx > exact*11/10 {
		t.Fatalf("ApproxByteSize %d is more than 10%% off ByteSize %d", approx, exact)
	}
	small := buildRecycled(NewBuilder(recycleSchema(), 5), 0, 5)
	if small.ApproxByteSize() != small.ByteSize() {
		t.Fatal("a short column is not measured exactly")
	}
}
