package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/row"
)

var servers dbtest.Servers

func TestMain(m *testing.M) { os.Exit(servers.Run(m, dbtest.WithPostgres())) }

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func exec(t testing.TB, pg *dbtest.Postgres, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if err := pg.Exec(testCtx(t), "postgres", s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// resolveBody resolves a Postgres-CDC block as the planner does.
func resolveBody(t *testing.T, body string) (*config.PluginConfig, []byte, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	f := cdc.Factory(Spec)
	cfg, _, err := config.Validate("job.conf", "source", f.Name, root.Pos, root, f.Options, config.CommonPluginOptions)
	if err != nil {
		return nil, nil, err
	}
	b, err := f.Resolve(testCtx(t), cfg, connectors.JobContext{Mode: connectors.Streaming})
	return cfg, b, err
}

func body(pg *dbtest.Postgres, slot, tables string, extra ...string) string {
	return fmt.Sprintf("base-url = %q\nusername = %q\npassword = \"\"\ntable-names = [%q]\nslot.name = %q\n%s\n",
		pg.JDBCURL("postgres"), dbtest.User, tables, slot, strings.Join(extra, "\n"))
}

func TestPrerequisites(t *testing.T) {
	pg := servers.Postgres(t)
	exec(t, pg, "DROP TABLE IF EXISTS pre_default, pre_full",
		"CREATE TABLE pre_default (id int PRIMARY KEY, v text)",
		"CREATE TABLE pre_full (id int PRIMARY KEY, v text)", "ALTER TABLE pre_full REPLICA IDENTITY FULL",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'pre_other'",
		"SELECT pg_create_logical_replication_slot('pre_other', 'test_decoding')")
	t.Cleanup(func() { _ = pg.Exec(context.Background(), "postgres", "SELECT pg_drop_replication_slot('pre_other')") })
	for _, c := range []struct{ name, body, want string }{
		{"replica identity", body(pg, "pre_ok", "postgres.public.pre_default"), "REPLICA IDENTITY DEFAULT; Postgres-CDC needs FULL"},
		{"missing table", body(pg, "pre_ok", "postgres.public.nope"), "nope"},
		{"other database", body(pg, "pre_ok", "other.public.pre_full"), "is not in database postgres"},
		{"slot of another plugin", body(pg, "pre_other", "postgres.public.pre_full"), `slot "pre_other" exists for database "postgres" with plugin "test_decoding"`},
		{"plugin", body(pg, "pre_ok", "postgres.public.pre_full", `decoding.plugin.name = "wal2json"`), `"wal2json": stactor decodes with pgoutput`},
		{"schema-names", body(pg, "pre_ok", "postgres.public.pre_full", `schema-names = ["inventory"]`), "not in schema-names"},
		{"exactly_once without key", body(pg, "pre_ok", "postgres.public.pre_full", `exactly_once = true`, `table-names-config = [{table = "postgres.public.pre_full", primaryKeys = ["nope"]}]`), `primary key "nope"`},
		{"specific", body(pg, "pre_ok", "postgres.public.pre_full", `startup.mode = specific`), "specific has no offset options"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := resolveBody(t, c.body)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
		})
	}
	cfg, b, err := resolveBody(t, body(pg, "pre_ok", "postgres.public.pre_full"))
	if err != nil || len(b) == 0 {
		t.Fatalf("resolve: %v", err)
	}
	if w := cfg.Warnings(); len(w) != 0 {
		t.Errorf("pgoutput: warnings %v, want none", w)
	}
}

// TestDecoderbufs: SeaTunnel's files name Debezium's decoderbufs plugin;
// the job resolves to pgoutput's slot with one warning that says so.
func TestDecoderbufs(t *testing.T) {
	pg := servers.Postgres(t)
	exec(t, pg, "DROP TABLE IF EXISTS dbufs", "CREATE TABLE dbufs (id int PRIMARY KEY, v text)", "ALTER TABLE dbufs REPLICA IDENTITY FULL")
	cfg, b, err := resolveBody(t, body(pg, "dbufs", "postgres.public.dbufs", `decoding.plugin.name = "decoderbufs"`))
	if err != nil || len(b) == 0 {
		t.Fatalf("resolve: %v", err)
	}
	w := cfg.Warnings()
	if len(w) != 1 || !strings.Contains(w[0].Msg, "decoderbufs is read as pgoutput") {
		t.Fatalf("warnings %v, want one saying decoderbufs is read as pgoutput", w)
	}
	if !strings.HasPrefix(w[0].String(), "job.conf:") {
		t.Errorf("warning %q is not placed in the file", w[0])
	}
}

// newTestDialect resolves and creates the dialect of a block.
func newTestDialect(t *testing.T, b string) (*dialect, []*cdc.Table) {
	t.Helper()
	cfg, res, err := resolveBody(t, b)
	if err != nil {
		t.Fatal(err)
	}
	o, err := cdc.ParseOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tables, private, err := cdc.DecodeResolved(res)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDialect(cfg, o, tables, private)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d.(*dialect), tables
}

// collect gathers streamed events until stop says so.
type collect struct {
	mu     sync.Mutex
	events []cdc.Event
}

func (c *collect) add(ev cdc.Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, ev)
	return nil
}

func (c *collect) rows() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, ev := range c.events {
		if ev.Rows == nil {
			continue
		}
		for i := 0; i < ev.Rows.Len(); i++ {
			out = append(out, fmt.Sprintf("%s %v", ev.Rows.Kind(i).Short(), ev.Rows.Row(i)))
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func confirmed(t *testing.T, pg *dbtest.Postgres, slot string) string {
	conn, err := pgx.Connect(testCtx(t), pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var lsn string
	if err := conn.QueryRow(testCtx(t), "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	return lsn
}

// TestStream streams changes with their kinds, confirms the slot only to
// what Commit says, and fails with the table's name when it changes.
func TestStream(t *testing.T) {
	pg := servers.Postgres(t)
	exec(t, pg, "DROP TABLE IF EXISTS st, st2, st_other", "CREATE TABLE st (id int PRIMARY KEY, v text, n numeric(10,2), ts timestamptz, b bytea)",
		"ALTER TABLE st REPLICA IDENTITY FULL",
		"CREATE TABLE st2 (k text PRIMARY KEY, d date)", "ALTER TABLE st2 REPLICA IDENTITY FULL",
		"CREATE TABLE st_other (id int PRIMARY KEY)",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'st_slot'")
	d, tables := newTestDialect(t, body(pg, "st_slot", "postgres.public.st2,postgres.public.st", "heartbeat.interval.ms = 200"))
	if len(tables) != 2 || tables[0].ID != "postgres.public.st2" || tables[1].ID != "postgres.public.st" {
		t.Fatalf("tables %v", tables)
	}
	ctx := testCtx(t)
	if err := d.Prepare(ctx, true); err != nil {
		t.Fatal(err)
	}
	start, err := d.StartOffset(ctx, cdc.StartupLatest)
	if err != nil {
		t.Fatal(err)
	}
	before := confirmed(t, pg, "st_slot")
	sctx, cancel := context.WithCancel(ctx)
	var c collect
	done := make(chan error, 1)
	go func() { done <- d.Stream(sctx, start, c.add) }()
	exec(t, pg, "INSERT INTO st VALUES (1, 'a', 1.50, '2024-01-02 03:04:05.123456+00', '\\x0102')",
		"INSERT INTO st_other VALUES (1)",
		"BEGIN; INSERT INTO st2 VALUES ('x', '2024-02-29'); UPDATE st SET v = 'b' WHERE id = 1; COMMIT",
		"DELETE FROM st WHERE id = 1")
	// ts is a timestamptz: a timestamp_tz, boxed at offset Z (row.ZoneZ).
	want := []string{
		"+I [1 a 1.5 2024-01-02 03:04:05.123456 +0000 Z [1 2]]",
		"+I [x 2024-02-29 00:00:00 +0000 UTC]",
		"-U [1 a 1.5 2024-01-02 03:04:05.123456 +0000 Z [1 2]]",
		"+U [1 b 1.5 2024-01-02 03:04:05.123456 +0000 Z [1 2]]",
		"-D [1 b 1.5 2024-01-02 03:04:05.123456 +0000 Z [1 2]]",
	}
	waitFor(t, "the changes", func() bool { return len(c.rows()) >= len(want) })
	got := c.rows()
	var order []int
	c.mu.Lock()
	for _, ev := range c.events {
		if ev.Rows != nil && ev.Rows.Len() > 0 {
			order = append(order, ev.Table)
		}
	}
	c.mu.Unlock()
	if fmt.Sprint(order) != "[1 0 1 1]" {
		t.Fatalf("events of tables %v, want [1 0 1 1] (st, st2, st in one transaction, st)", order)
	}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: %s, want %s", i, got[i], want[i])
		}
	}
	// Nothing committed: the slot stays where it was, heartbeats or not.
	time.Sleep(time.Second)
	if now := confirmed(t, pg, "st_slot"); now != before {
		t.Fatalf("slot confirmed %s before any Commit (was %s)", now, before)
	}
	c.mu.Lock()
	last := c.events[len(c.events)-1].Tx
	c.mu.Unlock()
	d.Commit(last)
	waitFor(t, "the slot to confirm the commit", func() bool {
		n, _ := d.CompareOffsets(cdc.Offset(confirmed(t, pg, "st_slot")), last)
		return n >= 0
	})
	// A new column: the stream fails naming the table.
	exec(t, pg, "ALTER TABLE st ADD COLUMN extra int", "INSERT INTO st VALUES (2, 'c', 2, now(), NULL, 7)")
	select {
	case err := <-done:
		if !errors.Is(err, cdc.ErrSchemaChanged) || !strings.Contains(err.Error(), "postgres.public.st") || !strings.Contains(err.Error(), "extra") {
			t.Fatalf("stream ended with %v, want a schema change of postgres.public.st", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stream did not fail on the new column")
	}
	cancel()
}

// TestChunks cuts a table with a string key in byte order, and one with
// a number key in numeric order (not as the text of its numbers), into
// chunks of the split size, and reads each with its watermarks.
func TestChunks(t *testing.T) {
	pg := servers.Postgres(t)
	for _, c := range []struct {
		name  string
		fill  []string
		typ   *row.Type
		sizes []int
	}{
		{"text", []string{"CREATE TABLE ch_text (k text PRIMARY KEY, v int)",
			"INSERT INTO ch_text SELECT 'k' || g, g FROM generate_series(1, 25) g", "INSERT INTO ch_text VALUES ('B', 0), ('a', 0), ('Z', 0)"},
			row.String, []int{10, 10, 8}},
		// As text, 1, 10, ..., 19 come first, and the first chunk would
		// end at 19 (the first chunk of a table of 500 k rows held 100 k).
		{"bigint", []string{"CREATE TABLE ch_bigint (k bigint PRIMARY KEY, v int)",
			"INSERT INTO ch_bigint SELECT g, g FROM generate_series(1, 25) g"},
			row.BigInt, []int{10, 10, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			table, slot := "ch_"+c.name, "ch_"+c.name+"_slot"
			exec(t, pg, append(append([]string{"DROP TABLE IF EXISTS " + table}, c.fill...), "ALTER TABLE "+table+" REPLICA IDENTITY FULL",
				"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"+slot+"'")...)
			d, tables := newTestDialect(t, body(pg, slot, "postgres.public."+table))
			ctx := testCtx(t)
			if err := d.Prepare(ctx, true); err != nil {
				t.Fatal(err)
			}
			tb := tables[0]
			var lo, prev *cdc.Key
			var sizes []int
			for {
				hi, err := d.ChunkEnd(ctx, tb, lo, 10)
				if err != nil {
					t.Fatal(err)
				}
				ch := cdc.Chunk{Lo: lo, Hi: hi}
				n := 0
				low, high, err := d.ReadChunk(ctx, tb, ch, 4, func(b *row.Batch) error {
					for i := 0; i < b.Len(); i++ {
						k := cdc.KeyOf(b.Cols[0], i)
						if !ch.Contains(c.typ, k) {
							return fmt.Errorf("key %s outside chunk [%s, %s)", k, ch.Lo, ch.Hi)
						}
					}
					n += b.Len()
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if cmp, _ := d.CompareOffsets(low, high); cmp > 0 {
					t.Fatalf("low watermark %s after high %s", low, high)
				}
				if prev != nil && hi != nil && hi.Compare(c.typ, prev) <= 0 {
					t.Fatal("chunk ends do not grow")
				}
				sizes = append(sizes, n)
				if hi == nil {
					break
				}
				prev, lo = hi, hi
			}
			if fmt.Sprint(sizes) != fmt.Sprint(c.sizes) {
				t.Fatalf("chunks of %v rows, want %v", sizes, c.sizes)
			}
		})
	}
}

// TestWatermarkBeforeNextCommit: a transaction that commits right after
// a chunk was read, its commit record the first WAL record after the
// chunk's high watermark was taken, is neither in the chunk's rows nor in
// its backfill, so its offset must be past the high watermark: the stream
// drops the changes to a chunk's keys at or before it as the chunk's.
// (Its commit record's LSN was the watermark itself, and a delete so made
// was lost under the e2e writer.)
func TestWatermarkBeforeNextCommit(t *testing.T) {
	pg := servers.Postgres(t)
	exec(t, pg, "DROP TABLE IF EXISTS wm, wm_other", "CREATE TABLE wm_other (id int)", "CREATE TABLE wm (id int PRIMARY KEY, v text)", "ALTER TABLE wm REPLICA IDENTITY FULL",
		"INSERT INTO wm VALUES (1, 'a'), (2, 'b'), (3, 'c')",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'wm_slot'")
	d, tables := newTestDialect(t, body(pg, "wm_slot", "postgres.public.wm"))
	ctx := testCtx(t)
	if err := d.Prepare(ctx, true); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM wm WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	// Another commit flushes the WAL (the delete's record too), so the
	// backfill waits for nothing and the next record is the commit.
	exec(t, pg, "INSERT INTO wm_other VALUES (1)")
	n := 0
	low, high, err := d.ReadChunk(ctx, tables[0], cdc.Chunk{}, 10, func(b *row.Batch) error { n += b.Len(); return nil })
	if err != nil || n != 3 {
		t.Fatalf("chunk: %d rows, %v; want the 3 (the delete is not committed)", n, err)
	}
	var backfill collect
	if err := d.ReadLog(ctx, low, high, backfill.add); err != nil {
		t.Fatal(err)
	}
	if rows := backfill.rows(); len(rows) != 0 {
		t.Fatalf("backfill %q, want nothing", rows)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var c collect
	done := make(chan error, 1)
	go func() { done <- d.Stream(sctx, low, c.add) }()
	waitFor(t, "the delete", func() bool { return len(c.rows()) > 0 })
	var ev cdc.Event
	c.mu.Lock()
	for _, e := range c.events {
		if e.Rows != nil && e.Rows.Len() > 0 {
			ev = e
			break
		}
	}
	c.mu.Unlock()
	if cmp, err := d.CompareOffsets(ev.Tx, high); err != nil || cmp <= 0 {
		t.Fatalf("the delete committed after the chunk was read is at %s, not after its high watermark %s (%v): the stream would drop it", ev.Tx, high, err)
	}
	cancel()
	<-done
}

// TestUnchangedToast: an UPDATE that leaves a TOASTed value alone sends
// it as unchanged; the after-image takes it from the old row.
func TestUnchangedToast(t *testing.T) {
	pg := servers.Postgres(t)
	exec(t, pg, "DROP TABLE IF EXISTS toasty", "CREATE TABLE toasty (id int PRIMARY KEY, big text, n int)",
		"ALTER TABLE toasty REPLICA IDENTITY FULL", "ALTER TABLE toasty ALTER COLUMN big SET STORAGE EXTERNAL",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'toast_slot'")
	d, _ := newTestDialect(t, body(pg, "toast_slot", "postgres.public.toasty"))
	c := streaming(t, d)
	exec(t, pg, "INSERT INTO toasty SELECT 1, string_agg(md5(g::text), ''), 0 FROM generate_series(1, 500) g",
		"UPDATE toasty SET n = 1 WHERE id = 1")
	waitFor(t, "the update", func() bool { return len(c.rows()) >= 3 })
	c.mu.Lock()
	defer c.mu.Unlock()
	var bigs []string
	for _, ev := range c.events {
		for i := 0; ev.Rows != nil && i < ev.Rows.Len(); i++ {
			bigs = append(bigs, ev.Rows.Cols[1].Str(i))
		}
	}
	if len(bigs) != 3 || len(bigs[0]) != 16000 || bigs[1] != bigs[0] || bigs[2] != bigs[0] {
		t.Fatalf("big values of %d rows: lengths %v, want three equal of 16000", len(bigs), lens(bigs))
	}
}

func lens(xs []string) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = len(x)
	}
	return out
}

// TestReusedSlot: a new job on a slot an earlier job left (with a TRUNCATE
// of its table and the table's older columns in the WAL after the slot's
// position) starts as on a new slot: the slot moves to the WAL's end, so
// an exactly-once chunk's backfill does not meet them. A restore and
// startup.mode = earliest leave the slot where it is.
func TestReusedSlot(t *testing.T) {
	pg := servers.Postgres(t)
	exec(t, pg, "DROP TABLE IF EXISTS reuse", "CREATE TABLE reuse (id int PRIMARY KEY, v text)", "ALTER TABLE reuse REPLICA IDENTITY FULL",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'reuse_slot'",
		"SELECT pg_create_logical_replication_slot('reuse_slot', 'pgoutput')",
		"INSERT INTO reuse VALUES (1, 'a')", "TRUNCATE reuse", "ALTER TABLE reuse ADD COLUMN w int", "ALTER TABLE reuse DROP COLUMN w",
		"INSERT INTO reuse VALUES (2, 'b')")
	t.Cleanup(func() { _ = pg.Exec(context.Background(), "postgres", "SELECT pg_drop_replication_slot('reuse_slot')") })
	left := confirmed(t, pg, "reuse_slot")
	for _, c := range []struct {
		name  string
		fresh bool
		extra string
	}{{"restore", false, ""}, {"earliest", true, "startup.mode = earliest"}} {
		d, _ := newTestDialect(t, body(pg, "reuse_slot", "postgres.public.reuse", c.extra))
		if err := d.Prepare(testCtx(t), c.fresh); err != nil {
			t.Fatal(err)
		}
		if got := confirmed(t, pg, "reuse_slot"); got != left {
			t.Fatalf("%s moved the slot from %s to %s", c.name, left, got)
		}
	}
	d, tables := newTestDialect(t, body(pg, "reuse_slot", "postgres.public.reuse", "exactly_once = true"))
	if err := d.Prepare(testCtx(t), true); err != nil {
		t.Fatal(err)
	}
	if got := confirmed(t, pg, "reuse_slot"); got == left {
		t.Fatalf("a new job left the slot at %s", got)
	}
	exec(t, pg, "INSERT INTO reuse VALUES (3, 'c')")
	// The job slot's confirmed position is the low watermark a chunk falls
	// back to (backfill.go); the chunk's own one is past the insert.
	job, err := d.confirmed(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	low, high, err := d.ReadChunk(testCtx(t), tables[0], cdc.Chunk{Table: 0}, 100, func(*row.Batch) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []struct {
		name string
		at   cdc.Offset
		want []string
	}{{"the job slot's position", job, []string{"+I [3 c]"}}, {"the chunk's low watermark", low, nil}} {
		var got []string
		err = d.ReadLog(testCtx(t), from.at, high, func(ev cdc.Event) error {
			for i := 0; ev.Rows != nil && i < ev.Rows.Len(); i++ {
				got = append(got, fmt.Sprintf("%s %v", ev.Rows.Kind(i).Short(), ev.Rows.Row(i)))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("the backfill from %s read the earlier job's changes: %v", from.name, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(from.want) {
			t.Fatalf("the backfill from %s read %q, want %q (the new job's changes after it only)", from.name, got, from.want)
		}
	}
}

// TestStreamTypes: values SeaTunnel's PostgresTypeConverter maps that
// pgoutput sends in their text form come out of the stream as the
// snapshot reads them: money (decimal(30,2), however lc_monetary prints
// it), PostGIS geometry (its hex EWKB), arrays and inet.
func TestStreamTypes(t *testing.T) {
	pg := servers.Postgres(t)
	postgis := pg.Exec(testCtx(t), "postgres", "CREATE EXTENSION IF NOT EXISTS postgis") == nil
	geom, g := "text", "NULL" // without PostGIS (tools/test-deps.sh installs it)
	if postgis {
		geom, g = "geometry", "'SRID=4326;POINT(1 2)'"
	}
	exec(t, pg, "DROP TABLE IF EXISTS stt", "CREATE TABLE stt (id int PRIMARY KEY, m money, a int[], s text[], ip inet, g "+geom+")",
		"ALTER TABLE stt REPLICA IDENTITY FULL",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'stt_slot'")
	d, tables := newTestDialect(t, body(pg, "stt_slot", "postgres.public.stt"))
	ctx := testCtx(t)
	c := streaming(t, d)
	exec(t, pg, "INSERT INTO stt VALUES (1, '-1234.5', '{1,NULL,3}', '{\"a b\",c}', '10.0.0.1/8', "+g+")",
		"UPDATE stt SET m = 92233720368547758.07 WHERE id = 1")
	waitFor(t, "the changes", func() bool { return len(c.rows()) >= 3 })
	var snap []string
	_, _, err := d.ReadChunk(ctx, tables[0], cdc.Chunk{Table: 0}, 10, func(b *row.Batch) error {
		for i := 0; i < b.Len(); i++ {
			snap = append(snap, fmt.Sprintf("%v", b.Row(i)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := c.rows()
	wantGeom := "<nil>"
	if postgis {
		wantGeom = "0101000020E6100000000000000000F03F0000000000000040"
	}
	want := []string{
		"+I [1 -1234.5 [1 <nil> 3] [a b c] 10.0.0.1/8 " + wantGeom + "]",
		"-U [1 -1234.5 [1 <nil> 3] [a b c] 10.0.0.1/8 " + wantGeom + "]",
		"+U [1 92233720368547758.07 [1 <nil> 3] [a b c] 10.0.0.1/8 " + wantGeom + "]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stream\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(snap) != 1 || "+U "+snap[0] != want[2] {
		t.Fatalf("snapshot %q, the stream's last row %s", snap, want[2])
	}
}

// streaming prepares d's slot and streams from the WAL's end into the
// collector returned, until the test ends.
func streaming(t *testing.T, d *dialect) *collect {
	t.Helper()
	ctx := testCtx(t)
	if err := d.Prepare(ctx, true); err != nil {
		t.Fatal(err)
	}
	start, err := d.StartOffset(ctx, cdc.StartupLatest)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	c := &collect{}
	done := make(chan struct{})
	go func() { _ = d.Stream(sctx, start, c.add); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return c
}
