package localfile

import (
	"fmt"
	"testing"
)

// TestFileSuffixes: every file_format_type and compress_codec the sink
// takes ends its files as SeaTunnel's generateFileName does, the codec's
// suffix before the format's (or filename_extension's).
func TestFileSuffixes(t *testing.T) {
	cases := []struct {
		format, codec, extension, want string
	}{
		{"text", "none", "", ".txt"},
		{"text", "gzip", "", ".gz.txt"},
		{"text", "lzo", "", ".lzo.txt"},
		{"csv", "none", "", ".csv"},
		{"csv", "gzip", "", ".gz.csv"},
		{"csv", "lzo", "", ".lzo.csv"},
		{"json", "none", "", ".json"},
		{"json", "gzip", "", ".gz.json"},
		{"json", "lzo", "", ".lzo.json"},
		{"xml", "none", "", ".xml"},
		{"xml", "gzip", "", ".gz.xml"},
		{"xml", "lzo", "", ".lzo.xml"},
		{"parquet", "none", "", ".parquet"},
		{"parquet", "snappy", "", ".snappy.parquet"},
		{"parquet", "gzip", "", ".gz.parquet"},
		{"parquet", "zstd", "", ".zstd.parquet"},
		{"parquet", "lz4", "", ".lz4.parquet"},
		{"parquet", "brotli", "", ".br.parquet"},
		{"orc", "none", "", ".orc"},
		{"orc", "zlib", "", ".zlib.orc"},
		{"orc", "snappy", "", ".snappy.orc"},
		{"orc", "lz4", "", ".lz4.orc"},
		{"orc", "gzip", "", ".gz.orc"},
		{"orc", "zstd", "", ".zstd.orc"},
		{"orc", "brotli", "", ".br.orc"},
		{"excel", "none", "", ".xlsx"},
		// filename_extension takes the format's place, not the codec's
		{"csv", "none", "dat", ".dat"},
		{"csv", "gzip", "dat", ".gz.dat"},
		{"json", "lzo", ".jsonl", ".lzo.jsonl"},
		{"parquet", "snappy", "pq", ".snappy.pq"},
		{"orc", "zlib", "o", ".zlib.o"},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s/%s", c.format, c.codec, c.extension)
		body := "file_format_type = " + c.format + "\ncompress_codec = " + c.codec
		if c.format == "xml" {
			body += "\nxml_use_attr_format = false"
		}
		if c.extension != "" {
			body += "\nfilename_extension = " + q(c.extension)
		}
		dir := t.TempDir()
		k := newTestSink(t, "path = "+q(dir)+"\n"+body, people)
		writeAndCommit(t, k, task(0, 0), 1, peopleRows(t))
		want := "T_job1_1_0_1_0" + c.want
		if got := files(t, dir); len(got) != 1 || got[0] != want {
			t.Errorf("%s: files %v, want [%s]", name, got, want)
		}
	}
}
