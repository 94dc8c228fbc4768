package benchmarks

import (
	"context"
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Connectors of the engine benchmarks, cheap so that the engine's own cost
// shows: BenchSource emits one prebuilt batch again and again (batches are
// immutable, so sharing it is allowed), rows per subtask; BenchSink counts
// rows and commits nothing.

var benchSchema = row.MustSchema("bench",
	row.Field{Name: "id", Type: row.BigInt},
	row.Field{Name: "name", Type: row.String},
	row.Field{Name: "score", Type: row.Double})

// sunk counts the rows every BenchSink writer has written.
var sunk atomic.Int64

func init() {
	connectors.RegisterSource(connectors.SourceFactory{
		Name:    "BenchSource",
		Options: []config.Option{{Key: "rows", Type: config.TypeInt, Default: int64(1 << 20), Doc: "rows per subtask"}},
		Create: func(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
			return &benchSource{rows: cfg.Int("rows")}, nil
		},
	})
	connectors.RegisterSink(connectors.SinkFactory{
		Name: "BenchSink",
		Create: func(*config.PluginConfig, []*row.Schema, []byte, connectors.JobContext) (connectors.Sink, error) {
			return benchSink{}, nil
		},
	})
}

type benchSource struct{ rows int64 }

var _ connectors.Source = (*benchSource)(nil)

func (s *benchSource) Tables() []*row.Schema               { return []*row.Schema{benchSchema} }
func (s *benchSource) Boundedness() connectors.Boundedness { return connectors.Bounded }
func (s *benchSource) CreateEnumerator(ctx connectors.EnumeratorContext, _ []byte) (connectors.SplitEnumerator, error) {
	return &benchEnum{ctx: ctx}, nil
}
func (s *benchSource) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return &benchReader{rows: s.rows, ctx: ctx}, nil
}

// benchEnum gives reader i one split and then no more.
type benchEnum struct{ ctx connectors.EnumeratorContext }

var _ connectors.SplitEnumerator = (*benchEnum)(nil)

func (e *benchEnum) Open(context.Context) error { return nil }
func (e *benchEnum) Run() error {
	for _, i := range e.ctx.RegisteredReaders() {
		e.ctx.AssignSplits(i, connectors.Split{ID: strconv.Itoa(i), Data: binary.AppendVarint(nil, 0)})
		e.ctx.SignalNoMoreSplits(i)
	}
	return nil
}
func (e *benchEnum) RegisterReader(int) error                    { return nil }
func (e *benchEnum) HandleSplitRequest(int) error                { return nil }
func (e *benchEnum) AddSplitsBack([]connectors.Split, int) error { return nil }
func (e *benchEnum) SnapshotState(int64) ([]byte, error)         { return []byte{1}, nil }
func (e *benchEnum) NotifyCheckpointComplete(int64) error        { return nil }
func (e *benchEnum) Close() error                                { return nil }

type benchReader struct {
	rows   int64
	ctx    connectors.ReaderContext
	split  *connectors.Split
	pos    int64
	noMore bool
	batch  *row.Batch
}

var _ connectors.Reader = (*benchReader)(nil)

func (r *benchReader) Open(context.Context) error { return nil }
func (r *benchReader) PollNext(out connectors.Collector) error {
	if r.split == nil {
		if r.noMore {
			r.ctx.SignalNoMoreElement()
		}
		return nil
	}
	if r.batch == nil {
		r.batch = makeBatch(out.BatchSize())
	}
	n := min(int64(r.batch.Len()), r.rows-r.pos)
	b := r.batch
	if n < int64(b.Len()) {
		b = b.Slice(0, int(n))
	}
	r.pos += n
	if r.pos >= r.rows {
		r.split = nil
	}
	out.Emit(b)
	return nil
}
func (r *benchReader) AddSplits(s []connectors.Split) error {
	if len(s) > 0 {
		r.split = &s[0]
		r.pos, _ = binary.Varint(s[0].Data)
	}
	return nil
}
func (r *benchReader) HandleNoMoreSplits() error { r.noMore = true; return nil }
func (r *benchReader) SnapshotState(int64) ([]connectors.Split, error) {
	if r.split == nil {
		return nil, nil
	}
	return []connectors.Split{{ID: r.split.ID, Data: binary.AppendVarint(nil, r.pos)}}, nil
}
func (r *benchReader) NotifyCheckpointComplete(int64) error { return nil }
func (r *benchReader) Close() error                         { return nil }

type benchSink struct{}

var _ connectors.Sink = benchSink{}

func (benchSink) CreateWriter(context.Context, connectors.TaskInfo, [][]byte) (connectors.Writer, error) {
	return &benchWriter{}, nil
}

type benchWriter struct{}

var _ connectors.Writer = (*benchWriter)(nil)

func (w *benchWriter) Write(b *row.Batch) error              { sunk.Add(int64(b.Len())); return nil }
func (w *benchWriter) PrepareCommit(int64) ([]byte, error)   { return nil, nil }
func (w *benchWriter) SnapshotState(int64) ([][]byte, error) { return nil, nil }
func (w *benchWriter) AbortPrepare() error                   { return nil }
func (w *benchWriter) Close() error                          { return nil }

// makeBatch is n rows of (id, name, score) as FakeSource makes them: ids
// and scores spread wide, five-letter names.
func makeBatch(n int) *row.Batch {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	bl := row.NewBuilder(benchSchema, n)
	h := uint64(0x5eed)
	for range n {
		h = h*6364136223846793005 + 1442695040888963407
		bl.Col(0).AppendInt(int64(h >> 1))
		off := (h >> 20) % uint64(len(letters)-5)
		bl.Col(1).AppendString(letters[off : off+5])
		bl.Col(2).AppendFloat(float64(h>>11) * 0x1p-53 * 100)
		bl.EndRow(row.Insert)
	}
	return bl.Build()
}
