package cdc

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
)

// BenchmarkMySQLSnapshot runs the stactor binary on a MariaDB table's
// snapshot through MySQL-CDC (stop.mode = latest: the job ends once the
// stream has caught up; exactly_once on and off) beside the Jdbc source on
// the same table into the same sink (Jdbc COPY into PostgreSQL) in the
// same run, and reports rows/s:
//
//	STACTOR_CDC_BENCH_ROWS=500000 go test ./tests/cdc -run '^$' -bench MySQLSnapshot -benchtime 1x
func BenchmarkMySQLSnapshot(b *testing.B) {
	my, pg := servers.MariaDB(b), servers.Postgres(b)
	n := envInt("STACTOR_CDC_BENCH_ROWS", 200000)
	c, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := my.Exec(c, "", "CREATE DATABASE IF NOT EXISTS cdc_bench"); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("mysql", my.DSN("cdc_bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{"DROP TABLE IF EXISTS bsrc", "DROP TABLE IF EXISTS seq",
		"CREATE TABLE bsrc (id BIGINT PRIMARY KEY, name VARCHAR(64), score DOUBLE, amount DECIMAL(12,2), at DATETIME)",
		"CREATE TABLE seq (i BIGINT PRIMARY KEY)", "INSERT INTO seq VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		fmt.Sprintf(`INSERT INTO bsrc SELECT x, CONCAT('name-', x), x * 0.5, (x %% 100000) * 1.25, TIMESTAMPADD(SECOND, x, '2024-01-01')
FROM (SELECT a.i + 10*b.i + 100*c.i + 1000*d.i + 10000*e.i + 100000*f.i + 1000000*g.i AS x FROM seq a, seq b, seq c, seq d, seq e, seq f, seq g) s WHERE x < %d`, n),
	} {
		if _, err := db.ExecContext(c, s); err != nil {
			b.Fatal(err)
		}
	}
	if err := pg.Exec(c, "postgres", "DROP DATABASE IF EXISTS mybench"); err != nil {
		b.Fatal(err)
	}
	if err := pg.Exec(c, "postgres", "CREATE DATABASE mybench"); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	job := func(name, source string) string {
		path := filepath.Join(dir, name)
		writeFile(b, path, fmt.Sprintf(`
env {
  job.mode = "BATCH"
  parallelism = 2
  checkpoint.interval = 2000
}
source {
  %s
}
sink {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    database = mybench
    table = "public.bdst"
    generate_sink_sql = true
    use_copy_statement = true
    enable_upsert = false
    batch_size = 5000
  }
}
`, source, pg.JDBCURL("mybench"), dbtest.User))
		return path
	}
	cdcSource := func(exactly bool) string {
		return fmt.Sprintf(`MySQL-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["cdc_bench.bsrc"]
    server-id = "5500-5503"
    stop.mode = latest
    exactly_once = %v
    snapshot.split.size = 50000
    heartbeat.interval.ms = 500
  }`, my.JDBCURL(""), dbtest.User, exactly)
	}
	jdbcSource := fmt.Sprintf(`Jdbc {
    url = %q
    driver = "com.mysql.cj.jdbc.Driver"
    user = %q
    table_path = "cdc_bench.bsrc"
    split.size = 50000
  }`, my.JDBCURL("cdc_bench"), dbtest.User)
	runSnapshotBench(b, c, dir, pg, "mybench", n, job, []benchCase{
		{"jdbc-source", jdbcSource}, {"mysql-cdc", cdcSource(false)}, {"mysql-cdc-exactly-once", cdcSource(true)},
	})
}

// pgCount counts a table's rows.
func pgCount(b *testing.B, ctx context.Context, pg *dbtest.Postgres, db, table string) int {
	conn, err := pgx.Connect(ctx, pg.DSN(db))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}
