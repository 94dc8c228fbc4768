package mysql

import (
	"fmt"
	"strconv"
	"strings"
)

// Offset is a position in the binlog: the file and the position of the
// next event to read, or, inside a transaction, the position where the
// transaction began and how many of its row changes were already emitted
// (Skip). A reader always restarts at a transaction's start (the server
// sends its table maps again from there) and drops the Skip changes it
// had emitted: a restore neither repeats nor loses a change of a
// transaction that a checkpoint cut in two.
//
// GTIDs, when the server has them, is the executed GTID set at the
// transaction boundary the offset names (MySQL's uuid:1-5 form or
// MariaDB's domain-server-seq), for users and logs; restarts use the file
// and position, which both flavors have.
type Offset struct {
	File  string `json:"file"`
	Pos   uint32 `json:"pos"`
	Skip  int64  `json:"skip,omitempty"`
	GTIDs string `json:"gtids,omitempty"`
}

// String is the offset for messages.
func (o Offset) String() string {
	s := fmt.Sprintf("%s:%d", o.File, o.Pos)
	if o.Skip > 0 {
		s += fmt.Sprintf("+%d", o.Skip)
	}
	return s
}

// IsZero says the offset names no position.
func (o Offset) IsZero() bool { return o.File == "" }

// Compare orders two offsets: binlog files by their numeric suffix
// (binlog.000009 before binlog.000010), then position, then Skip.
func (o Offset) Compare(p Offset) int {
	if c := compareFiles(o.File, p.File); c != 0 {
		return c
	}
	switch {
	case o.Pos < p.Pos:
		return -1
	case o.Pos > p.Pos:
		return 1
	case o.Skip < p.Skip:
		return -1
	case o.Skip > p.Skip:
		return 1
	}
	return 0
}

func compareFiles(a, b string) int {
	if a == b {
		return 0
	}
	na, oka := fileSeq(a)
	nb, okb := fileSeq(b)
	if oka && okb && na != nb {
		if na < nb {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// fileSeq is the number after the last dot of a binlog file name.
func fileSeq(name string) (int64, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 64)
	return n, err == nil
}
