package cdc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/internal/dbtest"
)

// mysqlSource is the table MySQL-CDC captures: numbers, text, decimals,
// datetimes and booleans, with rows made by their id so a writer can
// change any of them.
const mysqlSource = `CREATE TABLE src (
  id BIGINT PRIMARY KEY,
  name VARCHAR(64) NOT NULL,
  n INT,
  amount DECIMAL(12,2),
  ts DATETIME(6),
  flag TINYINT(1)
)`

// Both sides as canonical text, ordered by id.
const (
	myCanonCDC = "SELECT CAST(id AS CHAR), name, IFNULL(CAST(n AS CHAR), 'NULL'), IFNULL(CAST(amount AS CHAR), 'NULL')," +
		" IFNULL(DATE_FORMAT(ts, '%Y-%m-%d %H:%i:%s.%f'), 'NULL'), IFNULL(CAST(flag AS CHAR), 'NULL') FROM src ORDER BY id"
	pgCanonCDC = `SELECT id::text, name, COALESCE(n::text, 'NULL'), COALESCE(amount::text, 'NULL'),
  COALESCE(to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US'), 'NULL'), COALESCE(flag::int::text, 'NULL') FROM public.%s d ORDER BY d.id`
)

func scanText(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}) ([]string, error) {
	var out []string
	vals := make([]string, 6)
	ptrs := make([]any, 6)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, strings.Join(vals, "|"))
	}
	return out, rows.Err()
}

func mysqlRows(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, myCanonCDC)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanText(rows)
}

func pgRows(ctx context.Context, pg *dbtest.Postgres, table string) ([]string, error) {
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, fmt.Sprintf(pgCanonCDC, table))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanText(rows)
}

// myWriter changes the source table at random until stopped: inserts of
// new ids, updates and deletes of any id (also in chunks the snapshot has
// not read yet), a few statements per transaction.
type myWriter struct {
	db     *sql.DB
	next   int64 // the next id to insert
	stop   chan struct{}
	done   chan struct{}
	err    error
	counts map[string]int
}

func startWriter(db *sql.DB, firstNew int64, perSecond int) *myWriter {
	w := &myWriter{db: db, next: firstNew, stop: make(chan struct{}), done: make(chan struct{}), counts: map[string]int{}}
	go func() {
		defer close(w.done)
		rng := rand.New(rand.NewSource(time.Now().UnixNano()))
		tick := time.NewTicker(time.Second / time.Duration(perSecond))
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			if err := w.tx(rng); err != nil {
				w.err = err
				return
			}
		}
	}()
	return w
}

func (w *myWriter) tx(rng *rand.Rand) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for k := 1 + rng.Intn(4); k > 0; k-- {
		id := rng.Int63n(w.next)
		var stmt string
		var args []any
		switch p := rng.Intn(100); {
		case p < 25:
			stmt, args = "INSERT INTO src VALUES (?, ?, ?, ?, ?, ?)", []any{w.next, fmt.Sprintf("new-%d", w.next), rng.Intn(1000), "12.34", "2024-05-06 07:08:09.123456", rng.Intn(2)}
			w.next++
			w.counts["insert"]++
		case p < 75:
			stmt, args = "UPDATE src SET n = ?, name = CONCAT('u', id, '-', ?), amount = amount + 1 WHERE id = ?", []any{rng.Intn(1000), rng.Intn(100), id}
			w.counts["update"]++
		default:
			stmt, args = "DELETE FROM src WHERE id = ?", []any{id}
			w.counts["delete"]++
		}
		if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return tx.Commit()
}

func (w *myWriter) halt() error {
	close(w.stop)
	<-w.done
	return w.err
}

// TestMySQLCDCToPostgresKilled: MySQL-CDC (MariaDB) → Jdbc upsert sink
// (PostgreSQL) while a writer inserts, updates and deletes, the binary
// SIGKILLed during the snapshot and the stream and restored; after the
// writer stops, the target catches up to equal the source. With
// exactly_once the sink is exactly-once too (XA); without, the upsert
// sink absorbs what the source repeats.
func TestMySQLCDCToPostgresKilled(t *testing.T) {
	for _, exactly := range []bool{true, false} {
		t.Run(fmt.Sprintf("exactly_once=%v", exactly), func(t *testing.T) {
			pg := servers.Postgres(t)
			dst := fmt.Sprintf("dst_%v", exactly)
			// Afresh also with -count: the sink creates the target table.
			exec1(t, connect(t, pg, "postgres"), "DROP TABLE IF EXISTS public."+dst)
			sink := fmt.Sprintf(`Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    database = postgres
    table = "public.%s"
    generate_sink_sql = true
    primary_keys = ["id"]
    is_exactly_once = %v
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"
  }`, pg.JDBCURL("postgres"), dbtest.User, dst, exactly)
			runMySQLCapture(t, fmt.Sprintf("cdc_e2e_%v", exactly), exactly, "", sink, func(ctx context.Context) ([]string, error) { return pgRows(ctx, pg, dst) })
		})
	}
}

// TestMySQLCDCToLocalFileKilled: MySQL-CDC (exactly_once) →
// RowKindExtractor → LocalFile (exactly-once) under the writer and the
// kills: read in checkpoint order, the committed events replay strictly
// (every UPDATE_BEFORE and DELETE finds the row as it is, every INSERT
// none), so every change is there once and in order per key, and the
// replay ends at the source's rows.
func TestMySQLCDCToLocalFileKilled(t *testing.T) {
	transform, sink, output := localFileCapture(t, mysqlImage)
	runMySQLCapture(t, "cdc_e2e_file", true, transform, sink, output)
}

// mysqlImage is a LocalFile JSON row of src as myCanonCDC prints it.
func mysqlImage(r map[string]json.RawMessage) (int64, string, error) {
	var v struct {
		ID     int64           `json:"id"`
		Name   string          `json:"name"`
		N      *int64          `json:"n"`
		Amount *json.Number    `json:"amount"`
		TS     *string         `json:"ts"`
		Flag   json.RawMessage `json:"flag"` // TINYINT(1): a boolean
	}
	if err := unmarshalRow(r, &v); err != nil {
		return 0, "", err
	}
	f := []string{strconv.FormatInt(v.ID, 10), v.Name, "NULL", "NULL", "NULL", "NULL"}
	if v.N != nil {
		f[2] = strconv.FormatInt(*v.N, 10)
	}
	if v.Amount != nil {
		d, err := decimal.NewFromString(v.Amount.String())
		if err != nil {
			return 0, "", fmt.Errorf("amount %s: %v", *v.Amount, err)
		}
		f[3] = d.StringFixed(2)
	}
	if v.TS != nil {
		ts, err := time.Parse("2006-01-02T15:04:05.999999", *v.TS)
		if err != nil {
			return 0, "", fmt.Errorf("ts %q: %v", *v.TS, err)
		}
		f[4] = ts.Format("2006-01-02 15:04:05.000000")
	}
	switch string(v.Flag) {
	case "true", "1":
		f[5] = "1"
	case "false", "0":
		f[5] = "0"
	case "", "null":
	default:
		return 0, "", fmt.Errorf("flag %s", v.Flag)
	}
	return v.ID, strings.Join(f, "|"), nil
}

// runMySQLCapture runs MySQL-CDC (MariaDB database srcDB) → transform →
// sink while a writer inserts, updates and deletes, the binary SIGKILLed
// during the snapshot and the stream and restored; after the writer
// stops, it waits until the output equals the source.
func runMySQLCapture(t *testing.T, srcDB string, exactly bool, transform, sink string, output output) {
	my := servers.MariaDB(t)
	rows := envInt("STACTOR_CDC_ROWS", 20000)
	kills := envInt("STACTOR_CDC_KILLS", 3)
	ctx := testCtx(t)
	for _, s := range []string{"DROP DATABASE IF EXISTS " + srcDB, "CREATE DATABASE " + srcDB} {
		if err := my.Exec(ctx, "", s); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("mysql", my.DSN(srcDB))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{mysqlSource,
		"CREATE TABLE seq (i BIGINT PRIMARY KEY)",
		"INSERT INTO seq VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		fmt.Sprintf(`INSERT INTO src SELECT a.i + 10*b.i + 100*c.i + 1000*d.i + 10000*e.i + 100000*f.i,
  CONCAT('name-', a.i + 10*b.i + 100*c.i + 1000*d.i + 10000*e.i + 100000*f.i), a.i * 7, (a.i + b.i) / 4, '2023-01-02 03:04:05.000001', a.i %% 2
FROM seq a, seq b, seq c, seq d, seq e, seq f WHERE a.i + 10*b.i + 100*c.i + 1000*d.i + 10000*e.i + 100000*f.i < %d`, rows),
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if transform != "" {
		transform = "transform {\n  " + transform + "\n}"
	}
	dir := t.TempDir()
	job := filepath.Join(dir, "mysql-cdc.conf")
	writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  checkpoint.interval = 500
  job.retry.times = 3
  read_limit.rows_per_second = %d
}
source {
  MySQL-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["%s.src"]
    server-id = "5400-5403"
    snapshot.split.size = 2000
    exactly_once = %v
    heartbeat.interval.ms = 500
    parallelism = 2
  }
}
%s
sink {
  %s
}
`, max(rows/4, 2000), my.JDBCURL(""), dbtest.User, srcDB, exactly, transform, sink))
	w := startWriter(db, int64(rows), 100)
	var out lockedBuffer
	var once sync.Once
	halt := func() {
		once.Do(func() {
			if err := w.halt(); err != nil {
				t.Fatalf("writer: %v", err)
			}
		})
	}
	defer halt()
	started := time.Now()
	snap := snapshotIn(output, func(ctx context.Context) ([]string, error) {
		rs, err := db.QueryContext(ctx, "SELECT CAST(id AS CHAR) FROM src WHERE id < ?", rows)
		if err != nil {
			return nil, err
		}
		defer rs.Close()
		return oneColumn(rs)
	})
	last := killLoop(ctx, t, filepath.Join(dir, "home"), job, "mysql-cdc-"+srcDB, killPlan{kills: kills, min: time.Second, spread: 3 * time.Second,
		state: snap, after: func(i int) { logKill(ctx, t, i, started, snap) }}, &out)
	time.Sleep(time.Second) // the writer goes on into the last run's stream
	halt()
	t.Logf("writer: %v; %d kills", w.counts, kills)
	caught := time.Now()
	want, err := mysqlRows(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := last.awaitCaughtUp(t, 3*time.Minute, &out, func() (bool, string) { return matches(ctx, output, want) }); !ok {
		t.Fatalf("the output did not catch up with the source: %s\n%s", why, tail(out.String()))
	}
	t.Logf("the output equals the source: %d rows, caught up %v after the writer stopped, %v after the start", len(want),
		time.Since(caught).Round(100*time.Millisecond), time.Since(started).Round(100*time.Millisecond))
}

// firstMismatch shows the first rows, in order, where two lists part.
func firstMismatch(got, want []string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("(in order, row %d: target %q, source %q)", i, got[i], want[i])
		}
	}
	return ""
}
