// Package jdbc runs the stactor binary on jobs that read and write the
// private PostgreSQL and MariaDB servers of internal/dbtest with the Jdbc
// connector: a table of mixed types copied PostgreSQL → MariaDB → back,
// compared row by row, and exactly-once writes with the binary SIGKILLed
// and restored again and again (DESIGN §5 and §6).
//
// STACTOR_JDBC_E2E_ROWS sets the rows of the copy (default 100000; the
// issue's 1 M is STACTOR_JDBC_E2E_ROWS=1000000), STACTOR_JDBC_KILLS the
// kills of the exactly-once test (default 10).
package jdbc

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
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
	os.Exit(stactorbin.Main(func() int {
		return servers.Run(m, dbtest.WithPostgres(), dbtest.WithMariaDB())
	}, &binary))
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return c
}

func pgExec(t *testing.T, pg *dbtest.Postgres, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if err := pg.Exec(ctx(t), "postgres", s); err != nil {
			t.Fatal(err)
		}
	}
}

// clearPrepared rolls back the prepared XA transactions a failed test may
// have left, which would hold locks on its tables.
func clearPrepared(t *testing.T, my *dbtest.MariaDB) {
	db, err := sql.Open("mysql", my.DSN("test"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx(t), "XA RECOVER")
	if err != nil {
		t.Fatal(err)
	}
	var xids []string
	for rows.Next() {
		var f, g, b int
		var data string
		rows.Scan(&f, &g, &b, &data)
		xids = append(xids, data[:g])
	}
	rows.Close()
	for _, x := range xids {
		db.ExecContext(ctx(t), "XA ROLLBACK '"+x+"'")
	}
}

func myExec(t *testing.T, my *dbtest.MariaDB, stmts ...string) {
	t.Helper()
	clearPrepared(t, my)
	for _, s := range stmts {
		if err := my.Exec(ctx(t), "test", s); err != nil {
			t.Fatal(err)
		}
	}
}

// runJob runs `stactor run` on a job file, fails the test on error, and
// logs the run's time and peak memory (RSS).
func runJob(t testing.TB, home, job string, rows int) (time.Duration, int64) {
	t.Helper()
	cmd := exec.Command(binary, "run", "-c", job)
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+home)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stactor run %s: %v\n%s", filepath.Base(job), err, tail(string(out)))
	}
	el := time.Since(start)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss / 1024
	}
	t.Logf("%s: %d rows in %v (%.0f rows/s), peak RSS %d MiB", filepath.Base(job), rows, el.Round(time.Millisecond), float64(rows)/el.Seconds(), rss)
	return el, rss
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The rows are compared as canonical text, each database formatting its
// own columns the same way.
const (
	pgCanon = `SELECT id::text, i::text, s::text, b::int::text, d::text, n::text, t, encode(by, 'hex'), dt::text,
  to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US') FROM %s src ORDER BY src.id`
	myCanon = "SELECT CAST(id AS CHAR), CAST(i AS CHAR), CAST(s AS CHAR), CAST(b + 0 AS CHAR), CAST(d AS CHAR), CAST(n AS CHAR), t, LOWER(HEX(`by`)), CAST(dt AS CHAR)," +
		" DATE_FORMAT(ts, '%%Y-%%m-%%d %%H:%%i:%%s.%%f') FROM %s ORDER BY id"
)

// canonRows reads rows as text and normalises the double column (each
// database prints doubles its own way) to Go's shortest form.
func canonRows(t *testing.T, next func() ([]*string, bool, error)) []string {
	t.Helper()
	var out []string
	for {
		vals, ok, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			switch {
			case v == nil:
				parts[i] = "NULL"
			case i == 4:
				f, err := strconv.ParseFloat(*v, 64)
				if err != nil {
					t.Fatalf("double %q: %v", *v, err)
				}
				parts[i] = strconv.FormatFloat(f, 'g', -1, 64)
			default:
				parts[i] = *v
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
}

func pgRows(t *testing.T, pg *dbtest.Postgres, table string) []string {
	conn, err := pgx.Connect(ctx(t), pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx(t), fmt.Sprintf(pgCanon, table))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return canonRows(t, func() ([]*string, bool, error) {
		if !rows.Next() {
			return nil, false, rows.Err()
		}
		vals := make([]*string, 10)
		ptrs := make([]any, 10)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		return vals, true, rows.Scan(ptrs...)
	})
}

func myRows(t *testing.T, my *dbtest.MariaDB, table string) []string {
	db, err := sql.Open("mysql", my.DSN("test"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx(t), fmt.Sprintf(myCanon, table))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return canonRows(t, func() ([]*string, bool, error) {
		if !rows.Next() {
			return nil, false, rows.Err()
		}
		raw := make([]sql.NullString, 10)
		ptrs := make([]any, 10)
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, false, err
		}
		vals := make([]*string, 10)
		for i, r := range raw {
			if r.Valid {
				s := r.String
				vals[i] = &s
			}
		}
		return vals, true, nil
	})
}

// sameRows compares two tables row by row, by checksum first.
func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	sum := func(rows []string) string {
		h := sha256.New()
		for _, r := range rows {
			h.Write([]byte(r))
			h.Write([]byte{'\n'})
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	if len(got) == len(want) && sum(got) == sum(want) {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d\n got %s\nwant %s", what, i, got[i], want[i])
		}
	}
}

func TestPostgresToMariaDBAndBack(t *testing.T) {
	pg, my := servers.Postgres(t), servers.MariaDB(t)
	n := envInt("STACTOR_JDBC_E2E_ROWS", 100000)
	pgExec(t, pg, "DROP TABLE IF EXISTS mixed", "DROP TABLE IF EXISTS mixed_back",
		`CREATE TABLE mixed (id bigint PRIMARY KEY, i integer, s smallint, b boolean, d double precision, n numeric(20,6),
  t text, by bytea, dt date, ts timestamp)`,
		fmt.Sprintf(`INSERT INTO mixed SELECT g, (g::bigint * 7919) %% 2000000000 - 1000000000, (g %% 65535) - 32768, g %% 3 = 0,
  g * 1.0e-3 - 500.25, (g * 12345.678901) %% 99999999999999, CASE WHEN g %% 11 = 0 THEN NULL ELSE 'text ' || g || E' ''"\\' END,
  decode(lpad(to_hex(g), 8, '0'), 'hex'), DATE '1900-01-01' + g %% 100000, TIMESTAMP '1970-01-01' + g * INTERVAL '1 minute 0.000001 second'
FROM generate_series(1, %d) g`, n),
		`INSERT INTO mixed VALUES (0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (-1, 2147483647, -32768, true, -1.7976931348623157e308, -99999999999999.999999, '', '', '9999-12-31', '9999-12-31 23:59:59.999999')`,
		"ANALYZE mixed")
	myExec(t, my, "DROP TABLE IF EXISTS mixed")
	dir := t.TempDir()
	there := filepath.Join(dir, "there.conf")
	writeFile(t, there, fmt.Sprintf(`
env {
  job.mode = "BATCH"
  parallelism = 2
}
source {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    table_path = "postgres.public.mixed"
    split.size = 20000
  }
}
sink {
  Jdbc {
    url = %q
    driver = "com.mysql.cj.jdbc.Driver"
    user = %q
    generate_sink_sql = true
    database = test
    table = mixed
    batch_size = 2000
  }
}
`, pg.JDBCURL("postgres"), dbtest.User, my.JDBCURL("test"), dbtest.User))
	runJob(t, filepath.Join(dir, "home"), there, n+2)
	want := pgRows(t, pg, "mixed")
	sameRows(t, "MariaDB copy", myRows(t, my, "mixed"), want)

	back := filepath.Join(dir, "back.conf")
	writeFile(t, back, fmt.Sprintf(`
env {
  job.mode = "BATCH"
  parallelism = 2
}
source {
  Jdbc {
    url = %q
    driver = "org.mariadb.jdbc.Driver"
    user = %q
    table_path = "test.mixed"
  }
}
sink {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    database = postgres
    table = "public.mixed_back"
    use_copy_statement = true
    enable_upsert = false
    batch_size = 5000
  }
}
`, my.JDBCURL("test"), dbtest.User, pg.JDBCURL("postgres"), dbtest.User))
	runJob(t, filepath.Join(dir, "home"), back, n+2)
	sameRows(t, "back in PostgreSQL", pgRows(t, pg, "mixed_back"), want)
}

// TestExactlyOnceKilled writes ids from PostgreSQL into each database with
// is_exactly_once, SIGKILLs the binary at random moments and restores it
// (once with another sink parallelism), then checks every id is there
// exactly once and no prepared transaction is left behind.
func TestExactlyOnceKilled(t *testing.T) {
	pg, my := servers.Postgres(t), servers.MariaDB(t)
	kills := envInt("STACTOR_JDBC_KILLS", 10)
	const n = 30000
	pgExec(t, pg, "DROP TABLE IF EXISTS ids", "CREATE TABLE ids (id bigint PRIMARY KEY, name text)",
		fmt.Sprintf("INSERT INTO ids SELECT g, 'name-' || g FROM generate_series(0, %d) g", n-1), "ANALYZE ids")
	for _, target := range []string{"mariadb", "postgres"} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			var sinkBlock string
			var count func() (map[int64]int, int)
			diag := func() string { return "" }
			if target == "mariadb" {
				diag = func() string { return myLocks(t, my) }
				myExec(t, my, "DROP TABLE IF EXISTS ids_xa")
				sinkBlock = fmt.Sprintf(`url = %q
    driver = "com.mysql.cj.jdbc.Driver"
    database = test
    table = ids_xa
    xa_data_source_class_name = "com.mysql.cj.jdbc.MysqlXADataSource"`, my.JDBCURL("test"))
				count = func() (map[int64]int, int) { return myIDs(t, my) }
			} else {
				pgExec(t, pg, "DROP TABLE IF EXISTS ids_xa")
				sinkBlock = fmt.Sprintf(`url = %q
    driver = "org.postgresql.Driver"
    database = postgres
    table = "public.ids_xa"
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"`, pg.JDBCURL("postgres"))
				count = func() (map[int64]int, int) { return pgIDs(t, pg) }
			}
			var jobs []string
			for i, par := range []int{2, 3} {
				job := filepath.Join(dir, fmt.Sprintf("job-%d.conf", i))
				writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "BATCH"
  checkpoint.interval = 300
  job.retry.times = 0
  read_limit.rows_per_second = 500
}
source {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    table_path = "public.ids"
    split.size = 1000
    parallelism = 2
  }
}
sink {
  Jdbc {
    %s
    user = %q
    is_exactly_once = true
    batch_size = 200
    parallelism = %d
  }
}
`, pg.JDBCURL("postgres"), dbtest.User, sinkBlock, dbtest.User, par))
				jobs = append(jobs, job)
			}
			killAndRestore(t, filepath.Join(dir, "home"), "xa-"+target, kills, jobs, diag)
			ids, prepared := count()
			var lost, dup []int64
			for id := int64(0); id < n; id++ {
				switch ids[id] {
				case 0:
					lost = append(lost, id)
				case 1:
				default:
					dup = append(dup, id)
				}
			}
			if len(lost) > 0 || len(dup) > 0 || len(ids) != n {
				sort.Slice(lost, func(i, j int) bool { return lost[i] < lost[j] })
				t.Fatalf("%d ids: %d lost (first %v), %d repeated (first %v)", len(ids), len(lost), first(lost), len(dup), first(dup))
			}
			if prepared != 0 {
				t.Fatalf("%d prepared transactions left behind", prepared)
			}
		})
	}
}

func first(xs []int64) []int64 {
	if len(xs) > 10 {
		return xs[:10]
	}
	return xs
}

// killAndRestore runs the job, SIGKILLs it kills times at random moments
// and restores it each time (jobs[i] for the i-th run, the last one
// repeated), then lets it finish. A failed run's message ends with what
// diag says of the target (its transactions and locks).
func killAndRestore(t *testing.T, home, jobID string, kills int, jobs []string, diag func() string) {
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var stderr strings.Builder
	for i := 0; ; i++ {
		args := []string{"run", "--log-level", "info", "-c", jobs[min(i, len(jobs)-1)]}
		if i == 0 {
			args = append(args, "--job-id", jobID)
		} else {
			args = append(args, "--restore", jobID)
		}
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "STACTOR_HOME="+home, "STACTOR_BATCH_SIZE=100")
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		limit := 5 * time.Minute
		if i < kills {
			limit = 400*time.Millisecond + time.Duration(rng.Int63n(int64(1500*time.Millisecond)))
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d failed: %v\n%s%s", i, err, tail(stderr.String()), diag())
			}
			if i < kills {
				t.Fatalf("the job finished after %d kills of %d: too fast to test restores", i, kills)
			}
			return
		case <-time.After(limit):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			if i >= kills {
				t.Fatalf("final run did not finish\n%s%s", tail(stderr.String()), diag())
			}
		}
	}
}

func myIDs(t *testing.T, my *dbtest.MariaDB) (map[int64]int, int) {
	db, err := sql.Open("mysql", my.DSN("test"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := map[int64]int{}
	rows, err := db.QueryContext(ctx(t), "SELECT id FROM ids_xa")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids[id]++
	}
	rows.Close()
	prepared := 0
	xa, err := db.QueryContext(ctx(t), "XA RECOVER")
	if err != nil {
		t.Fatal(err)
	}
	for xa.Next() {
		prepared++
	}
	xa.Close()
	return ids, prepared
}

// myLocks describes the server's open transactions, the prepared XA
// ones and who waits for whom, for a failure message.
func myLocks(t *testing.T, my *dbtest.MariaDB) string {
	db, err := sql.Open("mysql", my.DSN("test"))
	if err != nil {
		return err.Error()
	}
	defer db.Close()
	var b strings.Builder
	for _, q := range []string{
		"XA RECOVER",
		"SELECT trx_id, trx_state, trx_started, trx_mysql_thread_id, trx_rows_locked, trx_rows_modified, COALESCE(trx_query, '') FROM information_schema.innodb_trx",
		"SELECT requesting_trx_id, blocking_trx_id FROM information_schema.innodb_lock_waits",
		"SELECT lock_trx_id, lock_mode, lock_type, lock_table, COALESCE(lock_data, '') FROM information_schema.innodb_locks",
	} {
		fmt.Fprintf(&b, "\n%s:\n", q)
		rows, err := db.QueryContext(ctx(t), q)
		if err != nil {
			fmt.Fprintf(&b, "  %v\n", err)
			continue
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				fmt.Fprintf(&b, "  %v\n", err)
				break
			}
			b.WriteString(" ")
			for _, v := range vals {
				b.WriteString(" " + v.String)
			}
			b.WriteString("\n")
		}
		rows.Close()
	}
	return b.String()
}

func pgIDs(t *testing.T, pg *dbtest.Postgres) (map[int64]int, int) {
	conn, err := pgx.Connect(ctx(t), pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ids := map[int64]int{}
	rows, err := conn.Query(ctx(t), "SELECT id FROM ids_xa")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids[id]++
	}
	rows.Close()
	var prepared int
	if err := conn.QueryRow(ctx(t), "SELECT COUNT(*) FROM pg_prepared_xacts").Scan(&prepared); err != nil {
		t.Fatal(err)
	}
	return ids, prepared
}

// TestServersKilledMidJob kills the target MariaDB, then the source
// PostgreSQL, while an exactly-once job runs, and starts each again on its
// port: the pipeline fails over (job.retry.times) and every id lands once.
func TestServersKilledMidJob(t *testing.T) {
	pg, my := servers.Postgres(t), servers.MariaDB(t)
	const n = 20000
	pgExec(t, pg, "DROP TABLE IF EXISTS ids_k", "CREATE TABLE ids_k (id bigint PRIMARY KEY, name text)",
		fmt.Sprintf("INSERT INTO ids_k SELECT g, 'name-' || g FROM generate_series(0, %d) g", n-1), "ANALYZE ids_k")
	myExec(t, my, "DROP TABLE IF EXISTS ids_xa")
	dir := t.TempDir()
	job := filepath.Join(dir, "job.conf")
	writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "BATCH"
  checkpoint.interval = 300
  job.retry.times = 20
  job.retry.interval.seconds = 1
  read_limit.rows_per_second = 2000
}
source {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    table_path = "public.ids_k"
    split.size = 1000
    connection_check_timeout_sec = 5
    parallelism = 2
  }
}
sink {
  Jdbc {
    url = %q
    driver = "com.mysql.cj.jdbc.Driver"
    user = %q
    database = test
    table = ids_xa
    is_exactly_once = true
    xa_data_source_class_name = "com.mysql.cj.jdbc.MysqlXADataSource"
    connection_check_timeout_sec = 5
    parallelism = 2
  }
}
`, pg.JDBCURL("postgres"), dbtest.User, my.JDBCURL("test"), dbtest.User))
	cmd := exec.Command(binary, "run", "-c", job)
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(dir, "home"))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for _, s := range []interface {
		Kill() error
		Restart() error
	}{my, pg} {
		time.Sleep(1500 * time.Millisecond)
		if err := s.Kill(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		if err := s.Restart(); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("job failed: %v\n%s", err, tail(out.String()))
		}
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("job did not finish\n%s", tail(out.String()))
	}
	ids, prepared := myIDs(t, my)
	if len(ids) != n || prepared != 0 {
		t.Fatalf("%d ids, want %d; %d prepared left\n%s", len(ids), n, prepared, tail(out.String()))
	}
	for id, c := range ids {
		if c != 1 || id < 0 || id >= n {
			t.Fatalf("id %d written %d times", id, c)
		}
	}
}

// TestTableListToTables reads two tables with table_list and writes each to
// its own table, named with ${table_name}.
func TestTableListToTables(t *testing.T) {
	pg, my := servers.Postgres(t), servers.MariaDB(t)
	pgExec(t, pg, "DROP TABLE IF EXISTS t_a", "DROP TABLE IF EXISTS t_b",
		"CREATE TABLE t_a (id int PRIMARY KEY, a text)", "CREATE TABLE t_b (id bigint PRIMARY KEY, b numeric(10,3), c date)",
		"INSERT INTO t_a SELECT g, 'a' || g FROM generate_series(1, 500) g",
		"INSERT INTO t_b SELECT g, g / 8.0, DATE '2000-01-01' + g FROM generate_series(1, 700) g")
	myExec(t, my, "DROP TABLE IF EXISTS t_a_copy", "DROP TABLE IF EXISTS t_b_copy")
	dir := t.TempDir()
	job := filepath.Join(dir, "list.conf")
	writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "BATCH"
}
source {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    table_list = [
      { table_path = "postgres.public.t_a" },
      { table_path = "postgres.public.t_b", query = "SELECT * FROM t_b WHERE id > 100" }
    ]
    split.size = 200
  }
}
sink {
  Jdbc {
    url = %q
    driver = "com.mysql.cj.jdbc.Driver"
    user = %q
    database = test
    table = "${table_name}_copy"
  }
}
`, pg.JDBCURL("postgres"), dbtest.User, my.JDBCURL("test"), dbtest.User))
	runJob(t, filepath.Join(dir, "home"), job, 1100)
	db, err := sql.Open("mysql", my.DSN("test"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, want := range map[string]string{"t_a_copy": "500 125250", "t_b_copy": "600 240300"} {
		var n, sum int64
		if err := db.QueryRowContext(ctx(t), "SELECT COUNT(*), SUM(id) FROM "+table).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%d %d", n, sum); got != want {
			t.Errorf("%s: count and sum of ids %s, want %s", table, got, want)
		}
	}
}
