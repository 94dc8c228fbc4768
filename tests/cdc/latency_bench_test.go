package cdc

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
)

// BenchmarkCDCLatency measures how long a change committed in the source
// takes to be committed in the target, for Postgres-CDC (PostgreSQL →
// PostgreSQL) and MySQL-CDC (MariaDB → PostgreSQL) into the Jdbc sink,
// exactly-once (exactly_once with the XA sink, whose commit waits for the
// checkpoint) and at-least-once (the upsert sink), against
// checkpoint.interval. A writer inserts rows at a steady rate (transactions
// of 100 rows, paced to STACTOR_CDC_LAT_RATE changes/s, 10000 by default)
// for STACTOR_CDC_LAT_SECONDS (20) once the job is streaming; a poller reads
// the target's highest id every 10 ms (the job runs at parallelism 1, so
// rows become visible in id order). A transaction's latency is from its
// COMMIT returning in the source to its last row being visible in the
// target; the first 3 s are left out as warm-up. It reports p50, p99 and
// max in ms, p99 over checkpoint.interval, the rate the writer reached,
// and checks the target has every row once:
//
//	STACTOR_CDC_LAT_INTERVAL_MS=2000 go test ./tests/cdc -run '^$' -bench CDCLatency -benchtime 1x
func BenchmarkCDCLatency(b *testing.B) {
	pg, my := servers.Postgres(b), servers.MariaDB(b)
	interval := time.Duration(envInt("STACTOR_CDC_LAT_INTERVAL_MS", 2000)) * time.Millisecond
	c, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := execAll(c, func(s string) error { return pg.Exec(c, "postgres", s) }, "DROP DATABASE IF EXISTS latbench", "CREATE DATABASE latbench"); err != nil {
		b.Fatal(err)
	}
	if err := execAll(c, func(s string) error { return my.Exec(c, "", s) }, "DROP DATABASE IF EXISTS cdc_lat", "CREATE DATABASE cdc_lat"); err != nil {
		b.Fatal(err)
	}
	pgSrc := latSource{
		name: "postgres-cdc",
		prepare: func(table string) error {
			return execAll(c, func(s string) error { return pg.Exec(c, "postgres", s) },
				"DROP TABLE IF EXISTS "+table, "CREATE TABLE "+table+" (id bigint PRIMARY KEY, v text, at timestamp)",
				"ALTER TABLE "+table+" REPLICA IDENTITY FULL", "INSERT INTO "+table+" VALUES (-1, 'sentinel', now())",
				"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"+table+"'")
		},
		block: func(table string, exactly bool) string {
			return fmt.Sprintf(`Postgres-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["postgres.public.%s"]
    slot.name = %q
    exactly_once = %v
    heartbeat.interval.ms = 500
  }`, pg.JDBCURL("postgres"), dbtest.User, table, table, exactly)
		},
		insert: func(table string) (func(ctx context.Context, from, to int64) error, func(), error) {
			conn, err := pgx.Connect(c, pg.DSN("postgres"))
			if err != nil {
				return nil, nil, err
			}
			q := "INSERT INTO " + table + " SELECT g, 'v-' || g, now() FROM generate_series($1::bigint, $2::bigint) g"
			return func(ctx context.Context, from, to int64) error {
				_, err := conn.Exec(ctx, q, from, to)
				return err
			}, func() { conn.Close(context.Background()) }, nil
		},
	}
	mySrc := latSource{
		name: "mysql-cdc",
		prepare: func(table string) error {
			return execAll(c, func(s string) error { return my.Exec(c, "cdc_lat", s) },
				"DROP TABLE IF EXISTS "+table, "CREATE TABLE "+table+" (id BIGINT PRIMARY KEY, v VARCHAR(32), at DATETIME(6))",
				"INSERT INTO "+table+" VALUES (-1, 'sentinel', NOW(6))")
		},
		block: func(table string, exactly bool) string {
			return fmt.Sprintf(`MySQL-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["cdc_lat.%s"]
    server-id = "5600-5603"
    exactly_once = %v
    heartbeat.interval.ms = 500
  }`, my.JDBCURL(""), dbtest.User, table, exactly)
		},
		insert: func(table string) (func(ctx context.Context, from, to int64) error, func(), error) {
			db, err := sql.Open("mysql", my.DSN("cdc_lat"))
			if err != nil {
				return nil, nil, err
			}
			db.SetMaxOpenConns(1)
			return func(ctx context.Context, from, to int64) error {
				var q strings.Builder
				q.WriteString("INSERT INTO " + table + " VALUES ")
				for id := from; id <= to; id++ {
					if id > from {
						q.WriteByte(',')
					}
					fmt.Fprintf(&q, "(%d,'v-%d',NOW(6))", id, id)
				}
				_, err := db.ExecContext(ctx, q.String())
				return err
			}, func() { db.Close() }, nil
		},
	}
	dir := b.TempDir()
	for _, src := range []latSource{pgSrc, mySrc} {
		for _, exactly := range []bool{true, false} {
			mode := "upsert"
			if exactly {
				mode = "exactly-once"
			}
			b.Run(src.name+"/"+mode, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					table := strings.ReplaceAll(fmt.Sprintf("lat_%s_%v", src.name, exactly), "-", "_")
					runLatency(b, c, pg, dir, src, table, exactly, interval)
				}
			})
		}
	}
}

// latSource is a CDC source the latency benchmark drives: prepare makes
// its table (with the sentinel row id -1), block is its job block, insert
// opens a connection that inserts ids from..to in one transaction.
type latSource struct {
	name    string
	prepare func(table string) error
	block   func(table string, exactly bool) string
	insert  func(table string) (func(ctx context.Context, from, to int64) error, func(), error)
}

func execAll(ctx context.Context, exec func(string) error, stmts ...string) error {
	for _, s := range stmts {
		if err := exec(s); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func runLatency(b *testing.B, c context.Context, pg *dbtest.Postgres, dir string, src latSource, table string, exactly bool, interval time.Duration) {
	rate := envInt("STACTOR_CDC_LAT_RATE", 10000)
	seconds := envInt("STACTOR_CDC_LAT_SECONDS", 20)
	const perTx = 100
	if err := src.prepare(table); err != nil {
		b.Fatal(err)
	}
	if err := pg.Exec(c, "latbench", "DROP TABLE IF EXISTS "+table); err != nil {
		b.Fatal(err)
	}
	job := filepath.Join(dir, table+".conf")
	writeFile(b, job, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = %d
}
source {
  %s
}
sink {
  %s
}
`, interval.Milliseconds(), src.block(table, exactly),
		jdbcSink(pg.JDBCURL("latbench"), "org.postgresql.Driver", "latbench", "public."+table, "org.postgresql.xa.PGXADataSource", exactly)))
	cmd := exec.Command(binary, "run", "-c", job)
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(dir, "home-"+table))
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		rollbackPrepared(c, pg, "latbench")
	}()

	target, err := pgx.Connect(c, pg.DSN("latbench"))
	if err != nil {
		b.Fatal(err)
	}
	defer target.Close(context.Background())
	maxID := func() int64 {
		var m int64 = -2
		_ = target.QueryRow(c, "SELECT coalesce(max(id), -2) FROM "+table).Scan(&m) // the table may not be there yet
		return m
	}
	// Streaming once the snapshot's sentinel is in the target.
	for deadline := time.Now().Add(2 * time.Minute); maxID() < -1; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			b.Fatalf("the job ended: %v\n%s", err, tail(out.String()))
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("the sentinel row did not reach the target\n%s", tail(out.String()))
		}
	}

	insert, closeInsert, err := src.insert(table)
	if err != nil {
		b.Fatal(err)
	}
	defer closeInsert()
	txs := rate * seconds / perTx
	committed := make([]time.Time, txs)
	seen := make([]time.Time, txs)
	wctx, stopWriter := context.WithCancel(c)
	defer stopWriter()
	werr := make(chan error, 1)
	start := time.Now()
	var wrote int // transactions committed, read after werr
	go func() {
		for j := 0; j < txs; j++ {
			due := start.Add(time.Duration(j) * time.Second * perTx / time.Duration(rate))
			if d := time.Until(due); d > 0 {
				select {
				case <-wctx.Done():
					werr <- nil
					return
				case <-time.After(d):
				}
			}
			if err := insert(wctx, int64(j*perTx), int64((j+1)*perTx-1)); err != nil {
				werr <- err
				return
			}
			committed[j] = time.Now()
			wrote = j + 1
		}
		werr <- nil
	}()
	// Poll the target's highest id until every transaction is seen.
	next := 0
	writing := true
	var writeDur time.Duration
	drainBy := time.Now().Add(time.Duration(seconds)*time.Second + 2*time.Minute)
	for next < txs {
		if writing {
			select {
			case err := <-werr:
				if err != nil {
					b.Fatalf("writer: %v", err)
				}
				writing, writeDur = false, time.Since(start)
			default:
			}
		}
		m, now := maxID(), time.Now()
		for next < txs && int64((next+1)*perTx-1) <= m {
			seen[next] = now
			next++
		}
		select {
		case err := <-exited:
			b.Fatalf("the job ended: %v\n%s", err, tail(out.String()))
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(drainBy) {
			b.Fatalf("the target has %d of %d transactions after %v\n%s", next, txs, time.Since(start).Round(time.Second), tail(out.String()))
		}
	}
	if writing {
		if err := <-werr; err != nil {
			b.Fatalf("writer: %v", err)
		}
		writeDur = time.Since(start)
	}
	var rows int
	if err := target.QueryRow(c, "SELECT count(*) FROM "+table).Scan(&rows); err != nil {
		b.Fatal(err)
	}
	if rows != wrote*perTx+1 {
		b.Fatalf("the target has %d rows, the source %d", rows, wrote*perTx+1)
	}
	var lat []time.Duration
	for j := 0; j < txs; j++ {
		if committed[j].Sub(start) >= 3*time.Second {
			lat = append(lat, max(seen[j].Sub(committed[j]), 0))
		}
	}
	if len(lat) == 0 {
		b.Fatal("no transaction after the warm-up")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(q(0.50)), "p50-ms")
	b.ReportMetric(ms(q(0.99)), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(float64(q(0.99))/float64(interval), "p99/interval")
	b.ReportMetric(float64(wrote*perTx)/writeDur.Seconds(), "changes/s")
}

// rollbackPrepared ends the XA transactions a stopped job left prepared
// in db, so they hold no locks on the next case's tables.
func rollbackPrepared(ctx context.Context, pg *dbtest.Postgres, db string) {
	conn, err := pgx.Connect(ctx, pg.DSN(db))
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()")
	if err != nil {
		return
	}
	var gids []string
	for rows.Next() {
		var g string
		if rows.Scan(&g) == nil {
			gids = append(gids, g)
		}
	}
	rows.Close()
	for _, g := range gids {
		_, _ = conn.Exec(ctx, "ROLLBACK PREPARED '"+strings.ReplaceAll(g, "'", "''")+"'")
	}
}
