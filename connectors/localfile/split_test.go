package localfile

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

var numbered = row.MustSchema("n", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "s", Type: row.String})

func numberedRows(t testing.TB, n int) *row.Batch {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), strings.Repeat("x", i%13) + fmt.Sprint(i)}
	}
	return batchOf(t, numbered, rows...)
}

// newReader makes a reader of s that never sleeps.
func testReader(t testing.TB, s *source) (*reader, *readerCtx) {
	rc := &readerCtx{}
	rd, err := s.CreateReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	r := rd.(*reader)
	r.sleep = func(time.Duration) {}
	return r, rc
}

func TestSnapshotMidFileRestoresExactly(t *testing.T) {
	defer func(n int) { parquetRowGroupRows = n }(parquetRowGroupRows)
	parquetRowGroupRows = 16 // several row groups: restores seek across them
	for _, tc := range []struct{ format, sinkExtra, srcExtra string }{
		{"text", "", ""},
		{"csv", "", ""},
		{"json", "", ""},
		{"parquet", "", ""},
		{"csv", "compress_codec = gzip", "compress_codec = gzip"},
		{"text", "compress_codec = lzo", "compress_codec = lzo"},
		{"json", "compress_codec = lzo", "compress_codec = lzo"},
		{"xml", "xml_use_attr_format = false", "xml_row_tag = RECORD\nxml_use_attr_format = false"},
		{"excel", "", "skip_header_row_number = 1"},
	} {
		t.Run(tc.format+" "+tc.sinkExtra, func(t *testing.T) {
			dir := t.TempDir()
			k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = "+tc.format+"\n"+tc.sinkExtra, numbered)
			all := numberedRows(t, 100)
			writeAndCommit(t, k, task(0, 0), 1, all.Slice(0, 40), all.Slice(40, 100))
			src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = "+tc.format+"\n"+tc.srcExtra+"\nschema { fields { id = bigint, s = string } }")
			splits := splitsFor(t, src, 1)[0]

			r, _ := testReader(t, src)
			r.AddSplits(splits)
			out := &collector{size: 7}
			for i := 0; i < 3; i++ {
				if err := r.PollNext(out); err != nil {
					t.Fatal(err)
				}
			}
			state, err := r.SnapshotState(1)
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			if len(state) != 1 {
				t.Fatalf("state: %d splits", len(state))
			}
			rest, err := readSplits(t, src, state, 11)
			if err != nil {
				t.Fatal(err)
			}
			got := append(out.rows(), rest...)
			want := make([][]any, all.Len())
			for i := range want {
				want[i] = all.Row(i)
			}
			compareRows(t, numbered.Names(), got, want)
		})
	}
}

func TestBlockSplitsPartitionBigFiles(t *testing.T) {
	defer func(n int64) { blockSize = n }(blockSize)
	blockSize = 97
	for _, tc := range []struct {
		name, format, extra string
		line                func(i int) string
		sep                 string
	}{
		{"text", "text", "", func(i int) string { return fmt.Sprintf("%d\x01%s", i, strings.Repeat("t", i%17)) }, "\n"},
		{"text custom delimiter", "text", `row_delimiter = "||"`, func(i int) string { return fmt.Sprintf("%d\x01v%d", i, i) }, "||"},
		{"json", "json", "", func(i int) string { return fmt.Sprintf(`{"id": %d, "s": "%s"}`, i, strings.Repeat("j", i%11)) }, "\n"},
		{"csv with quoted newlines", "csv", "skip_header_row_number = 1", func(i int) string {
			if i == 0 {
				return "id,s"
			}
			return fmt.Sprintf("%d,\"line\n%d,\"\"%s\"\"\"", i, i, strings.Repeat("q", i%7))
		}, "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var b strings.Builder
			const n = 300
			for i := 0; i < n; i++ {
				b.WriteString(tc.line(i))
				b.WriteString(tc.sep)
			}
			writeFile(t, filepath.Join(dir, "big"), b.String())
			small := tc.line(1000) + tc.sep
			if tc.format == "csv" {
				small = tc.line(0) + tc.sep + small // its header
			}
			writeFile(t, filepath.Join(dir, "small"), small)
			src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = "+tc.format+"\n"+tc.extra+"\nschema { fields { id = bigint, s = string } }")
			assigned := splitsFor(t, src, 3)
			total := 0
			for _, ss := range assigned {
				total += len(ss)
			}
			if total < 10 {
				t.Fatalf("only %d splits for a %d-byte file", total, b.Len())
			}
			// Round-robin in split-id order: reader r has splits r, r+3, ...
			for r := 0; r < 3; r++ {
				for k := 1; k < len(assigned[r]); k++ {
					if assigned[r][k-1].ID >= assigned[r][k].ID {
						t.Errorf("reader %d: splits out of order: %s, %s", r, assigned[r][k-1].ID, assigned[r][k].ID)
					}
				}
			}
			seen := map[int64]int{}
			for r := 0; r < 3; r++ {
				var rows [][]any
				var err error
				if r == 0 {
					// Reader 0 fails over mid-block and is restored.
					rows, err = readWithRestore(t, src, assigned[r], 3)
				} else {
					rows, err = readSplits(t, src, assigned[r], 10)
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, rw := range rows {
					seen[rw[0].(int64)]++
				}
			}
			first := 0
			if tc.format == "csv" {
				first = 1
			}
			for i := first; i < n; i++ {
				if seen[int64(i)] != 1 {
					t.Errorf("row %d read %d times", i, seen[int64(i)])
				}
			}
			if seen[1000] != 1 || len(seen) != n-first+1 {
				t.Errorf("read %d distinct rows, want %d", len(seen), n-first+1)
			}
		})
	}
}

// readWithRestore polls a reader a few times, snapshots it and reads the
// rest with a new reader restored from the snapshot.
func readWithRestore(t *testing.T, src *source, splits []connectors.Split, polls int) ([][]any, error) {
	t.Helper()
	r, _ := testReader(t, src)
	r.AddSplits(splits)
	out := &collector{size: 5}
	for i := 0; i < polls; i++ {
		if err := r.PollNext(out); err != nil {
			return nil, err
		}
	}
	state, err := r.SnapshotState(1)
	if err != nil {
		return nil, err
	}
	r.Close()
	rest, err := readSplits(t, src, state, 10)
	return append(out.rows(), rest...), err
}

func TestEnumeratorRoundRobinAndState(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"c.txt", "a.txt", "d.txt", "b.txt", "e.txt"} {
		writeFile(t, filepath.Join(dir, name), name+"\n")
	}
	src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = text")
	ec := newEnumCtx(2)
	en, _ := src.CreateEnumerator(ec, nil)
	if err := en.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	en.Run() // nobody registered yet
	if len(ec.assigned) != 0 {
		t.Fatalf("assigned before registration: %v", ec.assigned)
	}
	en.RegisterReader(1)
	state, _ := en.SnapshotState(1)
	ids := func(ss []connectors.Split) []string {
		var out []string
		for _, s := range ss {
			out = append(out, filepath.Base(s.ID))
		}
		return out
	}
	if got := ids(ec.assigned[1]); fmt.Sprint(got) != "[b.txt d.txt]" || ec.noMore[1] != 1 {
		t.Fatalf("reader 1 got %v (no more %d)", got, ec.noMore[1])
	}
	// A restored enumerator still owes reader 0 its splits.
	ec2 := newEnumCtx(2, 0)
	en2, err := src.CreateEnumerator(ec2, state)
	if err != nil {
		t.Fatal(err)
	}
	en2.Open(context.Background())
	en2.Run()
	if got := ids(ec2.assigned[0]); fmt.Sprint(got) != "[a.txt c.txt e.txt]" || ec2.noMore[0] != 1 {
		t.Fatalf("reader 0 got %v", got)
	}
	// Splits of a failed reader come back, positions included, to that reader.
	r, _ := testReader(t, src)
	r.AddSplits(ec.assigned[1])
	r.PollNext(&collector{size: 10})
	back, _ := r.SnapshotState(2)
	if err := en2.AddSplitsBack(back, 1); err != nil {
		t.Fatal(err)
	}
	if len(ec2.assigned[1]) != 0 {
		t.Fatal("assigned to an unregistered reader")
	}
	en2.RegisterReader(1)
	if got := ids(ec2.assigned[1]); fmt.Sprint(got) != "[d.txt]" {
		t.Fatalf("reader 1 got back %v", got)
	}
	rows, err := readSplits(t, src, ec2.assigned[1], 10)
	if err != nil || len(rows) != 1 || rows[0][0] != "d.txt" {
		t.Fatalf("rows %v, %v", rows, err)
	}
}
