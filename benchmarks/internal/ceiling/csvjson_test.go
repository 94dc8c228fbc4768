package ceiling

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stactor/stactor/benchmarks/internal/inproc"
	_ "github.com/stactor/stactor/connectors/localfile"
	_ "github.com/stactor/stactor/connectors/sql"
)

// TestCSVToJSONMatchesStactor runs workload 2's job on the engine and the
// loop over the same small file: the loop's output files, concatenated in
// order, must be stactor's output bytes for any number of goroutines.
func TestCSVToJSONMatchesStactor(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	const rows = 20_000
	kept, err := WriteCSV(in, rows)
	if err != nil {
		t.Fatal(err)
	}
	stOut := filepath.Join(dir, "stactor")
	inproc.Run(t, inproc.Start(t), CSVJob(in, stOut, 2))
	want := concat(t, stactorFiles(t, stOut))
	if n := int64(bytes.Count(want, []byte{'\n'})); n != kept {
		t.Fatalf("stactor wrote %d lines, want %d", n, kept)
	}
	for _, workers := range []int{1, 2, 3} {
		out := t.TempDir()
		res, err := CSVToJSON(in, out, workers)
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if res.Rows != rows || res.Kept != kept {
			t.Errorf("%d workers: read %d rows and kept %d, want %d and %d", workers, res.Rows, res.Kept, rows, kept)
		}
		if got := concat(t, res.Files); !bytes.Equal(got, want) {
			t.Errorf("%d workers: output differs from stactor's at byte %d of %d", workers, firstDiff(got, want), len(want))
		}
	}
}

func TestCSVToJSONErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("id,name,score,city\n1,ab,60.5,Lima\n2,cd,x,Lima\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := CSVToJSON(in, dir, 1)
	if err == nil || !strings.Contains(err.Error(), "line at byte 34") {
		t.Fatalf("err = %v, want the bad score's line at byte 34", err)
	}
	if err := os.WriteFile(in, []byte("id,name,score,city\n1,ab\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CSVToJSON(in, dir, 1); err == nil || !strings.Contains(err.Error(), "2 fields, want 4") {
		t.Fatalf("err = %v, want a field count error", err)
	}
	if _, err := CSVToJSON(in, dir, 0); err == nil {
		t.Fatal("0 workers: no error")
	}
}

func TestCSVToJSONValues(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	// No newline at the end; a CRLF line; escapes and non-ASCII in names.
	if err := os.WriteFile(in, []byte("id,name,score,city\n-7,a\"b\\c,50,X\r\n8,\tüber,1e7,Y\n9,q,0.0001,Z\n10,r,49.99,Z\n11,s,12345678.9,Z"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := CSVToJSON(in, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":-7,"name":"A\"B\\C","score":50.0}
{"id":8,"name":"\tÜBER","score":1.0E7}
{"id":11,"name":"S","score":1.23456789E7}
`
	if got := string(concat(t, res.Files)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if res.Rows != 5 || res.Kept != 3 {
		t.Fatalf("rows %d kept %d, want 5 and 3", res.Rows, res.Kept)
	}
}

func TestAppendJavaDouble(t *testing.T) {
	for f, want := range map[float64]string{
		83: "83.0", 86.75: "86.75", 0.001: "0.001", 0.0001: "1.0E-4", 1e7: "1.0E7",
		9999999.5: "9999999.5", -2.5e-5: "-2.5E-5", 0: "0.0", 1e300: "1.0E300",
	} {
		if got := string(appendJavaDouble(nil, f)); got != want {
			t.Errorf("%g: %s, want %s", f, got, want)
		}
	}
}

// stactorFiles lists the committed files of a LocalFile sink's folder
// (not the hidden staging folder) by name.
func stactorFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fs []string
	for _, e := range es {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			fs = append(fs, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(fs)
	return fs
}

func concat(t *testing.T, files []string) []byte {
	t.Helper()
	var b []byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, d...)
	}
	return b
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
