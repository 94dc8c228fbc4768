package fake

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/stactor/stactor/connectors"
)

// split is a run of rows of one table: SeaTunnel's FakeSourceSplit, plus
// the position of the next row to emit and the year random dates fall in
// (SeaTunnel uses the current year; fixing it in the split keeps replays
// identical across a new year).
type split struct {
	table string // the table's id
	index int    // the split's number within its table; reader index%parallelism owns it
	rows  int    // rows in the split
	pos   int    // rows already emitted
	year  int
}

const splitVersion = 1

func (s *split) id() string { return s.table + "#" + strconv.Itoa(s.index) }

func (s *split) encode() connectors.Split {
	b := make([]byte, 0, 32+len(s.table))
	b = append(b, splitVersion)
	b = binary.AppendUvarint(b, uint64(len(s.table)))
	b = append(b, s.table...)
	b = binary.AppendUvarint(b, uint64(s.index))
	b = binary.AppendUvarint(b, uint64(s.rows))
	b = binary.AppendUvarint(b, uint64(s.pos))
	b = binary.AppendVarint(b, int64(s.year))
	return connectors.Split{ID: s.id(), Data: b}
}

// errBadSplit is returned for split data this package did not encode (or
// of another version): a restore from an incompatible checkpoint.
var errBadSplit = errors.New("not a FakeSource split")

func decodeSplit(cs connectors.Split) (*split, error) {
	b := cs.Data
	if len(b) == 0 || b[0] != splitVersion {
		return nil, fmt.Errorf("split %q: %w (unknown version)", cs.ID, errBadSplit)
	}
	b = b[1:]
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	n, ok := next()
	if !ok || uint64(len(b)) < n {
		return nil, fmt.Errorf("split %q: %w", cs.ID, errBadSplit)
	}
	s := &split{table: string(b[:n])}
	b = b[n:]
	idx, ok1 := next()
	rows, ok2 := next()
	pos, ok3 := next()
	year, m := binary.Varint(b)
	if !ok1 || !ok2 || !ok3 || m <= 0 || pos > rows {
		return nil, fmt.Errorf("split %q: %w", cs.ID, errBadSplit)
	}
	s.index, s.rows, s.pos, s.year = int(idx), int(rows), int(pos), int(year)
	return s, nil
}
