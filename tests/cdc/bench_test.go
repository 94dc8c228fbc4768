package cdc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
)

// BenchmarkSnapshot runs the stactor binary on a table's snapshot through
// Postgres-CDC (stop.mode = latest, so the job ends once the stream has
// caught up; exactly_once on and off) beside the Jdbc source on the same
// table into the same sink (Jdbc COPY into a second database) in the same
// run, and reports rows/s:
//
//	STACTOR_CDC_BENCH_ROWS=500000 go test ./tests/cdc -run '^$' -bench Snapshot -benchtime 1x
//
// STACTOR_CDC_BENCH_SPLIT sets the chunk and split size (50000), and
// STACTOR_CDC_BENCH_WRITES runs a writer beside the jobs: that many
// transactions a second, each updating 100 rows of another table of the
// same database, so the WAL grows while the snapshot is read as under a
// live writer (the captured table stays as it is, for the row count).
func BenchmarkSnapshot(b *testing.B) {
	pg := servers.Postgres(b)
	n := envInt("STACTOR_CDC_BENCH_ROWS", 200000)
	split := envInt("STACTOR_CDC_BENCH_SPLIT", 50000)
	c, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if rate := envInt("STACTOR_CDC_BENCH_WRITES", 0); rate > 0 {
		stop := benchWriter(b, c, pg, rate)
		defer stop()
	}
	for _, s := range []string{"DROP TABLE IF EXISTS bsrc", "CREATE TABLE bsrc (id bigint PRIMARY KEY, name text, score double precision, amount numeric(12,2), at timestamp)",
		"ALTER TABLE bsrc REPLICA IDENTITY FULL",
		fmt.Sprintf(`INSERT INTO bsrc SELECT g, 'name-' || g, g * 0.5, (g %% 100000) * 1.25, TIMESTAMP '2024-01-01' + g * INTERVAL '1 second' FROM generate_series(1, %d) g`, n),
		"ANALYZE bsrc", "DROP DATABASE IF EXISTS bench", "CREATE DATABASE bench",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'bench'"} {
		if err := pg.Exec(c, "postgres", s); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	sink := fmt.Sprintf(`Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    database = bench
    table = "public.bdst"
    generate_sink_sql = true
    use_copy_statement = true
    enable_upsert = false
    batch_size = 5000
  }`, pg.JDBCURL("bench"), dbtest.User)
	job := func(name, source string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(fmt.Sprintf(`
env {
  job.mode = "BATCH"
  parallelism = 2
  checkpoint.interval = 2000
}
source {
  %s
}
sink {
  %s
}
`, source, sink)), 0o644); err != nil {
			b.Fatal(err)
		}
		return path
	}
	cdcSource := func(exactly bool) string {
		return fmt.Sprintf(`Postgres-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["postgres.public.bsrc"]
    slot.name = bench
    stop.mode = latest
    exactly_once = %v
    snapshot.split.size = %d
    heartbeat.interval.ms = 500
  }`, pg.JDBCURL("postgres"), dbtest.User, exactly, split)
	}
	jdbcSource := fmt.Sprintf(`Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    table_path = "public.bsrc"
    split.size = %d
  }`, pg.JDBCURL("postgres"), dbtest.User, split)
	runSnapshotBench(b, c, dir, pg, "bench", n, job, []benchCase{
		{"jdbc-source", jdbcSource}, {"postgres-cdc", cdcSource(false)}, {"postgres-cdc-exactly-once", cdcSource(true)},
	})
}

// benchCase is one source a snapshot benchmark times.
type benchCase struct{ name, source string }

// runSnapshotBench runs `stactor run` on job(name, source) for each case
// into table bdst of PostgreSQL database db (dropped before each run),
// checks the sink has n rows, and reports rows/s.
func runSnapshotBench(b *testing.B, c context.Context, dir string, pg *dbtest.Postgres, db string, n int, job func(name, source string) string, cases []benchCase) {
	for _, r := range cases {
		b.Run(r.name, func(b *testing.B) {
			j := job(r.name+".conf", r.source)
			for i := 0; i < b.N; i++ {
				if err := pg.Exec(c, db, "DROP TABLE IF EXISTS bdst"); err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(binary, "run", "-c", j)
				cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(dir, "home"))
				start := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", r.name, err, tail(string(out)))
				}
				el := time.Since(start)
				if got := pgCount(b, c, pg, db, "bdst"); got != n {
					b.Fatalf("%s: the sink has %d rows, the source %d", r.name, got, n)
				}
				b.ReportMetric(float64(n)/el.Seconds(), "rows/s")
			}
		})
	}
}

// benchWriter updates 100 rows of table bnoise (made here) in each of rate
// transactions a second until stop is called.
func benchWriter(b *testing.B, c context.Context, pg *dbtest.Postgres, rate int) (stop func()) {
	for _, s := range []string{"DROP TABLE IF EXISTS bnoise", "CREATE TABLE bnoise (id int PRIMARY KEY, v bigint, pad text)",
		"INSERT INTO bnoise SELECT g, 0, repeat('x', 100) FROM generate_series(1, 10000) g"} {
		if err := pg.Exec(c, "postgres", s); err != nil {
			b.Fatal(err)
		}
	}
	conn, err := pgx.Connect(c, pg.DSN("postgres"))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(c)
	done := make(chan error, 1)
	go func() {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				done <- nil
				return
			case <-tick.C:
			}
			lo := (i * 100) % 10000
			if _, err := conn.Exec(ctx, "UPDATE bnoise SET v = v + 1 WHERE id > $1 AND id <= $1 + 100", lo); err != nil && ctx.Err() == nil {
				done <- err
				return
			}
		}
	}()
	return func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("writer: %v", err)
		}
		conn.Close(context.Background())
	}
}
