package engine_test

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Test connectors: EngineTestSource emits ids 0..rows-1 offset by subtask
// (subtask*rows + i) and EngineTestSink records what was committed, per key.

var testSchema = row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: row.String})

type results struct {
	mu        sync.Mutex // guards the maps
	written   map[string][]int64
	committed map[string][]int64
}

var got = &results{written: map[string][]int64{}, committed: map[string][]int64{}}

func (r *results) get(key string) (written, committed []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.written[key]...), append([]int64(nil), r.committed[key]...)
}

func init() {
	connectors.RegisterSource(connectors.SourceFactory{
		Name: "EngineTestSource",
		Options: []config.Option{
			{Key: "rows", Type: config.TypeInt, Default: int64(100)},
			{Key: "unbounded", Type: config.TypeBool},
			{Key: "fail_at", Type: config.TypeInt, Default: int64(-1)},
			{Key: "panic_at", Type: config.TypeInt, Default: int64(-1)},
		},
		Create: func(cfg *config.PluginConfig, job connectors.JobContext) (connectors.Source, error) {
			return &testSource{rows: cfg.Int("rows"), unbounded: cfg.Bool("unbounded"), failAt: cfg.Int("fail_at"), panicAt: cfg.Int("panic_at"), par: job.Parallelism}, nil
		},
	})
	connectors.RegisterSink(connectors.SinkFactory{
		Name: "EngineTestSink",
		Options: []config.Option{
			{Key: "key", Type: config.TypeString, Required: true},
			{Key: "delay_ms", Type: config.TypeInt},
			{Key: "fail_at", Type: config.TypeInt, Default: int64(-1)},
		},
		Create: func(cfg *config.PluginConfig, _ []*row.Schema, _ connectors.JobContext) (connectors.Sink, error) {
			return &testSink{key: cfg.String("key"), delay: time.Duration(cfg.Int("delay_ms")) * time.Millisecond, failAt: cfg.Int("fail_at")}, nil
		},
	})
}

type testSource struct {
	rows, failAt, panicAt int64
	unbounded             bool
	par                   int
}

func (s *testSource) Tables() []*row.Schema { return []*row.Schema{testSchema} }
func (s *testSource) Boundedness() connectors.Boundedness {
	if s.unbounded {
		return connectors.Unbounded
	}
	return connectors.Bounded
}
func (s *testSource) CreateEnumerator(ctx connectors.EnumeratorContext, _ []byte) (connectors.SplitEnumerator, error) {
	return &testEnum{ctx: ctx, pending: map[int]bool{}}, nil
}
func (s *testSource) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return &testReader{s: s, ctx: ctx}, nil
}

type testEnum struct {
	ctx     connectors.EnumeratorContext
	pending map[int]bool
}

func (e *testEnum) Open() error { return nil }
func (e *testEnum) Run() error {
	for _, i := range e.ctx.RegisteredReaders() {
		e.ctx.AssignSplits(i, connectors.Split{ID: strconv.Itoa(i), Data: binary.AppendVarint(nil, 0)})
		e.ctx.SignalNoMoreSplits(i)
	}
	return nil
}
func (e *testEnum) RegisterReader(int) error                    { return nil }
func (e *testEnum) HandleSplitRequest(int) error                { return nil }
func (e *testEnum) AddSplitsBack([]connectors.Split, int) error { return nil }
func (e *testEnum) SnapshotState(int64) ([]byte, error)         { return nil, nil }
func (e *testEnum) NotifyCheckpointComplete(int64) error        { return nil }
func (e *testEnum) Close() error                                { return nil }

type testReader struct {
	s      *testSource
	ctx    connectors.ReaderContext
	split  *connectors.Split
	pos    int64
	noMore bool
}

func (r *testReader) Open() error { return nil }
func (r *testReader) PollNext(out connectors.Collector) error {
	if r.split == nil {
		if r.noMore {
			r.ctx.SignalNoMoreElement()
		}
		return nil
	}
	if r.pos >= r.s.rows {
		if r.s.unbounded {
			return nil
		}
		r.split = nil
		if r.noMore {
			r.ctx.SignalNoMoreElement()
		}
		return nil
	}
	b := row.NewBuilder(testSchema, out.BatchSize())
	base := int64(r.ctx.Task().SubtaskIndex) * r.s.rows
	for n := 0; n < out.BatchSize() && r.pos < r.s.rows; n++ {
		if r.pos == r.s.failAt {
			return fmt.Errorf("test source fails at row %d", r.pos)
		}
		if r.pos == r.s.panicAt {
			panic(fmt.Sprintf("test source panics at row %d", r.pos))
		}
		b.Col(0).AppendInt(base + r.pos)
		b.Col(1).AppendString("x")
		b.EndRow(row.Insert)
		r.pos++
	}
	out.Emit(b.Build())
	return nil
}
func (r *testReader) AddSplits(s []connectors.Split) error {
	r.split = &s[0]
	p, _ := binary.Varint(s[0].Data)
	r.pos = p
	return nil
}
func (r *testReader) HandleNoMoreSplits() error { r.noMore = true; return nil }
func (r *testReader) SnapshotState(int64) ([]connectors.Split, error) {
	if r.split == nil {
		return nil, nil
	}
	return []connectors.Split{{ID: r.split.ID, Data: binary.AppendVarint(nil, r.pos)}}, nil
}
func (r *testReader) NotifyCheckpointComplete(int64) error { return nil }
func (r *testReader) Close() error                         { return nil }

type testSink struct {
	key    string
	delay  time.Duration
	failAt int64
}

func (s *testSink) CreateWriter(task connectors.TaskInfo, _ [][]byte) (connectors.Writer, error) {
	return &testWriter{s: s}, nil
}
func (s *testSink) CreateCommitter() (connectors.Committer, error) { return &testCommitter{s: s}, nil }

type testWriter struct {
	s      *testSink
	n      int64
	staged []int64
}

func (w *testWriter) Write(b *row.Batch) error {
	if w.s.delay > 0 {
		time.Sleep(w.s.delay)
	}
	ids := b.Col(0).Ints
	for range ids {
		if w.n == w.s.failAt {
			return fmt.Errorf("test sink fails at row %d", w.n)
		}
		w.n++
	}
	w.staged = append(w.staged, ids...)
	got.mu.Lock()
	got.written[w.s.key] = append(got.written[w.s.key], ids...)
	got.mu.Unlock()
	return nil
}
func (w *testWriter) PrepareCommit(int64) ([]byte, error) {
	var buf []byte
	for _, id := range w.staged {
		buf = binary.AppendVarint(buf, id)
	}
	w.staged = nil
	return buf, nil
}
func (w *testWriter) SnapshotState(int64) ([][]byte, error) { return nil, nil }
func (w *testWriter) AbortPrepare() error                   { w.staged = nil; return nil }
func (w *testWriter) Close() error                          { return nil }

type testCommitter struct{ s *testSink }

func (c *testCommitter) Commit(_ connectors.CommitContext, infos [][]byte) error {
	got.mu.Lock()
	defer got.mu.Unlock()
	for _, info := range infos {
		for len(info) > 0 {
			id, n := binary.Varint(info)
			info = info[n:]
			got.committed[c.s.key] = append(got.committed[c.s.key], id)
		}
	}
	return nil
}
func (c *testCommitter) Abort(connectors.CommitContext, [][]byte) error { return nil }

var _ connectors.SinkWithCommitter = (*testSink)(nil)
