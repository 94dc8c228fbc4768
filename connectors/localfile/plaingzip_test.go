package localfile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainFileUnderGzip: with compress_codec gzip a file that does not
// start with gzip's magic — as SeaTunnel's text, csv and json writers
// write <name>.gz.txt — is read plain, with one plan warning naming it;
// real gzip files beside it are gunzipped and not warned about. Restored
// mid-file, the plain file goes on at the next row.
func TestPlainFileUnderGzip(t *testing.T) {
	line := map[string]func(i int) string{
		"text": func(i int) string { return fmt.Sprintf("%d\x01s%d\n", i, i) },
		"csv":  func(i int) string { return fmt.Sprintf("%d,s%d\n", i, i) },
		"json": func(i int) string { return fmt.Sprintf("{\"id\":%d,\"s\":\"s%d\"}\n", i, i) },
	}
	// 8 rows: a restore after one poll of 5 is mid-file.
	var want [][]any
	for i := 0; i < 8; i++ {
		want = append(want, []any{int64(i), fmt.Sprintf("s%d", i)})
	}
	want = append(want, want...)
	for _, tc := range []struct{ format, name, plain, schema string }{
		{"text", "T_1.gz.txt", "", "schema { fields { id = int, s = string } }"},
		{"csv", "T_1.gz.csv", "", "schema { fields { id = int, s = string } }"},
		{"json", "T_1.gz.json", "", "schema { fields { id = int, s = string } }"},
	} {
		for i := 0; i < 8; i++ {
			tc.plain += line[tc.format](i)
		}
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			plain := filepath.Join(dir, tc.name)
			writeFile(t, plain, tc.plain)
			// A real gzip file of the same rows, named as stactor's sink
			// names it.
			if err := os.WriteFile(filepath.Join(dir, "T_2"+tc.name[3:]), gzipped(t, []byte(tc.plain), ""), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, codec := range []string{"compress_codec = gzip", "archive_compress_codec = gz"} {
				// The warning is the plugin's, placed at the codec's line (3).
				s, w, err := resolveAndCreate(t, "path = "+q(dir)+"\nfile_format_type = "+tc.format+"\n"+codec+"\n"+tc.schema, 1)
				if err != nil {
					t.Fatal(err)
				}
				src := s.(*source)
				key, _, _ := strings.Cut(codec, " ")
				if len(w) != 1 || !strings.HasPrefix(w[0].String(), "job.conf:3:") || !strings.Contains(w[0].Msg, "source LocalFile: "+key+": "+plain+" is not gzip") {
					t.Fatalf("%s: warnings %q, want one at line 3 naming %s", codec, w, plain)
				}
				compareRows(t, []string{"id", "s"}, readAll(t, src, 1), want)
				rows, err := readWithRestore(t, src, splitsFor(t, src, 1)[0], 1)
				if err != nil {
					t.Fatal(err)
				}
				compareRows(t, []string{"id", "s"}, rows, want)
			}
			// Without a codec nothing is sniffed or warned about.
			if _, w, err := resolveAndCreate(t, "path = "+q(plain)+"\nfile_format_type = "+tc.format+"\n"+tc.schema, 1); err != nil || len(w) != 0 {
				t.Fatalf("warnings without a codec: %q (%v)", w, err)
			}
		})
	}
}

// TestGzippedExcel: archive_compress_codec = gz gunzips excel files too,
// and tells xlsx from xls by the name in the gzip header, else by the
// file's name without .gz (SeaTunnel's AbstractReadStrategy).
func TestGzippedExcel(t *testing.T) {
	schema := `skip_header_row_number = 1
		field_delimiter = ";"
		schema { fields { c_map = "map<string, string>", c_array = "array<int>", c_string = string, c_boolean = boolean } }`
	read := func(path, codec string) ([][]any, error) {
		src, err := createSourceErr(t, "path = "+q(path)+"\nfile_format_type = excel\n"+codec+"\n"+schema)
		if err != nil {
			return nil, err
		}
		return readAllErr(t, src, 1)
	}
	names := []string{"c_map", "c_array", "c_string", "c_boolean"}
	dir := t.TempDir()
	for _, book := range []string{"e2e.xlsx", "e2e.xls"} {
		want, err := read(filepath.Join("testdata", book), "")
		if err != nil || len(want) != 5 {
			t.Fatalf("%s: %d rows, %v", book, len(want), err)
		}
		data, err := os.ReadFile(filepath.Join("testdata", book))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ file, header string }{
			{book + ".gz", ""},    // the name without .gz
			{"workbook.gz", book}, // the gzip header's name
		} {
			path := filepath.Join(dir, tc.file)
			if err := os.WriteFile(path, gzipped(t, data, tc.header), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := read(path, "archive_compress_codec = gz")
			if err != nil {
				t.Fatalf("%s: %v", tc.file, err)
			}
			compareRows(t, names, got, want)
			os.Remove(path)
		}
	}
	// Gzipped, a name that is no workbook's is refused as before.
	path := filepath.Join(dir, "book.csv.gz")
	if err := os.WriteFile(path, gzipped(t, []byte("x"), ""), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := read(path, "archive_compress_codec = gz"); err == nil || !strings.Contains(err.Error(), "not an excel file") {
		t.Fatalf("book.csv.gz: %v", err)
	}
}

// gzipped is data gzipped, with name in the gzip header ("" for none).
func gzipped(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Name = name
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGzipInsideArchive: compress_codec gzip with a zip archive gunzips
// the entries that are gzip and reads the others plain; entries are not
// opened at plan time.
func TestGzipInsideArchive(t *testing.T) {
	dir := t.TempDir()
	data := archiveOf(t, "zip", [][2]string{{"a.gz.csv", string(gzipped(t, []byte("1,a\n"), ""))}, {"b.gz.csv", "2,b\n"}})
	if err := os.WriteFile(filepath.Join(dir, "x.zip"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, w, err := resolveAndCreate(t, "path = "+q(dir)+"\nfile_format_type = csv\ncompress_codec = gzip\narchive_compress_codec = zip\nschema { fields { id = int, s = string } }", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 0 {
		t.Fatalf("warnings %q", w)
	}
	compareRows(t, []string{"id", "s"}, readAll(t, s.(*source), 1), [][]any{{int64(1), "a"}, {int64(2), "b"}})
}
