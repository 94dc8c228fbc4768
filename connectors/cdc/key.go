package cdc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// Key is a chunk-key value: integers, dates (days) and times in I,
// decimals and strings in S (a decimal in its canonical text).
type Key struct {
	I int64  `json:"i,omitempty"`
	S string `json:"s,omitempty"`
}

// KeyOf is the value at row i of c (nil when null or not a key type).
func KeyOf(c *row.Column, i int) *Key {
	if c.IsNull(i) {
		return nil
	}
	switch c.Type.Storage() {
	case row.StoreInt:
		return &Key{I: c.Ints[i]}
	case row.StoreDecimal:
		return &Key{S: c.Decs[i].String()}
	case row.StoreString:
		return &Key{S: c.Str(i)}
	}
	return nil
}

// ParseKey reads a key of type t from the text a database prints.
func ParseKey(t *row.Type, s string) (*Key, error) {
	switch t.Storage() {
	case row.StoreInt:
		if t.ID == row.TypeDate {
			d, err := row.ParseDate(s)
			if err != nil {
				return nil, fmt.Errorf("chunk key %q: %w", s, err)
			}
			return &Key{I: row.DateOf(d)}, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("chunk key %q: %w", s, err)
		}
		return &Key{I: n}, nil
	case row.StoreDecimal:
		d, err := decimal.NewFromString(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("chunk key %q: %w", s, err)
		}
		return &Key{S: d.String()}, nil
	case row.StoreString:
		return &Key{S: s}, nil
	}
	return nil, fmt.Errorf("%s cannot be a chunk key", t)
}

// ChunkKeyType tells whether a column of type t can be a chunk key:
// integers, decimals, strings and dates, as SeaTunnel's.
func ChunkKeyType(t *row.Type) bool {
	switch t.ID {
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt, row.TypeDecimal, row.TypeString, row.TypeDate:
		return true
	}
	return false
}

// Compare orders keys of type t: negative when a < b. A nil a or b is
// the open bound below (lo) — callers handle open upper bounds.
func (a *Key) Compare(t *row.Type, b *Key) int {
	switch t.Storage() {
	case row.StoreInt:
		switch {
		case a.I < b.I:
			return -1
		case a.I > b.I:
			return 1
		}
		return 0
	case row.StoreDecimal:
		x, _ := decimal.NewFromString(a.S)
		y, _ := decimal.NewFromString(b.S)
		return x.Cmp(y)
	}
	return strings.Compare(a.S, b.S)
}

// Value is the key as a Go value of its column type's storage (int64,
// decimal.Decimal or string), for statement arguments.
func (a *Key) Value(t *row.Type) any {
	switch t.Storage() {
	case row.StoreInt:
		return a.I
	case row.StoreDecimal:
		d, _ := decimal.NewFromString(a.S)
		return d
	}
	return a.S
}

func (a *Key) String() string {
	if a == nil {
		return "-"
	}
	if a.S != "" {
		return strconv.Quote(a.S)
	}
	return strconv.FormatInt(a.I, 10)
}

// Contains tells whether chunk c holds key k (of type t).
func (c *Chunk) Contains(t *row.Type, k *Key) bool {
	if k == nil {
		return c.Lo == nil && c.Hi == nil
	}
	if c.Lo != nil && k.Compare(t, c.Lo) < 0 {
		return false
	}
	return c.Hi == nil || k.Compare(t, c.Hi) < 0
}

// ID is the split id of the chunk.
func (c *Chunk) ID() string { return fmt.Sprintf("cdc-chunk-%d-%d", c.Table, c.Seq) }
