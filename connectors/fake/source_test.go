package fake

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

const simple = `
schema { fields { id = bigint, name = string, score = double } }
`

// TestSplits checks the splits against SeaTunnel's FakeSourceSplitEnumerator:
// each reader gets row.num rows in splits of ceil(row.num/split.num) rows,
// with split ids i, i+n, i+2n, ... for reader i of n.
func TestSplits(t *testing.T) {
	cases := []struct {
		parallelism, rowNum, splitNum int
		ids                           [][]int // per reader
		rows                          []int   // rows of each split of a reader, in id order
	}{
		{1, 5, 1, [][]int{{0}}, []int{5}},
		{1, 10, 3, [][]int{{0, 1, 2}}, []int{4, 4, 2}},
		{2, 10, 3, [][]int{{0, 2, 4}, {1, 3, 5}}, []int{4, 4, 2}},
		{3, 5, 4, [][]int{{0, 3, 6}, {1, 4, 7}, {2, 5, 8}}, []int{2, 2, 1}}, // 3 splits, not 4, as SeaTunnel
		{2, 7, 7, [][]int{{0, 2, 4, 6, 8, 10, 12}, {1, 3, 5, 7, 9, 11, 13}}, []int{1, 1, 1, 1, 1, 1, 1}},
		{2, 0, 1, [][]int{nil, nil}, nil},
		{4, 3, 1, [][]int{{0}, {1}, {2}, {3}}, []int{3}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("p%d_rows%d_splits%d", c.parallelism, c.rowNum, c.splitNum), func(t *testing.T) {
			src := newSource(t, fmt.Sprintf("row.num = %d\nsplit.num = %d\n%s", c.rowNum, c.splitNum, simple), connectors.Batch)
			var readers []int
			for i := 0; i < c.parallelism; i++ {
				readers = append(readers, i)
			}
			ctx := newEnumCtx(c.parallelism, readers...)
			en, err := src.CreateEnumerator(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := en.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := en.Run(); err != nil {
				t.Fatal(err)
			}
			total := 0
			for r := 0; r < c.parallelism; r++ {
				ids, rows := splitIndexes(t, ctx.assigned[r])
				if fmt.Sprint(ids) != fmt.Sprint(c.ids[r]) || (len(ids) > 0 && !reflect.DeepEqual(rows, c.rows)) {
					t.Fatalf("reader %d: splits %v with rows %v, want %v with %v", r, ids, rows, c.ids[r], c.rows)
				}
				if ctx.noMore[r] != 1 {
					t.Fatalf("reader %d told no more splits %d times", r, ctx.noMore[r])
				}
				rc := &readerCtx{bounded: connectors.Bounded}
				rd := testReader(src, rc)
				if err := rd.AddSplits(ctx.assigned[r]); err != nil {
					t.Fatal(err)
				}
				rd.HandleNoMoreSplits()
				out := &collector{size: 3}
				drain(t, rd, rc, out, 1000)
				if out.count() != c.rowNum {
					t.Fatalf("reader %d emitted %d rows, want row.num %d", r, out.count(), c.rowNum)
				}
				total += out.count()
			}
			if total != c.parallelism*c.rowNum {
				t.Fatalf("total %d rows", total)
			}
		})
	}
}

// TestRegisterLater: readers that register after Run get their splits then,
// and a reader registering again is told "no more splits" again.
func TestRegisterLater(t *testing.T) {
	src := newSource(t, "row.num = 4\nsplit.num = 2\n"+simple, connectors.Batch)
	ctx := newEnumCtx(2)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()
	if len(ctx.assigned) != 0 || len(ctx.noMore) != 0 {
		t.Fatalf("assigned before any reader registered: %v %v", ctx.assigned, ctx.noMore)
	}
	ctx.registered = []int{1}
	en.RegisterReader(1)
	if ids, _ := splitIndexes(t, ctx.assigned[1]); !reflect.DeepEqual(ids, []int{1, 3}) || ctx.noMore[1] != 1 {
		t.Fatalf("reader 1 got %v, no more %d", ids, ctx.noMore[1])
	}
	// the snapshot holds exactly reader 0's splits
	state, _ := en.SnapshotState(1)
	ctx2 := newEnumCtx(2, 0, 1)
	en2, err := src.CreateEnumerator(ctx2, state)
	if err != nil {
		t.Fatal(err)
	}
	en2.Run()
	if ids, _ := splitIndexes(t, ctx2.assigned[0]); !reflect.DeepEqual(ids, []int{0, 2}) {
		t.Fatalf("restored enumerator gave reader 0 %v", ids)
	}
	if len(ctx2.assigned[1]) != 0 || ctx2.noMore[1] != 1 {
		t.Fatalf("restored enumerator gave reader 1 %v (no more %d)", ctx2.assigned[1], ctx2.noMore[1])
	}
	en.RegisterReader(1)
	if ctx.noMore[1] != 2 || len(ctx.assigned[1]) != 2 {
		t.Fatalf("re-registered reader: %d splits, no more %d", len(ctx.assigned[1]), ctx.noMore[1])
	}
}

// TestAddSplitsBack: returned splits are assigned again, positions kept.
func TestAddSplitsBack(t *testing.T) {
	src := newSource(t, "row.num = 10\n"+simple, connectors.Batch)
	ctx := newEnumCtx(1, 0)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()
	s, _ := decodeSplit(ctx.assigned[0][0])
	s.pos = 7
	ctx.assigned = map[int][]connectors.Split{}
	if err := en.AddSplitsBack([]connectors.Split{s.encode()}, 0); err != nil {
		t.Fatal(err)
	}
	back, _ := decodeSplit(ctx.assigned[0][0])
	if back.pos != 7 || back.rows != 10 {
		t.Fatalf("split back at %d of %d", back.pos, back.rows)
	}
	state, _ := en.SnapshotState(2)
	if _, pending, err := connectors.DecodeEnumeratorState(state); err != nil || len(pending) != 0 {
		t.Fatalf("assigned split still pending (%d, %v)", len(pending), err)
	}
}

// readAll runs src's enumerator for one reader and reads all it assigns,
// in batches of batch rows.
func readAll(t *testing.T, src *source, batch int) *collector {
	ctx := newEnumCtx(1, 0)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()
	rc := &readerCtx{bounded: connectors.Bounded}
	rd := testReader(src, rc)
	rd.AddSplits(ctx.assigned[0])
	rd.HandleNoMoreSplits()
	out := &collector{size: batch}
	drain(t, rd, rc, out, 100)
	return out
}

func readSplit(t *testing.T, src *source, s *split, batch int) [][]any {
	rc := &readerCtx{bounded: connectors.Bounded}
	rd := testReader(src, rc)
	rd.AddSplits([]connectors.Split{s.encode()})
	rd.HandleNoMoreSplits()
	out := &collector{size: batch}
	drain(t, rd, rc, out, 10000)
	return out.rows()
}

func TestDeterministic(t *testing.T) {
	body := `
row.num = 100
schema { fields {
  id = bigint, name = string, score = double, b = boolean, t = tinyint, f = float,
  d = "decimal(30, 8)", small = "decimal(5, 2)", day = date, tod = time, ts = timestamp, bin = bytes,
  arr = "array<int>", m = "map<string, bigint>", r = { x = int, y = string }, n = "null"
} }`
	src := newSource(t, body, connectors.Batch)
	s := &split{table: DefaultTable, index: 3, rows: 100, year: 2024}
	a := readSplit(t, src, s, 7)
	b := readSplit(t, src, s, 64)
	if len(a) != 100 || !reflect.DeepEqual(a, b) {
		t.Fatalf("same split read twice differs (%d, %d rows)", len(a), len(b))
	}
	other := readSplit(t, src, &split{table: DefaultTable, index: 4, rows: 100, year: 2024}, 64)
	if reflect.DeepEqual(a[0], other[0]) {
		t.Fatal("two splits generate the same rows")
	}
	// from a position: exactly the tail
	tail := readSplit(t, src, &split{table: DefaultTable, index: 3, rows: 100, pos: 42, year: 2024}, 10)
	if !reflect.DeepEqual(tail, a[42:]) {
		t.Fatal("a split read from position 42 is not the tail of the whole split")
	}
	// values respect SeaTunnel's ranges
	for _, r := range a {
		if r[0].(int64) < 0 || len(r[1].(string)) != 5 || r[4].(int64) < 0 || r[4].(int64) >= 127 {
			t.Fatalf("out of range: %v", r)
		}
		day := r[8].(time.Time)
		if day.Year() != 2024 || day.Day() > 28 {
			t.Fatalf("date %v", day)
		}
		if ts := r[10].(time.Time); ts.Nanosecond() != 0 || ts.Year() != 2024 {
			t.Fatalf("timestamp %v", ts)
		}
		if len(r[11].([]byte)) != 5 || len(r[12].([]any)) != 5 || len(r[13].(*row.MapValue).Keys) != 5 || r[15] != nil {
			t.Fatalf("sizes: %v", r)
		}
		d := r[6].(decimal.Decimal)
		if d.Exponent() != -8 || d.Coefficient().String() == "" || len(d.Coefficient().String()) > 30 {
			t.Fatalf("decimal %v", d)
		}
	}
}

// TestSnapshotRestore: a reader snapshotted mid-split and restored elsewhere
// continues with exactly the next row: no gap, no duplicate.
func TestSnapshotRestore(t *testing.T) {
	src := newSource(t, "row.num = 50\nsplit.num = 2\n"+simple, connectors.Batch)
	ctx := newEnumCtx(1, 0)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()

	// the whole output, read in one go
	rcAll := &readerCtx{bounded: connectors.Bounded}
	all := testReader(src, rcAll)
	all.AddSplits(ctx.assigned[0])
	all.HandleNoMoreSplits()
	want := &collector{size: 10}
	drain(t, all, rcAll, want, 100)

	for stop := 0; stop <= 6; stop++ {
		rc := &readerCtx{bounded: connectors.Bounded}
		rd := testReader(src, rc)
		rd.AddSplits(ctx.assigned[0])
		got := &collector{size: 10}
		for i := 0; i < stop; i++ {
			rd.PollNext(got)
		}
		state, err := rd.SnapshotState(int64(stop))
		if err != nil {
			t.Fatal(err)
		}
		rc2 := &readerCtx{bounded: connectors.Bounded}
		rd2 := testReader(src, rc2)
		if err := rd2.AddSplits(state); err != nil {
			t.Fatal(err)
		}
		rd2.HandleNoMoreSplits()
		drain(t, rd2, rc2, got, 100)
		if !reflect.DeepEqual(got.rows(), want.rows()) {
			t.Fatalf("stopped after %d polls: %d rows after restore, want %d identical", stop, got.count(), want.count())
		}
	}
}

func TestStreamingIdles(t *testing.T) {
	src := newSource(t, "row.num = 3\n"+simple, connectors.Streaming)
	if src.Boundedness() != connectors.Unbounded {
		t.Fatal("streaming FakeSource must be unbounded")
	}
	ctx := newEnumCtx(1, 0)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()
	rc := &readerCtx{bounded: connectors.Unbounded}
	rd := testReader(src, rc)
	rd.AddSplits(ctx.assigned[0])
	rd.HandleNoMoreSplits()
	out := &collector{size: 100}
	for i := 0; i < 20; i++ {
		rd.PollNext(out)
	}
	if out.count() != 3 || rc.ended != 0 {
		t.Fatalf("streaming: %d rows, ended %d", out.count(), rc.ended)
	}
}

func TestReadInterval(t *testing.T) {
	src := newSource(t, "row.num = 4\nsplit.num = 2\nsplit.read-interval = 500\n"+simple, connectors.Batch)
	ctx := newEnumCtx(1, 0)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()
	rc := &readerCtx{bounded: connectors.Bounded}
	r, _ := src.CreateReader(rc)
	rd := r.(*reader)
	now := time.Unix(1000, 0)
	rd.now = func() time.Time { return now }
	rd.AddSplits(ctx.assigned[0])
	rd.HandleNoMoreSplits()
	out := &collector{size: 100}
	rd.PollNext(out) // first split
	rd.PollNext(out) // too early for the second
	if out.count() != 2 {
		t.Fatalf("rows %d before the interval passed", out.count())
	}
	now = now.Add(500 * time.Millisecond)
	rd.PollNext(out)
	if out.count() != 4 || rc.ended != 1 {
		t.Fatalf("after the interval: rows %d, ended %d", out.count(), rc.ended)
	}
}

func TestFixedRows(t *testing.T) {
	body := `
split.num = 2
schema { fields {
  c_null = "null", c_string = string, c_boolean = boolean, c_tinyint = tinyint, c_smallint = smallint,
  c_int = int, c_bigint = bigint, c_float = float, c_double = double, c_decimal = "decimal(30, 8)",
  c_date = date, c_timestamp = timestamp, c_time = time, c_bytes = bytes, c_array = "array<int>",
  c_map = "map<string, string>", c_map_nest = "map<string, {c_int = int, c_string = string}>",
  c_row = { a = int, b = string }
} }
rows = [
  { kind = INSERT, fields = [null, "AAA", false, 1, 1, 333, 323232, 3.1, 9.33333, 99999.99999999,
      "2012-12-21", "2012-12-21T12:34:56", "12:34:56", "bWlJWmo=", [0, 1, 2], { k0 = v0, k1 = v1 },
      { k1 = [123, "BBB-BB"] }, [7, "x"]] }
  { kind = UPDATE_AFTER, fields = [null, null, null, null, null, null, null, null, null, null,
      null, null, null, null, null, null, null, null] }
]`
	out := readAll(t, newSource(t, body, connectors.Batch), 1)
	// two splits, each emitting both fixed rows, one row per batch
	if out.count() != 4 || len(out.batches) != 4 {
		t.Fatalf("%d rows in %d batches, want 4 in 4", out.count(), len(out.batches))
	}
	r := out.rows()[0]
	want := []any{nil, "AAA", false, int64(1), int64(1), int64(333), int64(323232), float64(float32(3.1)), 9.33333,
		decimal.RequireFromString("99999.99999999"),
		time.Date(2012, 12, 21, 0, 0, 0, 0, time.UTC), time.Date(2012, 12, 21, 12, 34, 56, 0, time.UTC),
		12*time.Hour + 34*time.Minute + 56*time.Second, []byte("miIZj"), []any{int64(0), int64(1), int64(2)},
		&row.MapValue{Keys: []any{"k0", "k1"}, Values: []any{"v0", "v1"}},
		&row.MapValue{Keys: []any{"k1"}, Values: []any{[]any{int64(123), "BBB-BB"}}},
		[]any{int64(7), "x"}}
	for j := range want {
		if d, ok := want[j].(decimal.Decimal); ok {
			if !d.Equal(r[j].(decimal.Decimal)) {
				t.Errorf("field %d: %v, want %v", j, r[j], want[j])
			}
			continue
		}
		if !reflect.DeepEqual(r[j], want[j]) {
			t.Errorf("field %d: %#v, want %#v", j, r[j], want[j])
		}
	}
	if out.batches[1].Kind(0) != row.UpdateAfter {
		t.Error("second row's kind is not UPDATE_AFTER")
	}
	for j, v := range out.rows()[1] {
		if v != nil {
			t.Errorf("null row field %d = %v", j, v)
		}
	}
}

func TestTemplatesAndRanges(t *testing.T) {
	body := `
row.num = 200
int.min = 10
int.max = 13
string.fake.mode = template
string.template = [AA, BB]
bigint.fake.mode = TEMPLATE
bigint.template = [7, 8]
double.min = 1.5
double.max = 2.5
date.year.template = [2001]
date.month.template = [2]
time.hour.template = [5, 6]
schema { fields { i = int, s = string, b = bigint, d = double, day = date, ts = timestamp } }`
	src := newSource(t, body, connectors.Batch)
	rows := readSplit(t, src, &split{table: DefaultTable, rows: 200, year: 1999}, 50)
	seen := map[int64]bool{}
	for _, r := range rows {
		i := r[0].(int64)
		seen[i] = true
		if i < 10 || i >= 13 {
			t.Fatalf("int %d outside [10, 13)", i)
		}
		if s := r[1].(string); s != "AA" && s != "BB" {
			t.Fatalf("string %q not from the template", s)
		}
		if b := r[2].(int64); b != 7 && b != 8 {
			t.Fatalf("bigint %d not from the template", b)
		}
		if d := r[3].(float64); d < 1.5 || d >= 2.5 {
			t.Fatalf("double %v", d)
		}
		if day := r[4].(time.Time); day.Year() != 2001 || day.Month() != 2 {
			t.Fatalf("date %v", day)
		}
		if ts := r[5].(time.Time); ts.Hour() != 5 && ts.Hour() != 6 {
			t.Fatalf("timestamp %v", ts)
		}
	}
	if len(seen) != 3 {
		t.Fatalf("ints seen %v, want all of 10, 11, 12", seen)
	}
}

func TestTablesConfigs(t *testing.T) {
	body := `
tables_configs = [
  { row.num = 16, schema { table = "test.table1", fields { c_int = int, c_bigint = bigint } } },
  { row.num = 17, split.num = 2, schema { table = "test.table2", fields { c_string = string, c_tinyint = tinyint } } }
]`
	src := newSource(t, body, connectors.Batch)
	if ts := src.Tables(); len(ts) != 2 || ts[0].TableID != "test.table1" || ts[1].String() != "test.table2(c_string string, c_tinyint tinyint)" {
		t.Fatalf("tables %v", ts)
	}
	ctx := newEnumCtx(2, 0, 1)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()
	count := map[string]int{}
	for r := 0; r < 2; r++ {
		rc := &readerCtx{bounded: connectors.Bounded}
		rd := testReader(src, rc)
		rd.AddSplits(ctx.assigned[r])
		rd.HandleNoMoreSplits()
		out := &collector{size: 5}
		drain(t, rd, rc, out, 1000)
		for _, b := range out.batches {
			count[b.Schema.TableID] += b.Len()
		}
	}
	if count["test.table1"] != 32 || count["test.table2"] != 34 {
		t.Fatalf("rows per table %v", count)
	}
}

// TestTableNames: table-names makes one table per name with the block's
// schema and options (fixed rows too), as SeaTunnel's FakeConfig did.
func TestTableNames(t *testing.T) {
	body := `
row.num = 3
table-names = ["test.table1", "test.table2"]
schema { fields { id = int } }
rows = [{ kind = INSERT, fields = [7] }]`
	src := newSource(t, body, connectors.Batch)
	ts := src.Tables()
	if len(ts) != 2 || ts[0].String() != "test.table1(id int)" || ts[1].String() != "test.table2(id int)" {
		t.Fatalf("tables %v", ts)
	}
	ctx := newEnumCtx(1, 0)
	en, _ := src.CreateEnumerator(ctx, nil)
	en.Run()
	rc := &readerCtx{bounded: connectors.Bounded}
	rd := testReader(src, rc)
	rd.AddSplits(ctx.assigned[0])
	rd.HandleNoMoreSplits()
	out := &collector{size: 5}
	drain(t, rd, rc, out, 1000)
	count := map[string]int{}
	for _, b := range out.batches {
		count[b.Schema.TableID] += b.Len()
		if b.Value(0, 0) != int64(7) {
			t.Errorf("%s: row %v", b.Schema.TableID, b.Row(0))
		}
	}
	if count["test.table1"] != 1 || count["test.table2"] != 1 {
		t.Fatalf("rows per table %v", count)
	}
}

func TestOptionErrors(t *testing.T) {
	cases := []struct {
		name, body, key, msg string
		line                 int
	}{
		{"bad type", "schema { fields {\n  a = int\n  b = \"strin\"\n} }", "schema.fields.b", "unknown type name", 3},
		{"wrong field value", "schema { fields { a = int, b = date } }\nrows = [\n  { kind = INSERT, fields = [1, \"2024-13-45\"] }\n]", "rows", `row 1, field "b" (date)`, 3},
		{"nested wrong value", "schema { fields { a = \"array<int>\" } }\nrows = [{ kind = INSERT, fields = [\n  [1, 2, \"x\"]] }]", "rows", "element 2", 3},
		{"field count", "schema { fields { a = int } }\nrows = [{ kind = INSERT, fields = [1, 2] }]", "rows", "has 2 fields", 2},
		{"bad kind", "schema { fields { a = int } }\nrows = [{ kind = UPSERT, fields = [1] }]", "rows", "unknown row kind", 2},
		{"no schema", "row.num = 3", "schema", "missing", 1},
		{"template without list", "schema { fields { a = int } }\nint.fake.mode = template", "int.template", "not set", 2},
		{"min above max", "schema { fields { a = int } }\nint.min = 50\nint.max = 10", "int.min", "greater than", 2},
		{"tinyint.max out of range", "schema { fields { a = int } }\ntinyint.max = 300", "tinyint.max", "between 0 and 127", 2},
		{"split.num zero", "schema { fields { a = int } }\nsplit.num = 0", "split.num", "between 1", 2},
		{"tables_configs entry", "tables_configs = [\n { schema { fields { a = int } } },\n { row.num = x, schema { fields { a = int } } }\n]", "tables_configs[1].row.num", "expected an integer", 3},
		{"duplicate table", "tables_configs = [\n { schema { fields { a = int } } },\n { schema { fields { a = int } } }\n]", "tables_configs[1].schema", "appears twice", 3},
		{"duplicate table name", "schema { fields { a = int } }\ntable-names = [a.b, a.b]", "table-names", "appears twice", 2},
		{"empty table-names", "schema { fields { a = int } }\ntable-names = []", "table-names", "at least one", 2},
		{"mode", "schema { fields { a = int } }\nstring.fake.mode = random", "string.fake.mode", "expected one of", 2},
		// Nested arrays grow as array.size^depth: 4096^3 values a row.
		{"nested arrays", "schema { fields { a = \"array<array<array<int>>>\" } }\narray.size = 4096", "array.size", "more than 65536 values", 2},
		{"nested maps", "schema { fields { m = \"map<string, map<string, array<int>>>\" } }\nmap.size = 300", "map.size", "more than 65536 values", 2},
		{"wide row of arrays", "schema { fields { a = \"array<row<x array<int>, y array<string>>>\" } }\narray.size = 200", "array.size", "lower them", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := plugin(t, c.body)
			if err == nil {
				_, err = Factory.Create(cfg, nil, connectors.JobContext{Mode: connectors.Batch, Parallelism: 1})
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("want a *config.Error, got %v", err)
			}
			if ce.Key != c.key || !strings.Contains(ce.Msg, c.msg) || ce.Pos.Line != c.line || ce.Pos.File != "job.conf" {
				t.Fatalf("got %q (key %q, line %d), want key %q, line %d, message containing %q", ce.Error(), ce.Key, ce.Pos.Line, c.key, c.line, c.msg)
			}
		})
	}
}

// Random decimals of every precision stay within it (38 digits overran a
// table once).
func TestRandomDecimalPrecisions(t *testing.T) {
	r := &rng{}
	for p := 1; p <= 38; p++ {
		for s := 0; s <= p; s += max(1, p/3) {
			typ := row.DecimalOf(p, s)
			for i := 0; i < 50; i++ {
				d := randomDecimal(typ, r)
				if digits := len(d.Coefficient().String()); digits > p {
					t.Fatalf("decimal(%d, %d): %s has %d digits", p, s, d, digits)
				}
			}
		}
	}
}

// A row of nested arrays below the bound is generated in batches of fewer
// rows, so one poll holds about maxValuesPerPoll values however wide the
// row is; every row is still read.
func TestWideRowsMakeSmallerBatches(t *testing.T) {
	src := newSource(t, "schema { fields { id = bigint, a = \"array<array<int>>\" } }\narray.size = 200\nrow.num = 100", connectors.Batch)
	perRow := src.tables[0].valuesPerRow
	if perRow != 1+1+200*201 {
		t.Fatalf("valuesPerRow = %d", perRow)
	}
	rc := &readerCtx{bounded: connectors.Bounded}
	rd := testReader(src, rc)
	enum := newEnumCtx(1, 0)
	e, err := src.CreateEnumerator(enum, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	rd.AddSplits(enum.assigned[0])
	rd.HandleNoMoreSplits()
	out := &collector{size: 4096}
	drain(t, rd, rc, out, 1000)
	if out.count() != 100 {
		t.Fatalf("%d rows, want 100", out.count())
	}
	for i, b := range out.batches {
		if b.Len()*perRow > maxValuesPerPoll {
			t.Fatalf("batch %d holds %d rows of %d values", i, b.Len(), perRow)
		}
	}
	if len(out.batches) < 4 {
		t.Fatalf("%d batches for 100 rows of %d values", len(out.batches), perRow)
	}
}

// TestTableNamedByPluginOutput: a schema without `table` names its table as SeaTunnel's
// CatalogTableUtil.buildWithConfig does: plugin_output (result_table_name),
// split as TablePath.of, else default.default.default; schema.table and
// table-names win over it.
func TestTableNamedByPluginOutput(t *testing.T) {
	fields := `schema { fields { id = int } }`
	for _, c := range []struct{ body, want string }{
		{fields, "default.default.default"},
		{`plugin_output = "fake"` + "\n" + fields, "fake"},
		{`result_table_name = "fake"` + "\n" + fields, "fake"},
		{`plugin_output = "db.t"` + "\n" + fields, "db.t"},
		{`plugin_output = "fake"` + "\n" + `schema { table = "test.table1", fields { id = int } }`, "test.table1"},
		{`plugin_output = "fake"` + "\n" + `table-names = ["a.b"]` + "\n" + fields, "a.b"},
		// a tables_configs entry does not see the source's plugin_output
		{`plugin_output = "fake"` + "\n" + `tables_configs = [{ ` + fields + ` }]`, "default.default.default"},
	} {
		src := newSource(t, c.body, connectors.Batch)
		if ts := src.Tables(); len(ts) != 1 || ts[0].TableID != c.want {
			t.Errorf("%s: tables %v, want %s", c.body, ts, c.want)
		}
	}
}

// TestTimestampTZ: a timestamp_tz field is generated as a timestamp is (the
// wall clock from the date templates and the split's year) at a whole-hour
// offset from -12:00 to +14:00, nested ones too; fixed rows read
// OffsetDateTime's text, an offset required.
func TestTimestampTZ(t *testing.T) {
	body := `
date.year.template = [2001]
time.hour.template = [5]
schema { fields { tz = timestamp_tz, arr = "array<timestamp_tz>" } }`
	src := newSource(t, body, connectors.Batch)
	rows := readSplit(t, src, &split{table: DefaultTable, rows: 300, year: 1999}, 64)
	offsets := map[int]bool{}
	for _, r := range rows {
		for _, v := range append([]any{r[0]}, r[1].([]any)...) {
			tz := v.(time.Time)
			_, off := tz.Zone()
			if tz.Year() != 2001 || tz.Hour() != 5 || off%3600 != 0 || off < -12*3600 || off > 14*3600 {
				t.Fatalf("timestamp_tz %v", tz)
			}
			offsets[off] = true
		}
	}
	if len(offsets) < 20 {
		t.Errorf("only %d offsets in 1800 values", len(offsets))
	}
	fixed := newSource(t, `
schema { fields { tz = timestamp_tz } }
rows = [{ kind = INSERT, fields = ["2024-01-01T10:00:00+05:45"] }, { kind = INSERT, fields = [1704067200000] }]`, connectors.Batch)
	got := readAll(t, fixed, 8).rows()
	if len(got) != 2 || row.Text(row.TimestampTZ, got[0][0]) != "2024-01-01T10:00+05:45" || row.Text(row.TimestampTZ, got[1][0]) != "2024-01-01T00:00Z" {
		t.Fatalf("fixed rows %v", got)
	}
	cfg, err := plugin(t, `
schema { fields { tz = timestamp_tz } }
rows = [{ kind = INSERT, fields = ["2024-01-01T10:00:00"] }]`)
	if err == nil {
		_, err = Factory.Create(cfg, nil, connectors.JobContext{Mode: connectors.Batch, Parallelism: 1})
	}
	if err == nil || !strings.Contains(err.Error(), "not a timestamp with an offset") {
		t.Errorf("a row without an offset: %v", err)
	}
}
