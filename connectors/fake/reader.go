package fake

import (
	"context"
	"fmt"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// defaultBatch is used when the collector suggests no batch size.
const defaultBatch = 1024

// reader is SeaTunnel's FakeSourceReader: it reads its splits one after
// the other, one batch per PollNext, and waits split.read-interval between
// two splits. A split is snapshotted with its position, so a restored
// reader continues with exactly the next row.
type reader struct {
	ctx    connectors.ReaderContext
	tables map[string]*readerTable
	// interval is the least split.read-interval of the tables, as SeaTunnel's.
	interval time.Duration
	now      func() time.Time

	splits     []*split // head first; the head may be partly read
	inProgress bool     // the head split has emitted some rows
	lastStart  time.Time
	noMore     bool
	ended      bool // SignalNoMoreElement was called
	rh         []uint64
}

type readerTable struct {
	cfg     *tableConfig
	gen     *generator
	builder *row.Builder
}

var _ connectors.Reader = (*reader)(nil)

func newReader(ctx connectors.ReaderContext, tables []*tableConfig) *reader {
	r := &reader{ctx: ctx, tables: map[string]*readerTable{}, now: time.Now}
	for i, t := range tables {
		r.tables[t.schema.TableID] = &readerTable{cfg: t, gen: newGenerator(t)}
		if i == 0 || t.readInterval < r.interval {
			r.interval = t.readInterval
		}
	}
	return r
}

func (r *reader) Open(context.Context) error { return nil }

func (r *reader) AddSplits(splits []connectors.Split) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		if _, ok := r.tables[s.table]; !ok {
			return fmt.Errorf("FakeSource split %q: unknown table %q", cs.ID, s.table)
		}
		if s.pos < s.rows {
			r.splits = append(r.splits, s)
		}
	}
	return nil
}

func (r *reader) HandleNoMoreSplits() error {
	r.noMore = true
	return nil
}

// PollNext emits at most one batch of the head split.
func (r *reader) PollNext(out connectors.Collector) error {
	if len(r.splits) == 0 {
		r.maybeEnd()
		return nil // the engine pauses before polling a reader that had nothing
	}
	if !r.inProgress {
		// A new split: SeaTunnel reads the next split only
		// split.read-interval after it started the last one.
		if wait := r.lastStart.Add(r.interval).Sub(r.now()); wait > 0 {
			return nil // not yet; the engine polls again shortly
		}
		r.lastStart = r.now()
	}
	s := r.splits[0]
	t := r.tables[s.table]
	size := out.BatchSize()
	if size <= 0 {
		size = defaultBatch
	}
	n := min(t.cfg.rowsPerPoll(size), s.rows-s.pos)
	var b *row.Batch
	if t.cfg.custom != nil {
		// Fixed rows: every split emits all of them; the batch shares the
		// parsed rows, which nobody modifies.
		b = t.cfg.custom.Slice(s.pos, s.pos+n)
	} else {
		if t.builder == nil {
			// Recycled: the engine hands the vectors back once the
			// batch's last reader is done; b is not read after Emit.
			t.builder = row.NewBuilder(t.cfg.schema, size, row.Recycling())
		}
		if cap(r.rh) < n {
			r.rh = make([]uint64, n)
		}
		rh := r.rh[:n]
		t.gen.rowHashes(s, rh)
		if err := t.gen.fill(t.builder, s, rh); err != nil {
			return err
		}
		b = t.builder.Build()
	}
	s.pos += n
	if s.pos >= s.rows {
		r.splits[0] = nil
		r.splits = r.splits[1:]
		r.inProgress = false
	} else {
		r.inProgress = true
	}
	if b != nil {
		out.Emit(b)
	}
	r.maybeEnd()
	return nil
}

// maybeEnd signals the end of a bounded reader with nothing left.
func (r *reader) maybeEnd() {
	if !r.ended && r.noMore && len(r.splits) == 0 && r.ctx.Boundedness() == connectors.Bounded {
		r.ended = true
		r.ctx.SignalNoMoreElement()
	}
}

// SnapshotState returns the unfinished splits with the position of the
// next row each will emit.
func (r *reader) SnapshotState(checkpointID int64) ([]connectors.Split, error) {
	out := make([]connectors.Split, 0, len(r.splits))
	for _, s := range r.splits {
		out = append(out, s.encode())
	}
	return out, nil
}

func (r *reader) NotifyCheckpointComplete(checkpointID int64) error { return nil }

func (r *reader) Close() error { return nil }
