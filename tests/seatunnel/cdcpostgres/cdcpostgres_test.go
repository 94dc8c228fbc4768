// Package cdcpostgres runs SeaTunnel's own Postgres-CDC e2e job files
// through the stactor binary, byte for byte unchanged (testdata, each
// file's first line naming where it came from), the way SeaTunnel's
// PostgresCDCIT runs them: the IT's DDL (its ddl/inventory.sql, read as
// the IT reads it) run first, the streaming job started, each sink table
// compared with its source table (`select * from … order by id`) until they
// agree, then the IT's inserts, updates and deletes, and the comparison
// again; the IT's restore tests stop the job with a savepoint (SIGTERM)
// and continue it with `stactor run --restore ID -c FILE`.
//
// The files name their server as SeaTunnel's Docker network does
// (postgres_cdc_e2e:5432, user postgres, password postgres, database
// postgres_cdc) and decoding.plugin.name = "decoderbufs" (the plugin of
// the IT's debezium/postgres image), which stactor decodes with pgoutput
// (connectors/cdc/postgres). The test binary runs in network and mount
// namespaces of its own (tests/internal/netns) where that name resolves to
// 127.0.0.1 and the private PostgreSQL of internal/dbtest listens on 5432;
// the DDL's CREATE EXTENSION postgis needs PostGIS installed
// (tools/test-deps.sh).
package cdcpostgres

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/tests/internal/netns"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var (
	binary  string
	servers dbtest.Servers
)

func TestMain(m *testing.M) {
	os.Exit(stactorbin.Main(func() int {
		os.Setenv(stactorbin.EnvBinary, binary)
		return netns.Main(func() int {
			return servers.Run(m, dbtest.WithPostgres(dbtest.WithPort(5432), dbtest.WithSetting("max_replication_slots", "20")))
		}, "postgres_cdc_e2e")
	}, &binary))
}

// PostgresCDCIT's names.
const (
	schema       = "inventory"
	sourceTable1 = "postgres_cdc_table_1"
	sourceTable2 = "postgres_cdc_table_2"
	sourceTable3 = "postgres_cdc_table_3"
	sinkTable1   = "sink_postgres_cdc_table_1"
	sinkTable2   = "sink_postgres_cdc_table_2"
	sinkTable3   = "sink_postgres_cdc_table_3"
	noKeyTable   = "full_types_no_primary_key"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return c
}

// connect is a connection to postgres_cdc as the IT's user (its
// container's superuser, made by setUp).
func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	pg := servers.Postgres(t)
	conn, err := pgx.Connect(ctx(t), fmt.Sprintf("postgres://postgres:postgres@%s:%d/postgres_cdc?sslmode=disable", pg.Host, pg.Port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

var commentPattern = regexp.MustCompile(`^(.*)--.*$`)

// ddlStatements reads the DDL as PostgresCDCIT.initializePostgresTable
// does: lines trimmed, comment lines and empty lines dropped, trailing
// comments cut, the rest split at ";\n".
func ddlStatements(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "inventory.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "--") {
			continue
		}
		if m := commentPattern.FindStringSubmatch(l); m != nil {
			l = m[1]
		}
		lines = append(lines, l)
	}
	return strings.Split(strings.Join(lines, "\n"), ";\n")
}

// setUp makes the IT container's user and database and runs its DDL, once
// per test binary (each IT test empties what it filled when it ends, as
// here).
func setUp(t *testing.T) *pgx.Conn {
	t.Helper()
	netns.Require(t)
	pg := servers.Postgres(t)
	admin, err := pgx.Connect(ctx(t), pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var n int
	if err := admin.QueryRow(ctx(t), "SELECT count(*) FROM pg_database WHERE datname = 'postgres_cdc'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		for _, s := range []string{
			"CREATE ROLE postgres LOGIN SUPERUSER PASSWORD 'postgres'",
			"CREATE DATABASE postgres_cdc OWNER postgres",
		} {
			if _, err := admin.Exec(ctx(t), s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		conn := connect(t)
		for _, s := range ddlStatements(t) {
			if _, err := conn.Exec(ctx(t), s); err != nil {
				if strings.Contains(err.Error(), "postgis") {
					t.Skipf("the IT's DDL needs PostGIS (install it: bash tools/test-deps.sh): %.60q: %v", s, err)
				}
				t.Fatalf("DDL %.80q: %v", s, err)
			}
		}
	}
	return connect(t)
}

// executeSQL is the IT's executeSql.
func executeSQL(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(ctx(t), "SET search_path TO inventory;"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx(t), sql); err != nil {
		t.Fatalf("%.80q: %v", sql, err)
	}
}

// upsertDeleteSourceTable is the IT's.
func upsertDeleteSourceTable(t *testing.T, conn *pgx.Conn, table string) {
	t.Helper()
	for _, id := range []int{2, 3} {
		executeSQL(t, conn, fmt.Sprintf("INSERT INTO %s.%s VALUES (%d, '2', 32767, 65535, 2147483647, 5.5, 6.6, 123.12345, 404.4443, true,\n"+
			"        'Hello World', 'a', 'abc', 'abcd..xyz', '2020-07-17 18:00:22.123', '2020-07-17 18:00:22.123456',\n"+
			"        '2020-07-17', '18:00:22', 500,'192.168.1.1');", schema, table, id))
	}
	executeSQL(t, conn, fmt.Sprintf("DELETE FROM %s.%s where id = 2;", schema, table))
	executeSQL(t, conn, fmt.Sprintf("UPDATE %s.%s SET f_big = 10000 where id = 3;", schema, table))
}

// clearTable is the IT's, run when a test ends.
func clearTable(t *testing.T, conn *pgx.Conn, tables ...string) {
	t.Cleanup(func() {
		for _, tb := range tables {
			if _, err := conn.Exec(context.Background(), "truncate table "+schema+"."+tb); err != nil {
				t.Errorf("truncate %s: %v", tb, err)
			}
		}
	})
}

// query is `select * from schema.table order by id`, each value in its
// text form (the IT compares the JDBC driver's objects; equal text is
// equal values).
func query(t *testing.T, conn *pgx.Conn, table string) []string {
	t.Helper()
	rows, err := conn.Query(ctx(t), fmt.Sprintf("select * from %s.%s order by id", schema, table), pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var parts []string
		for _, v := range rows.RawValues() {
			if v == nil {
				parts = append(parts, "<NULL>")
			} else {
				parts = append(parts, string(v))
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pair is a source table and the sink table that must hold its rows.
type pair struct{ source, sink string }

// run is one `stactor run`.
type run struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

// start runs `stactor run` with args (a testdata file after -c) in home
// (STACTOR_HOME, where checkpoints and savepoints live) and kills it when
// the test ends.
func start(t *testing.T, home string, args ...string) *run {
	t.Helper()
	for i, a := range args {
		if a == "-c" {
			job, err := filepath.Abs(filepath.Join("testdata", args[i+1]))
			if err != nil {
				t.Fatal(err)
			}
			args[i+1] = job
		}
	}
	r := &run{done: make(chan struct{}), log: filepath.Join(t.TempDir(), "stactor.log")}
	f, err := os.Create(r.log)
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(binary, append([]string{"run"}, args...)...)
	r.cmd.Dir = t.TempDir()
	r.cmd.Env = append(os.Environ(), "STACTOR_HOME="+home)
	r.cmd.Stdout, r.cmd.Stderr = f, f
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); f.Close(); close(r.done) }()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
		if s := r.tail(); strings.Contains(s, "panic:") {
			t.Errorf("stactor run %s printed a panic:\n%s", strings.Join(args, " "), s)
		}
	})
	return r
}

// runStreaming starts a job file as the IT's container.executeJob.
func runStreaming(t *testing.T, file string) *run {
	return start(t, t.TempDir(), "-c", file)
}

// savepoint stops the run with a savepoint (the IT's savepointJob) and
// checks it ended SAVEPOINT_DONE.
func (r *run) savepoint(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("no savepoint 2 min after SIGTERM\n%s", r.tail())
	}
	if code := r.cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(r.tail(), "SAVEPOINT_DONE") {
		t.Fatalf("the savepoint ended with exit code %d, want 130 and SAVEPOINT_DONE\n%s", code, r.tail())
	}
}

// tail is the end of a run's output.
func (r *run) tail() string {
	b, _ := os.ReadFile(r.log)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}

// await waits (60 s, as the IT) until every pair agrees, failing with the
// first difference.
func await(t *testing.T, conn *pgx.Conn, r *run, stage string, pairs ...pair) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		same := true
		var got, want []string
		var differs pair
		for _, p := range pairs {
			want, got = query(t, conn, p.source), query(t, conn, p.sink)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				same, differs = false, p
				break
			}
		}
		if same {
			return
		}
		select {
		case <-r.done:
			t.Fatalf("%s: the job ended\n%s", stage, r.tail())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s differs from %s after 60 s:\nsink   %q\nsource %q\n%s", stage, differs.sink, differs.source, got, want, r.tail())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkData is the IT's one-table test: the job started on file, source
// and sink compared after the snapshot, the upserts and deletes made, and
// compared again.
func checkData(t *testing.T, file, source, sink string) {
	conn := setUp(t)
	clearTable(t, conn, source, sink)
	r := runStreaming(t, file)
	p := pair{source, sink}
	await(t, conn, r, "snapshot", p)
	upsertDeleteSourceTable(t, conn, source)
	await(t, conn, r, "stream", p)
}

// PostgresCDCIT.testMPostgresCdcCheckDataE2e: the DDL's row snapshotted,
// then the upserts and deletes streamed.
func TestMPostgresCdcCheckDataE2e(t *testing.T) {
	checkData(t, "postgrescdc_to_postgres.conf", sourceTable1, sinkTable1)
}

// PostgresCDCIT.testMultiTableWithRestore: one table, a savepoint, then
// restored with a file that captures a second table too, whose rows (the
// DDL's row: this test runs before the tests that empty that table) are
// snapshotted before the stream goes on.
func TestMultiTableWithRestore(t *testing.T) {
	conn := setUp(t)
	clearTable(t, conn, sourceTable1, sinkTable1, sourceTable2, sinkTable2)
	home, id := t.TempDir(), fmt.Sprint(time.Now().UnixNano()/1000)
	r := start(t, home, "--job-id", id, "-c", "pgcdc_to_pg_with_multi_table_mode_one_table.conf")
	upsertDeleteSourceTable(t, conn, sourceTable1)
	await(t, conn, r, "stream", pair{sourceTable1, sinkTable1})
	r.savepoint(t)
	r = start(t, home, "--restore", id, "-c", "pgcdc_to_pg_with_multi_table_mode_two_table.conf")
	upsertDeleteSourceTable(t, conn, sourceTable2)
	await(t, conn, r, "restored", pair{sourceTable1, sinkTable1}, pair{sourceTable2, sinkTable2})
}

// PostgresCDCIT.testPostgresCdcMultiTableE2e: two tables into sink_
// tables (tablePrefix, schema).
func TestPostgresCdcMultiTableE2e(t *testing.T) {
	conn := setUp(t)
	clearTable(t, conn, sourceTable1, sinkTable1, sourceTable2, sinkTable2)
	r := runStreaming(t, "pgcdc_to_pg_with_multi_table_mode_two_table.conf")
	ps := []pair{{sourceTable1, sinkTable1}, {sourceTable2, sinkTable2}}
	await(t, conn, r, "snapshot", ps...)
	upsertDeleteSourceTable(t, conn, sourceTable1)
	upsertDeleteSourceTable(t, conn, sourceTable2)
	await(t, conn, r, "stream", ps...)
}

// PostgresCDCIT.testAddFiledWithRestore: a savepoint, a column added to
// the source and the sink table and a row of it inserted, then restored.
func TestAddFiledWithRestore(t *testing.T) {
	conn := setUp(t)
	clearTable(t, conn, sourceTable3, sinkTable3)
	home, id := t.TempDir(), fmt.Sprint(time.Now().UnixNano()/1000)
	r := start(t, home, "--job-id", id, "-c", "postgrescdc_to_postgres_test_add_Filed.conf")
	p := pair{sourceTable3, sinkTable3}
	await(t, conn, r, "stream", p)
	r.savepoint(t)
	t.Cleanup(func() {
		// The IT's DDL runs once per server; later tests of this
		// binary need the table as it made it.
		for _, tb := range []string{sourceTable3, sinkTable3} {
			conn.Exec(context.Background(), "ALTER TABLE "+schema+"."+tb+" DROP COLUMN IF EXISTS f_big")
		}
	})
	executeSQL(t, conn, "ALTER TABLE "+schema+"."+sourceTable3+" ADD COLUMN f_big BIGINT")
	executeSQL(t, conn, "ALTER TABLE "+schema+"."+sinkTable3+" ADD COLUMN f_big BIGINT")
	executeSQL(t, conn, "INSERT INTO "+schema+"."+sourceTable3+" VALUES (2, '2', 32767, 65535, 2147483647);")
	r = start(t, home, "--restore", id, "-c", "postgrescdc_to_postgres_test_add_Filed.conf")
	await(t, conn, r, "restored", p)
}

// PostgresCDCIT.testPostgresCdcCheckDataWithNoPrimaryKey: a table without
// a key (one snapshot chunk, at least once) into a sink keyed by id.
func TestPostgresCdcCheckDataWithNoPrimaryKey(t *testing.T) {
	checkData(t, "postgrescdc_to_postgres_with_no_primary_key.conf", noKeyTable, sinkTable1)
}

// PostgresCDCIT.testPostgresCdcCheckDataWithCustomPrimaryKey: the same
// table keyed by table-names-config's primaryKeys, exactly once.
func TestPostgresCdcCheckDataWithCustomPrimaryKey(t *testing.T) {
	checkData(t, "postgrescdc_to_postgres_with_custom_primary_key.conf", noKeyTable, sinkTable1)
}
