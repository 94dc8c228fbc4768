package localfile

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/stactor/stactor/connectors"
)

// split is a file, or a block of one (a byte range starting at a record
// start), with the position of the next row: a byte offset in the
// (uncompressed) file for text formats, a row index for parquet. line is
// the line number at pos, 0 when not known (a block not read from its
// file's start).
type split struct {
	path  string
	start int64
	end   int64 // -1: to the end of the file
	pos   int64
	line  int64
	owner int // enumerator only: the reader it goes to
}

const splitVersion = 1

// id is the file's path, and for blocks the path and start offset:
// split-id order is file order, then block order.
func (s *split) id() string {
	if s.start == 0 && s.end < 0 {
		return s.path
	}
	return fmt.Sprintf("%s@%020d", s.path, s.start)
}

func (s *split) encode() connectors.Split {
	b := make([]byte, 0, 48+len(s.path))
	b = append(b, splitVersion)
	b = binary.AppendUvarint(b, uint64(len(s.path)))
	b = append(b, s.path...)
	b = binary.AppendVarint(b, s.start)
	b = binary.AppendVarint(b, s.end)
	b = binary.AppendVarint(b, s.pos)
	b = binary.AppendVarint(b, s.line)
	b = binary.AppendVarint(b, int64(s.owner))
	return connectors.Split{ID: s.id(), Data: b}
}

var errBadSplit = errors.New("not a LocalFile split")

func decodeSplit(cs connectors.Split) (*split, error) {
	b := cs.Data
	if len(b) == 0 || b[0] != splitVersion {
		return nil, fmt.Errorf("split %q: %w (unknown version)", cs.ID, errBadSplit)
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, fmt.Errorf("split %q: %w", cs.ID, errBadSplit)
	}
	s := &split{path: string(b[k : k+int(n)])}
	b = b[k+int(n):]
	var vals [5]int64
	for i := range vals {
		v, m := binary.Varint(b)
		if m <= 0 {
			return nil, fmt.Errorf("split %q: %w", cs.ID, errBadSplit)
		}
		vals[i], b = v, b[m:]
	}
	s.start, s.end, s.pos, s.line, s.owner = vals[0], vals[1], vals[2], vals[3], int(vals[4])
	if s.pos < 0 || (s.end >= 0 && s.start > s.end) {
		return nil, fmt.Errorf("split %q: %w", cs.ID, errBadSplit)
	}
	return s, nil
}
