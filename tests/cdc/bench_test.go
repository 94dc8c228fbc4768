package cdc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stactor/stactor/internal/dbtest"
)

// BenchmarkSnapshot runs the stactor binary on a table's snapshot through
// Postgres-CDC (stop.mode = latest, so the job ends once the stream has
// caught up; exactly_once on and off) beside the Jdbc source on the same
// table into the same sink (Jdbc COPY into a second database) in the same
// run, and reports rows/s:
//
//	STACTOR_CDC_BENCH_ROWS=500000 go test ./tests/cdc -run '^$' -bench Snapshot -benchtime 1x
func BenchmarkSnapshot(b *testing.B) {
	pg := servers.Postgres(b)
	n := envInt("STACTOR_CDC_BENCH_ROWS", 200000)
	c, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
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
    snapshot.split.size = 50000
    heartbeat.interval.ms = 500
  }`, pg.JDBCURL("postgres"), dbtest.User, exactly)
	}
	jdbcSource := fmt.Sprintf(`Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    table_path = "public.bsrc"
    split.size = 50000
  }`, pg.JDBCURL("postgres"), dbtest.User)
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
