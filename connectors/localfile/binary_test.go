package localfile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
)

// TestBinaryRead: the binary format reads each file in 1024-byte chunks
// with its path below the source path and the chunk's index, as
// SeaTunnel's BinaryReadStrategy; the chunks put together are the file.
func TestBinaryRead(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef\x00\xff"), 200) // 3600 bytes: 4 chunks
	writeFile(t, filepath.Join(dir, "sub", "big.bin"), string(big))
	writeFile(t, filepath.Join(dir, "small.txt"), "hi\n")
	s := newTestSource(t, `path = `+q(dir)+`
file_format_type = binary
schema = { fields { ignored = int } }`)
	if got := fmt.Sprint(s.Tables()[0].Names()); got != "[data relativePath partIndex]" {
		t.Fatalf("fields: %s", got)
	}
	rows := readAll(t, s, 2)
	files := map[string][][]any{}
	for _, r := range rows {
		files[r[1].(string)] = append(files[r[1].(string)], r)
	}
	if len(files) != 2 || len(files["sub/big.bin"]) != 4 || len(files["small.txt"]) != 1 {
		t.Fatalf("chunks per file: %v", len(rows))
	}
	parts := files["sub/big.bin"]
	sort.Slice(parts, func(i, j int) bool { return parts[i][2].(int64) < parts[j][2].(int64) })
	var whole []byte
	for i, p := range parts {
		if p[2].(int64) != int64(i) {
			t.Fatalf("part %d has index %v", i, p[2])
		}
		whole = append(whole, p[0].([]byte)...)
	}
	if !bytes.Equal(whole, big) || len(parts[3][0].([]byte)) != 3600-3*1024 {
		t.Fatalf("chunks do not make the file (%d bytes)", len(whole))
	}
	// path naming a file: relativePath is its name
	one := newTestSource(t, `path = `+q(filepath.Join(dir, "small.txt"))+`
file_format_type = binary`)
	if rows := readAll(t, one, 1); len(rows) != 1 || rows[0][1] != "small.txt" || string(rows[0][0].([]byte)) != "hi\n" {
		t.Fatalf("one file: %v", rows)
	}
}
