package conformance

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/splitenum"
	"github.com/stactor/stactor/row"
)

// mem is a test connector over tables kept in memory, correct unless one
// of its faults is set: the suite must pass it as it is and report each
// fault.
type memFaults struct {
	loseOnRestore    bool          // a snapshot's position is one row ahead
	repeatOnRestore  bool          // a snapshot's position is one row behind
	blockingPoll     time.Duration // PollNext waiting for a split sleeps this long
	panicOnBadSplit  bool
	assignTwice      bool          // the enumerator gives split 0 to every reader
	forgetReRegister bool          // no "no more splits" for a reader registered anew
	outOfRange       bool          // an int column's value beyond int32
	lateUnknownBad   bool          // a bad option is found only when reading
	openHangs        time.Duration // a reader's Open ignores its context this long
	slowFetch        time.Duration // one PollNext with rows to emit takes this long, once per source

	visibleBeforeCommit bool // writers publish on Write
	commitAppends       bool // committing again publishes again
	abortCommits        bool // Abort publishes
	commitAllStaged     bool // a commit publishes every staged info, its own or not
	writerForgets       bool // a restored writer forgets its sequence: its infos name committed ones
}

var mem = struct {
	sync.Mutex
	tables map[string]*memTable // by key
	faults memFaults
}{tables: map[string]*memTable{}}

type memTable struct {
	schema    *row.Schema
	rows      [][]any
	committed [][]any
	staged    map[string][][]any // by commit info
	done      map[string]bool    // infos committed
}

func memSetFaults(f memFaults) func() {
	mem.Lock()
	mem.faults = f
	mem.Unlock()
	return func() { mem.Lock(); mem.faults = memFaults{}; mem.Unlock() }
}

func faults() memFaults {
	mem.Lock()
	defer mem.Unlock()
	return mem.faults
}

var memOptions = []config.Option{{Key: "key", Type: config.TypeString, Required: true}, {Key: "splits", Type: config.TypeInt, Default: int64(3)}}

var memSource = connectors.SourceFactory{
	Name:    "Mem",
	Options: memOptions,
	Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
		mem.Lock()
		defer mem.Unlock()
		tab, ok := mem.tables[cfg.String("key")]
		if !ok && !mem.faults.lateUnknownBad {
			return nil, cfg.Errorf("key", "no table %q", cfg.String("key"))
		}
		return &memSrc{tab: tab, splits: int(cfg.Int("splits")), key: cfg.String("key")}, nil
	},
}

type memSrc struct {
	tab    *memTable
	splits int
	key    string
	slow   sync.Once
}

// memSplit is rows [from, to) of the table, next the position.
type memSplit struct{ id, from, to, next int }

func (s *memSplit) encode() connectors.Split {
	b := binary.AppendUvarint([]byte{7}, uint64(s.id))
	for _, v := range []int{s.from, s.to, s.next} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return connectors.Split{ID: fmt.Sprint(s.id), Data: b}
}

func decodeMemSplit(cs connectors.Split) (*memSplit, error) {
	b := cs.Data
	if len(b) == 0 || b[0] != 7 {
		if faults().panicOnBadSplit {
			panic("bad split")
		}
		return nil, errors.New("not a Mem split")
	}
	b = b[1:]
	var v [4]int
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("truncated Mem split")
		}
		v[i], b = int(x), b[n:]
	}
	return &memSplit{v[0], v[1], v[2], v[3]}, nil
}

func (s *memSrc) Tables() []*row.Schema {
	if s.tab == nil { // lateUnknownBad: the table is looked for in Open
		return []*row.Schema{TypeSchema(row.Int)}
	}
	return []*row.Schema{s.tab.schema}
}
func (s *memSrc) Boundedness() connectors.Boundedness { return connectors.Bounded }

func (s *memSrc) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	e, err := splitenum.New(ctx, splitenum.Splits[*memSplit]{
		Name: "Mem",
		Discover: func(_ context.Context, n int) ([]*memSplit, error) {
			if s.tab == nil {
				if d := faults().openHangs; d > 0 {
					time.Sleep(d)
				}
				return nil, fmt.Errorf("no table %q", s.key)
			}
			var out []*memSplit
			per := (len(s.tab.rows) + s.splits - 1) / s.splits
			for i := 0; i*per < len(s.tab.rows); i++ {
				out = append(out, &memSplit{id: i, from: i * per, to: min((i+1)*per, len(s.tab.rows)), next: i * per})
			}
			return out, nil
		},
		Encode: (*memSplit).encode,
		Decode: decodeMemSplit,
		Owner:  func(s *memSplit) int { return s.id },
	}, state)
	if err != nil {
		return nil, err
	}
	return &memEnum{Enumerator: e, ctx: ctx}, nil
}

// memEnum wraps the correct enumerator with the enumerator faults.
type memEnum struct {
	*splitenum.Enumerator[*memSplit]
	ctx        connectors.EnumeratorContext
	registered map[int]bool
}

func (e *memEnum) RegisterReader(i int) error {
	if e.registered == nil {
		e.registered = map[int]bool{}
	}
	if faults().forgetReRegister && e.registered[i] {
		return nil
	}
	e.registered[i] = true
	if faults().assignTwice && i > 0 {
		e.ctx.AssignSplits(i, (&memSplit{id: 0, from: 0, to: 1}).encode())
	}
	return e.Enumerator.RegisterReader(i)
}

func (s *memSrc) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return &memReader{src: s, ctx: ctx}, nil
}

type memReader struct {
	src    *memSrc
	ctx    connectors.ReaderContext
	splits []*memSplit
	noMore bool
	ended  bool
}

func (r *memReader) Open(context.Context) error {
	if d := faults().openHangs; d > 0 && r.src.tab == nil {
		time.Sleep(d)
	}
	if r.src.tab == nil {
		return fmt.Errorf("Mem: no table %q", r.src.key)
	}
	return nil
}

func (r *memReader) AddSplits(splits []connectors.Split) error {
	for _, cs := range splits {
		s, err := decodeMemSplit(cs)
		if err != nil {
			return err
		}
		r.splits = append(r.splits, s)
	}
	return nil
}

func (r *memReader) HandleNoMoreSplits() error { r.noMore = true; return nil }

func (r *memReader) PollNext(out connectors.Collector) error {
	f := faults()
	if f.blockingPoll > 0 && len(r.splits) == 0 && !r.noMore {
		time.Sleep(f.blockingPoll)
	}
	if len(r.splits) == 0 {
		if r.noMore && !r.ended {
			r.ended = true
			r.ctx.SignalNoMoreElement()
		}
		return nil
	}
	if f.slowFetch > 0 {
		r.src.slow.Do(func() { time.Sleep(f.slowFetch) })
	}
	s := r.splits[0]
	n := min(out.BatchSize(), s.to-s.next)
	b := row.NewBuilder(r.src.tab.schema, n)
	for _, vals := range r.src.tab.rows[s.next : s.next+n] {
		if f.outOfRange {
			vals = append([]any{int64(1) << 40}, vals[1:]...)
		}
		if err := b.AppendRow(row.Insert, vals); err != nil {
			return err
		}
	}
	s.next += n
	if s.next >= s.to {
		r.splits = r.splits[1:]
	}
	out.Emit(b.Build())
	return nil
}

func (r *memReader) SnapshotState(int64) ([]connectors.Split, error) {
	f := faults()
	var out []connectors.Split
	for _, s := range r.splits {
		c := *s
		if f.loseOnRestore && c.next < c.to {
			c.next++
		}
		if f.repeatOnRestore && c.next > c.from {
			c.next--
		}
		out = append(out, c.encode())
	}
	return out, nil
}

func (r *memReader) NotifyCheckpointComplete(int64) error { return nil }
func (r *memReader) Close() error                         { return nil }

// memPut keeps rows under key, for the source; memTableFor makes an
// empty table for the sink.
func memPut(key string, schema *row.Schema, rows [][]any) {
	mem.Lock()
	defer mem.Unlock()
	mem.tables[key] = &memTable{schema: schema, rows: rows, staged: map[string][][]any{}, done: map[string]bool{}}
}

var memSink = connectors.SinkFactory{
	Name:    "MemSink",
	Options: memOptions,
	Create: func(cfg *config.PluginConfig, inputs []*row.Schema, _ []byte, job connectors.JobContext) (connectors.Sink, error) {
		mem.Lock()
		defer mem.Unlock()
		tab, ok := mem.tables[cfg.String("key")]
		if !ok && !mem.faults.lateUnknownBad {
			return nil, cfg.Errorf("key", "no table %q", cfg.String("key"))
		}
		return &memSnk{tab: tab, key: cfg.String("key")}, nil
	},
}

type memSnk struct {
	tab *memTable
	key string
}

var (
	_ connectors.SinkWithCommitter = (*memSnk)(nil)
	_ connectors.Source            = (*memSrc)(nil)
)

func (s *memSnk) CreateWriter(_ context.Context, task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	if s.tab == nil {
		return nil, fmt.Errorf("MemSink: no table %q", s.key)
	}
	w := &memWriter{s: s, task: task}
	if len(states) > 0 && !faults().writerForgets {
		w.seq = int(states[0][0])
	}
	return w, nil
}

func (s *memSnk) CreateCommitter() (connectors.Committer, error) { return &memCommitter{s: s}, nil }

type memWriter struct {
	s    *memSnk
	task connectors.TaskInfo
	rows [][]any
	seq  int
}

func (w *memWriter) Write(b *row.Batch) error {
	for i := 0; i < b.Len(); i++ {
		w.rows = append(w.rows, b.Row(i))
	}
	if faults().visibleBeforeCommit {
		mem.Lock()
		w.s.tab.committed = append(w.s.tab.committed, w.rows[len(w.rows)-b.Len():]...)
		mem.Unlock()
	}
	return nil
}

func (w *memWriter) PrepareCommit(n int64) ([]byte, error) {
	if len(w.rows) == 0 {
		return nil, nil
	}
	info := fmt.Sprintf("%d-%d", w.task.SubtaskIndex, w.seq)
	w.seq++
	mem.Lock()
	w.s.tab.staged[info] = w.rows
	mem.Unlock()
	w.rows = nil
	return []byte(info), nil
}

func (w *memWriter) SnapshotState(int64) ([][]byte, error) { return [][]byte{{byte(w.seq)}}, nil }
func (w *memWriter) AbortPrepare() error                   { return nil }
func (w *memWriter) Close() error                          { return nil }

type memCommitter struct{ s *memSnk }

func (c *memCommitter) Commit(_ context.Context, _ connectors.CommitContext, infos [][]byte) error {
	mem.Lock()
	defer mem.Unlock()
	if faults0().commitAllStaged {
		for info := range c.s.tab.staged {
			infos = append(infos, []byte(info))
		}
	}
	for _, info := range infos {
		rows, ok := c.s.tab.staged[string(info)]
		if !ok {
			return fmt.Errorf("MemSink: unknown commit info %q", info)
		}
		if c.s.tab.done[string(info)] && !faults0().commitAppends {
			continue // committed already: idempotent
		}
		if !faults0().visibleBeforeCommit {
			c.s.tab.committed = append(c.s.tab.committed, rows...)
		}
		c.s.tab.done[string(info)] = true
	}
	return nil
}

func (c *memCommitter) Abort(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	if faults().abortCommits {
		return c.Commit(ctx, cc, infos)
	}
	mem.Lock()
	defer mem.Unlock()
	for _, info := range infos {
		delete(c.s.tab.staged, string(info))
	}
	return nil
}

// faults0 reads the faults with mem already locked.
func faults0() memFaults { return mem.faults }

func memRead(key string) func() ([][]any, error) {
	return func() ([][]any, error) {
		mem.Lock()
		defer mem.Unlock()
		return append([][]any(nil), mem.tables[key].committed...), nil
	}
}
