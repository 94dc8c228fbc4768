package cdc

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/row"
)

// rowRef is one row of one batch.
type rowRef struct {
	b *row.Batch
	i int
}

// chunkImage is a chunk's rows by primary key, as read and then changed
// by the log: the backfill of the incremental snapshot algorithm.
type chunkImage struct {
	t     *Table
	c     Chunk
	pk    []int
	key   int // chunk key index, -1 without one
	order []string
	rows  map[string]rowRef // by primary key; absent: deleted or never there
	read  []*row.Batch      // the batches read
	dirty bool              // a change touched the chunk's keys
}

func newChunkImage(t *Table, c Chunk) *chunkImage {
	im := &chunkImage{t: t, c: c, key: t.KeyIndex(), rows: map[string]rowRef{}}
	for _, k := range t.Schema.PrimaryKey {
		im.pk = append(im.pk, t.Schema.Index(k))
	}
	return im
}

// pkOf is row i's primary key as a map key.
func (im *chunkImage) pkOf(b *row.Batch, i int) string {
	var sb strings.Builder
	for _, j := range im.pk {
		fmt.Fprintf(&sb, "%v\x00", b.Cols[j].Value(i))
	}
	return sb.String()
}

// inChunk tells whether row i of b belongs to the chunk.
func (im *chunkImage) inChunk(b *row.Batch, i int) bool {
	if im.key < 0 {
		return true
	}
	k := KeyOf(b.Cols[im.key], i)
	return k != nil && im.c.Contains(b.Schema.Fields[im.key].Type, k)
}

// add keeps the rows read; they are indexed by key only when a change
// touches the chunk.
func (im *chunkImage) add(b *row.Batch) { im.read = append(im.read, b) }

// index puts the rows read by key.
func (im *chunkImage) index() {
	for _, b := range im.read {
		im.indexBatch(b)
	}
}

func (im *chunkImage) indexBatch(b *row.Batch) {
	for i := 0; i < b.Len(); i++ {
		p := im.pkOf(b, i)
		if _, ok := im.rows[p]; !ok {
			im.order = append(im.order, p)
		}
		im.rows[p] = rowRef{b, i}
	}
}

// apply applies a change to the chunk's keys: the after-image replaces,
// a delete or a before-image removes.
func (im *chunkImage) apply(b *row.Batch) {
	for i := 0; i < b.Len(); i++ {
		if !im.inChunk(b, i) {
			continue
		}
		if !im.dirty {
			im.dirty = true
			im.index()
		}
		p := im.pkOf(b, i)
		switch b.Kind(i) {
		case row.Insert, row.UpdateAfter:
			if _, ok := im.rows[p]; !ok {
				im.order = append(im.order, p)
			}
			im.rows[p] = rowRef{b, i}
		case row.UpdateBefore, row.Delete:
			delete(im.rows, p)
		}
	}
}

// batches are the chunk's rows as INSERTs, in batches of at most size:
// the batches read when no change touched the chunk.
func (im *chunkImage) batches(size int) ([]*row.Batch, error) {
	if !im.dirty {
		return im.read, nil
	}
	var out []*row.Batch
	bl := row.NewBuilder(im.t.Schema, size)
	vals := make([]any, im.t.Schema.Len())
	for _, p := range im.order {
		r, ok := im.rows[p]
		if !ok {
			continue
		}
		delete(im.rows, p) // a key re-added after a delete is in order twice
		for j := range vals {
			vals[j] = r.b.Cols[j].Value(r.i)
		}
		if err := bl.AppendRow(row.Insert, vals); err != nil {
			return nil, fmt.Errorf("backfill of %s: %w", im.t.ID, err)
		}
		if bl.Len() >= size {
			out = append(out, bl.Build())
		}
	}
	if b := bl.Build(); b != nil && b.Len() > 0 {
		out = append(out, b)
	}
	return out, nil
}
