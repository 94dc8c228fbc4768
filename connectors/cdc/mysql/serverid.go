package mysql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
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

// inUse are the server ids this process's binlog connections hold. Two
// connections with one id make the server drop the older one, so within a
// process a connection takes an id of the range that no other holds, and
// waits for one when all are taken (a chunk's short log read waits for
// another's). Across processes each reader needs ids of its own; the
// range's first ids are taken first.
var inUse = struct {
	sync.Mutex // guards ids and freed
	ids        map[uint32]bool
	freed      chan struct{} // closed and replaced when an id is released
}{ids: map[uint32]bool{}, freed: make(chan struct{})}

// acquire takes a free id of the range, waiting for one up to ctx; release
// gives it back.
func (ids serverIDs) acquire(ctx context.Context) (id uint32, release func(), err error) {
	for {
		inUse.Lock()
		for id := ids.First; ; id++ {
			if !inUse.ids[id] {
				inUse.ids[id] = true
				inUse.Unlock()
				var once sync.Once
				return id, func() {
					once.Do(func() {
						inUse.Lock()
						delete(inUse.ids, id)
						close(inUse.freed)
						inUse.freed = make(chan struct{})
						inUse.Unlock()
					})
				}, nil
			}
			if id == ids.Last {
				break
			}
		}
		freed := inUse.freed
		inUse.Unlock()
		select {
		case <-ctx.Done():
			return 0, nil, fmt.Errorf("waiting for a free server-id of %d-%d: %w", ids.First, ids.Last, ctx.Err())
		case <-freed:
		}
	}
}
