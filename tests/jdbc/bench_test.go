package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
)

// BenchmarkBinary runs the stactor binary on PostgreSQL → PostgreSQL
// (COPY) and PostgreSQL → MariaDB jobs beside the native bulk paths on the
// same servers in the same run, and reports rows/s and the binary's peak
// RSS:
//
//	STACTOR_JDBC_BENCH_ROWS=1000000 go test ./tests/jdbc -run '^$' -bench Binary -benchtime 1x
func BenchmarkBinary(b *testing.B) {
	pg, my := servers.Postgres(b), servers.MariaDB(b)
	n := envInt("STACTOR_JDBC_BENCH_ROWS", 200000)
	c, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for _, s := range []string{"DROP TABLE IF EXISTS bsrc", "CREATE TABLE bsrc (id bigint PRIMARY KEY, name text, score double precision, amount numeric(12,2), at timestamp)",
		fmt.Sprintf(`INSERT INTO bsrc SELECT g, 'name-' || g, g * 0.5, (g %% 100000) * 1.25, TIMESTAMP '2024-01-01' + g * INTERVAL '1 second' FROM generate_series(1, %d) g`, n),
		"ANALYZE bsrc"} {
		if err := pg.Exec(c, "postgres", s); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	home := filepath.Join(dir, "home")
	report := func(b *testing.B, el time.Duration, rss int64) {
		b.ReportMetric(float64(n)/el.Seconds(), "rows/s")
		if rss > 0 {
			b.ReportMetric(float64(rss), "MiB-peak-RSS")
		}
	}
	job := func(name, sink string) string {
		path := filepath.Join(dir, name)
		writeFile(b, path, fmt.Sprintf(`
env {
  job.mode = "BATCH"
  parallelism = 2
}
source {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    table_path = "public.bsrc"
    split.size = 50000
  }
}
sink {
  Jdbc {
    %s
    user = %q
    batch_size = 5000
  }
}
`, pg.JDBCURL("postgres"), dbtest.User, sink, dbtest.User))
		return path
	}
	b.Run("pg-pg/stactor-copy", func(b *testing.B) {
		j := job("pgpg.conf", fmt.Sprintf("url = %q\n    driver = \"org.postgresql.Driver\"\n    database = postgres\n    table = \"public.bdst\"\n    use_copy_statement = true\n    enable_upsert = false", pg.JDBCURL("postgres")))
		for i := 0; i < b.N; i++ {
			pg.Exec(c, "postgres", "DROP TABLE IF EXISTS bdst")
			el, rss := runJob(b, home, j, n)
			report(b, el, rss)
		}
	})
	b.Run("pg-pg/native-copy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			pg.Exec(c, "postgres", "DROP TABLE IF EXISTS bdst")
			pg.Exec(c, "postgres", "CREATE TABLE bdst (LIKE bsrc INCLUDING ALL)")
			start := time.Now()
			from, err1 := pgx.Connect(c, pg.DSN("postgres"))
			to, err2 := pgx.Connect(c, pg.DSN("postgres"))
			if err1 != nil || err2 != nil {
				b.Fatal(err1, err2)
			}
			pr, pw := io.Pipe()
			go func() {
				_, err := from.PgConn().CopyTo(c, pw, "COPY bsrc TO STDOUT (FORMAT binary)")
				pw.CloseWithError(err)
			}()
			if _, err := to.PgConn().CopyFrom(c, pr, "COPY bdst FROM STDIN (FORMAT binary)"); err != nil {
				b.Fatal(err)
			}
			from.Close(c)
			to.Close(c)
			report(b, time.Since(start), 0)
		}
	})
	b.Run("pg-mariadb/stactor", func(b *testing.B) {
		j := job("pgmy.conf", fmt.Sprintf("url = %q\n    driver = \"org.mariadb.jdbc.Driver\"\n    database = test\n    table = bdst", my.JDBCURL("test")))
		for i := 0; i < b.N; i++ {
			my.Exec(c, "test", "DROP TABLE IF EXISTS bdst")
			el, rss := runJob(b, home, j, n)
			report(b, el, rss)
		}
	})
	b.Run("pg-mariadb/native-copy-load-data", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			my.Exec(c, "test", "DROP TABLE IF EXISTS bdst")
			my.Exec(c, "test", "CREATE TABLE bdst (id bigint PRIMARY KEY, name longtext, score double, amount decimal(12,2), at datetime(6))")
			start := time.Now()
			path := filepath.Join(dir, "bsrc.csv")
			f, _ := os.Create(path)
			conn, err := pgx.Connect(c, pg.DSN("postgres"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := conn.PgConn().CopyTo(c, f, "COPY bsrc TO STDOUT (FORMAT csv)"); err != nil {
				b.Fatal(err)
			}
			conn.Close(c)
			f.Close()
			db, _ := sql.Open("mysql", my.DSN("test"))
			if _, err := db.ExecContext(c, "LOAD DATA INFILE '"+path+"' INTO TABLE bdst FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"'"); err != nil {
				b.Fatal(err)
			}
			db.Close()
			os.Remove(path)
			report(b, time.Since(start), 0)
		}
	})
}
