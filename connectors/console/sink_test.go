package console

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func newSink(t *testing.T, body string) *sink {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Validate("job.conf", "sink Console", "Console", root.Pos, root, Factory.Options, config.CommonPluginOptions)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Factory.Create(cfg, nil, nil, connectors.JobContext{Mode: connectors.Batch, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*sink)
}

// lockedBuffer is an output that tolerates the race detector watching it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int // writes
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var allTypes = row.MustSchema("fake",
	row.Field{Name: "c_string", Type: row.String},
	row.Field{Name: "c_boolean", Type: row.Boolean},
	row.Field{Name: "c_tinyint", Type: row.TinyInt},
	row.Field{Name: "c_smallint", Type: row.SmallInt},
	row.Field{Name: "c_int", Type: row.Int},
	row.Field{Name: "c_bigint", Type: row.BigInt},
	row.Field{Name: "c_float", Type: row.Float},
	row.Field{Name: "c_double", Type: row.Double},
	row.Field{Name: "c_decimal", Type: row.DecimalOf(30, 8)},
	row.Field{Name: "c_null", Type: row.Null},
	row.Field{Name: "c_bytes", Type: row.Bytes},
	row.Field{Name: "c_date", Type: row.Date},
	row.Field{Name: "c_time", Type: row.Time},
	row.Field{Name: "c_timestamp", Type: row.Timestamp},
	row.Field{Name: "c_array", Type: row.ArrayOf(row.Int)},
	row.Field{Name: "c_map", Type: row.MapOf(row.String, row.String)},
	row.Field{Name: "c_row", Type: row.RowOf(
		row.Field{Name: "a", Type: row.Int},
		row.Field{Name: "b", Type: row.String},
		row.Field{Name: "c", Type: row.Bytes},
		row.Field{Name: "d", Type: row.MapOf(row.String, row.Double)},
	)},
)

func allTypesBatch(t *testing.T) *row.Batch {
	b := row.NewBuilder(allTypes, 2)
	err := b.AppendRow(row.Insert, []any{
		"AAA", false, int64(1), int64(2), int64(333), int64(323232), 3.1, 9.33333,
		decimal.RequireFromString("99999.99999999"), nil, []byte("miIZj"),
		"2012-12-21", "12:34:56", "2012-12-21T12:34:56",
		[]any{int64(0), int64(1), int64(2)},
		row.OrderedMap{{Key: "k0", Value: "v0"}, {Key: "k1", Value: "v\"1"}},
		[]any{int64(7), "x", []byte{0xff, 'a'}, row.OrderedMap{{Key: "a", Value: 1.5}, {Key: "b", Value: 1e10}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = b.AppendRow(row.Delete, []any{
		nil, nil, nil, nil, nil, nil, 1e-5, 1e10,
		decimal.Zero, nil, nil, nil, "00:00:00.5", "2024-01-31T12:30:00",
		[]any{}, row.OrderedMap{}, []any{nil, nil, nil, nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

// TestLines pins the line format of SeaTunnel's ConsoleSinkWriter.write:
//
//	log.info("subtaskIndex={}  rowIndex={}:  SeaTunnelRow#tableId={} SeaTunnelRow#kind={} : {}",
//	         context.getIndexOfSubtask(), rowCounter.incrementAndGet(),
//	         element.getTableId(), element.getRowKind(), StringUtils.join(arr, ", "));
//
// with fieldToString per field: bytes as Java's signed bytes, maps as
// Jackson JSON, rows as a list of their rendered fields, other values by
// Java's toString (Double 1.0E10, Float 1.0E-5, BigDecimal 0E-8,
// LocalTime 00:00:00.500, LocalDateTime 2024-01-31T12:30), and a null
// field as nothing (StringUtils.join renders null elements as "").
func TestLines(t *testing.T) {
	var out lockedBuffer
	defer setOutput(&out)()
	w, _ := newSink(t, "").CreateWriter(context.Background(), connectors.TaskInfo{SubtaskIndex: 2}, nil)
	if err := w.Write(allTypesBatch(t)); err != nil {
		t.Fatal(err)
	}
	want := "subtaskIndex=2  rowIndex=1:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=INSERT : " +
		`AAA, false, 1, 2, 333, 323232, 3.1, 9.33333, 99999.99999999, , [109, 105, 73, 90, 106], 2012-12-21, 12:34:56, 2012-12-21T12:34:56, [0, 1, 2], {"k0":"v0","k1":"v\"1"}, [7, x, [-1, 97], {"a":1.5,"b":1.0E10}]` + "\n" +
		"subtaskIndex=2  rowIndex=2:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=DELETE : " +
		`, , , , , , 1.0E-5, 1.0E10, 0E-8, , , , 00:00:00.500, 2024-01-31T12:30, [], {}, [null, null, null, null]` + "\n"
	if got := out.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if out.n != 1 {
		t.Fatalf("a batch took %d writes, want 1", out.n)
	}
	// the row index goes on across batches
	w.Write(allTypesBatch(t))
	if !strings.Contains(out.String(), "rowIndex=4:") {
		t.Fatal("row index did not continue")
	}
}

func TestDecimalText(t *testing.T) {
	cases := []struct {
		v     string
		scale int
		want  string
	}{
		{"0", 8, "0E-8"},
		{"0.00000001", 8, "1E-8"},
		{"0.000001", 6, "0.000001"},
		{"0.0000001", 7, "1E-7"},
		{"-12.5", 2, "-12.50"},
		{"123", 0, "123"},
		{"0.0012", 4, "0.0012"},
		{"1.23", 10, "1.2300000000"},
	}
	for _, c := range cases {
		if got := decimalText(decimal.RequireFromString(c.v), row.DecimalOf(38, c.scale)); got != c.want {
			t.Errorf("%s at scale %d: %s, want %s", c.v, c.scale, got, c.want)
		}
	}
}

func TestNoPrint(t *testing.T) {
	var out lockedBuffer
	defer setOutput(&out)()
	w, _ := newSink(t, "log.print.data = false").CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	w.Write(allTypesBatch(t))
	info, err := w.PrepareCommit(1)
	if out.String() != "" || info != nil || err != nil {
		t.Fatalf("printed %q, commit info %v, %v", out.String(), info, err)
	}
	if w.(*writer).rows != 2 {
		t.Fatalf("counted %d rows", w.(*writer).rows)
	}
}

func TestDelay(t *testing.T) {
	var out lockedBuffer
	defer setOutput(&out)()
	w, _ := newSink(t, "log.print.delay.ms = 20").CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	var slept []time.Duration
	w.(*writer).sleep = func(d time.Duration) { slept = append(slept, d) }
	w.Write(allTypesBatch(t))
	if len(slept) != 2 || slept[0] != 20*time.Millisecond || out.n != 2 {
		t.Fatalf("slept %v, %d writes", slept, out.n)
	}
}

// TestParallelWriters: lines of parallel writers never interleave.
func TestParallelWriters(t *testing.T) {
	var out lockedBuffer
	defer setOutput(&out)()
	s := newSink(t, "")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{SubtaskIndex: i}, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 50; k++ {
				w.Write(allTypesBatch(t))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4*50*2 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "subtaskIndex=") || strings.Count(l, "subtaskIndex=") != 1 {
			t.Fatalf("mangled line %q", l)
		}
	}
}

func TestBadDelay(t *testing.T) {
	root, _ := hocon.Parse([]byte("log.print.delay.ms = -1"), hocon.Options{File: "job.conf"})
	cfg, _, _ := config.Validate("job.conf", "sink Console", "Console", root.Pos, root, Factory.Options)
	if _, err := Factory.Create(cfg, nil, nil, connectors.JobContext{}); err == nil || !strings.Contains(err.Error(), "job.conf:1:") {
		t.Fatalf("want a positioned error, got %v", err)
	}
}

// TestTimestampTZLine: a timestamp_tz prints as OffsetDateTime.toString,
// alone, in an array, in a row and (as an ISO string) in a map's JSON.
func TestTimestampTZLine(t *testing.T) {
	var out lockedBuffer
	defer setOutput(&out)()
	s := row.MustSchema("fake",
		row.Field{Name: "tz", Type: row.TimestampTZ, Nullable: true},
		row.Field{Name: "arr", Type: row.ArrayOf(row.TimestampTZ)},
		row.Field{Name: "m", Type: row.MapOf(row.String, row.TimestampTZ)},
		row.Field{Name: "r", Type: row.RowOf(row.Field{Name: "x", Type: row.TimestampTZ})},
	)
	b := row.NewBuilder(s, 2)
	for _, r := range [][]any{
		{"2024-01-01T10:00:00+08:00", []any{"0001-01-01T00:00:00.5-12:00"}, row.OrderedMap{{Key: "k", Value: "9999-12-31T23:59:59.999999999+05:45"}}, []any{"2024-06-01T00:00:00Z"}},
		{nil, []any{}, row.OrderedMap{}, []any{nil}},
	} {
		if err := b.AppendRow(row.Insert, r); err != nil {
			t.Fatal(err)
		}
	}
	w, _ := newSink(t, "").CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(b.Build()); err != nil {
		t.Fatal(err)
	}
	want := "subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=INSERT : " +
		`2024-01-01T10:00+08:00, [0001-01-01T00:00:00.500-12:00], {"k":"9999-12-31T23:59:59.999999999+05:45"}, [2024-06-01T00:00Z]` + "\n" +
		"subtaskIndex=0  rowIndex=2:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=INSERT : " +
		`, [], {}, [null]` + "\n"
	if got := out.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
