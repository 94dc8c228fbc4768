// Package cdc runs the stactor binary on Postgres-CDC and MySQL-CDC jobs
// against the private PostgreSQL and MariaDB of internal/dbtest: a table
// captured through the Jdbc sink (exactly-once with exactly_once, upsert
// without) into the other database and PostgreSQL into itself, and
// through RowKindExtractor into LocalFile, while a writer inserts,
// updates and deletes rows everywhere in it (chunks read and not yet
// read), the binary SIGKILLed during the snapshot and the stream and
// restored with --restore each time; once the writer stops and the job
// has caught up, the target equals the source row by row (LocalFile's
// events, replayed strictly, end at it). The later half of the kills wait
// until the snapshot is in the output, so that kills land in the stream
// as well at any size; each kill is logged with the output's rows then.
//
// STACTOR_CDC_ROWS sets the rows of the snapshot (default 20000; the
// issue's scale is STACTOR_CDC_ROWS=500000), STACTOR_CDC_KILLS the kills
// (default 3; the is 10).
package cdc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var (
	binary  string
	servers dbtest.Servers
)

func TestMain(m *testing.M) {
	os.Exit(stactorbin.Main(func() int { return servers.Run(m, dbtest.WithPostgres(), dbtest.WithMariaDB()) }, &binary))
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func testCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	return c
}

func connect(t *testing.T, pg *dbtest.Postgres, db string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(testCtx(t), pg.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec1(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(testCtx(t), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// tableRows is a table's rows as text, by id.
func tableRows(ctx context.Context, conn *pgx.Conn, table string) ([]string, error) {
	rows, err := conn.Query(ctx, "SELECT id::text || '|' || coalesce(v, 'NULL') || '|' || coalesce(n::text, 'NULL') || '|' || coalesce(d::text, 'NULL') FROM "+table+" ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return oneColumn(rows)
}

// writer changes rows of src until stopped: inserts past the end,
// updates and deletes anywhere, in small transactions.
func writer(ctx context.Context, t *testing.T, pg *dbtest.Postgres, n int, stop <-chan struct{}) (changes int, err error) {
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	next := n
	for {
		select {
		case <-stop:
			return changes, nil
		case <-time.After(2 * time.Millisecond):
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			return changes, err
		}
		for k := 0; k < 1+rng.Intn(4); k++ {
			var stmt string
			var args []any
			switch r := rng.Intn(10); {
			case r < 3:
				stmt, args = "INSERT INTO src VALUES ($1, $2, $3, $4)", []any{next, fmt.Sprintf("new-%d", next), rng.Intn(1000), 1.5}
				next++
			case r < 8:
				stmt, args = "UPDATE src SET v = $2, n = n + 1 WHERE id = $1", []any{rng.Intn(next), fmt.Sprintf("upd-%d", rng.Int())}
			default:
				stmt, args = "DELETE FROM src WHERE id = $1", []any{rng.Intn(next)}
			}
			if _, err := tx.Exec(ctx, stmt, args...); err != nil {
				tx.Rollback(ctx)
				return changes, err
			}
			changes++
		}
		if err := tx.Commit(ctx); err != nil {
			return changes, err
		}
	}
}

func TestPostgresCDCToJdbcKilled(t *testing.T) {
	for _, exactly := range []bool{true, false} {
		t.Run(fmt.Sprintf("exactly_once=%v", exactly), func(t *testing.T) {
			target := "target_" + strconv.FormatBool(exactly)
			pg := servers.Postgres(t)
			admin := connect(t, pg, "postgres")
			exec1(t, admin, "DROP DATABASE IF EXISTS "+target, "CREATE DATABASE "+target)
			dst := connect(t, pg, target)
			exec1(t, dst, "CREATE TABLE src (id bigint PRIMARY KEY, v text, n int, d double precision)")
			// exactly_once needs an exactly-once sink: an upsert sink
			// keeps what a killed run wrote after its last checkpoint, and
			// a chunk read again after the restore does not undo a row
			// deleted since (its delete is covered by the new high
			// watermark). Without exactly_once the stream replays from
			// before the snapshot and an upsert sink is enough.
			sink := jdbcSink(pg.JDBCURL(target), "org.postgresql.Driver", target, "public.src", "org.postgresql.xa.PGXADataSource", exactly)
			capture(t, exactly, "", sink, func(ctx context.Context) ([]string, error) { return tableRows(ctx, dst, "src") })
		})
	}
}

// jdbcSink is a Jdbc sink block writing table by primary key id: upserts,
// or XA through xa when exactly. (exactly_once needs an exactly-once
// sink: an upsert sink keeps what a killed run wrote after its last
// checkpoint, and a chunk read again after the restore does not undo a
// row deleted since, its delete being covered by the new high watermark.
// Without exactly_once the stream replays from before the snapshot and
// an upsert sink is enough.)
func jdbcSink(url, driver, database, table, xa string, exactly bool) string {
	mode := ""
	if exactly {
		mode = fmt.Sprintf("is_exactly_once = true\n    xa_data_source_class_name = %q", xa)
	}
	return fmt.Sprintf(`Jdbc {
    url = %q
    driver = %q
    user = %q
    generate_sink_sql = true
    database = %s
    table = %q
    primary_keys = ["id"]
    batch_size = 500
    %s
  }`, url, driver, dbtest.User, database, table, mode)
}

// TestPostgresCDCToMariaDBKilled is the PostgreSQL → MariaDB:
// Postgres-CDC into the Jdbc sink on MariaDB (upsert without exactly_once,
// XA with it) under the writer and the kills; the target's rows, read back
// as values, equal the source's.
func TestPostgresCDCToMariaDBKilled(t *testing.T) {
	for _, exactly := range []bool{true, false} {
		t.Run(fmt.Sprintf("exactly_once=%v", exactly), func(t *testing.T) {
			my := servers.MariaDB(t)
			ctx := testCtx(t)
			target := "pg_target_" + strconv.FormatBool(exactly)
			for _, s := range []string{"DROP DATABASE IF EXISTS " + target, "CREATE DATABASE " + target,
				"CREATE TABLE " + target + ".src (id BIGINT PRIMARY KEY, v TEXT, n INT, d DOUBLE)"} {
				if err := my.Exec(ctx, "", s); err != nil {
					t.Fatal(err)
				}
			}
			db, err := sql.Open("mysql", my.DSN(target))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			sink := jdbcSink(my.JDBCURL(target), "org.mariadb.jdbc.Driver", target, "src", "org.mariadb.jdbc.MariaDbDataSource", exactly)
			capture(t, exactly, "", sink, func(ctx context.Context) ([]string, error) { return mariaRows(ctx, db) })
		})
	}
}

// mariaRows is the MariaDB target's rows as tableRows prints PostgreSQL's.
func mariaRows(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT id, v, n, d FROM src ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var v sql.NullString
		var n sql.NullInt64
		var d sql.NullFloat64
		if err := rows.Scan(&id, &v, &n, &d); err != nil {
			return nil, err
		}
		out = append(out, canonical(id, nullable(v.String, v.Valid), nullable(n.Int64, n.Valid), nullable(d.Float64, d.Valid)))
	}
	return out, rows.Err()
}

func nullable[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}

// TestPostgresCDCToLocalFileKilled captures into LocalFile (exactly-once)
// with each row's kind (RowKindExtractor): read in checkpoint order, the
// events replay strictly (every UPDATE_BEFORE and DELETE finds the row as
// it is, every INSERT finds none), so no change is lost or repeated and
// each key's changes are in order, and the replay ends at the source's
// rows.
func TestPostgresCDCToLocalFileKilled(t *testing.T) {
	transform, sink, output := localFileCapture(t, pgImage)
	capture(t, true, transform, sink, output)
}

// output reads a job's output as rows printed like the source's, in id
// order. An error is an output that cannot be read yet (a replay may fail
// on a partial history) or a failing read; the caller waits on, until its
// deadline.
type output func(ctx context.Context) ([]string, error)

// localFileCapture is the transform and sink of a capture into LocalFile
// with each row's kind, and its output: the committed events, replayed
// (replayFiles, rows printed by image).
func localFileCapture(t *testing.T, image func(map[string]json.RawMessage) (int64, string, error)) (transform, sink string, out output) {
	dir := t.TempDir()
	transform = `RowKindExtractor {
    transform_type = FULL
  }`
	sink = fmt.Sprintf(`LocalFile {
    path = %q
    file_format_type = "json"
  }`, dir)
	return transform, sink, func(context.Context) ([]string, error) { return replayFiles(dir, image) }
}

// pgImage is a LocalFile JSON row of src as tableRows prints it.
func pgImage(r map[string]json.RawMessage) (int64, string, error) {
	var v struct {
		ID int64    `json:"id"`
		V  *string  `json:"v"`
		N  *int64   `json:"n"`
		D  *float64 `json:"d"`
	}
	if err := unmarshalRow(r, &v); err != nil {
		return 0, "", err
	}
	return v.ID, canonical(v.ID, v.V, v.N, v.D), nil
}

// unmarshalRow decodes a JSON row's fields into v.
func unmarshalRow(r map[string]json.RawMessage, v any) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// replayFiles replays the committed JSON files (RowKindExtractor's
// row_kind beside each row's fields) in checkpoint order, strictly, and
// returns the rows left by id, each as image prints it.
func replayFiles(dir string, image func(map[string]json.RawMessage) (int64, string, error)) ([]string, error) {
	files, err := committedFiles(dir)
	if err != nil {
		return nil, err
	}
	state := map[int64]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for ln, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line == "" {
				continue
			}
			var r map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", filepath.Base(f), ln+1, err)
			}
			var kind string
			if err := json.Unmarshal(r["row_kind"], &kind); err != nil {
				return nil, fmt.Errorf("%s:%d: row_kind: %v", filepath.Base(f), ln+1, err)
			}
			delete(r, "row_kind")
			id, img, err := image(r)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", filepath.Base(f), ln+1, err)
			}
			cur, ok := state[id]
			switch kind {
			case "INSERT", "UPDATE_AFTER":
				if ok {
					return nil, fmt.Errorf("%s:%d: %s of id %d, which is there (%s)", filepath.Base(f), ln+1, kind, id, cur)
				}
				state[id] = img
			case "UPDATE_BEFORE", "DELETE":
				if !ok || cur != img {
					return nil, fmt.Errorf("%s:%d: %s of id %d as %s, but it is %q", filepath.Base(f), ln+1, kind, id, img, cur)
				}
				delete(state, id)
			default:
				return nil, fmt.Errorf("%s:%d: row_kind %q", filepath.Base(f), ln+1, kind)
			}
		}
	}
	ids := make([]int64, 0, len(state))
	for id := range state {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = state[id]
	}
	return out, nil
}

// canonical is a row as tableRows prints it.
func canonical(id int64, v *string, n *int64, d *float64) string {
	vs, ns, ds := "NULL", "NULL", "NULL"
	if v != nil {
		vs = *v
	}
	if n != nil {
		ns = strconv.FormatInt(*n, 10)
	}
	if d != nil {
		ds = strconv.FormatFloat(*d, 'g', -1, 64)
	}
	return fmt.Sprintf("%d|%s|%s|%s", id, vs, ns, ds)
}

// capture runs Postgres-CDC → transform → sink under the writer and the
// kills, then waits until the output equals the source.
func capture(t *testing.T, exactly bool, transform, sink string, output output) {
	pg := servers.Postgres(t)
	n := envInt("STACTOR_CDC_ROWS", 20000)
	kills := envInt("STACTOR_CDC_KILLS", 3)
	src := connect(t, pg, "postgres")
	slot := strings.ToLower(strings.NewReplacer("/", "_", "=", "_", "-", "_").Replace(t.Name()))
	if len(slot) > 60 {
		slot = slot[len(slot)-60:]
	}
	exec1(t, src, "DROP TABLE IF EXISTS src", "CREATE TABLE src (id bigint PRIMARY KEY, v text, n int, d double precision)",
		"ALTER TABLE src REPLICA IDENTITY FULL",
		fmt.Sprintf("INSERT INTO src SELECT g, 'row-' || g, g %% 977, g / 3.0 FROM generate_series(0, %d) g", n-1),
		"ANALYZE src",
		fmt.Sprintf("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '%s'", slot))
	if transform != "" {
		transform = "transform {\n  " + transform + "\n}"
	}
	dir := t.TempDir()
	job := filepath.Join(dir, "job.conf")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  checkpoint.interval = 500
  job.retry.times = 0
  read_limit.rows_per_second = %d
}
source {
  Postgres-CDC {
    base-url = %q
    username = %q
    password = ""
    database-names = ["postgres"]
    schema-names = ["public"]
    table-names = ["postgres.public.src"]
    slot.name = %q
    snapshot.split.size = 1000
    exactly_once = %v
    heartbeat.interval.ms = 1000
    parallelism = 2
  }
}
%s
sink {
  %s
}
`, max(2000, n/8), pg.JDBCURL("postgres"), dbtest.User, slot, exactly, transform, sink)), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := testCtx(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var changes int
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		changes, werr = writer(ctx, t, pg, n, stop)
	}()
	stopWriter := func() {
		select {
		case <-stop:
		default:
			close(stop)
			wg.Wait()
			if werr != nil {
				t.Fatalf("writer: %v", werr)
			}
		}
	}
	defer stopWriter()

	home := filepath.Join(dir, "home")
	var log lockedBuffer
	started := time.Now()
	snap := snapshotIn(output, func(ctx context.Context) ([]string, error) {
		rs, err := src.Query(ctx, "SELECT id::text FROM src WHERE id < $1", n)
		if err != nil {
			return nil, err
		}
		defer rs.Close()
		return oneColumn(rs)
	})
	// Kills land after a run's first checkpoint, in the snapshot for the
	// first ones and in the stream for the later ones.
	last := killLoop(ctx, t, home, job, "cdc", killPlan{kills: kills, min: 1500 * time.Millisecond, spread: 2 * time.Second,
		state: snap, after: func(i int) { logKill(ctx, t, i, started, snap) }}, &log)
	// The last run: stop the writer, wait for the output to catch up.
	time.Sleep(2 * time.Second)
	stopWriter()
	want, err := tableRows(ctx, src, "src")
	if err != nil {
		t.Fatal(err)
	}
	ok, why := last.awaitCaughtUp(t, 3*time.Minute, &log, func() (bool, string) { return matches(ctx, output, want) })
	last.kill()
	if !ok {
		t.Fatalf("output differs from the source after %d changes: %s\n%s", changes, why, tail(log.String()))
	}
	t.Logf("%d rows, %d changes during the job, %d kills: the output equals the source, %v after the start", len(want), changes, kills, time.Since(started).Round(100*time.Millisecond))
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// diff names the first rows that differ.
func diff(got, want []string) string {
	g, w := map[string]string{}, map[string]string{}
	key := func(r string) string { return r[:strings.IndexByte(r, '|')] }
	for _, r := range got {
		g[key(r)] = r
	}
	for _, r := range want {
		w[key(r)] = r
	}
	var out []string
	for k, r := range w {
		if g[k] != r {
			out = append(out, fmt.Sprintf("id %s: got %q want %q", k, g[k], r))
		}
	}
	for k, r := range g {
		if _, ok := w[k]; !ok {
			out = append(out, fmt.Sprintf("id %s: got %q, not in source", k, r))
		}
	}
	if len(out) > 10 {
		out = out[:10]
	}
	return fmt.Sprintf("%d rows, want %d; %s", len(got), len(want), strings.Join(out, "; "))
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}

// committedFiles is every committed LocalFile output file under dir
// (staging skipped), T_<job>_<pipeline>_<subtask>_<checkpoint>_<part>.json,
// in checkpoint and part order.
func committedFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && strings.HasPrefix(e.Name(), ".stactor") {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasPrefix(e.Name(), "T_") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	num := func(p string, back int) int {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(p), ".json"), "_")
		n, _ := strconv.Atoi(parts[len(parts)-back])
		return n
	}
	sort.Slice(files, func(i, j int) bool {
		if a, b := num(files[i], 2), num(files[j], 2); a != b {
			return a < b
		}
		return num(files[i], 1) < num(files[j], 1)
	})
	return files, nil
}
