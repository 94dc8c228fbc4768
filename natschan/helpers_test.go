package natschan

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// runServer starts an embedded NATS server (core only, no JetStream) on an
// OS-assigned port; edit adjusts its options.
func runServer(t testing.TB, edit func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true, StoreDir: t.TempDir()}
	if edit != nil {
		edit(opts)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("nats server: %v", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(s.Shutdown)
	return s
}

func connect(t testing.TB, s *server.Server, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// checkFor polls fn until it returns nil or total passes.
func checkFor(t testing.TB, total, sleep time.Duration, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(total)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(sleep)
	}
}

// collector records what a Receiver delivers.
type collector struct {
	mu   sync.Mutex
	msgs []any
	errs []error
}

func (c *collector) deliver(m any) {
	c.mu.Lock()
	c.msgs = append(c.msgs, m)
	c.mu.Unlock()
}

func (c *collector) onError(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

func (c *collector) snapshot() ([]any, []error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]any(nil), c.msgs...), append([]error(nil), c.errs...)
}

// waitMsgs waits until n messages were delivered and returns them.
func (c *collector) waitMsgs(t testing.TB, n int) []any {
	t.Helper()
	var got []any
	checkFor(t, 10*time.Second, 5*time.Millisecond, func() error {
		var errs []error
		got, errs = c.snapshot()
		if len(errs) > 0 {
			return fmt.Errorf("unexpected errors: %v", errs)
		}
		if len(got) < n {
			return fmt.Errorf("%d messages delivered, want %d", len(got), n)
		}
		return nil
	})
	return got
}

// waitErr waits for the first error.
func (c *collector) waitErr(t testing.TB) error {
	t.Helper()
	var err error
	checkFor(t, 10*time.Second, 5*time.Millisecond, func() error {
		_, errs := c.snapshot()
		if len(errs) == 0 {
			return fmt.Errorf("no error reported")
		}
		err = errs[0]
		return nil
	})
	return err
}

func newReceiver(t testing.TB, nc *nats.Conn, s Scope, subtask int32, c *collector, opts ...Option) *Receiver {
	t.Helper()
	r, err := NewReceiver(nc, s, subtask, c.deliver, c.onError, opts...)
	if err != nil {
		t.Fatalf("NewReceiver: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func newSender(t testing.TB, nc *nats.Conn, s Scope, edge, to int32, opts ...Option) *Sender {
	t.Helper()
	snd, err := NewSender(nc, s, edge, to, opts...)
	if err != nil {
		t.Fatalf("NewSender: %v", err)
	}
	return snd
}

// sameRows compares batches by their encodings, which are deterministic and
// carry the schema, kinds and every value bit for bit.
func sameRows(want, got *row.Batch) error {
	if got == nil {
		return fmt.Errorf("no rows")
	}
	w, g := row.AppendBatch(nil, want), row.AppendBatch(nil, got)
	if !bytes.Equal(w, g) {
		return fmt.Errorf("batch of %d rows (%d bytes) differs from the %d rows (%d bytes) sent", got.N, len(g), want.N, len(w))
	}
	return nil
}

// describe renders a delivered message for comparisons.
func describe(m any) string {
	switch m := m.(type) {
	case *messages.Batch:
		return fmt.Sprintf("batch e%d f%d #%d b%d (%d rows)", m.Edge, m.From, m.Seq, m.Barrier, m.Rows.N)
	case *messages.EndOfData:
		return fmt.Sprintf("end e%d f%d #%d", m.Edge, m.From, m.Seq)
	case *messages.Barrier:
		return fmt.Sprintf("barrier e%d f%d id%d %s", m.Edge, m.From, m.Id, m.Type)
	case *messages.BarrierMarker:
		return fmt.Sprintf("marker e%d f%d id%d #%d %s", m.Edge, m.From, m.ID, m.Seq, m.Type)
	}
	return fmt.Sprintf("%T", m)
}

func describeAll(ms []any) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(describe(m))
		b.WriteByte('\n')
	}
	return b.String()
}

// benchSchema is the (id bigint, name string, score double) table.
var benchSchema = row.MustSchema("bench",
	row.Field{Name: "id", Type: row.BigInt},
	row.Field{Name: "name", Type: row.String},
	row.Field{Name: "score", Type: row.Double})

// scoreBatch is n rows of benchSchema with ids from first; names of
// nameLen bytes.
func scoreBatch(first int64, n, nameLen int) *row.Batch {
	ids := row.NewColumn(row.BigInt, n)
	names := row.NewColumn(row.String, n)
	scores := row.NewColumn(row.Double, n)
	pad := strings.Repeat("x", max(0, nameLen-12))
	for i := range n {
		id := first + int64(i)
		ids.AppendInt(id)
		names.AppendString(fmt.Sprintf("name-%07d", id%10_000_000) + pad)
		scores.AppendFloat(float64(id) * 0.5)
	}
	return row.NewBatch(benchSchema, nil, []*row.Column{ids, names, scores})
}

var inner = row.RowOf(row.Field{Name: "x", Type: row.Int}, row.Field{Name: "y name", Type: row.String}, row.Field{Name: "z", Type: row.ArrayOf(row.Double)})

// everyType has a field of each SeaTunnel type, nested ones included.
var everyType = row.MustSchema("db.every",
	row.Field{Name: "id", Type: row.BigInt, Comment: "the key"},
	row.Field{Name: "s", Type: row.String, Nullable: true},
	row.Field{Name: "b", Type: row.Boolean, Nullable: true},
	row.Field{Name: "ti", Type: row.TinyInt, Nullable: true},
	row.Field{Name: "si", Type: row.SmallInt, Nullable: true},
	row.Field{Name: "i", Type: row.Int, Nullable: true},
	row.Field{Name: "f", Type: row.Float, Nullable: true},
	row.Field{Name: "d", Type: row.Double, Nullable: true},
	row.Field{Name: "dec", Type: row.DecimalOf(10, 2), Nullable: true},
	row.Field{Name: "bigdec", Type: row.DecimalOf(38, 18), Nullable: true},
	row.Field{Name: "bin", Type: row.Bytes, Nullable: true},
	row.Field{Name: "date", Type: row.Date, Nullable: true},
	row.Field{Name: "time", Type: row.Time, Nullable: true},
	row.Field{Name: "ts", Type: row.Timestamp, Nullable: true},
	row.Field{Name: "nul", Type: row.Null, Nullable: true},
	row.Field{Name: "arr", Type: row.ArrayOf(row.String), Nullable: true},
	row.Field{Name: "rows", Type: row.ArrayOf(inner), Nullable: true},
	row.Field{Name: "m", Type: row.MapOf(row.String, row.Int), Nullable: true},
	row.Field{Name: "mm", Type: row.MapOf(row.Int, row.MapOf(row.String, row.ArrayOf(row.Timestamp))), Nullable: true},
	row.Field{Name: "r", Type: row.RowOf(row.Field{Name: "a", Type: row.DecimalOf(20, 4)}, row.Field{Name: "c", Type: inner},
		row.Field{Name: "e", Type: row.Date}, row.Field{Name: "t", Type: row.Time}, row.Field{Name: "bb", Type: row.Bytes}, row.Field{Name: "bo", Type: row.Boolean}), Nullable: true},
)

// everyTypeRows is four rows of everyType, one of each kind, with extreme
// values and nulls.
func everyTypeRows(t testing.TB) *row.Batch {
	t.Helper()
	om := func(kv ...any) row.OrderedMap {
		var m row.OrderedMap
		for i := 0; i < len(kv); i += 2 {
			m = append(m, row.KV{Key: kv[i].(string), Value: kv[i+1]})
		}
		return m
	}
	rows := [][]any{
		{int64(1), "héllo", true, int64(-128), int64(32767), int64(math.MinInt32), 1.5, math.Inf(-1), "12.34", "1.000000000000000001",
			[]byte{0, 1, 255}, "1969-07-20", "23:59:59.999999999", "2262-04-11 23:47:16.854775807", nil,
			[]any{"a", nil, ""}, []any{[]any{int64(1), "p q", []any{0.5, nil}}, nil, []any{nil, nil, nil}},
			om("k1", int64(1), "k2", nil, "", int64(-3)), &row.MapValue{Keys: []any{int64(7)}, Values: []any{om("z", []any{"2024-01-31T12:30:00.5", nil})}},
			[]any{"-99999999999999.9999", []any{int64(3), nil, []any{}}, "2000-02-29", "00:00", []byte("raw"), false}},
		{int64(math.MinInt64), "", false, int64(127), int64(-32768), int64(math.MaxInt32), -0.25, math.Copysign(0, -1), "-0.01", "-12345678901234567890.123456789012345678",
			[]byte{}, "2024-01-31", "00:00:00", "1677-09-21 00:12:43.145224192", nil,
			[]any{}, []any{}, om(), &row.MapValue{}, []any{nil, nil, nil, nil, nil, nil}},
		{int64(math.MaxInt64), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{int64(0), "日本語", true, int64(0), int64(0), int64(0), math.MaxFloat32, math.NaN(), "0", "0",
			nil, "1970-01-01", "12:00", "1970-01-01T00:00:00", nil,
			[]any{"x"}, []any{[]any{nil, nil, nil}}, om("only", nil), &row.MapValue{Keys: []any{int64(0)}, Values: []any{nil}},
			[]any{"1", []any{nil, nil, nil}, nil, nil, nil, true}},
	}
	kinds := []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete}
	bl := row.NewBuilder(everyType, len(rows))
	for i, r := range rows {
		if err := bl.AppendRow(kinds[i], r); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	return bl.Build()
}

// emptyBatch is a batch of no rows.
func emptyBatch(s *row.Schema) *row.Batch {
	cols := make([]*row.Column, len(s.Fields))
	for j, f := range s.Fields {
		cols[j] = row.NewColumn(f.Type, 0)
	}
	return &row.Batch{Schema: s, Cols: cols}
}
