package localfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/connectors/localfile/orc"
	"github.com/stactor/stactor/row"
)

// writeORC writes one row of another writer's ORC file: the kinds
// SeaTunnel's orc e2e files hold, a varchar, a list of decimals.
func writeORC(t *testing.T, path string) {
	inner := orc.Struct([]string{"c_int", "c_string"}, orc.Primitive(orc.KindInt), orc.Primitive(orc.KindString))
	schema := orc.Struct([]string{"c_smallint", "c_int", "c_float", "c_timestamp", "c_decimal", "c_row", "c_bools", "c_string", "c_varchar"},
		orc.Primitive(orc.KindShort), orc.Primitive(orc.KindInt), orc.Primitive(orc.KindFloat), orc.Primitive(orc.KindTimestamp),
		orc.Decimal(10, 3), inner, orc.List(orc.Primitive(orc.KindBoolean)), orc.Primitive(orc.KindString),
		&orc.Type{Kind: orc.KindVarchar, MaxLength: 8})
	var buf bytes.Buffer
	w, err := orc.NewWriter(&buf, schema, orc.WriterOptions{Compression: orc.Snappy})
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]*orc.Vector, len(schema.Children))
	for i, c := range schema.Children {
		cols[i] = orc.NewVector(c)
		cols[i].Nulls = append(cols[i].Nulls, false)
		cols[i].Len = 1
	}
	cols[0].Ints = append(cols[0].Ints, -7)
	cols[1].Ints = append(cols[1].Ints, 1<<30)
	cols[2].Floats = append(cols[2].Floats, 1.5)
	cols[3].Secs = append(cols[3].Secs, 1689913167)
	cols[3].Nanos = append(cols[3].Nanos, 123000000)
	cols[4].Decimals = append(cols[4].Decimals, decimal.RequireFromString("1.500"))
	r := cols[5]
	r.Children[0].Nulls, r.Children[0].Len, r.Children[0].Ints = []bool{false}, 1, []int64{42}
	r.Children[1].Nulls, r.Children[1].Len, r.Children[1].Bytes = []bool{false}, 1, [][]byte{[]byte("x")}
	l := cols[6]
	l.Children[0].Nulls, l.Children[0].Len, l.Children[0].Ints = []bool{false, false}, 2, []int64{1, 0}
	l.Offsets = append(l.Offsets, 2)
	cols[7].Bytes = append(cols[7].Bytes, []byte("héllo"))
	cols[8].Bytes = append(cols[8].Bytes, []byte("vc"))
	if err := w.Write(cols); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestORCTypesAndCasts: the file's types as OrcReadStrategy maps them, and
// a schema's types where TypeUtil.canConvert allows (the file's
// elsewhere), as local_file_orc_to_assert_with_time_and_cast.conf asks.
func TestORCTypesAndCasts(t *testing.T) {
	dir := t.TempDir()
	writeORC(t, filepath.Join(dir, "a.orc"))
	src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = orc")
	want := "default.default.default(c_smallint smallint, c_int int, c_float float, c_timestamp timestamp, c_decimal decimal(10, 3), c_row row<c_int int, c_string string>, c_bools array<boolean>, c_string string, c_varchar string)"
	if got := src.cfg.schema.String(); got != want {
		t.Fatalf("schema\n got %s\nwant %s", got, want)
	}
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{{
		int64(-7), int64(1 << 30), 1.5, ts("2023-07-21T04:19:27.123"), decimal.RequireFromString("1.5"),
		[]any{int64(42), "x"}, []any{true, false}, "héllo", "vc",
	}})

	src = newTestSource(t, "path = "+q(dir)+"\nfile_format_type = orc\nplugin_output = fake\n"+
		`schema { fields { c_smallint = bigint, c_int = bigint, c_float = string, c_timestamp = time, c_decimal = string, c_row = { c_int = string, c_string = int }, c_bools = "array<string>", c_string = int, c_varchar = string } }`)
	want = "fake(c_smallint bigint, c_int bigint, c_float string, c_timestamp time, c_decimal string, c_row row<c_int string, c_string string>, c_bools array<string>, c_string string, c_varchar string)"
	if got := src.cfg.schema.String(); got != want {
		t.Fatalf("schema with casts\n got %s\nwant %s", got, want)
	}
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{{
		int64(-7), int64(1 << 30), "1.5", 4*time.Hour + 19*time.Minute + 27*time.Second + 123*time.Millisecond, "1.5",
		[]any{"42", "x"}, []any{"true", "false"}, "héllo", "vc",
	}})

	// read_columns picks and orders the columns; the partition folders
	// add theirs
	part := filepath.Join(dir, "p", "k=v")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	writeORC(t, filepath.Join(part, "b.orc"))
	src = newTestSource(t, "path = "+q(filepath.Join(dir, "p"))+"\nfile_format_type = orc\nread_columns = [c_string, c_smallint]")
	if got := src.cfg.schema.String(); got != "default.default.default(c_string string, c_smallint smallint, k string)" {
		t.Fatalf("read_columns: %s", got)
	}
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{{"héllo", int64(-7), "v"}})

	if _, err := createSourceErr(t, "path = "+q(dir)+"\nfile_format_type = orc\nread_columns = [nope]"); err == nil || !strings.Contains(err.Error(), "column [nope] does not exist") {
		t.Fatalf("unknown read column: %v", err)
	}
}

// TestORCSinkFiles: names and compression as SeaTunnel's CompressFormat,
// names in lower case, null-typed fields refused at plan time.
func TestORCSinkFiles(t *testing.T) {
	s := row.MustSchema("t", row.Field{Name: "ID", Type: row.Int}, row.Field{Name: "Name", Type: row.String, Nullable: true})
	for codec, want := range map[string]struct {
		ext  string
		kind orc.Compression
	}{"none": {".orc", orc.None}, "zlib": {".zlib.orc", orc.Zlib}, "snappy": {".snappy.orc", orc.Snappy}, "lz4": {".lz4.orc", orc.LZ4}, "zstd": {".zstd.orc", orc.None}} {
		dir := t.TempDir()
		k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = orc\ncompress_codec = "+codec, s)
		writeAndCommit(t, k, task(0, 0), 1, batchOf(t, s, []any{int64(1), "a"}, []any{int64(2), nil}))
		names := files(t, dir)
		if len(names) != 1 || !strings.HasSuffix(names[0], want.ext) || strings.HasSuffix(names[0], "."+want.ext) {
			t.Fatalf("%s: files %v, want one named *%s", codec, names, want.ext)
		}
		b, err := os.ReadFile(filepath.Join(dir, names[0]))
		if err != nil {
			t.Fatal(err)
		}
		f, err := orc.Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if f.Compression() != want.kind || f.Schema().String() != "struct<id:int,name:string>" {
			t.Fatalf("%s: %s compression, schema %s", codec, f.Compression(), f.Schema())
		}
		rows := readAll(t, newTestSource(t, "path = "+q(dir)+"\nfile_format_type = orc"), 1)
		compareRows(t, []string{"id", "name"}, rows, [][]any{{int64(1), "a"}, {int64(2), nil}})
	}
	n := row.MustSchema("t", row.Field{Name: "id", Type: row.Int}, row.Field{Name: "nothing", Type: row.Null, Nullable: true})
	if _, err := createSinkErr(t, "path = "+q(t.TempDir())+"\nfile_format_type = orc", n); err == nil || !strings.Contains(err.Error(), "field nothing: Orc file not support this type [null]") {
		t.Fatalf("null type: %v", err)
	}
}

// TestORCDamagedFile: a damaged file is an error naming it, at plan time
// (the schema) or when read.
func TestORCDamagedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.orc")
	writeORC(t, path)
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := createSourceErr(t, "path = "+q(dir)+"\nfile_format_type = orc"); err == nil || !strings.Contains(err.Error(), "a.orc] is not a orc file") {
		t.Fatalf("truncated file: %v", err)
	}
}
