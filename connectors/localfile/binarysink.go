package localfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// The binary sink (SeaTunnel's BinaryWriteStrategy) writes the chunks the
// binary source read back into files at the same relative paths under
// path: chunk k of a file goes at byte k*1024, and chunks must come in
// order (k after k-1), else the job fails as SeaTunnel's does. Unlike
// SeaTunnel's, a file may span checkpoints: a transaction stages the
// chunks it got, and the commit puts a file's first piece in place by a
// rename and each later piece by a write at its offset, which can be
// repeated. The last chunk index of each file is in the writer's state.

// checkBinaryInput checks that the sink's input is the binary source's
// row (data, relativePath, partIndex), as BinaryWriteStrategy does.
func checkBinaryInput(cfg *config.PluginConfig, in *row.Schema) error {
	ok := in.Len() == len(binaryFields)
	for i := 0; ok && i < len(binaryFields); i++ {
		ok = in.Fields[i].Name == binaryFields[i].Name && in.Fields[i].Type.Equal(binaryFields[i].Type)
	}
	if !ok {
		return cfg.Errorf("file_format_type", "binary writes only the rows of a binary source (data bytes, relativePath string, partIndex bigint), got %s: read the files with file_format_type = binary and do not change the rows in a transform", in)
	}
	return nil
}

// binFile is a file of the binary sink being written in this transaction.
type binFile struct {
	rel   string
	path  string // where it is written: staging, or final without transactions
	f     *os.File
	start int64 // the first chunk written in this transaction
}

// writeBinary writes the chunks of a batch of binary rows.
func (w *writer) writeBinary(b *row.Batch) error {
	data, rels, parts := b.Cols[0], b.Cols[1], b.Cols[2]
	for i := 0; i < b.Len(); i++ {
		if data.IsNull(i) || rels.IsNull(i) || parts.IsNull(i) {
			return connectors.Permanent(fmt.Errorf("LocalFile binary: row %d has a null data, relativePath or partIndex", i))
		}
		rel, part := rels.Str(i), parts.Ints[i]
		if err := checkRelPath(rel); err != nil {
			return connectors.Permanent(err)
		}
		last, seen := w.binLast[rel]
		if !seen {
			last = -1
		}
		if part-1 != last {
			return connectors.Permanent(fmt.Errorf("LocalFile binary: %s: chunks out of order: last was %d, got %d (a file's chunks must reach one writer in order: keep the sink's parallelism the source's)", rel, last, part))
		}
		bf, err := w.binFileFor(rel, part)
		if err != nil {
			return err
		}
		if _, err := bf.f.Write(data.Bins[i]); err != nil {
			return fmt.Errorf("LocalFile binary: %s: %w", bf.path, err)
		}
		w.binLast[rel] = part
	}
	return nil
}

// checkRelPath refuses a relative path that would leave the sink's path.
func checkRelPath(rel string) error {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if rel == "" || filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || strings.HasPrefix(clean, stagingDir) {
		return fmt.Errorf("LocalFile binary: relativePath %q is not a file inside the sink's path", rel)
	}
	return nil
}

func (w *writer) binFileFor(rel string, part int64) (*binFile, error) {
	if bf, ok := w.bin[rel]; ok {
		return bf, nil
	}
	bf := &binFile{rel: rel, start: part}
	var err error
	if w.cfg.transactional {
		bf.path = filepath.Join(w.dir(), filepath.FromSlash(rel))
		bf.f, err = createFile(bf.path, false)
	} else {
		bf.path = filepath.Join(w.cfg.root, filepath.FromSlash(rel))
		if err = os.MkdirAll(filepath.Dir(bf.path), 0o755); err == nil {
			flags := os.O_WRONLY | os.O_CREATE
			if part == 0 {
				flags |= os.O_TRUNC
			}
			if bf.f, err = os.OpenFile(bf.path, flags, 0o644); err == nil {
				_, err = bf.f.Seek(part*binaryChunk, io.SeekStart)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("LocalFile binary: %w", err)
	}
	w.bin[rel] = bf
	return bf, nil
}

// finishBinary closes this transaction's files and returns their moves.
func (w *writer) finishBinary() ([]fileMove, error) {
	var moves []fileMove
	var err error
	for _, rel := range sortedBinKeys(w.bin) {
		bf := w.bin[rel]
		if cerr := errors.Join(bf.f.Sync(), bf.f.Close()); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing %s: %w", bf.path, cerr))
		}
		m := fileMove{From: bf.path, To: filepath.Join(w.cfg.root, filepath.FromSlash(rel))}
		if bf.start > 0 {
			m.At, m.Write = bf.start*binaryChunk, true
		}
		moves = append(moves, m)
	}
	clear(w.bin)
	return moves, err
}

func sortedBinKeys(m map[string]*binFile) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// writeAt commits a later piece of a binary file: the staged bytes are
// written at offset at of the final file, which is synced; the staged file
// is removed after. Writing the same bytes at the same place again is
// harmless, so a repeated commit is too.
func writeAt(from, to string, at int64) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := dst.Seek(at, io.SeekStart); err != nil {
		dst.Close()
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := errors.Join(dst.Sync(), dst.Close()); err != nil {
		return err
	}
	if err := os.Remove(from); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
