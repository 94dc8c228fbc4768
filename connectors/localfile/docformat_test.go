package localfile

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/richardlehane/mscfb"
	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// schemaBlock is a schema { fields { ... } } block of s.
func schemaBlock(s *row.Schema) string {
	var b strings.Builder
	b.WriteString("schema { fields {\n")
	for _, f := range s.Fields {
		b.WriteString("  " + f.Name + " = \"" + f.Type.String() + "\"\n")
	}
	b.WriteString("} }\n")
	return b.String()
}

// TestXMLRoundTrip writes every type as xml, attributes and elements, and
// reads it back. xml has no null: a null string reads back as "" (as in
// SeaTunnel, where the writer writes null as empty).
func TestXMLRoundTrip(t *testing.T) {
	for _, attr := range []string{"true", "false"} {
		t.Run("attr="+attr, func(t *testing.T) {
			dir := t.TempDir()
			schema := allTypes(t)
			fmts := `datetime_format = "yyyy-MM-dd HH:mm:ss.SSSSSS"
				time_format = "HH:mm:ss.SSSSSS"
				field_delimiter = ";"
				xml_use_attr_format = ` + attr
			k := newTestSink(t, `path = `+q(dir)+`
				file_format_type = xml
				`+fmts, schema)
			rows := allTypesRows("text")
			rows[0][1] = `a <"tag"> & 'b'`
			writeAndCommit(t, k, task(0, 0), 1, batchOf(t, schema, rows...))
			got := files(t, dir)
			if len(got) != 1 || !strings.HasSuffix(got[0], ".xml") {
				t.Fatalf("files: %v", got)
			}
			text := readFile(t, filepath.Join(dir, got[0]))
			if !strings.HasPrefix(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<RECORDS>\n\t<RECORD") || !strings.HasSuffix(text, "</RECORDS>\n") {
				t.Fatalf("xml:\n%s", text)
			}
			src := newTestSource(t, `path = `+q(dir)+`
				file_format_type = xml
				xml_row_tag = RECORD
				`+fmts+"\n"+schemaBlock(schema))
			want := allTypesRows("text")
			want[0][1] = `a <"tag"> & 'b'`
			want[1][1] = "" // null strings are written as empty
			compareRows(t, schema.Names(), readAll(t, src, 1), want)
		})
	}
}

// TestXMLRowsAnywhere reads SeaTunnel's //tag: row elements at any depth,
// in document order, fields matched by name, elements without any schema
// field skipped, and the encoding option applied.
func TestXMLRowsAnywhere(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.xml"), `<?xml version="1.0" encoding="UTF-8"?>
<root>
  <group><row><id>1</id><name>one</name><extra>x</extra></row></group>
  <row><id>2</id></row>
  <row><other>3</other></row>
  <deep><deeper><row><name>four</name><id>4</id><id>5</id></row></deeper></deep>
</root>`)
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = xml
		xml_row_tag = row
		xml_use_attr_format = false
		schema { fields { id = int, name = string } }`)
	compareRows(t, []string{"id", "name"}, readAll(t, src, 1), [][]any{
		{int64(1), "one"}, {int64(2), nil}, {int64(5), "four"},
	})

	// A Latin-1 file whose declaration says UTF-8: encoding wins.
	latin := t.TempDir()
	writeFile(t, filepath.Join(latin, "b.xml"), "<?xml version=\"1.0\" encoding=\"UTF-8\"?><r><x n=\"caf\xe9\"/></r>")
	src = newTestSource(t, `path = `+q(latin)+`
		file_format_type = xml
		xml_row_tag = x
		xml_use_attr_format = true
		encoding = ISO-8859-1
		schema { fields { n = string } }`)
	compareRows(t, []string{"n"}, readAll(t, src, 1), [][]any{{"café"}})
}

// TestXMLErrors: missing options and bad files are errors naming them.
func TestXMLErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.xml"), "<r><x a=\"1\"></r>")
	_, err := createSourceErr(t, `path = `+q(dir)+`
		file_format_type = xml
		schema { fields { a = int } }`)
	if err == nil || !strings.Contains(err.Error(), "xml_row_tag and xml_use_attr_format") {
		t.Fatalf("missing xml_row_tag: %v", err)
	}
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = xml
		xml_row_tag = x
		xml_use_attr_format = true
		schema { fields { a = int } }`)
	if _, err := readAllErr(t, src, 1); err == nil || !strings.Contains(err.Error(), "a.xml: not a well-formed xml file") {
		t.Fatalf("bad xml: %v", err)
	}
	s := row.MustSchema("t", row.Field{Name: "a", Type: row.Int, Nullable: true})
	if _, err := createSinkErr(t, `path = `+q(dir)+`
		file_format_type = xml`, s); err == nil || !strings.Contains(err.Error(), "xml_use_attr_format") {
		t.Fatalf("sink without xml_use_attr_format: %v", err)
	}
	// A control character would make a file no parser reads.
	str := row.MustSchema("t", row.Field{Name: "s", Type: row.String, Nullable: true})
	k := newTestSink(t, `path = `+q(t.TempDir())+`
		file_format_type = xml
		xml_use_attr_format = false`, str)
	w, err := k.CreateWriter(context.Background(), task(0, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(batchOf(t, str, []any{"a\x00b"})); err == nil || !strings.Contains(err.Error(), "field s: the character U+0000 cannot be written to an xml file") {
		t.Fatalf("control character: %v", err)
	}
	bad := row.MustSchema("t", row.Field{Name: "1a", Type: row.Int, Nullable: true})
	if _, err := createSinkErr(t, `path = `+q(dir)+`
		file_format_type = xml
		xml_use_attr_format = true`, bad); err == nil || !strings.Contains(err.Error(), "not an xml name") {
		t.Fatalf("bad field name: %v", err)
	}
}

// TestExcelRoundTrip writes xlsx and reads it back: numbers, booleans,
// strings, dates, timestamps (to the millisecond, Excel's precision),
// maps, arrays and rows; a blank cell is null. (Excel keeps 15 digits of
// a date serial: about 1 ms in year 9999, 10 µs in 2100.)
func TestExcelRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := row.MustSchema("t",
		row.Field{Name: "s", Type: row.String, Nullable: true},
		row.Field{Name: "b", Type: row.Boolean, Nullable: true},
		row.Field{Name: "ti", Type: row.TinyInt, Nullable: true},
		row.Field{Name: "i", Type: row.Int, Nullable: true},
		row.Field{Name: "bi", Type: row.BigInt, Nullable: true},
		row.Field{Name: "f", Type: row.Float, Nullable: true},
		row.Field{Name: "d", Type: row.Double, Nullable: true},
		row.Field{Name: "dec", Type: row.DecimalOf(10, 2), Nullable: true},
		row.Field{Name: "dt", Type: row.Date, Nullable: true},
		row.Field{Name: "ts", Type: row.Timestamp, Nullable: true},
		row.Field{Name: "tm", Type: row.Time, Nullable: true},
		row.Field{Name: "arr", Type: row.ArrayOf(row.Int), Nullable: true},
		row.Field{Name: "m", Type: row.MapOf(row.String, row.String), Nullable: true},
		row.Field{Name: "r", Type: row.RowOf(row.Field{Name: "x", Type: row.Int, Nullable: true}, row.Field{Name: "y", Type: row.String, Nullable: true}), Nullable: true},
	)
	rows := [][]any{
		{"text", true, int64(-5), int64(123456), int64(1) << 40, float64(float32(1.5)), 2.25, decimal.RequireFromString("12.34"),
			ts("2024-01-31"), ts("2024-01-31T16:00:48.123"), 16*time.Hour + 48*time.Second,
			[]any{int64(1), int64(2)}, &row.MapValue{Keys: []any{"k"}, Values: []any{"v"}}, []any{int64(7), "seven"}},
		{nil, false, nil, int64(0), nil, nil, -1e-3, nil, ts("1900-03-01"), ts("2100-12-31T23:59:59"), time.Duration(0), nil, nil, nil},
	}
	k := newTestSink(t, `path = `+q(dir)+`
		file_format_type = excel
		field_delimiter = ";"
		sheet_name = data`, s)
	writeAndCommit(t, k, task(0, 0), 1, batchOf(t, s, rows...))
	got := files(t, dir)
	if len(got) != 1 || !strings.HasSuffix(got[0], ".xlsx") {
		t.Fatalf("files: %v", got)
	}
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = excel
		skip_header_row_number = 1
		field_delimiter = ";"
		sheet_name = data
		`+schemaBlock(s))
	compareRows(t, s.Names(), readAll(t, src, 1), rows)

	// The header row holds the names; another sheet is an error.
	src = newTestSource(t, `path = `+q(dir)+`
		file_format_type = excel
		schema { fields { s = string, b = string } }`)
	if r := readAll(t, src, 1); len(r) != 3 || r[0][0] != "s" || r[0][1] != "b" || r[1][1] != "true" {
		t.Fatalf("header: %v", r)
	}
	src = newTestSource(t, `path = `+q(dir)+`
		file_format_type = excel
		sheet_name = nope
		schema { fields { s = string } }`)
	if _, err := readAllErr(t, src, 1); err == nil || !strings.Contains(err.Error(), `no sheet "nope"`) {
		t.Fatalf("missing sheet: %v", err)
	}
}

// TestExcelDateSerials pins POI's date conversion, Excel's phantom
// 1900-02-29 included.
func TestExcelDateSerials(t *testing.T) {
	for _, c := range []struct {
		serial float64
		want   string
	}{
		{1, "1900-01-01T00:00"}, {59, "1900-02-28T00:00"}, {61, "1900-03-01T00:00"},
		{45322.66722222222, "2024-01-31T16:00:48"}, {2958465, "9999-12-31T00:00"},
	} {
		sec, nano, err := excelDate(c.serial, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := row.Text(row.Timestamp, row.TimestampTime(sec, nano)); got != c.want {
			t.Errorf("serial %v: %s, want %s", c.serial, got, c.want)
		}
		if c.serial != 45322.66722222222 {
			if back := excelSerial(sec, nano); back != c.serial {
				t.Errorf("%s: serial %v, want %v", c.want, back, c.serial)
			}
		}
	}
}

// TestRefusedFormats: lzo for parquet and orc is refused at plan time
// with the reason.
func TestRefusedFormats(t *testing.T) {
	dir := t.TempDir()
	s := row.MustSchema("t", row.Field{Name: "a", Type: row.Int, Nullable: true})
	for _, c := range []struct {
		body, want string
		sink       bool
	}{
		{"file_format_type = orc\ncompress_codec = lzo", "lzo is not supported for orc", true},
		{"file_format_type = parquet\ncompress_codec = lzo", "lzo is not supported for parquet", true},
	} {
		var err error
		if c.sink {
			_, err = createSinkErr(t, `path = `+q(dir)+"\n"+c.body, s)
		} else {
			_, err = createSourceErr(t, `path = `+q(dir)+"\n"+c.body)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "job.conf:") {
			t.Errorf("%s (sink %v): %v", c.body, c.sink, err)
		}
	}
}

// TestBinaryCopy copies files with the binary source and sink, through
// checkpoints that fall inside a file, a crash after a prepare whose
// commit runs twice, and compares the copies byte by byte.
func TestBinaryCopy(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	want := map[string][]byte{}
	for name, size := range map[string]int{"a.bin": 5000, "sub/b.bin": 1024, "sub/deep/c.bin": 3} {
		b := make([]byte, size)
		rand.Read(b)
		writeFile(t, filepath.Join(in, name), string(b))
		want[name] = b
	}
	src := newTestSource(t, `path = `+q(in)+"\nfile_format_type = binary")
	rows := readAll(t, src, 1)
	if len(rows) != 5+1+1 {
		t.Fatalf("%d chunks", len(rows))
	}
	k := newTestSink(t, `path = `+q(out)+"\nfile_format_type = binary", src.cfg.schema)
	c, _ := k.CreateCommitter()
	ctx := context.Background()
	w, err := k.CreateWriter(ctx, task(0, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two chunks per checkpoint: a.bin spans three of them.
	var state [][]byte
	for ckpt, i := int64(1), 0; i < len(rows); ckpt, i = ckpt+1, i+2 {
		if err := w.Write(batchOf(t, src.cfg.schema, rows[i:min(i+2, len(rows))]...)); err != nil {
			t.Fatal(err)
		}
		info, err := w.PrepareCommit(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		if state, err = w.SnapshotState(ckpt); err != nil {
			t.Fatal(err)
		}
		cc := connectors.CommitContext{JobID: "job1", Pipeline: 1, CheckpointID: ckpt}
		for range 2 { // a commit repeated after a restore changes nothing
			if err := c.Commit(ctx, cc, [][]byte{info}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s: %d bytes (%v), want %d the same", name, len(got), err, len(b))
		}
	}
	if left := files(t, filepath.Join(out, stagingDir)); len(left) != 0 {
		t.Errorf("staging left: %v", left)
	}

	// A restored writer knows the last chunk of each file: a replayed
	// chunk out of order fails the job.
	w, err = k.CreateWriter(ctx, task(0, 1), state)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(batchOf(t, src.cfg.schema, rows[0])); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("replayed chunk: %v", err)
	}

	// Without transactions the chunks go straight into place.
	direct := t.TempDir()
	k = newTestSink(t, `path = `+q(direct)+"\nfile_format_type = binary\nis_enable_transaction = false", src.cfg.schema)
	writeAndCommit(t, k, task(0, 0), 1, batchOf(t, src.cfg.schema, rows...))
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(direct, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("direct %s: %d bytes (%v), want %d the same", name, len(got), err, len(b))
		}
	}

	// Only the binary source's rows can be written.
	other := row.MustSchema("t", row.Field{Name: "a", Type: row.Int, Nullable: true})
	if _, err := createSinkErr(t, `path = `+q(out)+"\nfile_format_type = binary", other); err == nil || !strings.Contains(err.Error(), "binary writes only the rows of a binary source") {
		t.Fatalf("binary of another schema: %v", err)
	}
}

// TestXLSReadsAsXLSX reads SeaTunnel's e2e workbook in both formats
// (the same sheet saved as .xls and .xlsx by Excel): every value of every
// field, dates, numbers, booleans and strings, must agree.
func TestXLSReadsAsXLSX(t *testing.T) {
	schema := `skip_header_row_number = 1
		field_delimiter = ";"
		schema { fields {
			c_map = "map<string, string>", c_array = "array<int>", c_string = string, c_boolean = boolean
			c_tinyint = tinyint, c_smallint = smallint, c_int = int, c_bigint = bigint, c_float = float
			c_double = double, c_bytes = bytes, c_date = date, c_decimal = "decimal(38, 18)", c_timestamp = timestamp
			c_row = { c_map = "map<string, string>", c_array = "array<int>", c_string = string, c_boolean = boolean
				c_tinyint = tinyint, c_smallint = smallint, c_int = int, c_bigint = bigint, c_float = float
				c_double = double, c_bytes = bytes, c_date = date, c_decimal = "decimal(38, 18)", c_timestamp = timestamp }
		} }`
	read := func(name string) [][]any {
		src := newTestSource(t, `path = "testdata/`+name+`"
			file_format_type = excel
			`+schema)
		return readAll(t, src, 1)
	}
	xls, xlsx := read("e2e.xls"), read("e2e.xlsx")
	if len(xlsx) != 5 {
		t.Fatalf("%d rows in e2e.xlsx", len(xlsx))
	}
	names := []string{"c_map", "c_array", "c_string", "c_boolean", "c_tinyint", "c_smallint", "c_int", "c_bigint", "c_float",
		"c_double", "c_bytes", "c_date", "c_decimal", "c_timestamp", "c_row"}
	compareRows(t, names, xls, xlsx)
	for _, r := range xlsx {
		for j, v := range r {
			if v == nil {
				t.Errorf("field %s is null: %v", names[j], r)
			}
		}
	}
}

// TestXLSErrors: a file that is not a workbook is an error naming it.
func TestXLSErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.xls"), "not an ole2 file")
	src := newTestSource(t, `path = `+q(dir)+`
		file_format_type = excel
		schema { fields { a = int } }`)
	if _, err := readAllErr(t, src, 1); err == nil || !strings.Contains(err.Error(), "a.xls: not a valid .xls (BIFF8) workbook") {
		t.Fatalf("bad xls: %v", err)
	}
	src = newTestSource(t, `path = "testdata/e2e.xls"
		file_format_type = excel
		sheet_name = nope
		schema { fields { a = int } }`)
	if _, err := readAllErr(t, src, 1); err == nil || !strings.Contains(err.Error(), `no sheet "nope"`) {
		t.Fatalf("missing sheet: %v", err)
	}
}

// TestXLSCorrupt: damaged workbooks are errors or other values, never a
// panic.
func TestXLSCorrupt(t *testing.T) {
	orig, err := os.ReadFile("testdata/e2e.xls")
	if err != nil {
		t.Fatal(err)
	}
	cfg := newTestSource(t, `path = "testdata/e2e.xls"
		file_format_type = excel
		schema { fields { a = string, b = string, c = string } }`).cfg
	mutate(t, orig, 3000, 5, func(bad []byte) { parseExcel(cfg, "bad.xls", "bad.xls", bad) })
	// The same inside the Workbook stream, past the compound file.
	cf, err := mscfb.New(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	var stream []byte
	for e, err := cf.Next(); err == nil; e, err = cf.Next() {
		if e.Name == "Workbook" {
			stream, _ = io.ReadAll(e)
		}
	}
	if _, err := parseXLSStream(stream, ""); err != nil {
		t.Fatal(err)
	}
	mutate(t, stream, 5000, 6, func(bad []byte) { parseXLSStream(bad, "") })
}
