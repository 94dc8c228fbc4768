package localfile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// recycleCSV writes n rows of id,name,score,city (a header first) and
// returns the file's folder; row i's name is name(i), its city city(i).
func recycleCSV(t testing.TB, n int) string {
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("id,name,score,city\n")
	for i := range n {
		fmt.Fprintf(&sb, "%d,%s,%d.5,%s\n", i, recycleName(i), i%100, recycleCity(i))
	}
	writeFile(t, filepath.Join(dir, "in.csv"), sb.String())
	return dir
}

func recycleName(i int) string { return fmt.Sprintf("n%07d", i) }
func recycleCity(i int) string { return []string{"Berlin", "Lyon", "", "Osaka"}[i%4] }

func recycleSource(t testing.TB, dir string) *source {
	return newTestSource(t, "path = "+q(dir)+"\nfile_format_type = csv\nskip_header_row_number = 1\n"+
		"schema { fields { id = bigint, name = string, score = double, city = string } }")
}

// releasing hands every batch back at once, as the engine does once its
// operators are done (the sink borrows).
type releasing struct {
	size, rows, recycled int
}

func (c *releasing) Emit(b *row.Batch) {
	c.rows += b.Len()
	if b.Recycled() {
		c.recycled++
	}
	b.Release()
}
func (c *releasing) BatchSize() int { return c.size }

// A csv reader's batches are recycled: in steady state a batch costs no
// allocation of vectors, only its share of the arenas that string values
// are copied into (about 12 bytes of strings a row here: a 16 KiB arena
// per some 1 400 rows).
func TestCSVReadRecyclesBatches(t *testing.T) {
	const rows = 200_000
	src := recycleSource(t, recycleCSV(t, rows))
	r, rc := openReader(t, src, splitsFor(t, src, 1)[0])
	out := &releasing{size: 4096}
	poll := func() {
		if err := r.PollNext(out); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		poll() // the builder's first vectors, the reader's buffers
	}
	arenas := 4096*12.0/arenaSize + 0.5
	if allocs := testing.AllocsPerRun(20, poll); allocs > arenas {
		t.Errorf("a 4096-row batch takes %.1f allocations, want at most %.1f (the arenas' share)", allocs, arenas)
	}
	for rc.ended == 0 {
		poll()
	}
	if out.rows != rows || out.recycled*4096 < rows {
		t.Errorf("read %d rows in %d recycled batches, want %d rows, all recycled", out.rows, out.recycled, rows)
	}
}

// String values are copied out of the read buffer (only they are: the
// rest of a record is parsed in place), so they stay right after the
// buffer has been refilled many times, and while batches are recycled.
func TestCSVStringsOutliveTheReadBuffer(t *testing.T) {
	const rows = 150_000 // several refills of the 1 MiB buffer
	src := recycleSource(t, recycleCSV(t, rows))
	r, rc := openReader(t, src, splitsFor(t, src, 1)[0])
	out := &collector{size: 1000}
	recycler := &releasing{size: 1000} // alternate polls recycle, so vectors are reused
	for i := 0; rc.ended == 0; i++ {
		var c interface {
			Emit(*row.Batch)
			BatchSize() int
		} = out
		if i%2 == 1 {
			c = recycler
		}
		if err := r.PollNext(c); err != nil {
			t.Fatal(err)
		}
	}
	seen := 0
	for bi, b := range out.batches {
		// Kept batches are the even polls: 1000 rows each, in order.
		for k := 0; k < b.Len(); k++ {
			i := 2*bi*1000 + k
			name, city := b.Cols[1].Str(k), b.Cols[3]
			if name != recycleName(i) {
				t.Fatalf("row %d: name %q, want %q", i, name, recycleName(i))
			}
			if want := recycleCity(i); want == "" && !city.IsNull(k) || want != "" && city.Str(k) != want {
				t.Fatalf("row %d: city %q (null %v), want %q", i, city.Str(k), city.IsNull(k), want)
			}
			seen++
		}
	}
	if seen+recycler.rows != rows {
		t.Fatalf("checked %d rows and recycled %d, want %d in all", seen, recycler.rows, rows)
	}
}
