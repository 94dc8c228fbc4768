package mysql

import (
	"fmt"
	"strconv"
	"strings"
)

// Offset is a position in the binlog: a file and the position in it of
// the next event, always at a transaction bound (a commit's end, or where
// the server's binlog ended when asked). Its text form, the framework's
// cdc.Offset, is "binlog.000003:1234".
//
// A stream started from a GTID set (startup.specific-offset.gtid-set) has
// an Offset with only GTIDs, text "gtid:0-1-42"; it is before every
// file/position offset, and the stream's offsets after it are
// file/position ones again.
type Offset struct {
	File  string
	Pos   uint32
	GTIDs string
}

// String is the text form.
func (o Offset) String() string {
	if o.File == "" && o.GTIDs != "" {
		return "gtid:" + o.GTIDs
	}
	if o.File == "" {
		return ""
	}
	return o.File + ":" + strconv.FormatUint(uint64(o.Pos), 10)
}

// IsZero says the offset names no position.
func (o Offset) IsZero() bool { return o.File == "" && o.GTIDs == "" }

// parseOffset reads an offset's text form.
func parseOffset(s string) (Offset, error) {
	if s == "" {
		return Offset{}, nil
	}
	if g, ok := strings.CutPrefix(s, "gtid:"); ok {
		return Offset{GTIDs: g}, nil
	}
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return Offset{}, fmt.Errorf("binlog offset %q: want file:position", s)
	}
	p, err := strconv.ParseUint(s[i+1:], 10, 32)
	if err != nil {
		return Offset{}, fmt.Errorf("binlog offset %q: position %q is not a number", s, s[i+1:])
	}
	return Offset{File: s[:i], Pos: uint32(p)}, nil
}

// Compare orders two offsets: binlog files by their numeric suffix
// (binlog.000009 before binlog.000010), then position. A GTID-only offset
// comes before the rest.
func (o Offset) Compare(p Offset) int {
	switch {
	case o.File == "" && p.File == "":
		return strings.Compare(o.GTIDs, p.GTIDs)
	case o.File == "":
		return -1
	case p.File == "":
		return 1
	}
	if c := compareFiles(o.File, p.File); c != 0 {
		return c
	}
	switch {
	case o.Pos < p.Pos:
		return -1
	case o.Pos > p.Pos:
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
