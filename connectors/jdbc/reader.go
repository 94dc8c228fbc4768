package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// pollWait bounds how long PollNext waits for a batch (DESIGN §3: a poll
// returns within about 100 ms).
const pollWait = 50 * time.Millisecond

// idleWait is how long PollNext pauses with no split, so an idle reader
// does not spin.
const idleWait = 10 * time.Millisecond

const defaultBatch = 1024

// position is where a split's reading is: the last key emitted and how
// many rows with it (keys that are not unique), or the rows emitted (no
// split key).
type position struct {
	Last *keyVal
	Ties int64
	Rows int64
}

// reader reads its splits one after the other. The blocking database
// reads run in a fetch goroutine it owns (connectors.Fetcher); PollNext
// hands over what is ready and moves the split's position to the last
// batch handed over, so a checkpoint holds exactly the rows emitted.
type reader struct {
	ctx  connectors.ReaderContext
	r    *sourceResolved
	octx context.Context // from Open: lives as long as the reader

	splits    []*split // head first; the head may be partly read
	fetch     *connectors.Fetcher[position]
	requested bool
	noMore    bool
	ended     bool

	// The session the fetch goroutine uses; only one goroutine at a time.
	pg *pgx.Conn
	my *sql.DB
}

func newReader(ctx connectors.ReaderContext, r *sourceResolved) *reader {
	return &reader{ctx: ctx, r: r}
}

func (r *reader) Open(ctx context.Context) error {
	r.octx = ctx
	return nil
}

func (r *reader) AddSplits(splits []connectors.Split) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		if s.Table < 0 || s.Table >= len(r.r.Tables) {
			return fmt.Errorf("Jdbc split %q: no table %d", cs.ID, s.Table)
		}
		r.splits = append(r.splits, s)
	}
	r.requested = false
	return nil
}

func (r *reader) HandleNoMoreSplits() error {
	r.noMore = true
	return nil
}

func (r *reader) PollNext(out connectors.Collector) error {
	if len(r.splits) == 0 {
		switch {
		case r.noMore:
			if !r.ended {
				r.ended = true
				r.ctx.SignalNoMoreElement()
			}
		case !r.requested:
			r.requested = true
			r.ctx.SendSplitRequest()
		}
		time.Sleep(idleWait)
		return nil
	}
	s := r.splits[0]
	if r.fetch == nil {
		r.fetch = connectors.StartFetcher(r.octx, 4, r.fetchFunc(s, out.BatchSize()))
	}
	pos, got, err := r.fetch.Poll(out, pollWait, 4)
	if got {
		s.Last, s.Ties, s.Rows = pos.Last, pos.Ties, pos.Rows
	}
	switch {
	case errors.Is(err, connectors.ErrFetchDone):
		r.fetch.Close()
		r.fetch = nil
		r.splits[0] = nil
		r.splits = r.splits[1:]
		if len(r.splits) == 0 && !r.noMore && !r.requested {
			r.requested = true
			r.ctx.SendSplitRequest()
		}
	case err != nil:
		r.fetch.Close()
		r.fetch = nil
		r.dropSession()
		return fmt.Errorf("Jdbc: reading %s (split %s): %w", r.r.Tables[s.Table].ID, s.id(), err)
	}
	return nil
}

// fetchFunc reads split s from its position, in batches of size rows.
func (r *reader) fetchFunc(s *split, size int) connectors.FetchFunc[position] {
	if r.r.FetchSize > 0 {
		size = r.r.FetchSize
	}
	if size <= 0 {
		size = defaultBatch
	}
	t := r.r.Tables[s.Table]
	start := position{Last: s.Last, Ties: s.Ties, Rows: s.Rows}
	return func(ctx context.Context, send func(*row.Batch, position) bool) error {
		stream, err := r.open(ctx, t, s)
		if err != nil {
			return err
		}
		defer stream.close()
		pos := start
		// Rows at the position were emitted before: skip them.
		skipTies, skipRows := start.Ties, start.Rows
		if t.Key == "" || s.IsNull {
			skipTies = 0
		} else {
			skipRows = 0
			if t.KeyUnique || start.Last == nil {
				skipTies = 0
			}
		}
		b := row.NewBuilder(t.schema, size)
		cols := make([]*row.Column, t.schema.Len())
		for {
			for j := range cols {
				cols[j] = b.Col(j)
			}
			k, done, err := stream.read(cols, size)
			if err != nil {
				return err
			}
			for i := 0; i < k; i++ {
				b.EndRow(row.Insert)
			}
			batch := b.Build()
			if batch != nil {
				from := 0
				for from < batch.Len() && skipRows > 0 {
					from++
					skipRows--
				}
				for from < batch.Len() && skipTies > 0 && start.Last.equal(batch.Col(t.KeyIndex), from) {
					from++
					skipTies--
				}
				if from < batch.Len() && skipTies > 0 {
					skipTies = 0 // fewer ties than emitted: the rest are new
				}
				if from > 0 {
					batch = batch.Slice(from, batch.Len())
				}
			}
			if batch != nil && batch.Len() > 0 {
				pos = advance(pos, t, batch)
				if !send(batch, pos) {
					return ctx.Err()
				}
			}
			if done {
				return nil
			}
		}
	}
}

// advance is the position after batch.
func advance(p position, t *sourceTable, b *row.Batch) position {
	n := b.Len()
	if t.Key == "" {
		p.Rows += int64(n)
		return p
	}
	c := b.Col(t.KeyIndex)
	if c.IsNull(n - 1) {
		p.Rows += int64(n) // the null split: no key to go by
		return p
	}
	last := keyOf(c, n-1)
	ties := int64(0)
	for i := n - 1; i >= 0 && last.equal(c, i); i-- {
		ties++
	}
	if p.Last != nil && *p.Last == *last && int(ties) == n {
		ties += p.Ties
	}
	p.Last, p.Ties = last, ties
	return p
}

// open runs split s's statement on the reader's session.
func (r *reader) open(ctx context.Context, t *sourceTable, s *split) (rowStream, error) {
	d := dialectSQL{name: r.r.Conn.dialect()}
	q, args, err := splitSQL(d, t, s, r.r.Where)
	if err != nil {
		return nil, err
	}
	if d.name == dialectPostgres {
		if r.pg == nil || r.pg.IsClosed() {
			if r.pg, err = r.r.Conn.connectPG(ctx); err != nil {
				return nil, err
			}
		}
		return queryPostgres(ctx, r.pg, q, args, t.Columns)
	}
	if r.my == nil {
		if r.my, err = r.r.Conn.openMySQL(); err != nil {
			return nil, err
		}
		r.my.SetMaxOpenConns(1)
	}
	conn, err := r.my.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", r.r.Conn.where(), err)
	}
	st, err := queryMySQL(ctx, conn, q, args, t.Columns, r.r.Zero)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &connStream{myStream: st, conn: conn}, nil
}

// connStream gives the session back when the stream closes.
type connStream struct {
	*myStream
	conn *sql.Conn
}

func (c *connStream) close() error { return errors.Join(c.myStream.close(), c.conn.Close()) }

func (r *reader) dropSession() {
	if r.pg != nil {
		r.pg.Close(context.Background())
		r.pg = nil
	}
	if r.my != nil {
		r.my.Close()
		r.my = nil
	}
}

func (r *reader) SnapshotState(checkpointID int64) ([]connectors.Split, error) {
	out := make([]connectors.Split, 0, len(r.splits))
	for _, s := range r.splits {
		out = append(out, s.encode())
	}
	return out, nil
}

func (r *reader) NotifyCheckpointComplete(checkpointID int64) error { return nil }

func (r *reader) Close() error {
	if r.fetch != nil {
		r.fetch.Close()
		r.fetch = nil
	}
	r.dropSession()
	return nil
}
