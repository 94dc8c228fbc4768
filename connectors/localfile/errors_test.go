package localfile

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
)

// wantConfigError checks err is a positioned *config.Error about key
// whose message holds text.
func wantConfigError(t *testing.T, err error, key, text string) {
	t.Helper()
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("want a *config.Error about %s, got %v", key, err)
	}
	if ce.Key != key || ce.Pos.Line == 0 || !strings.Contains(ce.Error(), text) {
		t.Fatalf("got %q (key %q, line %d), want key %q with %q", ce.Error(), ce.Key, ce.Pos.Line, key, text)
	}
}

func TestSourceConfigErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.csv"), "1\n")
	for _, tc := range []struct{ body, key, text string }{
		{"path = \"\"\nfile_format_type = csv", "path", "must not be empty"},
		{"path = \"file://\"\nfile_format_type = csv", "path", "must not be empty"},
		{"path = \"/no/such/dir\"\nfile_format_type = csv", "path", "no such file or directory"},
		{"path = " + q(dir) + "\nfile_format_type = orc", "path", "is not a orc file"},
		{"path = " + q(dir) + "\nfile_format_type = avro", "file_format_type", "expected one of text, csv, json, parquet, xml, excel, binary, orc"},
		{"path = " + q(dir) + "\nfile_format_type = csv\nschema { fields { a = integr } }", "schema.fields.a", `unknown type name "integr"`},
		{"path = " + q(dir) + "\nfile_format_type = csv\nschema { fields { a = \"decimal(50, 2)\" } }", "schema.fields.a", "out of range"},
		{"path = " + q(dir) + "\nfile_format_type = csv\nread_columns = [a]", "read_columns", "needs a schema"},
		{"path = " + q(dir) + "\nfile_format_type = csv\nread_columns = [b]\nschema { fields { a = int } }", "read_columns", `"b" is not a field`},
		{"path = " + q(dir) + "\nfile_format_type = csv\nencoding = UTF-16", "encoding", "not supported"},
		{"path = " + q(dir) + "\nfile_format_type = csv\nfile_filter_pattern = \"a(\"", "file_filter_pattern", "not a regular expression"},
		{"path = " + q(dir) + "\nfile_format_type = parquet\ncompress_codec = lzo", "compress_codec", "lzo applies to text, csv, json and xml files"},
		{"path = " + q(dir) + "\nfile_format_type = csv\ndate_format = \"yyyy-QQ\"", "date_format", "not supported"},
		{"path = " + q(dir) + "\nfile_format_type = parquet", "path", "not a parquet file"},
	} {
		_, err := createSourceErr(t, tc.body)
		wantConfigError(t, err, tc.key, tc.text)
	}
	// A parquet file without a column the schema asks for.
	pq := t.TempDir()
	k := newTestSink(t, "path = "+q(pq)+"\nfile_format_type = parquet", numbered)
	writeAndCommit(t, k, task(0, 0), 1, numberedRows(t, 2))
	_, err := createSourceErr(t, "path = "+q(pq)+"\nfile_format_type = parquet\nschema { fields { id = bigint, nope = string } }")
	wantConfigError(t, err, "schema", `field "nope" is not a column`)
}

func TestSinkConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, key, text string }{
		{"file_format_type = csv", "path", "missing; it is required"},
		{"path = " + q(dir) + "\ncustom_filename = true\nfile_name_expression = \"out_${now}\"", "file_name_expression", "must contain ${transactionId}"},
		{"path = " + q(dir) + "\nsink_columns = [id, nope]", "sink_columns", `"nope" is not a field`},
		{"path = " + q(dir) + "\nhave_partition = true\npartition_by = [s]\nsink_columns = [id]", "partition_by", "must be one of sink_columns"},
		{"path = " + q(dir) + "\npartition_by = [id, s]", "sink_columns", "no column left"},
		{"path = " + q(dir) + "\nfile_format_type = parquet\ncompress_codec = lzo", "compress_codec", "not supported for parquet"},
		{"path = " + q(dir) + "\nfile_format_type = text\ncompress_codec = snappy", "compress_codec", "not supported for text"},
		{"path = " + q(dir) + "\ndata_save_mode = DROP_ALL", "data_save_mode", "expected one of"},
		{"path = " + q(dir) + "\nbatch_size = 0", "batch_size", "must be positive"},
	} {
		cfg, err := plugin(t, "sink LocalFile", SinkFactory.Options, tc.body)
		if err == nil {
			_, err = createSinkErr(t, tc.body, numbered)
		}
		_ = cfg
		wantConfigError(t, err, tc.key, tc.text)
	}
}

func TestMalformedRecordsNameFileAndLine(t *testing.T) {
	defer func(n int64) { blockSize = n }(blockSize)
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		if i == 150 {
			b.WriteString("150,\"broken\"x,1\n")
			continue
		}
		fmt.Fprintf(&b, "%d,\"ok\nstill ok\",%d\n", i, i)
	}
	path := filepath.Join(dir, "data.csv")
	writeFile(t, path, b.String())
	for _, bs := range []int64{64 << 20, 100} { // one split, then many blocks
		blockSize = bs
		src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = csv\nschema { fields { id = int, s = string, n = int } }")
		_, err := readAllErr(t, src, 2)
		// Record 150 starts on line 2*149+1 = 299.
		if err == nil || !strings.Contains(err.Error(), path+":299: malformed quoted field") {
			t.Fatalf("block size %d: %v", bs, err)
		}
	}
	blockSize = 64 << 20
	for _, tc := range []struct{ format, content, schema, want string }{
		{"csv", "1,2\n3,x\n", "a = int, b = int", ":2: field b: cannot parse \"x\" as int"},
		{"csv", "1,\"open\n", "a = int, b = string", ":1: unterminated quoted field"},
		{"text", "1\x012024-13-45\n", "a = int, b = date", ":1: field b: cannot parse \"2024-13-45\" as date"},
		{"json", "{\"a\": 1}\n{\"a\": 2,}\n", "a = int", ":2: malformed JSON"},
		{"json", "{\"a\": 1}\n\n[1]\n", "a = int", ":3: malformed JSON"},
		{"json", "{\"a\": \"x\"}\n", "a = int", ":1: field a: cannot parse \"x\" as int"},
		{"text", "1\x01300\n", "a = int, b = tinyint", ":1: field b: cannot parse \"300\" as tinyint"},
		{"csv", "1,123456789.5\n", "a = int, b = \"decimal(5, 1)\"", ":1: field b: 123456789.5 does not fit decimal(5, 1)"},
		// A year the text cannot hold in four digits is an error, never a
		// wrapped timestamp.
		{"csv", "1,10000-01-01 00:00:00\n", "a = int, b = timestamp", ":1: field b: cannot parse \"10000-01-01 00:00:00\" as timestamp"},
	} {
		d := t.TempDir()
		p := filepath.Join(d, "f")
		writeFile(t, p, tc.content)
		src := newTestSource(t, "path = "+q(d)+"\nfile_format_type = "+tc.format+"\nschema { fields { "+tc.schema+" } }")
		_, err := readAllErr(t, src, 1)
		if err == nil || !strings.Contains(err.Error(), p+tc.want) {
			t.Errorf("%s %q: got %v, want %s%s", tc.format, tc.content, err, p, tc.want)
		}
	}
}
