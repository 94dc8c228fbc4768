package mysql

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// serverIDs is the server-id option: one id ("5400") or a range
// ("5400-5408"), one id per reader. Each reader registers with the server
// as a replica under its id, and an id must be unique among the server's
// replicas.
type serverIDs struct {
	First, Last uint32
}

// parseServerIDs reads server-id; empty draws one random id between 6500
// and 2,148,492,146 as SeaTunnel does (a range of readers ids from there).
func parseServerIDs(s string, readers int) (serverIDs, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		first := uint32(6500 + rand.Int64N(2_148_492_146-6500-int64(readers)))
		return serverIDs{First: first, Last: first + uint32(readers) - 1}, nil
	}
	one := func(v string) (uint32, error) {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
		if err != nil || n == 0 {
			return 0, fmt.Errorf("server-id %q: want a number from 1 to 4294967295 or a range like 5400-5408", s)
		}
		return uint32(n), nil
	}
	lo, hi, isRange := strings.Cut(s, "-")
	first, err := one(lo)
	if err != nil {
		return serverIDs{}, err
	}
	last := first
	if isRange {
		if last, err = one(hi); err != nil {
			return serverIDs{}, err
		}
		if last < first {
			return serverIDs{}, fmt.Errorf("server-id %q: the range ends before it starts", s)
		}
	}
	return serverIDs{First: first, Last: last}, nil
}

// Count is how many ids the option names.
func (ids serverIDs) Count() int { return int(ids.Last-ids.First) + 1 }

// For is the id of reader subtask i; a range shorter than the readers is
// an error naming both.
func (ids serverIDs) For(i int) (uint32, error) {
	if i >= ids.Count() {
		return 0, fmt.Errorf("server-id %d-%d names %d ids but reader %d needs one (give a range with one id per reader, e.g. %d-%d)",
			ids.First, ids.Last, ids.Count(), i, ids.First, ids.First+uint32(i))
	}
	return ids.First + uint32(i), nil
}
