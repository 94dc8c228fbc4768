package localfile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCSVUseHeaderLine: each file's header names its columns, in any
// order; a column the schema lacks is ignored, a field no column names is
// null, skip_header_row_number lines come before the header, and a byte
// order mark does not hide the first name.
func TestCSVUseHeaderLine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.csv"), "\uFEFFname,id,is_female\ntom,20,true\n")
	writeFile(t, filepath.Join(dir, "b.csv"), "name,is_female,extra,id\r\ntommy,false,x,30\r\n\"a, b\",,y,31\r\n")
	writeFile(t, filepath.Join(dir, "c.csv"), "\"id\";\"name\"\n40;ann\n")
	body := `path = ` + q(dir) + `
		file_format_type = csv
		csv_use_header_line = true
		file_filter_pattern = "[ab].csv"
		schema { fields { id = int, name = string, is_female = boolean } }`
	want := [][]any{
		{int64(20), "tom", true},
		{int64(30), "tommy", false},
		{int64(31), "a, b", nil},
	}
	names := []string{"id", "name", "is_female"}
	compareRows(t, names, readAll(t, newTestSource(t, body), 1), want)

	// A header without is_female, after two skipped lines, ; delimited.
	writeFile(t, filepath.Join(dir, "c.csv"), "junk\n\"id,x\";name\n\"id\";\"name\"\n40;ann\n")
	src := newTestSource(t, `path = `+q(filepath.Join(dir, "c.csv"))+`
		file_format_type = csv
		csv_use_header_line = true
		skip_header_row_number = 2
		field_delimiter = ";"
		schema { fields { id = int, name = string, is_female = boolean } }`)
	compareRows(t, names, readAll(t, src, 1), [][]any{{int64(40), "ann", nil}})

	// Without the option the header is data, as in SeaTunnel: id "name"
	// is not an int.
	_, err := readAllErr(t, newTestSource(t, strings.Replace(body, "csv_use_header_line = true", "", 1)), 1)
	if err == nil || !strings.Contains(err.Error(), `field id`) {
		t.Fatalf("without csv_use_header_line: %v", err)
	}

	// No schema: the header is skipped, each later line is content.
	src = newTestSource(t, `path = `+q(filepath.Join(dir, "a.csv"))+`
		file_format_type = csv
		csv_use_header_line = true`)
	compareRows(t, []string{"content"}, readAll(t, src, 1), [][]any{{"tom,20,true"}})
}

// TestCSVHeaderRestore: a reader restored mid-file reads the header again
// and maps the rest of the rows by it; a file with a header is one split,
// however large.
func TestCSVHeaderRestore(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("name,id\n")
	const n = 200
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "n%d,%d\n", i, i)
	}
	writeFile(t, filepath.Join(dir, "a.csv"), b.String())
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = csv
		csv_use_header_line = true
		schema { fields { id = int, name = string } }`)
	f := src.cfg.files[0]
	f.size = 10 * blockSize
	if sp, err := src.cfg.splitsOf(f); err != nil || len(sp) != 1 {
		t.Fatalf("a file with a header is cut into %d splits (%v)", len(sp), err)
	}
	rows, err := readWithRestore(t, src, splitsFor(t, src, 1)[0], 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for i, r := range rows {
		if r[0] != int64(i) || r[1] != fmt.Sprintf("n%d", i) {
			t.Fatalf("row %d: %v", i, r)
		}
	}
}

// TestCSVHeaderShortRecord: with csv_use_header_line a record too short to
// hold a header column the schema reads fails the read with the file, line,
// column and field (SeaTunnel's CsvReadStrategy fails it); one whose
// missing columns the schema does not read is read, and without the option
// a short record's missing fields are null.
func TestCSVHeaderShortRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	writeFile(t, path, "junk\nid,name,extra\n1,a,x\n2\n")
	body := `path = ` + q(path) + `
		file_format_type = csv
		csv_use_header_line = true
		skip_header_row_number = 1
		schema { fields { id = int, name = string } }`
	_, err := readAllErr(t, newTestSource(t, body), 1)
	if err == nil || !strings.Contains(err.Error(), path+":4:") || !strings.Contains(err.Error(), `fewer than the header's 3`) ||
		!strings.Contains(err.Error(), `column 2 ("name") of field name`) {
		t.Fatalf("short record: %v", err)
	}

	// Short of a column the schema does not read: read.
	writeFile(t, path, "junk\nid,name,extra\n1,a,x\n2,b\n")
	compareRows(t, []string{"id", "name"}, readAll(t, newTestSource(t, body), 1), [][]any{{int64(1), "a"}, {int64(2), "b"}})

	// Without the header line: the missing field is null.
	writeFile(t, path, "1,a\n2\n")
	src := newTestSource(t, `path = `+q(path)+`
		file_format_type = csv
		schema { fields { id = int, name = string } }`)
	compareRows(t, []string{"id", "name"}, readAll(t, src, 1), [][]any{{int64(1), "a"}, {int64(2), nil}})
}

// TestCSVFewerLinesThanSkipped: a csv file with fewer lines than
// skip_header_row_number fails the read, naming the file (SeaTunnel's
// CsvReadStrategy); a text file reads no row, as SeaTunnel's text reader.
func TestCSVFewerLinesThanSkipped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	writeFile(t, path, "id,name\n")
	for _, header := range []string{"", "csv_use_header_line = true"} {
		src := newTestSource(t, `path = `+q(path)+`
			file_format_type = csv
			skip_header_row_number = 2
			`+header+`
			schema { fields { id = int, name = string } }`)
		if _, err := readAllErr(t, src, 1); err == nil || !strings.Contains(err.Error(), path+": the file has fewer lines than skip_header_row_number (2)") {
			t.Fatalf("%q: %v", header, err)
		}
	}
	// Exactly as many lines as skipped: no row, no error.
	src := newTestSource(t, `path = `+q(path)+`
		file_format_type = csv
		skip_header_row_number = 1
		schema { fields { id = int, name = string } }`)
	if rows := readAll(t, src, 1); len(rows) != 0 {
		t.Fatalf("rows %v", rows)
	}
	txt := filepath.Join(dir, "a.txt")
	writeFile(t, txt, "x\n")
	src = newTestSource(t, `path = `+q(txt)+`
		file_format_type = text
		skip_header_row_number = 2`)
	if rows := readAll(t, src, 1); len(rows) != 0 {
		t.Fatalf("text rows %v", rows)
	}
}
