package jdbc

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The benchmarks copy a table of mixed types (id, text, double, numeric,
// timestamp) through the connector's own reader and writer, in process,
// beside the databases' native bulk paths on the same servers in the same
// run: PostgreSQL COPY … TO STDOUT piped into COPY … FROM STDIN, and
// MariaDB SELECT … INTO OUTFILE then LOAD DATA INFILE.
//
//	go test ./connectors/jdbc -run '^$' -bench . -benchtime 1x
//
// STACTOR_JDBC_BENCH_ROWS sets the rows (default 200000).

func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("STACTOR_JDBC_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 200000
}

func makeBenchSource(b *testing.B, tg target, n int) {
	conn := pgConn(b, "postgres")
	stmts := []string{"DROP TABLE IF EXISTS bench_src",
		"CREATE TABLE bench_src (id bigint PRIMARY KEY, name text, score double precision, amount numeric(12,2), at timestamp)",
		fmt.Sprintf(`INSERT INTO bench_src SELECT g, 'name-' || g, g * 0.5, (g %% 100000) * 1.25, TIMESTAMP '2024-01-01' + g * INTERVAL '1 second'
FROM generate_series(1, %d) g`, n), "ANALYZE bench_src"}
	for _, s := range stmts {
		if _, err := conn.Exec(ctxBG(), s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPostgresToPostgres(b *testing.B) {
	n := benchRows()
	tgs := targets(b)
	pg := tgs[0]
	makeBenchSource(b, pg, n)
	for _, mode := range []string{"stactor-copy", "stactor-insert", "stactor-insert-replica4", "native-copy"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				conn := pgConn(b, "postgres")
				conn.Exec(ctxBG(), "DROP TABLE IF EXISTS bench_dst")
				start := time.Now()
				switch mode {
				case "native-copy":
					if _, err := conn.Exec(ctxBG(), "CREATE TABLE bench_dst (LIKE bench_src INCLUDING ALL)"); err != nil {
						b.Fatal(err)
					}
					nativePGCopy(b)
				default:
					body := "database = \"postgres\"\ntable = \"public.bench_dst\"\nbatch_size = 5000\n"
					switch mode {
					case "stactor-copy":
						body += "use_copy_statement = true\nenable_upsert = false\n"
					case "stactor-insert-replica4":
						body += "multi_table_sink_replica = 4\n"
					}
					src := resolvedSource(b, pg, "table_path = \"public.bench_src\"\nsplit.size = 50000\n")
					copyTable(b, src, body, pg)
				}
				el := time.Since(start)
				b.ReportMetric(float64(n)/el.Seconds(), "rows/s")
				var got int
				conn.QueryRow(ctxBG(), "SELECT COUNT(*) FROM bench_dst").Scan(&got)
				if got != n {
					b.Fatalf("%d rows copied, want %d", got, n)
				}
			}
		})
	}
}

func BenchmarkPostgresToMariaDB(b *testing.B) {
	n := benchRows()
	tgs := targets(b)
	if len(tgs) < 2 {
		b.Skip("needs both servers")
	}
	pg, my := tgs[0], tgs[1]
	makeBenchSource(b, pg, n)
	for _, mode := range []string{"stactor", "stactor-replica4", "native-outfile-load-data"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				db := myDB(b, "test")
				db.Exec("DROP TABLE IF EXISTS bench_dst")
				start := time.Now()
				if mode != "native-outfile-load-data" {
					body := "database = \"test\"\ntable = \"bench_dst\"\nbatch_size = 5000\n"
					if mode == "stactor-replica4" {
						body += "multi_table_sink_replica = 4\n"
					}
					src := resolvedSource(b, pg, "table_path = \"public.bench_src\"\nsplit.size = 50000\n")
					copyTable(b, src, body, my)
				} else {
					nativeMariaDB(b, pg)
				}
				el := time.Since(start)
				b.ReportMetric(float64(n)/el.Seconds(), "rows/s")
				var got int
				db.QueryRow("SELECT COUNT(*) FROM bench_dst").Scan(&got)
				if got != n {
					b.Fatalf("%d rows copied, want %d", got, n)
				}
			}
		})
	}
}

// nativePGCopy pipes COPY bench_src TO STDOUT into COPY bench_dst FROM STDIN.
func nativePGCopy(b *testing.B) {
	from, to := pgConn(b, "postgres"), pgConn(b, "postgres")
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := from.PgConn().CopyTo(ctxBG(), pw, "COPY bench_src TO STDOUT (FORMAT binary)")
		pw.CloseWithError(err)
		done <- err
	}()
	if _, err := to.PgConn().CopyFrom(ctxBG(), pr, "COPY bench_dst FROM STDIN (FORMAT binary)"); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// nativeMariaDB is the native path into MariaDB for data held in
// PostgreSQL: COPY … TO a CSV file, then LOAD DATA INFILE.
func nativeMariaDB(b *testing.B, pg target) {
	dir := servers.Dir()
	path := filepath.Join(dir, "bench.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pgConn(b, "postgres").PgConn().CopyTo(ctxBG(), f, "COPY bench_src TO STDOUT (FORMAT csv)"); err != nil {
		b.Fatal(err)
	}
	f.Close()
	defer os.Remove(path)
	db := myDB(b, "test")
	for _, s := range []string{
		"CREATE TABLE bench_dst (id bigint PRIMARY KEY, name longtext, score double, amount decimal(12,2), at datetime(6))",
		"LOAD DATA INFILE '" + path + "' INTO TABLE bench_dst FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"'",
	} {
		if _, err := db.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
}
