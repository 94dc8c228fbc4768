package localfile

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// people is a small table with the types whose rendering differs most.
var people = row.MustSchema("people",
	row.Field{Name: "id", Type: row.BigInt},
	row.Field{Name: "name", Type: row.String},
	row.Field{Name: "score", Type: row.Double},
	row.Field{Name: "price", Type: row.DecimalOf(10, 2)},
	row.Field{Name: "born", Type: row.Date},
	row.Field{Name: "seen", Type: row.Timestamp},
	row.Field{Name: "tags", Type: row.ArrayOf(row.String)},
)

func peopleRows(t testing.TB) *row.Batch {
	return batchOf(t, people,
		[]any{int64(1), "Ann", 1.5, decimal.RequireFromString("10.50"), ts("1990-01-02"), ts("2024-01-31T12:30:00"), []any{"a", "b"}},
		[]any{int64(2), "Bob, Jr.", 1e7, decimal.RequireFromString("0.10"), nil, ts("2024-02-01T00:00:05.5"), nil},
		[]any{int64(3), "", nil, nil, ts("2000-02-29"), nil, []any{}},
		[]any{int64(4), nil, math.Copysign(0, -1), decimal.RequireFromString("-3"), nil, nil, []any{"x"}},
	)
}

// writeOne writes the batch with a sink of body and returns the one file's
// content.
func writeOne(t *testing.T, body string, b *row.Batch) string {
	t.Helper()
	dir := t.TempDir()
	k := newTestSink(t, `path = `+q(dir)+"\n"+body, b.Schema)
	writeAndCommit(t, k, task(0, 0), 7, b)
	fs := files(t, dir)
	if len(fs) != 1 {
		t.Fatalf("files: %v", fs)
	}
	return readFile(t, filepath.Join(dir, fs[0]))
}

func TestTextOutputBytes(t *testing.T) {
	got := writeOne(t, `file_format_type = text`, peopleRows(t))
	want := "1\x01Ann\x011.5\x0110.5\x011990-01-02\x012024-01-31 12:30:00\x01a\x02b\n" +
		"2\x01Bob, Jr.\x011.0E7\x010.1\x01\x012024-02-01 00:00:05\x01\n" +
		"3\x01\x01\x01\x012000-02-29\x01\x01\n" +
		"4\x01\x01-0.0\x01-3\x01\x01\x01x\n"
	if got != want {
		t.Errorf("text:\n got %q\nwant %q", got, want)
	}
	got = writeOne(t, `file_format_type = text
		field_delimiter = "|"
		row_delimiter = "\r\n"
		date_format = "yyyy/MM/dd"
		datetime_format = "yyyyMMddHHmmss"
		enable_header_write = true`, peopleRows(t).Slice(0, 1))
	want = "id|name|score|price|born|seen|tags\r\n1|Ann|1.5|10.5|1990/01/02|20240131123000|a\x02b\r\n"
	if got != want {
		t.Errorf("text with options:\n got %q\nwant %q", got, want)
	}
}

func TestCSVOutputBytes(t *testing.T) {
	got := writeOne(t, `file_format_type = csv`, peopleRows(t))
	want := "1,Ann,1.5,10.50,1990-01-02,2024-01-31 12:30:00,a\x02b\n" +
		"2,\"Bob, Jr.\",1.0E7,0.10,,2024-02-01 00:00:05,\n" +
		"3,\"\",,,2000-02-29,,\n" +
		"4,,-0.0,-3.00,,,x\n"
	if got != want {
		t.Errorf("csv:\n got %q\nwant %q", got, want)
	}
	s := row.MustSchema("s", row.Field{Name: "a", Type: row.String}, row.Field{Name: "b", Type: row.String})
	b := batchOf(t, s,
		[]any{`say "hi"`, "two\nlines"},
		[]any{" lead", "trail "},
		[]any{"#hash", "semi;colon"},
		[]any{"ok", "!bang"},
	)
	got = writeOne(t, "file_format_type = csv\nenable_header_write = true", b)
	want = "a,b\n\"say \"\"hi\"\"\",\"two\nlines\"\n\" lead\",\"trail \"\n\"#hash\",semi;colon\nok,\"!bang\"\n"
	if got != want {
		t.Errorf("csv quoting:\n got %q\nwant %q", got, want)
	}
	got = writeOne(t, "file_format_type = csv\nfield_delimiter = \";\"\ncsv_string_quote_mode = ALL", b.Slice(2, 4))
	want = "\"#hash\";\"semi;colon\"\n\"ok\";\"!bang\"\n"
	if got != want {
		t.Errorf("csv quote ALL:\n got %q\nwant %q", got, want)
	}
}

func TestJSONOutputBytes(t *testing.T) {
	got := writeOne(t, `file_format_type = json`, peopleRows(t))
	want := `{"id":1,"name":"Ann","score":1.5,"price":10.50,"born":"1990-01-02","seen":"2024-01-31T12:30:00","tags":["a","b"]}` + "\n" +
		`{"id":2,"name":"Bob, Jr.","score":1.0E7,"price":0.10,"born":null,"seen":"2024-02-01T00:00:05.5","tags":null}` + "\n" +
		`{"id":3,"name":"","score":null,"price":null,"born":"2000-02-29","seen":null,"tags":[]}` + "\n" +
		`{"id":4,"name":null,"score":-0.0,"price":-3.00,"born":null,"seen":null,"tags":["x"]}` + "\n"
	if got != want {
		t.Errorf("json:\n got %s\nwant %s", got, want)
	}
	s := row.MustSchema("s",
		row.Field{Name: "s", Type: row.String},
		row.Field{Name: "m", Type: row.MapOf(row.Int, row.Time)},
		row.Field{Name: "r", Type: row.RowOf(row.Field{Name: "b", Type: row.Bytes}, row.Field{Name: "f", Type: row.Float})},
	)
	b := batchOf(t, s, []any{"tab\tquote\"back\\slash\x01é/<>", &row.MapValue{Keys: []any{int64(1)}, Values: []any{12*time.Hour + time.Second + 500*time.Millisecond}},
		[]any{[]byte{0xff, 0}, float64(float32(0.1))}})
	got = writeOne(t, `file_format_type = json`, b)
	want = `{"s":"tab\tquote\"back\\slash\u0001é/<>","m":{"1":"12:00:01.5"},"r":{"b":"/wA=","f":0.1}}` + "\n"
	if got != want {
		t.Errorf("json escapes:\n got %s\nwant %s", got, want)
	}
}

func TestReadHandWrittenCSV(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.csv"), "id,name,note\n"+
		"1,Ann,plain\r\n"+
		"2,\"Smith, John\",\"said \"\"hi\"\"\"\n"+
		"3,\"multi\nline\",\n"+
		"\n"+
		"4,,\"\"\n"+
		"5,\"\",  \n")
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = csv
		skip_header_row_number = 1
		schema { fields { id = int, name = string, note = string } }`)
	want := [][]any{
		{int64(1), "Ann", "plain"},
		{int64(2), "Smith, John", `said "hi"`},
		{int64(3), "multi\nline", nil},
		{int64(4), nil, ""},
		{int64(5), "", nil},
	}
	compareRows(t, []string{"id", "name", "note"}, readAll(t, src, 1), want)
}

func TestReadHandWrittenText(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "1\x01Ann\x0126\x012024-01-31\n2\x01Bob\x01\x01\n3\x01Cy\n")
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = text
		schema { fields { id = bigint, name = string, age = int, day = date } }`)
	want := [][]any{
		{int64(1), "Ann", int64(26), ts("2024-01-31")},
		{int64(2), "Bob", nil, nil},
		{int64(3), "Cy", nil, nil},
	}
	compareRows(t, []string{"id", "name", "age", "day"}, readAll(t, src, 1), want)

	// No schema: each line is one content string (SeaTunnel's simple text schema).
	writeFile(t, filepath.Join(dir, "b", "c.txt"), "tyrantlucifer#26#male\n")
	src = newTestSource(t, `path = `+q(filepath.Join(dir, "b"))+`
		file_format_type = text`)
	if got := src.cfg.schema.String(); got != "default.default.default(content string)" {
		t.Fatalf("schema %s", got)
	}
	compareRows(t, []string{"content"}, readAll(t, src, 1), [][]any{{"tyrantlucifer#26#male"}})

	src = newTestSource(t, `path = `+q(filepath.Join(dir, "b"))+`
		file_format_type = text
		field_delimiter = "#"
		schema { fields { name = string, age = int, gender = string } }`)
	compareRows(t, []string{"name", "age", "gender"}, readAll(t, src, 1), [][]any{{"tyrantlucifer", int64(26), "male"}})
}

func TestReadHandWrittenJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), `{"code":  200, "data":  "get success", "success":  true}
{"code":  300, "data":  "get failed", "success":  false, "extra": {"x": [1, 2, {"y": null}]}}

{"success": "true", "code": "404", "data": 5, "when": "2024-01-31 12:30:00", "nested": {"a": 1, "b": ["p", "q"]}, "m": {"k": 1.5}}
{"data": "\u00e9\n\"x\"", "code": 1, "code": 2}
`)
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = json
		schema { fields { code = int, data = string, success = boolean, when = timestamp, nested = "row<a bigint, b array<string>>", m = "map<string, double>" } }`)
	want := [][]any{
		{int64(200), "get success", true, nil, nil, nil},
		{int64(300), "get failed", false, nil, nil, nil},
		{int64(404), "5", true, ts("2024-01-31T12:30:00"), []any{int64(1), []any{"p", "q"}}, &row.MapValue{Keys: []any{"k"}, Values: []any{1.5}}},
		{int64(2), "é\n\"x\"", nil, nil, nil, nil},
	}
	compareRows(t, []string{"code", "data", "success", "when", "nested", "m"}, readAll(t, src, 1), want)
}

// A JSON map's key "" is the string "", not null (found by the
// conformance suite: keys went through the text parser, where an empty
// field is null); keys of other types are still parsed from their text.
func TestReadJSONEmptyMapKey(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), `{"m": {"": 1, "k": 2}, "n": {"7": "x"}}`+"\n")
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = json
		schema { fields { m = "map<string, int>", n = "map<int, string>" } }`)
	want := [][]any{{&row.MapValue{Keys: []any{"", "k"}, Values: []any{int64(1), int64(2)}}, &row.MapValue{Keys: []any{int64(7)}, Values: []any{"x"}}}}
	compareRows(t, []string{"m", "n"}, readAll(t, src, 1), want)
}

func TestReadGzip(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("h1,h2\n1,a\n2,b\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "a.csv.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = csv
		compress_codec = gzip
		skip_header_row_number = 1
		schema { fields { n = int, s = string } }`)
	compareRows(t, []string{"n", "s"}, readAll(t, src, 1), [][]any{{int64(1), "a"}, {int64(2), "b"}})

	// archive_compress_codec = gz is SeaTunnel's newer spelling.
	src = newTestSource(t, `path = `+q(dir)+`
		file_format_type = text
		archive_compress_codec = gz`)
	compareRows(t, []string{"content"}, readAll(t, src, 1), [][]any{{"h1,h2"}, {"1,a"}, {"2,b"}})

	// And the sink writes it.
	out := t.TempDir()
	k := newTestSink(t, "path = "+q(out)+"\nfile_format_type = json\ncompress_codec = gzip", people)
	writeAndCommit(t, k, task(0, 0), 1, peopleRows(t))
	if fs := files(t, out); len(fs) != 1 || !strings.HasSuffix(fs[0], ".gz.json") {
		t.Fatalf("files %v", fs)
	}
	src = newTestSource(t, "path = "+q(out)+"\nfile_format_type = json\ncompress_codec = gzip\nschema { fields { id = bigint, name = string } }")
	compareRows(t, []string{"id", "name"}, readAll(t, src, 1), [][]any{{int64(1), "Ann"}, {int64(2), "Bob, Jr."}, {int64(3), ""}, {int64(4), nil}})
}

func TestEncodingLatin1(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "caf\xe9,na\xefve\n")
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = csv
		encoding = "ISO-8859-1"
		schema { fields { a = string, b = string } }`)
	compareRows(t, []string{"a", "b"}, readAll(t, src, 1), [][]any{{"café", "naïve"}})

	s := row.MustSchema("s", row.Field{Name: "a", Type: row.String})
	got := writeOne(t, "file_format_type = text\nencoding = ISO-8859-1", batchOf(t, s, []any{"café €"}))
	if got != "caf\xe9 ?\n" {
		t.Errorf("latin1 output %q", got)
	}
}

func TestReadColumnsAndPartitions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "year=2024", "city=Oslo", "a.csv"), "1,x,9\n")
	writeFile(t, filepath.Join(dir, "year=2023", "city=Rome", "b.csv"), "2,y,8\n")
	writeFile(t, filepath.Join(dir, ".hidden", "c.csv"), "3,z,7\n")
	writeFile(t, filepath.Join(dir, "_SUCCESS"), "x")
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = csv
		read_columns = [c, a]
		schema { fields { a = int, b = string, c = int } }`)
	if got := src.cfg.schema.String(); got != "default.default.default(c int, a int, year string, city string)" {
		t.Fatalf("schema %s", got)
	}
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{
		{int64(8), int64(2), "2023", "Rome"},
		{int64(9), int64(1), "2024", "Oslo"},
	})
	src = newTestSource(t, `path = `+q(dir)+`
		file_format_type = csv
		parse_partition_from_path = false
		file_filter_pattern = "a\\.csv"
		schema { fields { a = int, b = string, c = int } }`)
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{{int64(1), "x", int64(9)}})
	src = newTestSource(t, `path = `+q(dir)+`
		file_format_type = csv
		filename_extension = csv
		file_filter_pattern = ".*/year=2024/.*"
		schema { fields { a = int, b = string, c = int } }`)
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{{int64(1), "x", int64(9), "2024", "Oslo"}})
}
