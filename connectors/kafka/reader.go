package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	pollWait     = 50 * time.Millisecond // PollNext's wait for a ready batch
	maxBatchRows = 4096
	commitWait   = 10 * time.Second // one group offset commit at most
)

// reader consumes its partitions with one franz-go client, run by a
// connectors.Fetcher goroutine; the client is made again (at the
// positions emitted so far) when splits are added. Positions are the
// splits' offsets after the rows handed to the engine, so a snapshot
// holds exactly what was emitted.
type reader struct {
	rctx connectors.ReaderContext
	cfg  *sourceConfig
	ctx  context.Context

	splits map[string]*split // by id; the unfinished ones
	// batchRows is the collector's BatchSize, for the fetch goroutine to
	// cut batches by (a rows-per-second limit makes it small).
	batchRows atomic.Int64
	fetcher   *connectors.Fetcher[[]split]
	noMore    bool
	ended     bool
	lastAsk   time.Time

	// group offset commits after completed checkpoints (commit_on_checkpoint)
	snapshots map[int64][]split
	commits   chan []split
	stop      context.CancelFunc
	wg        sync.WaitGroup
}

var _ connectors.Reader = (*reader)(nil)

func newReader(rctx connectors.ReaderContext, cfg *sourceConfig) *reader {
	return &reader{rctx: rctx, cfg: cfg, splits: map[string]*split{}, snapshots: map[int64][]split{}}
}

func (r *reader) Open(ctx context.Context) error {
	r.ctx, r.stop = context.WithCancel(ctx)
	r.lastAsk = time.Now()
	if !r.cfg.commit {
		return nil
	}
	cl, err := newClient(r.cfg.servers, r.cfg.client)
	if err != nil {
		return fmt.Errorf("Kafka source: %w", err)
	}
	r.commits = make(chan []split, 16)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer cl.Close()
		r.commitLoop(r.ctx, kadm.NewClient(cl))
	}()
	return nil
}

// commitLoop commits the consumer groups' offsets of completed
// checkpoints. They are for lag monitoring and for a later job's
// group_offsets start only: a failed commit is not an error of the job.
func (r *reader) commitLoop(ctx context.Context, adm *kadm.Client) {
	for {
		select {
		case <-ctx.Done():
			return
		case pos := <-r.commits:
			byGroup := map[string]kadm.Offsets{}
			for _, s := range pos {
				g := r.cfg.tables[s.Table].group
				offs := byGroup[g]
				if offs == nil {
					offs = kadm.Offsets{}
				}
				offs.Add(kadm.Offset{Topic: s.Topic, Partition: s.Partition, At: s.Offset, LeaderEpoch: -1})
				byGroup[g] = offs
			}
			for g, offs := range byGroup {
				cctx, cancel := context.WithTimeout(ctx, commitWait)
				_, _ = adm.CommitOffsets(cctx, g, offs)
				cancel()
			}
		}
	}
}

// nonEmpty passes on batches with rows: the fetch goroutine sends a nil
// batch to report a position that moved past records that are no rows
// (transaction markers, skipped records).
type nonEmpty struct{ connectors.Collector }

func (c nonEmpty) Emit(b *row.Batch) {
	if b != nil && b.Len() > 0 {
		c.Collector.Emit(b)
	}
}

func (r *reader) PollNext(out connectors.Collector) error {
	if r.cfg.discovery > 0 && !r.cfg.bounded && time.Since(r.lastAsk) >= r.cfg.discovery {
		r.lastAsk = time.Now()
		r.rctx.SendSplitRequest()
	}
	if r.fetcher == nil {
		r.maybeEnd()
		if !r.ended {
			t := time.NewTimer(pollWait)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.ctx.Done():
			}
		}
		return nil
	}
	r.batchRows.Store(int64(max(1, out.BatchSize())))
	// One batch per call: the engine paces its calls (read_limit) by the
	// rows each returned.
	pos, got, err := r.fetcher.Poll(nonEmpty{out}, pollWait, 1)
	if got {
		for _, p := range pos {
			if s := r.splits[p.id()]; s != nil {
				s.Offset = p.Offset
				if s.finished() {
					delete(r.splits, p.id())
				}
			}
		}
	}
	if errors.Is(err, connectors.ErrFetchDone) {
		err = r.fetcher.Close()
		r.fetcher = nil
	}
	if err != nil {
		return err
	}
	r.maybeEnd()
	return nil
}

func (r *reader) maybeEnd() {
	if r.cfg.bounded && r.noMore && len(r.splits) == 0 && !r.ended {
		r.ended = true
		r.rctx.SignalNoMoreElement()
	}
}

func (r *reader) AddSplits(splits []connectors.Split) error {
	parts := map[partitionRef]string{}
	for _, s := range r.splits {
		parts[s.ref()] = s.id()
	}
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		if other, ok := parts[s.ref()]; ok && other != s.id() {
			return fmt.Errorf("Kafka source: partition %s is read by two tables (%s and %s): each topic may be in one table only", s.ref(), other, s.id())
		}
		if s.finished() {
			continue
		}
		parts[s.ref()] = s.id()
		r.splits[s.id()] = s
	}
	return r.restart()
}

// restart runs a fresh fetch goroutine over the unfinished splits at the
// positions emitted so far.
func (r *reader) restart() error {
	if r.fetcher != nil {
		if err := r.fetcher.Close(); err != nil {
			return err
		}
		r.fetcher = nil
	}
	if len(r.splits) == 0 {
		return nil
	}
	active := make([]split, 0, len(r.splits))
	for _, s := range r.splits {
		active = append(active, *s)
	}
	r.fetcher = connectors.StartFetcher(r.ctx, r.cfg.buffer, func(ctx context.Context, send func(*row.Batch, []split) bool) error {
		return r.fetch(ctx, active, send)
	})
	return nil
}

// fetch consumes splits from their offsets until ctx ends or, in BATCH,
// every split reached its end. It sends each partition's rows of a poll
// with the positions of all splits after them.
func (r *reader) fetch(ctx context.Context, splits []split, send func(*row.Batch, []split) bool) error {
	ptrs := make([]*split, len(splits))
	index := map[partitionRef]int{}
	for i := range splits {
		ptrs[i] = &splits[i]
		index[splits[i].ref()] = i
	}
	opts := []kgo.Opt{kgo.ConsumePartitions(consumeOffsets(ptrs)), kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if !r.cfg.client.readUncommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := newClient(r.cfg.servers, r.cfg.client, opts...)
	if err != nil {
		return fmt.Errorf("Kafka source: %w", err)
	}
	defer cl.Close()
	left := 0
	for _, s := range splits {
		if !s.finished() {
			left++
		}
	}
	snapshot := func() []split { return append([]split(nil), splits...) }
	// One fast decoder per table for this goroutine: they keep scratch.
	flats := make([]*flatJSON, len(r.cfg.tables))
	for i, t := range r.cfg.tables {
		if t.flat != nil {
			flats[i] = newFlatJSON(t.schema)
		}
	}
	for left > 0 {
		var fs kgo.Fetches
		if n := r.cfg.client.maxPollRecords; n > 0 {
			fs = cl.PollRecords(ctx, n)
		} else {
			fs = cl.PollFetches(ctx)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, fe := range fs.Errors() {
			if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, kgo.ErrClientClosed) {
				return ctx.Err()
			}
			return fmt.Errorf("Kafka source: fetching %s-%d: %w", fe.Topic, fe.Partition, fe.Err)
		}
		var ferr error
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			i, ok := index[partitionRef{p.Topic, p.Partition}]
			if !ok || ferr != nil {
				return
			}
			s := &splits[i]
			if s.finished() {
				return
			}
			t := r.cfg.tables[s.Table]
			rows := int(r.batchRows.Load())
			if rows <= 0 {
				rows = maxBatchRows
			}
			b := row.NewBuilder(t.schema, min(len(p.Records), rows))
			for _, rec := range p.Records {
				if rec.Offset < s.Offset {
					continue
				}
				if s.End >= 0 && rec.Offset >= s.End {
					s.Offset = s.End
					break
				}
				if !rec.Attrs.IsControl() {
					if err := r.decode(t, flats[s.Table], rec, b); err != nil {
						ferr = err
						return
					}
				}
				s.Offset = rec.Offset + 1
				if b.Len() >= rows {
					if !send(b.Build(), snapshot()) {
						ferr = ctx.Err()
						return
					}
				}
			}
			if !send(b.Build(), snapshot()) {
				ferr = ctx.Err()
				return
			}
			if s.finished() {
				left--
				cl.PauseFetchPartitions(map[string][]int32{s.Topic: {s.Partition}})
			}
		})
		if ferr != nil {
			return ferr
		}
	}
	return nil
}

// decode appends the rows of rec's value, or skips a value that does not
// parse when format_error_handle_way is skip.
func (r *reader) decode(t *topicTable, flat *flatJSON, rec *kgo.Record, b *row.Builder) error {
	var err error
	if flat != nil {
		var ok bool
		if ok, err = flat.appendTo(rec.Value, b); ok {
			return r.formatError(t, rec, err)
		}
	}
	rows, err := t.decode(rec.Value)
	if err == nil {
		for _, dr := range rows {
			if err = b.AppendRow(dr.kind, dr.vals); err != nil {
				break
			}
		}
	}
	return r.formatError(t, rec, err)
}

// formatError is a record's decoding error as format_error_handle_way says.
func (r *reader) formatError(t *topicTable, rec *kgo.Record, err error) error {
	if err != nil && !t.skipErrors {
		return fmt.Errorf("Kafka source: record %s-%d@%d does not parse (format_error_handle_way = fail): %w", rec.Topic, rec.Partition, rec.Offset, err)
	}
	return nil
}

func (r *reader) HandleNoMoreSplits() error {
	r.noMore = true
	return nil
}

func (r *reader) SnapshotState(checkpointID int64) ([]connectors.Split, error) {
	ids := make([]string, 0, len(r.splits))
	for id := range r.splits {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]connectors.Split, len(ids))
	pos := make([]split, len(ids))
	for i, id := range ids {
		out[i] = r.splits[id].encode()
		pos[i] = *r.splits[id]
	}
	if r.commits != nil {
		r.snapshots[checkpointID] = pos
	}
	return out, nil
}

// NotifyCheckpointComplete hands the checkpoint's positions to the commit
// goroutine (dropped when it is behind: a later commit covers them).
func (r *reader) NotifyCheckpointComplete(checkpointID int64) error {
	if r.commits == nil {
		return nil
	}
	pos, ok := r.snapshots[checkpointID]
	for id := range r.snapshots {
		if id <= checkpointID {
			delete(r.snapshots, id)
		}
	}
	if ok && len(pos) > 0 {
		select {
		case r.commits <- pos:
		default:
		}
	}
	return nil
}

func (r *reader) Close() error {
	var err error
	if r.fetcher != nil {
		err = r.fetcher.Close()
	}
	if r.stop != nil {
		r.stop()
	}
	r.wg.Wait()
	return err
}
