package jdbc

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// enumCtx records what the enumerator tells its readers.
type enumCtx struct {
	n        int
	assigned map[int][]connectors.Split
	noMore   map[int]bool
}

func (c *enumCtx) Parallelism() int { return c.n }
func (c *enumCtx) RegisteredReaders() []int {
	var out []int
	for i := 0; i < c.n; i++ {
		out = append(out, i)
	}
	return out
}
func (c *enumCtx) AssignSplits(i int, s ...connectors.Split) {
	c.assigned[i] = append(c.assigned[i], s...)
}
func (c *enumCtx) SignalNoMoreSplits(i int) { c.noMore[i] = true }

type readerCtx struct {
	i         int
	requested bool
	ended     bool
}

func (c *readerCtx) Task() connectors.TaskInfo           { return connectors.TaskInfo{SubtaskIndex: c.i} }
func (c *readerCtx) Boundedness() connectors.Boundedness { return connectors.Bounded }
func (c *readerCtx) SendSplitRequest()                   { c.requested = true }
func (c *readerCtx) SignalNoMoreElement()                { c.ended = true }

type collector struct {
	mu   sync.Mutex
	rows []string
	key  int // the column rendered
}

func (c *collector) Emit(b *row.Batch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < b.Len(); i++ {
		var vals []string
		for j := range b.Cols {
			vals = append(vals, row.Text(b.Schema.Fields[j].Type, b.Value(i, j)))
		}
		c.rows = append(c.rows, strings.Join(vals, "|"))
	}
}
func (c *collector) BatchSize() int { return 100 }

// harness runs an enumerator and its readers as the engine does.
type harness struct {
	t       testing.TB
	r       *sourceResolved
	ec      *enumCtx
	enum    *enumerator
	readers []*reader
	rctx    []*readerCtx
	out     *collector
}

func newHarness(t testing.TB, r *sourceResolved, n int, enumState []byte, splits [][]connectors.Split) *harness {
	t.Helper()
	h := &harness{t: t, r: r, ec: &enumCtx{n: n, assigned: map[int][]connectors.Split{}, noMore: map[int]bool{}}, out: &collector{}}
	e, err := newEnumerator(h.ec, r, enumState)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Open(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	h.enum = e
	for i := 0; i < n; i++ {
		rc := &readerCtx{i: i}
		rd := newReader(rc, r)
		if err := rd.Open(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		if splits != nil && len(splits[i]) > 0 {
			rd.AddSplits(splits[i])
		}
		h.readers, h.rctx = append(h.readers, rd), append(h.rctx, rc)
	}
	t.Cleanup(h.close)
	return h
}

func (h *harness) close() {
	for _, r := range h.readers {
		r.Close()
	}
	h.enum.Close()
}

// step polls each reader once and answers its split requests; it tells
// whether every reader has ended.
func (h *harness) step() bool {
	h.t.Helper()
	all := true
	for i, rd := range h.readers {
		if err := rd.PollNext(h.out); err != nil {
			h.t.Fatal(err)
		}
		if h.rctx[i].requested {
			h.rctx[i].requested = false
			if err := h.enum.HandleSplitRequest(i); err != nil {
				h.t.Fatal(err)
			}
		}
		if s := h.ec.assigned[i]; len(s) > 0 {
			delete(h.ec.assigned, i)
			if err := rd.AddSplits(s); err != nil {
				h.t.Fatal(err)
			}
		}
		if h.ec.noMore[i] {
			rd.HandleNoMoreSplits()
		}
		all = all && h.rctx[i].ended
	}
	return all
}

// runUntil steps until every reader ended or stop says so.
func (h *harness) runUntil(stop func() bool) {
	for i := 0; i < 100000; i++ {
		if h.step() || (stop != nil && stop()) {
			return
		}
	}
	h.t.Fatal("source did not end")
}

// snapshot is the enumerator's and the readers' state, as a checkpoint.
func (h *harness) snapshot() ([]byte, [][]connectors.Split, []string) {
	st, err := h.enum.SnapshotState(1)
	if err != nil {
		h.t.Fatal(err)
	}
	var splits [][]connectors.Split
	for _, rd := range h.readers {
		s, err := rd.SnapshotState(1)
		if err != nil {
			h.t.Fatal(err)
		}
		splits = append(splits, s)
	}
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	return st, splits, append([]string(nil), h.out.rows...)
}

func resolvedSource(t testing.TB, tg target, body string) *sourceResolved {
	t.Helper()
	cfg, err := pluginCfg(t, "source Jdbc", sourceOptions, tg.connBody()+body)
	if err != nil {
		t.Fatal(err)
	}
	r, err := resolveSource(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := decodeSourceResolved(cfg, b)
	if err != nil {
		t.Fatal(err)
	}
	return r2
}

const srcRows = 3000

// makeSource fills src_rows: id unique, grp repeats (and is null for
// some), name null for some.
func makeSource(t testing.TB, tg target) {
	tg.exec(t, "DROP TABLE IF EXISTS src_rows",
		"CREATE TABLE src_rows (id bigint PRIMARY KEY, grp int, name varchar(20), v decimal(12,3))")
	var vals []string
	for i := 1; i <= srcRows; i++ {
		grp := fmt.Sprint(i % 37)
		if i%101 == 0 {
			grp = "NULL"
		}
		name := fmt.Sprintf("'n%05d'", (i*7919)%srcRows)
		if i%13 == 0 {
			name = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, %s, %d.125)", i*3, grp, name, i))
		if len(vals) == 500 || i == srcRows {
			tg.exec(t, "INSERT INTO src_rows VALUES "+strings.Join(vals, ","))
			vals = vals[:0]
		}
	}
	if tg.dialect == dialectPostgres {
		tg.exec(t, "ANALYZE src_rows")
	} else {
		tg.exec(t, "ANALYZE TABLE src_rows")
	}
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

func checkOnce(t testing.TB, got, want []string) {
	t.Helper()
	g, w := sorted(got), sorted(want)
	if len(g) != len(w) {
		t.Fatalf("%d rows, want %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("row %d: %q, want %q", i, g[i], w[i])
		}
	}
}

func TestSourceSplitsAndRestores(t *testing.T) {
	for _, tg := range targets(t) {
		makeSource(t, tg)
		want := tg.dump(t, "src_rows", "id")
		for _, tc := range []struct{ name, body, mode string }{
			{"pk-even", "table_path = %q\nsplit.size = 250\n", "even"},
			{"pk-keyset", "table_path = %q\nsplit.size = 250\nsplit.even-distribution.factor.upper-bound = 1.5\n", "keyset"},
			{"partition-num", "table_path = %q\npartition_column = id\npartition_num = 4\n", "even"},
			{"nonunique-nullable", "table_path = %q\npartition_column = grp\nsplit.size = 400\n", "keyset"},
			{"string-key", "table_path = %q\npartition_column = name\nsplit.size = 300\n", "keyset"},
			{"decimal-key-partitions", "table_path = %q\npartition_column = v\npartition_num = 4\n", "evendec"},
			{"decimal-key-bounds", "table_path = %q\npartition_column = v\npartition_num = 5\npartition_lower_bound = 1000\npartition_upper_bound = 99999999999999999999\n", "evendec"},
			{"decimal-key-keyset", "table_path = %q\npartition_column = v\nsplit.size = 500\n", "keyset"},
			{"query-no-key", "query = \"SELECT * FROM src_rows\"\nfetch_size = 64\n", "single"},
			{"query-with-where", "table_path = %q\nwhere_condition = \"where id > 0\"\nsplit.size = 700\n", "even"},
		} {
			t.Run(tg.name+"/"+tc.name, func(t *testing.T) {
				body := tc.body
				if strings.Contains(body, "%q") {
					body = fmt.Sprintf(body, tg.tablePathOf("src_rows"))
				}
				r := resolvedSource(t, tg, body)
				// A straight run reads every row once.
				h := newHarness(t, r, 3, nil, nil)
				h.runUntil(nil)
				_, _, rows := h.snapshot()
				checkOnce(t, rows, want)
				if got := h.enum.st.Plans[0].Mode; got != tc.mode {
					t.Errorf("mode %s, want %s", got, tc.mode)
				}
				// Stop at several places, restore (also with another
				// parallelism), and still read every row once.
				for _, stopAt := range []int{1, 777, 2100} {
					h1 := newHarness(t, r, 2, nil, nil)
					h1.runUntil(func() bool { h1.out.mu.Lock(); defer h1.out.mu.Unlock(); return len(h1.out.rows) >= stopAt })
					st, splits, before := h1.snapshot()
					h1.close()
					var flat []connectors.Split
					for _, s := range splits {
						flat = append(flat, s...)
					}
					h2 := newHarness(t, r, 3, st, [][]connectors.Split{flat, nil, nil})
					h2.runUntil(nil)
					_, _, after := h2.snapshot()
					checkOnce(t, append(before, after...), want)
				}
			})
		}
	}
}

func TestSourceErrors(t *testing.T) {
	for _, tg := range targets(t) {
		makeSource(t, tg)
		for _, tc := range []struct{ body, want string }{
			{"table_path = %q\npartition_column = nope\n", `"nope" is not a column`},
			{"table_path = %q\npartition_column = v\nwhere_condition = \"id > 1\"\n", "must start with where"},
			{"table_path = \"no_such_table\"\n", "table not found"},
			{"query = \"SELECT * FROM no_such_table\"\n", "no_such_table"},
			{"", "set query, table_path or table_list"},
			{"table_path = %q\npartition_column = name\npartition_lower_bound = 1\n", `splits by "name", a string`},
			{"table_path = %q\npartition_column = id\npartition_lower_bound = 99999999999999999999\n", "out of range for the bigint split key"},
			{"table_path = %q\npartition_lower_bound = x1\n", "must be an integer"},
		} {
			body := tc.body
			if strings.Contains(body, "%q") {
				body = fmt.Sprintf(body, tg.tablePathOf("src_rows"))
			}
			cfg, err := pluginCfg(t, "source Jdbc", sourceOptions, tg.connBody()+body)
			if err == nil {
				_, err = resolveSource(testCtx(t), cfg)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "job.conf") {
				t.Errorf("%s %q: %v, want %q", tg.name, body, err, tc.want)
			}
		}
	}
}
