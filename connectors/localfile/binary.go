package localfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/stactor/stactor/row"
)

// binaryFields are the rows of the binary format, SeaTunnel's
// BinaryReadStrategy.binaryRowType: a chunk of a file, the file's path
// below the source path (its name when path is a file), and the chunk's
// index in the file.
var binaryFields = []row.Field{
	{Name: "data", Type: row.Bytes, Nullable: true},
	{Name: "relativePath", Type: row.String, Nullable: true},
	{Name: "partIndex", Type: row.BigInt, Nullable: true},
}

// binaryChunk is the size of the chunks the binary format reads, as
// SeaTunnel's (a fixed 1024).
const binaryChunk = 1024

// binarySplit reads a file in chunks; its position is a byte offset, so
// the part index is pos / binaryChunk.
type binarySplit struct {
	proj []int // the output columns' fields of binaryFields (read_columns)
	f    *os.File
	sp   *split
	rel  string
	buf  []byte
	eof  bool
}

func openBinary(cfg *sourceConfig, s *split) (*binarySplit, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, err
	}
	if s.pos > 0 {
		if _, err := f.Seek(s.pos, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
	}
	rel := filepath.Base(s.path)
	if st, err := os.Stat(cfg.root); err == nil && st.IsDir() {
		if r, err := filepath.Rel(cfg.root, s.path); err == nil {
			rel = filepath.ToSlash(r)
		}
	}
	return &binarySplit{proj: cfg.proj, f: f, sp: s, rel: rel, buf: make([]byte, binaryChunk)}, nil
}

func (b *binarySplit) read(cols []*row.Column, n int) (int, bool, error) {
	rows := 0
	for rows < n && !b.eof {
		k, err := io.ReadFull(b.f, b.buf)
		if k > 0 {
			for j, i := range b.proj {
				switch i {
				case 0:
					cols[j].AppendBytes(append([]byte(nil), b.buf[:k]...))
				case 1:
					cols[j].AppendString(b.rel)
				default:
					cols[j].AppendInt(b.sp.pos / binaryChunk)
				}
			}
			b.sp.pos += int64(k)
			rows++
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			b.eof = true
		case err != nil:
			return rows, false, fmt.Errorf("%s: %w", b.sp.path, err)
		}
	}
	return rows, b.eof, nil
}

func (b *binarySplit) close() error { return b.f.Close() }
