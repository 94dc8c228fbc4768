package jdbc

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// copyTable reads src with a Jdbc source and writes what it reads with a
// Jdbc sink, as a job would.
func copyTable(t testing.TB, src *sourceResolved, sinkBody string, dst target) {
	t.Helper()
	schemas := []*row.Schema{src.Tables[0].schema}
	r := savedSink(t, dst, sinkBody, schemas...)
	w, err := (&sink{r: r}).CreateWriter(testCtx(t), testTask, nil) // with multi_table_sink_replica, a replicaWriter
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	h := newHarness(t, src, 2, nil, nil)
	h.out = &collector{}
	tee := &writeCollector{t: t, w: w}
	for i := 0; i < 100000; i++ {
		all := true
		for k, rd := range h.readers {
			if err := rd.PollNext(tee); err != nil {
				t.Fatal(err)
			}
			if h.rctx[k].requested {
				h.rctx[k].requested = false
				h.enum.HandleSplitRequest(k)
			}
			if s := h.ec.assigned[k]; len(s) > 0 {
				delete(h.ec.assigned, k)
				rd.AddSplits(s)
			}
			if h.ec.noMore[k] {
				rd.HandleNoMoreSplits()
			}
			all = all && h.rctx[k].ended
		}
		if all {
			break
		}
	}
	if _, err := w.PrepareCommit(1); err != nil {
		t.Fatal(err)
	}
}

type writeCollector struct {
	t testing.TB
	w connectors.Writer
}

func (c *writeCollector) Emit(b *row.Batch) {
	if err := c.w.Write(b); err != nil {
		c.t.Fatal(err)
	}
}
func (c *writeCollector) BatchSize() int { return 500 }

func TestRoundTripPostgresMariaDBPostgres(t *testing.T) {
	tgs := targets(t)
	if len(tgs) < 2 {
		t.Skip("needs both servers")
	}
	pg, my := tgs[0], tgs[1]
	pg.exec(t, "DROP TABLE IF EXISTS mixed", "DROP TABLE IF EXISTS mixed_back",
		`CREATE TABLE mixed (id bigint PRIMARY KEY, i integer, s smallint, b boolean, f real, d double precision,
  n numeric(20,6), t text, v varchar(50), by bytea, dt date, tm time, ts timestamp, tz timestamptz, j jsonb, u uuid)`,
		`INSERT INTO mixed SELECT g, (g * 7919) % 2147483647 - 1000000, (g % 65535) - 32768, g % 3 = 0, g / 7.0, g * 1.0e-3 - 500,
  (g * 12345.678901) % 99999999999999, 'text ' || g || E'\n''"\\', CASE WHEN g % 5 = 0 THEN NULL ELSE 'v' || g END,
  decode(lpad(to_hex(g), 8, '0'), 'hex'), DATE '1900-01-01' + g * 37, TIME '00:00:00' + g * INTERVAL '61.123457 second',
  TIMESTAMP '1970-01-01' + g * INTERVAL '1 day 1.000001 second', TIMESTAMPTZ '2000-01-01 00:00:00+03' + g * INTERVAL '1 hour',
  jsonb_build_object('g', g), md5(g::text)::uuid
FROM generate_series(1, 2000) g`,
		`INSERT INTO mixed (id) VALUES (0)`,
		`INSERT INTO mixed VALUES (2001, 2147483647, 32767, false, 'Infinity', -1.7976931348623157e308, 99999999999999.999999,
  '', '', '', '9999-12-31', '23:59:59.999999', '9999-12-31 23:59:59.999999', '1000-01-01 00:00:00+00', '[]', '00000000-0000-0000-0000-000000000000')`,
	)
	want := pg.dump(t, "mixed", "id")
	// float Infinity cannot go to MariaDB; the row of extremes goes with a finite float
	pg.exec(t, "UPDATE mixed SET f = 3.4028235e38 WHERE id = 2001")
	want = pg.dump(t, "mixed", "id")
	// MySQL has no timestamp_tz: tz (a timestamp_tz at offset Z from
	// timestamptz) goes to a datetime of the instant in UTC and reads back
	// as a timestamp, the same text without the Z.
	if !strings.Contains(want[1], "|1999-12-31T22:00Z|") {
		t.Fatalf("timestamptz does not read as a timestamp_tz at Z: %s", want[1])
	}
	want = withoutOffset(want)

	src := resolvedSource(t, pg, "table_path = \"public.mixed\"\nsplit.size = 300\n")
	my.exec(t, "DROP TABLE IF EXISTS mixed")
	copyTable(t, src, fmt.Sprintf("database = %q\ntable = \"mixed\"\nbatch_size = 333\n", my.db), my)
	mid := my.dump(t, "mixed", "id")
	if strings.Join(mid, "\n") != strings.Join(want, "\n") {
		diff(t, "MariaDB copy", mid, want)
	}

	back := resolvedSource(t, my, "table_path = \"test.mixed\"\nsplit.size = 500\n")
	copyTable(t, back, "database = \"postgres\"\ntable = \"public.mixed_back\"\nuse_copy_statement = true\nenable_upsert = false\n", pg)
	got := pg.dump(t, "mixed_back", "id")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		diff(t, "back in PostgreSQL", got, want)
	}
}

// utcOffset is the Z after a timestamp_tz's clock in a dumped row.
var utcOffset = regexp.MustCompile(`(T\d\d:\d\d(?::\d\d(?:\.\d+)?)?)Z\|`)

// withoutOffset is rows with the Z of their timestamp_tz values dropped.
func withoutOffset(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = utcOffset.ReplaceAllString(r, "$1|")
	}
	return out
}

func diff(t testing.TB, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d\n got %s\nwant %s", what, i, got[i], want[i])
		}
	}
}
