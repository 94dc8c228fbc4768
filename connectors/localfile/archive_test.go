package localfile

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors"
)

// archiveOf builds an archive of codec holding files (name, content) in
// order.
func archiveOf(t *testing.T, codec string, files [][2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if codec == "zip" {
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			w, err := zw.Create(f[0])
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(f[1]))
		}
		zw.Close()
		return buf.Bytes()
	}
	var gz *gzip.Writer
	var tw *tar.Writer
	if codec == "tar_gz" {
		gz = gzip.NewWriter(&buf)
		tw = tar.NewWriter(gz)
	} else {
		tw = tar.NewWriter(&buf)
	}
	tw.WriteHeader(&tar.Header{Name: "sub/", Typeflag: tar.TypeDir, Mode: 0o755})
	for _, f := range files {
		tw.WriteHeader(&tar.Header{Name: f[0], Size: int64(len(f[1])), Mode: 0o644, Typeflag: tar.TypeReg})
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	if gz != nil {
		gz.Close()
	}
	return buf.Bytes()
}

// TestArchives: archive_compress_codec zip, tar and tar_gz read every file
// inside each archive with the format, header lines skipped per file.
func TestArchives(t *testing.T) {
	for _, codec := range []string{"zip", "tar", "tar_gz"} {
		t.Run(codec, func(t *testing.T) {
			dir := t.TempDir()
			data := archiveOf(t, codec, [][2]string{{"sub/b.csv", "id,v\n1,x\n2,y\n"}, {"a.csv", "id,v\n3,z"}, {"empty.csv", ""}})
			if err := os.WriteFile(filepath.Join(dir, "data."+codec), data, 0o644); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "more."+codec), string(archiveOf(t, codec, [][2]string{{"c.csv", "id,v\n4,w\n"}})))
			s := newTestSource(t, `path = `+q(dir)+`
file_format_type = csv
archive_compress_codec = `+codec+`
skip_header_row_number = 1
schema = { fields { id = int, v = string } }`)
			if got := fmt.Sprint(readAll(t, s, 2)); !strings.Contains(got, "[1 x] [2 y]") || !strings.Contains(got, "[3 z]") || !strings.Contains(got, "[4 w]") || strings.Count(got, "[") != 5 {
				t.Fatalf("rows: %s", got)
			}
			if n := len(s.cfg.files); n != 3 {
				t.Fatalf("%d files inside the archives, want 3: %v", n, s.cfg.files)
			}
			// a split restored mid-file goes on from its position
			sp := &split{path: s.cfg.files[0].path, end: -1, pos: int64(len("id,v\n1,x\n"))}
			if !strings.HasSuffix(sp.path, "data."+codec+"!/sub/b.csv") {
				t.Fatalf("first file %s", sp.path)
			}
			rows, err := readSplits(t, s, []connectors.Split{sp.encode()}, 10)
			if err != nil || fmt.Sprint(rows) != "[[2 y]]" {
				t.Fatalf("restored split: %v %v", rows, err)
			}
		})
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.zip"), "not a zip")
	_, err := createSourceErr(t, `path = `+q(dir)+`
file_format_type = csv
archive_compress_codec = zip`)
	if err == nil || !strings.Contains(err.Error(), "not a zip archive") || !strings.Contains(err.Error(), "archive_compress_codec") {
		t.Fatalf("a bad zip: %v", err)
	}
}
