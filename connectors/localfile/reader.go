package localfile

import (
	"context"
	"fmt"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// idleWait is how long PollNext pauses when it has no split, so that an
// idle reader does not spin; well under the 100 ms a poll may take.
const idleWait = 10 * time.Millisecond

// defaultBatch is used when the collector suggests no batch size.
const defaultBatch = 1024

// splitReader reads the rows of one open split.
type splitReader interface {
	// read appends up to n rows to cols (the output schema's columns) and
	// tells how many, and whether the split is done. The split's position
	// is updated to just after the last row appended.
	read(cols []*row.Column, n int) (int, bool, error)
	close() error
}

// reader reads its splits one after the other, one batch per PollNext,
// parsing straight into the batch's typed columns.
type reader struct {
	ctx connectors.ReaderContext
	cfg *sourceConfig

	splits []*split // head first; the head may be open and partly read
	cur    splitReader
	noMore bool
	ended  bool
	sleep  func(time.Duration)

	// The batches are recycled (row.Recycling): their vectors come back
	// from the pool once the engine is done with them, so a steady read
	// allocates no vectors; cols is the builder's columns, for read.
	builder *row.Builder
	cols    []*row.Column
}

var _ connectors.Reader = (*reader)(nil)

func newReader(ctx connectors.ReaderContext, cfg *sourceConfig) *reader {
	return &reader{ctx: ctx, cfg: cfg, sleep: time.Sleep}
}

func (r *reader) Open(context.Context) error { return nil }

func (r *reader) AddSplits(splits []connectors.Split) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		r.splits = append(r.splits, s)
	}
	return nil
}

func (r *reader) HandleNoMoreSplits() error {
	r.noMore = true
	return nil
}

// PollNext emits at most one batch, of the head split.
func (r *reader) PollNext(out connectors.Collector) error {
	if len(r.splits) == 0 {
		r.maybeEnd()
		if !r.ended {
			r.sleep(idleWait)
		}
		return nil
	}
	s := r.splits[0]
	if r.cur == nil {
		cur, err := r.open(s)
		if err != nil {
			return err
		}
		r.cur = cur
	}
	size := out.BatchSize()
	if size <= 0 {
		size = defaultBatch
	}
	if r.builder == nil || r.builder.Capacity() != size {
		r.builder = row.NewBuilder(r.cfg.schema, size, row.Recycling())
		r.cols = make([]*row.Column, r.cfg.schema.Len())
	}
	b := r.builder
	for j := range r.cols {
		r.cols[j] = b.Col(j)
	}
	n, done, err := r.cur.read(r.cols, size)
	if err != nil {
		// The rows read are not emitted: start the next batch empty.
		b.Reset()
		return err
	}
	for i := 0; i < n; i++ {
		b.EndRow(row.Insert)
	}
	if done {
		if err := r.cur.close(); err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
		r.cur = nil
		r.splits[0] = nil
		r.splits = r.splits[1:]
	}
	if n > 0 {
		out.Emit(b.Build())
	}
	r.maybeEnd()
	return nil
}

func (r *reader) open(s *split) (splitReader, error) {
	keys, vals := partitionsOf(r.cfg.root, s.path)
	part := make([]string, len(r.cfg.partKeys))
	has := make([]bool, len(r.cfg.partKeys))
	for i, k := range r.cfg.partKeys {
		for x, fk := range keys {
			if fk == k {
				part[i], has[i] = vals[x], true
			}
		}
	}
	p := partitions{vals: part, has: has}
	if r.cfg.format == formatBinary {
		return openBinary(r.cfg, s)
	}
	if r.cfg.format == formatXML || r.cfg.format == formatExcel {
		return openDocument(r.cfg, s, p)
	}
	switch r.cfg.format {
	case formatParquet:
		in, err := openParquetIn(s.path, r.cfg.dataFields(), s.pos)
		if err != nil {
			return nil, err
		}
		return &rowFileSplit{in: in, sp: s, part: p, ndata: len(r.cfg.proj)}, nil
	case formatORC:
		in, err := openORCIn(r.cfg, s.path, r.cfg.dataFields(), s.pos)
		if err != nil {
			return nil, err
		}
		return &rowFileSplit{in: in, sp: s, part: p, ndata: len(r.cfg.proj)}, nil
	}
	return openLines(r.cfg, s, p)
}

// maybeEnd signals the end once there is nothing left and nothing to come.
func (r *reader) maybeEnd() {
	if !r.ended && r.noMore && len(r.splits) == 0 {
		r.ended = true
		r.ctx.SignalNoMoreElement()
	}
}

// SnapshotState returns the unfinished splits with the position of the
// next row of each.
func (r *reader) SnapshotState(checkpointID int64) ([]connectors.Split, error) {
	out := make([]connectors.Split, 0, len(r.splits))
	for _, s := range r.splits {
		out = append(out, s.encode())
	}
	return out, nil
}

func (r *reader) NotifyCheckpointComplete(checkpointID int64) error { return nil }

func (r *reader) Close() error {
	if r.cur != nil {
		err := r.cur.close()
		r.cur = nil
		return err
	}
	return nil
}

// partitions are the values of the partition fields for a file's rows.
type partitions struct {
	vals []string
	has  []bool
}

// append adds the partition values of n rows to cols.
func (p partitions) append(cols []*row.Column, n int) {
	for k, v := range p.vals {
		c := cols[len(cols)-len(p.vals)+k]
		for i := 0; i < n; i++ {
			if p.has[k] {
				c.AppendString(v)
			} else {
				c.AppendNull()
			}
		}
	}
}

// rowFile reads a file of rows (parquet, orc) a batch at a time.
type rowFile interface {
	read(cols []*row.Column, n int) (int, bool, error)
	close() error
}

var (
	_ rowFile = (*parquetIn)(nil)
	_ rowFile = (*orcIn)(nil)
)

// rowFileSplit reads a parquet or orc file's split; its position is a row
// index.
type rowFileSplit struct {
	in    rowFile
	sp    *split
	part  partitions
	ndata int
}

func (p *rowFileSplit) read(cols []*row.Column, n int) (int, bool, error) {
	k, done, err := p.in.read(cols[:p.ndata], n)
	if err != nil {
		return 0, false, err
	}
	p.part.append(cols, k)
	p.sp.pos += int64(k)
	return k, done, nil
}

func (p *rowFileSplit) close() error { return p.in.close() }
