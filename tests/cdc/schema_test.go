package cdc

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
)

// Schema changes (schema-changes.enabled): a captured table gains columns
// with ALTER TABLE … ADD COLUMN while the job streams; the Jdbc sink adds
// them to its target and writes the later rows with them. The binary is
// SIGKILLed after the change and restored from its checkpoint (which
// holds the new schema), twice; the target equals the source, new columns
// included, row by row. Then a DROP COLUMN: Postgres-CDC, which sees only
// the new columns, fails the job with an error naming the table and the
// column; MySQL-CDC, which reads the DDL, carries it and more steps —
// ADD … AFTER with a default, CHANGE (rename and retype) with MODIFY …
// FIRST in one statement, and, while the binary is down, RENAME COLUMN
// and ADD … FIRST — to a PostgreSQL target, restored with the job file
// (the job resolved afresh, its table as it is now).

// schemaSide is one database of a schema-change test: how to run
// statements on it and read a table as text rows (id, then cols, joined
// by |, NULL for null).
type schemaSide struct {
	exec func(ctx context.Context, stmts ...string) error
	rows func(ctx context.Context, table string, cols []string) ([]string, error)
}

// The columns a schema-change test compares: before the change, after it.
var (
	oldCols   = []string{"v"}
	extraCols = []string{"v", "extra", "note"}
)

// execEach runs statements one by one with exec, naming the one that fails.
func execEach(exec func(ctx context.Context, stmt string) error) func(ctx context.Context, stmts ...string) error {
	return func(ctx context.Context, stmts ...string) error {
		for _, s := range stmts {
			if err := exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	}
}

func pgSide(pg *dbtest.Postgres) schemaSide {
	return schemaSide{
		exec: execEach(func(ctx context.Context, s string) error { return pg.Exec(ctx, "postgres", s) }),
		rows: func(ctx context.Context, table string, cols []string) ([]string, error) {
			q := "SELECT id::text"
			for _, c := range cols {
				q += ` || '|' || coalesce("` + c + `"::text, 'NULL')`
			}
			conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
			if err != nil {
				return nil, err
			}
			defer conn.Close(context.Background())
			rows, err := conn.Query(ctx, q+" FROM "+table+" ORDER BY id")
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			return oneColumn(rows)
		},
	}
}

func mySide(my *dbtest.MariaDB, database string) schemaSide {
	return schemaSide{
		exec: execEach(func(ctx context.Context, s string) error { return my.Exec(ctx, database, s) }),
		rows: func(ctx context.Context, table string, cols []string) ([]string, error) {
			q := "SELECT CONCAT(id"
			for _, c := range cols {
				q += ", '|', IFNULL(`" + c + "`, 'NULL')"
			}
			db, err := sql.Open("mysql", my.DSN(database))
			if err != nil {
				return nil, err
			}
			defer db.Close()
			rows, err := db.QueryContext(ctx, q+") FROM "+table+" ORDER BY id")
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			return oneColumn(rows)
		},
	}
}

// oneColumn is the text of a query's one column, row by row.
func oneColumn(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}) ([]string, error) {
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// schemaRun is a schema-change test's job: its source and sink sides, the
// source and target tables, and the statements of the source's dialect.
type schemaRun struct {
	src, dst         schemaSide
	srcTable, target string
	addColumns       string // ALTER TABLE … ADD COLUMN extra …, ADD COLUMN note …
	// dropColumn drops column note: an error naming the table and the
	// column for a source that reads no DDL (steps nil), else the first
	// of steps.
	dropColumn string
	steps      []schemaStep
	job        string
}

// schemaStep is a step of a schema-change test after the second restore:
// statements, with the binary SIGKILLed before them (and restored after)
// when down, and the columns the target must then equal the source by.
type schemaStep struct {
	stmts []string
	down  bool
	cols  []string
}

func TestPostgresCDCSchemaChange(t *testing.T) {
	pg, my := servers.Postgres(t), servers.MariaDB(t)
	ctx := testCtx(t)
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS sc_dst", "DROP TABLE IF EXISTS sc_dst.sc_pg"} {
		if err := my.Exec(ctx, "", q); err != nil {
			t.Fatal(err)
		}
	}
	src := pgSide(pg)
	if err := src.exec(ctx, "DROP TABLE IF EXISTS sc_src", "CREATE TABLE sc_src (id bigint PRIMARY KEY, v text)",
		"ALTER TABLE sc_src REPLICA IDENTITY FULL", "INSERT INTO sc_src SELECT g, 'row-' || g FROM generate_series(1, 3000) g",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'sc_slot'"); err != nil {
		t.Fatal(err)
	}
	runSchemaChange(t, schemaRun{src: src, dst: mySide(my, "sc_dst"), srcTable: "sc_src", target: "sc_pg",
		addColumns: "ALTER TABLE sc_src ADD COLUMN extra int, ADD COLUMN note text",
		dropColumn: "ALTER TABLE sc_src DROP COLUMN note",
		job: fmt.Sprintf(`
source {
  Postgres-CDC {
    base-url = %q
    username = %q
    password = ""
    database-names = ["postgres"]
    table-names = ["postgres.public.sc_src"]
    slot.name = "sc_slot"
    snapshot.split.size = 500
    heartbeat.interval.ms = 500
    schema-changes.enabled = true
    parallelism = 2
  }
}
sink {
  Jdbc {
    url = %q
    driver = "org.mariadb.jdbc.Driver"
    user = %q
    database = sc_dst
    table = sc_pg
    generate_sink_sql = true
    primary_keys = ["id"]
    parallelism = 1
  }
}`, pg.JDBCURL("postgres"), dbtest.User, my.JDBCURL(""), dbtest.User)})
}

func TestMySQLCDCSchemaChange(t *testing.T) { mysqlSchemaChange(t, "sc_my", "") }

// With is_exactly_once (PostgreSQL's prepared transactions): each change
// is a checkpoint boundary, so the sink runs the DDL with no rows of the
// old schema in an open transaction.
func TestMySQLCDCSchemaChangeExactlyOnce(t *testing.T) {
	mysqlSchemaChange(t, "sc_my_xa", `is_exactly_once = true
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"`)
}

// mysqlSchemaChange runs runSchemaChange from MySQL-CDC into PostgreSQL
// table public.target with the sink options extra.
func mysqlSchemaChange(t *testing.T, target, extra string) {
	pg, my := servers.Postgres(t), servers.MariaDB(t)
	ctx := testCtx(t)
	if err := my.Exec(ctx, "", "CREATE DATABASE IF NOT EXISTS sc_src"); err != nil {
		t.Fatal(err)
	}
	src := mySide(my, "sc_src")
	if err := src.exec(ctx, "DROP TABLE IF EXISTS src", "CREATE TABLE src (id BIGINT PRIMARY KEY, v VARCHAR(40))",
		"CREATE TABLE IF NOT EXISTS seq (i BIGINT PRIMARY KEY)", "INSERT IGNORE INTO seq VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		"INSERT INTO src SELECT 1 + a.i + 10*b.i + 100*c.i, CONCAT('row-', 1 + a.i + 10*b.i + 100*c.i) FROM seq a, seq b, seq c"); err != nil {
		t.Fatal(err)
	}
	dst := pgSide(pg)
	if err := dst.exec(ctx, "DROP TABLE IF EXISTS public."+target); err != nil {
		t.Fatal(err)
	}
	runSchemaChange(t, schemaRun{src: src, dst: dst, srcTable: "src", target: "public." + target,
		addColumns: "ALTER TABLE src ADD COLUMN extra INT, ADD COLUMN note VARCHAR(20)",
		dropColumn: "ALTER TABLE src DROP COLUMN note",
		steps: []schemaStep{
			{stmts: []string{"ALTER TABLE src ADD COLUMN `note 2` VARCHAR(10) NOT NULL DEFAULT 'n2' AFTER v",
				"INSERT INTO src (id, v, extra, `note 2`) VALUES (100007, 'dropped', 1, 'set')", "UPDATE src SET `note 2` = 'upd2' WHERE id % 10 = 7"},
				cols: []string{"v", "extra", "note 2"}},
			{stmts: []string{"ALTER TABLE src CHANGE COLUMN extra extra2 BIGINT COMMENT 'renamed', MODIFY v VARCHAR(80) NOT NULL DEFAULT 'dflt' FIRST",
				"UPDATE src SET extra2 = id * 10000000000 WHERE id % 10 = 8", "INSERT INTO src (id, extra2) VALUES (100008, 5)"},
				cols: []string{"v", "extra2", "note 2"}},
			{down: true, stmts: []string{"ALTER TABLE src RENAME COLUMN `note 2` TO note3", "INSERT INTO src (id, v, extra2, note3) VALUES (100009, 'down', 6, 'n3')",
				"ALTER TABLE src ADD COLUMN f INT FIRST, ADD INDEX ix_f (f)", "UPDATE src SET f = 1, note3 = 'down-upd' WHERE id % 10 = 9",
				"DELETE FROM src WHERE id % 10 = 0"},
				cols: []string{"f", "v", "extra2", "note3"}},
		},
		job: fmt.Sprintf(`
source {
  MySQL-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["sc_src.src"]
    server-id = "5500-5503"
    snapshot.split.size = 300
    heartbeat.interval.ms = 500
    schema-changes.enabled = true
    parallelism = 2
  }
}
sink {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    database = postgres
    table = "public.%s"
    generate_sink_sql = true
    primary_keys = ["id"]
    parallelism = 1
    %s
  }
}`, my.JDBCURL(""), dbtest.User, pg.JDBCURL("postgres"), dbtest.User, target, extra)})
}

func runSchemaChange(t *testing.T, r schemaRun) {
	ctx := testCtx(t)
	dir := t.TempDir()
	job := filepath.Join(dir, "job.conf")
	writeFile(t, job, `
env {
  job.mode = "STREAMING"
  checkpoint.interval = 500
  job.retry.times = 0
}
`+r.job)
	home := filepath.Join(dir, "home")
	var out lockedBuffer
	exec := func(stmts ...string) {
		t.Helper()
		if err := r.src.exec(ctx, stmts...); err != nil {
			t.Fatal(err)
		}
	}
	// caughtUp waits until the target equals the source by columns cols
	// while cur runs.
	caughtUp := func(cur *run, cols []string, what string) {
		t.Helper()
		want, err := r.src.rows(ctx, r.srcTable, cols)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			got, err := r.dst.rows(ctx, r.target, cols)
			if err == nil && strings.Join(got, "\n") == strings.Join(want, "\n") {
				t.Logf("%s: the target equals the source (%d rows)", what, len(want))
				return
			}
			select {
			case <-cur.exited:
				t.Fatalf("%s: the run ended (%v)\n%s", what, cur.err, tail(out.String()))
			default:
			}
			if time.Now().After(deadline) {
				if err != nil {
					t.Fatalf("%s: target: %v\n%s", what, err, tail(out.String()))
				}
				t.Fatalf("%s: the target did not catch up: %s %s\n%s", what, diff(got, want), firstMismatch(got, want), tail(out.String()))
			}
			time.Sleep(300 * time.Millisecond)
		}
	}

	cur := startRun(t, home, job, "schema-change", false, &out)
	caughtUp(cur, oldCols, "snapshot")
	exec("UPDATE "+r.srcTable+" SET v = 'before-alter' WHERE id % 10 = 1",
		"DELETE FROM "+r.srcTable+" WHERE id % 10 = 2",
		"INSERT INTO "+r.srcTable+" (id, v) VALUES (100001, 'old-schema')")
	caughtUp(cur, oldCols, "stream, old columns")

	// The change, and rows that use the new columns.
	exec(r.addColumns,
		"INSERT INTO "+r.srcTable+" (id, v, extra, note) VALUES (100002, 'new-schema', 42, 'hello')",
		"UPDATE "+r.srcTable+" SET extra = id * 2, note = 'upd' WHERE id % 10 = 3",
		"INSERT INTO "+r.srcTable+" (id, v) VALUES (100003, 'no-extra')")
	caughtUp(cur, extraCols, "after ADD COLUMN")

	// SIGKILL after the change; more changes while it is down; restore.
	cur.kill()
	exec("UPDATE "+r.srcTable+" SET extra = -1, v = 'while-down' WHERE id % 10 = 4",
		"DELETE FROM "+r.srcTable+" WHERE id % 10 = 5",
		"INSERT INTO "+r.srcTable+" (id, v, extra, note) VALUES (100004, 'down', 7, 'x')")
	cur = startRun(t, home, job, "schema-change", true, &out)
	caughtUp(cur, extraCols, "restored after the change")

	// A kill right after changes of the new columns, before they are
	// surely checkpointed, and a second restore.
	exec("UPDATE "+r.srcTable+" SET note = 'again' WHERE id % 10 = 6",
		"INSERT INTO "+r.srcTable+" (id, v, extra) VALUES (100005, 'again', 9)")
	time.Sleep(700 * time.Millisecond)
	cur.kill()
	exec("UPDATE " + r.srcTable + " SET extra = extra + 1 WHERE id % 10 = 3")
	cur = startRun(t, home, job, "schema-change", true, &out)
	caughtUp(cur, extraCols, "second restore")

	exec(r.dropColumn, "INSERT INTO "+r.srcTable+" (id, v, extra) VALUES (100006, 'dropped', 1)")
	if r.steps != nil {
		// A source that reads the DDL carries DROP, CHANGE, MODIFY and
		// RENAME COLUMN, also while the binary is down.
		caughtUp(cur, []string{"v", "extra"}, "after DROP COLUMN")
		for i, st := range r.steps {
			if st.down {
				cur.kill()
			}
			exec(st.stmts...)
			if st.down {
				cur = startRun(t, home, job, "schema-change", true, &out)
			}
			caughtUp(cur, st.cols, fmt.Sprintf("step %d", i+1))
		}
		cur.kill()
		return
	}
	// Without the DDL, dropping a column is an error naming the table
	// and the column.
	select {
	case <-cur.exited:
	case <-time.After(time.Minute):
		t.Fatalf("the job went on after DROP COLUMN\n%s", tail(out.String()))
	}
	if cur.err == nil || !strings.Contains(out.String(), "column note is gone") || !strings.Contains(out.String(), r.srcTable) {
		t.Fatalf("after DROP COLUMN: %v, want an error naming the table and column note\n%s", cur.err, tail(out.String()))
	}
}

// A transform passes a schema change only if it follows them
// (FilterRowKind does; Copy does not, and the job is refused when it is
// resolved, naming the source's option and the transform).
func TestCDCSchemaChangeThroughTransforms(t *testing.T) {
	pg := servers.Postgres(t)
	ctx := testCtx(t)
	src := pgSide(pg)
	for _, tc := range []struct{ name, transform, fails string }{
		{"FilterRowKind", `FilterRowKind { exclude_kinds = ["DELETE"] }`, ""},
		{"Copy", `Copy { fields { v2 = v } }`, `option "schema-changes.enabled": true makes the source emit its tables' ALTER TABLE, which transform Copy (line 19) cannot follow: the transform does not follow schema changes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slot := "sc_tr_" + strings.ToLower(tc.name)
			if err := src.exec(ctx, "DROP TABLE IF EXISTS sc_tr", "DROP TABLE IF EXISTS sc_tr_out", "CREATE TABLE sc_tr (id bigint PRIMARY KEY, v text)",
				"ALTER TABLE sc_tr REPLICA IDENTITY FULL", "INSERT INTO sc_tr SELECT g, 'row-' || g FROM generate_series(1, 100) g",
				"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"+slot+"'"); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			job := filepath.Join(dir, "job.conf")
			writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  checkpoint.interval = 500
  job.retry.times = 0
}
source {
  Postgres-CDC {
    base-url = %q
    username = %q
    password = ""
    database-names = ["postgres"]
    table-names = ["postgres.public.sc_tr"]
    slot.name = %q
    schema-changes.enabled = true
  }
}
transform {
  %s
}
sink {
  Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    database = postgres
    table = "public.sc_tr_out"
    generate_sink_sql = true
    primary_keys = ["id"]
  }
}`, pg.JDBCURL("postgres"), dbtest.User, slot, tc.transform, pg.JDBCURL("postgres"), dbtest.User))
			var out lockedBuffer
			cur := startRun(t, filepath.Join(dir, "home"), job, "schema-transform", false, &out)
			if tc.fails != "" {
				select {
				case <-cur.exited:
				case <-time.After(time.Minute):
					t.Fatalf("the job went on\n%s", tail(out.String()))
				}
				if !strings.Contains(out.String(), tc.fails) {
					t.Fatalf("want %q in\n%s", tc.fails, tail(out.String()))
				}
				return
			}
			deadline := time.Now().Add(time.Minute)
			for n := 0; n < 100; {
				if time.Now().After(deadline) {
					t.Fatalf("the snapshot did not arrive (%d rows)\n%s", n, tail(out.String()))
				}
				time.Sleep(200 * time.Millisecond)
				rows, _ := src.rows(ctx, "sc_tr_out", oldCols)
				n = len(rows)
			}
			if err := src.exec(ctx, "ALTER TABLE sc_tr ADD COLUMN extra int", "INSERT INTO sc_tr VALUES (101, 'new', 5)"); err != nil {
				t.Fatal(err)
			}
			want := []string{"101|new|5|NULL"}
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
				got, err := pgSide(pg).rows(ctx, "(SELECT id, v, extra, NULL::text AS note FROM sc_tr_out WHERE id > 100) x", extraCols)
				if err == nil && strings.Join(got, ",") == strings.Join(want, ",") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("target %v (%v), want %v\n%s", got, err, want, tail(out.String()))
				}
			}
		})
	}
}

// TestCDCSchemaChangeCheck: `stactor run --check` refuses a job whose CDC
// source carries schema changes into a sink that cannot apply them
// (LocalFile), naming the source's option and the sink, where the job
// would otherwise fail at the first ALTER TABLE; the Jdbc upsert and
// exactly-once sinks and schema-changes.enabled = false pass.
func TestCDCSchemaChangeCheck(t *testing.T) {
	pg := servers.Postgres(t)
	ctx := testCtx(t)
	if err := pgSide(pg).exec(ctx, "DROP TABLE IF EXISTS sc_check", "CREATE TABLE sc_check (id bigint PRIMARY KEY, v text)",
		"ALTER TABLE sc_check REPLICA IDENTITY FULL"); err != nil {
		t.Fatal(err)
	}
	jdbc := func(extra string) string {
		return fmt.Sprintf(`Jdbc {
    url = %q
    driver = "org.postgresql.Driver"
    user = %q
    database = postgres
    table = "public.sc_check_out"
    generate_sink_sql = true
    primary_keys = ["id"]
    %s
  }`, pg.JDBCURL("postgres"), dbtest.User, extra)
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, changes, sink, want string }{
		{"upsert", "true", jdbc(""), ""},
		{"xa", "true", jdbc(`is_exactly_once = true
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"`), ""},
		{"localfile", "true", fmt.Sprintf("LocalFile {\n    path = %q\n    file_format_type = \"json\"\n  }", filepath.Join(dir, "out")),
			"which sink LocalFile (line 15) cannot follow: the sink cannot apply schema changes"},
		{"off", "false", fmt.Sprintf("LocalFile {\n    path = %q\n    file_format_type = \"json\"\n  }", filepath.Join(dir, "out")), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := filepath.Join(t.TempDir(), "job.conf")
			writeFile(t, job, fmt.Sprintf(`
env { job.mode = "STREAMING" }
source {
  Postgres-CDC {
    base-url = %q
    username = %q
    password = ""
    database-names = ["postgres"]
    table-names = ["postgres.public.sc_check"]
    slot.name = "sc_check"
    schema-changes.enabled = %s
  }
}
sink {
  %s
}`, pg.JDBCURL("postgres"), dbtest.User, c.changes, c.sink))
			out, err := exec.CommandContext(ctx, binary, "run", "--check", "-c", job).CombinedOutput()
			if c.want == "" {
				if err != nil {
					t.Fatalf("--check refused the job: %v\n%s", err, out)
				}
				return
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
				t.Fatalf("--check: %v, want exit code 2 and %q in\n%s", err, c.want, out)
			}
		})
	}
}
