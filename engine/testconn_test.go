package engine_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
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
	tokens    map[string]bool // commit infos committed, for idempotency
}

var got = &results{written: map[string][]int64{}, committed: map[string][]int64{}, tokens: map[string]bool{}}

func (r *results) get(key string) (written, committed []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.written[key]...), append([]int64(nil), r.committed[key]...)
}

var testSourceOptions = []config.Option{
	{Key: "rows", Type: config.TypeInt, Default: int64(100)},
	{Key: "unbounded", Type: config.TypeBool},
	{Key: "fail_at", Type: config.TypeInt, Default: int64(-1)},
	{Key: "panic_at", Type: config.TypeInt, Default: int64(-1)},
	{Key: "fail_once", Type: config.TypeString, Doc: "with fail_at/panic_at: fail only the first time, per this key"},
	{Key: "snapshot_fail_once", Type: config.TypeString, Doc: "the enumerator's SnapshotState fails the first time, per this key"},
}

func newTestSource(cfg *config.PluginConfig, job connectors.JobContext) *testSource {
	return &testSource{rows: cfg.Int("rows"), unbounded: cfg.Bool("unbounded"), failAt: cfg.Int("fail_at"), panicAt: cfg.Int("panic_at"),
		failOnce: cfg.String("fail_once"), snapshotFailOnce: cfg.String("snapshot_fail_once"), par: job.Parallelism}
}

var testSinkOptions = []config.Option{
	{Key: "key", Type: config.TypeString, Required: true},
	{Key: "delay_ms", Type: config.TypeInt},
	{Key: "fail_at", Type: config.TypeInt, Default: int64(-1)},
	{Key: "count_only", Type: config.TypeBool, Doc: "record nothing (benchmarks)"},
	{Key: "write_us_per_row", Type: config.TypeInt, Doc: "µs a write sleeps per row, times the key's slowdown"},
	{Key: "flush_us_per_row", Type: config.TypeInt, Doc: "µs prepareCommit sleeps per row written since the last, times the key's slowdown: a sink that flushes what it buffered"},
	{Key: "state_bytes", Type: config.TypeInt, Doc: "the size of the writer state each checkpoint snapshots (0: none)"},
}

func newTestSink(cfg *config.PluginConfig) *testSink {
	return &testSink{key: cfg.String("key"), delay: time.Duration(cfg.Int("delay_ms")) * time.Millisecond, failAt: cfg.Int("fail_at"),
		countOnly: cfg.Bool("count_only"), writeCost: time.Duration(cfg.Int("write_us_per_row")) * time.Microsecond,
		flushCost: time.Duration(cfg.Int("flush_us_per_row")) * time.Microsecond, slow: slowdown(cfg.String("key")),
		stateBytes: int(cfg.Int("state_bytes"))}
}

// slowdowns are the EngineTestSink's slow-down factors by key, in percent
// of write_us_per_row and flush_us_per_row (100 unless a test changed
// it): a sink whose external system slows down mid-job.
var slowdowns sync.Map // key → *atomic.Int64

func slowdown(key string) *atomic.Int64 {
	v, ok := slowdowns.Load(key)
	if !ok {
		n := new(atomic.Int64)
		n.Store(100)
		v, _ = slowdowns.LoadOrStore(key, n)
	}
	return v.(*atomic.Int64)
}

// cost is rows at per, slowed down by the key's factor.
func (s *testSink) cost(rows int64, per time.Duration) time.Duration {
	return time.Duration(rows) * per * time.Duration(s.slow.Load()) / 100
}

func init() {
	connectors.RegisterSource(connectors.SourceFactory{
		Name:    "EngineTestSource",
		Options: testSourceOptions,
		Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
			return newTestSource(cfg, job), nil
		},
	})
	connectors.RegisterSink(connectors.SinkFactory{
		Name:    "EngineTestSink",
		Options: testSinkOptions,
		Create: func(cfg *config.PluginConfig, _ []*row.Schema, _ []byte, _ connectors.JobContext) (connectors.Sink, error) {
			return newTestSink(cfg), nil
		},
	})
}

type testSource struct {
	rows, failAt, panicAt int64
	unbounded             bool
	failOnce              string
	snapshotFailOnce      string
	par                   int
}

var failedOnce sync.Map // fail_once keys that have failed

// shouldFail tells whether the reader fails at pos now.
func (s *testSource) shouldFail(pos, at int64) bool {
	if pos != at {
		return false
	}
	if s.failOnce == "" {
		return true
	}
	_, done := failedOnce.LoadOrStore(s.failOnce, true)
	return !done
}

func (s *testSource) Tables() []*row.Schema { return []*row.Schema{testSchema} }
func (s *testSource) Boundedness() connectors.Boundedness {
	if s.unbounded {
		return connectors.Unbounded
	}
	return connectors.Bounded
}
func (s *testSource) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	return &testEnum{ctx: ctx, restored: len(state) > 0, failOnce: s.snapshotFailOnce}, nil
}
func (s *testSource) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return &testReader{s: s, ctx: ctx}, nil
}

// testEnum gives reader i split i on a fresh start; restored, it gives the
// splits added back (old reader k's to reader k mod parallelism).
type testEnum struct {
	ctx      connectors.EnumeratorContext
	restored bool // the fresh splits were handed out before
	back     map[int][]connectors.Split
	failOnce string // SnapshotState fails the first time, per this key
}

func (e *testEnum) Open(context.Context) error { return nil }
func (e *testEnum) Run() error {
	for _, i := range e.ctx.RegisteredReaders() {
		if !e.restored {
			e.ctx.AssignSplits(i, connectors.Split{ID: strconv.Itoa(i), Data: binary.AppendVarint(nil, 0)})
		}
	}
	for k, splits := range e.back {
		e.ctx.AssignSplits(k%e.ctx.Parallelism(), splits...)
	}
	e.back = nil
	e.restored = true
	for _, i := range e.ctx.RegisteredReaders() {
		e.ctx.SignalNoMoreSplits(i)
	}
	return nil
}
func (e *testEnum) RegisterReader(int) error     { return nil }
func (e *testEnum) HandleSplitRequest(int) error { return nil }
func (e *testEnum) AddSplitsBack(splits []connectors.Split, k int) error {
	if e.back == nil {
		e.back = map[int][]connectors.Split{}
	}
	e.back[k] = append(e.back[k], splits...)
	return nil
}
func (e *testEnum) SnapshotState(id int64) ([]byte, error) {
	if e.failOnce != "" {
		if _, done := failedOnce.LoadOrStore("snapshot/"+e.failOnce, true); !done {
			return nil, fmt.Errorf("test enumerator fails its snapshot for checkpoint %d", id)
		}
	}
	return []byte{1}, nil
}
func (e *testEnum) NotifyCheckpointComplete(int64) error { return nil }
func (e *testEnum) Close() error                         { return nil }

// testReader reads its splits one after the other; a split's id is the
// subtask that first had it, which sets its ids' base.
type testReader struct {
	s      *testSource
	ctx    connectors.ReaderContext
	splits []*connectors.Split
	split  *connectors.Split
	pos    int64
	noMore bool
}

func (r *testReader) Open(context.Context) error { return nil }
func (r *testReader) PollNext(out connectors.Collector) error {
	if r.split == nil && len(r.splits) > 0 {
		r.split, r.splits = r.splits[0], r.splits[1:]
		p, _ := binary.Varint(r.split.Data)
		r.pos = p
	}
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
		return nil
	}
	b := row.NewBuilder(testSchema, out.BatchSize())
	first, _ := strconv.Atoi(r.split.ID)
	base := int64(first) * r.s.rows
	for n := 0; n < out.BatchSize() && r.pos < r.s.rows; n++ {
		if r.s.shouldFail(r.pos, r.s.failAt) {
			return fmt.Errorf("test source fails at row %d", r.pos)
		}
		if r.s.shouldFail(r.pos, r.s.panicAt) {
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
	for i := range s {
		r.splits = append(r.splits, &s[i])
	}
	return nil
}
func (r *testReader) HandleNoMoreSplits() error { r.noMore = true; return nil }
func (r *testReader) SnapshotState(int64) ([]connectors.Split, error) {
	var out []connectors.Split
	if r.split != nil {
		out = append(out, connectors.Split{ID: r.split.ID, Data: binary.AppendVarint(nil, r.pos)})
	}
	for _, s := range r.splits {
		out = append(out, *s)
	}
	return out, nil
}
func (r *testReader) NotifyCheckpointComplete(int64) error { return nil }
func (r *testReader) Close() error                         { return nil }

type testSink struct {
	key                  string
	delay                time.Duration
	failAt               int64
	countOnly            bool
	writeCost, flushCost time.Duration
	slow                 *atomic.Int64 // slowdown(key)
	stateBytes           int
}

func (s *testSink) CreateWriter(_ context.Context, task connectors.TaskInfo, _ [][]byte) (connectors.Writer, error) {
	return &testWriter{s: s, task: task}, nil
}
func (s *testSink) CreateCommitter() (connectors.Committer, error) { return &testCommitter{s: s}, nil }

type testWriter struct {
	s         *testSink
	task      connectors.TaskInfo
	n         int64
	staged    []int64
	unflushed int64 // rows written since the last prepareCommit
}

func (w *testWriter) Write(b *row.Batch) error {
	if w.s.delay > 0 {
		time.Sleep(w.s.delay)
	}
	if w.s.writeCost > 0 {
		time.Sleep(w.s.cost(int64(b.Len()), w.s.writeCost))
	}
	w.unflushed += int64(b.Len())
	ids := b.Col(0).Ints
	if w.s.countOnly {
		w.n += int64(len(ids))
		return nil
	}
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

// PrepareCommit's info starts with a token naming the attempt, subtask and
// checkpoint, so a repeated commit is recognised.
func (w *testWriter) PrepareCommit(id int64) ([]byte, error) {
	if w.s.flushCost > 0 {
		time.Sleep(w.s.cost(w.unflushed, w.s.flushCost))
	}
	w.unflushed = 0
	token := fmt.Sprintf("%d/%d/%d", w.task.Attempt, w.task.SubtaskIndex, id)
	buf := binary.AppendUvarint(nil, uint64(len(token)))
	buf = append(buf, token...)
	for _, id := range w.staged {
		buf = binary.AppendVarint(buf, id)
	}
	w.staged = nil
	return buf, nil
}
func (w *testWriter) SnapshotState(int64) ([][]byte, error) {
	if w.s.stateBytes > 0 {
		return [][]byte{make([]byte, w.s.stateBytes)}, nil
	}
	return nil, nil
}
func (w *testWriter) AbortPrepare() error { w.staged = nil; return nil }
func (w *testWriter) Close() error        { return nil }

type testCommitter struct{ s *testSink }

func (c *testCommitter) Commit(_ context.Context, _ connectors.CommitContext, infos [][]byte) error {
	got.mu.Lock()
	defer got.mu.Unlock()
	for _, info := range infos {
		n, k := binary.Uvarint(info)
		token := c.s.key + "/" + string(info[k:k+int(n)])
		info = info[k+int(n):]
		if got.tokens[token] {
			continue
		}
		got.tokens[token] = true
		for len(info) > 0 {
			id, n := binary.Varint(info)
			info = info[n:]
			got.committed[c.s.key] = append(got.committed[c.s.key], id)
		}
	}
	return nil
}
func (c *testCommitter) Abort(context.Context, connectors.CommitContext, [][]byte) error { return nil }

var _ connectors.SinkWithCommitter = (*testSink)(nil)

// EngineTestTransform passes batches through; it can panic at its k-th row
// (once, per fail_once key) and sleep per batch.
func init() {
	connectors.RegisterTransform(connectors.TransformFactory{
		Name: "EngineTestTransform",
		Options: []config.Option{
			{Key: "panic_at", Type: config.TypeInt, Default: int64(-1)},
			{Key: "fail_once", Type: config.TypeString},
			{Key: "delay_ms", Type: config.TypeInt},
			{Key: "stall_once_ms", Type: config.TypeInt, Doc: "with fail_once: sleep this long in the first batch, the first time per key"},
		},
		Create: func(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
			return &testTransform{schema: input, panicAt: cfg.Int("panic_at"), once: cfg.String("fail_once"),
				delay: time.Duration(cfg.Int("delay_ms")) * time.Millisecond, stall: time.Duration(cfg.Int("stall_once_ms")) * time.Millisecond}, nil
		},
	})
}

type testTransform struct {
	schema  *row.Schema
	panicAt int64
	once    string
	delay   time.Duration
	stall   time.Duration
	n       int64
}

func (t *testTransform) OutputSchema() *row.Schema { return t.schema }
func (t *testTransform) Process(b *row.Batch) (*row.Batch, error) {
	if t.delay > 0 {
		time.Sleep(t.delay)
	}
	if t.stall > 0 {
		if _, done := failedOnce.LoadOrStore("stall/"+t.once, true); !done {
			time.Sleep(t.stall)
		}
	}
	if t.panicAt >= t.n && t.panicAt < t.n+int64(b.Len()) {
		if _, done := failedOnce.LoadOrStore(t.once, true); !done || t.once == "" {
			panic(fmt.Sprintf("test transform panics at its row %d", t.panicAt))
		}
	}
	t.n += int64(b.Len())
	return b, nil
}
