// Package cdcmysql runs SeaTunnel's own MySQL-CDC e2e job files through the
// stactor binary, byte for byte unchanged (testdata, each file's first line
// naming where it came from), the way SeaTunnel's MysqlCDCIT runs them: the
// IT's database (its ddl/mysql_cdc.sql) and users (its docker/setup.sql)
// made first, the streaming job started, the sink table compared with the
// source table until they agree, then the IT's inserts, updates and
// deletes, and the comparison again. MysqlCDCWithSchemaChangeIT's job
// files and DDL scripts run the same way (schemachange_test.go).
//
// The files name their server as SeaTunnel's Docker network does
// (mysql_cdc_e2e:3306, users st_user_source and st_user_sink with password
// mysqlpw). The test binary runs in network and mount namespaces of its
// own (tests/internal/netns) where that name resolves to 127.0.0.1 and the
// private MariaDB of internal/dbtest listens on 3306. MariaDB 10.11 has no
// utf8mb4_0900_ai_ci (MySQL 8's default collation, which the DDL names for
// its tables): the setup uses utf8mb4_general_ci instead; nothing else of
// the DDL changes, so its gbk_bin column is read through the binlog in its
// own character set.
package cdcmysql

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
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
			return servers.Run(m, dbtest.WithMariaDB(dbtest.WithMariaDBPort(3306)))
		}, "mysql_cdc_e2e")
	}, &binary))
}

// MysqlCDCIT's queries of the source and the sink table.
const (
	sourceSQL = "select id, cast(f_binary as char) as f_binary, cast(f_blob as char) as f_blob, cast(f_long_varbinary as char) as f_long_varbinary," +
		" cast(f_longblob as char) as f_longblob, cast(f_tinyblob as char) as f_tinyblob, cast(f_varbinary as char) as f_varbinary," +
		" f_smallint, f_smallint_unsigned, f_mediumint, f_mediumint_unsigned, f_int, f_int_unsigned, f_integer, f_integer_unsigned," +
		" f_bigint, f_bigint_unsigned, f_numeric, f_decimal, f_float, f_double, f_double_precision, f_longtext, f_mediumtext," +
		" f_text, f_tinytext, f_varchar, f_date, f_datetime, f_timestamp, f_bit1, cast(f_bit64 as char) as f_bit64, f_char," +
		" f_enum, cast(f_mediumblob as char) as f_mediumblob, f_long_varchar, f_real, f_time, f_tinyint, f_tinyint_unsigned," +
		" f_json, f_year from %s.%s"
	sinkSQL = "select id, cast(f_binary as char) as f_binary, cast(f_blob as char) as f_blob, cast(f_long_varbinary as char) as f_long_varbinary," +
		" cast(f_longblob as char) as f_longblob, cast(f_tinyblob as char) as f_tinyblob, cast(f_varbinary as char) as f_varbinary," +
		" f_smallint, f_smallint_unsigned, f_mediumint, f_mediumint_unsigned, f_int, f_int_unsigned, f_integer, f_integer_unsigned," +
		" f_bigint, f_bigint_unsigned, f_numeric, f_decimal, f_float, f_double, f_double_precision, f_longtext, f_mediumtext," +
		" f_text, f_tinytext, f_varchar, f_date, f_datetime, f_timestamp, f_bit1, cast(f_bit64 as char) as f_bit64, f_char," +
		" f_enum, cast(f_mediumblob as char) as f_mediumblob, f_long_varchar, f_real, f_time, f_tinyint, f_tinyint_unsigned," +
		" f_json, f_year from %s.%s" // the IT casts f_year AS YEAR, which MariaDB lacks; the column is a year already
)

// MysqlCDCIT.upsertDeleteSourceTable's statements, for its table
// mysql_cdc.mysql_cdc_e2e_source_table (upsertDelete names another).
var upsertDeleteStmts = []string{
	`INSERT INTO mysql_cdc.mysql_cdc_e2e_source_table ( id, f_binary, f_blob, f_long_varbinary, f_longblob, f_tinyblob, f_varbinary, f_smallint,
                                         f_smallint_unsigned, f_mediumint, f_mediumint_unsigned, f_int, f_int_unsigned, f_integer,
                                         f_integer_unsigned, f_bigint, f_bigint_unsigned, f_numeric, f_decimal, f_float, f_double,
                                         f_double_precision, f_longtext, f_mediumtext, f_text, f_tinytext, f_varchar, f_date, f_datetime,
                                         f_timestamp, f_bit1, f_bit64, f_char, f_enum, f_mediumblob, f_long_varchar, f_real, f_time,
                                         f_tinyint, f_tinyint_unsigned, f_json, f_year )
VALUES ( 5, 0x61626374000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000,
         0x68656C6C6F, 0x18000000789C0BC9C82C5600A244859CFCBC7485B2C4A2A4CCBCC4A24A00697308D4, NULL,
         0x74696E79626C6F62, 0x48656C6C6F20776F726C64, 12345, 54321, 123456, 654321, 1234567, 7654321, 1234567, 7654321,
         123456789, 987654321, 123, 789, 12.34, 56.78, 90.12, 'This is a long text field', 'This is a medium text field',
         'This is a text field', 'This is a tiny text field', 'This is a varchar field', '2022-04-27', '2022-04-27 14:30:00',
         '2023-04-27 11:08:40', 1, b'0101010101010101010101010101010101010101010101010101010101010101', 'C', 'enum2',
         0x1B000000789C0BC9C82C5600A24485DCD494CCD25C85A49CFC2485B4CCD49C140083FF099A, 'This is a long varchar field',
         12.345, '14:30:00', -128, 255, '{ "key": "value" }', 1992 )`,
	`INSERT INTO mysql_cdc.mysql_cdc_e2e_source_table ( id, f_binary, f_blob, f_long_varbinary, f_longblob, f_tinyblob, f_varbinary, f_smallint,
                                         f_smallint_unsigned, f_mediumint, f_mediumint_unsigned, f_int, f_int_unsigned, f_integer,
                                         f_integer_unsigned, f_bigint, f_bigint_unsigned, f_numeric, f_decimal, f_float, f_double,
                                         f_double_precision, f_longtext, f_mediumtext, f_text, f_tinytext, f_varchar, f_date, f_datetime,
                                         f_timestamp, f_bit1, f_bit64, f_char, f_enum, f_mediumblob, f_long_varchar, f_real, f_time,
                                         f_tinyint, f_tinyint_unsigned, f_json, f_year )
VALUES ( 6, 0x61626374000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000,
         0x68656C6C6F, 0x18000000789C0BC9C82C5600A244859CFCBC7485B2C4A2A4CCBCC4A24A00697308D4, NULL,
         0x74696E79626C6F62, 0x48656C6C6F20776F726C64, 12345, 54321, 123456, 654321, 1234567, 7654321, 1234567, 7654321,
         123456789, 987654321, 123, 789, 12.34, 56.78, 90.12, 'This is a long text field', 'This is a medium text field',
         'This is a text field', 'This is a tiny text field', 'This is a varchar field', '2022-04-27', '2022-04-27 14:30:00',
         '2023-04-27 11:08:40', 1, b'0101010101010101010101010101010101010101010101010101010101010101', 'C', 'enum2',
         0x1B000000789C0BC9C82C5600A24485DCD494CCD25C85A49CFC2485B4CCD49C140083FF099A, 'This is a long varchar field',
         12.345, '14:30:00', -128, 255, '{ "key": "value" }', 1999 )`,
	"DELETE FROM mysql_cdc.mysql_cdc_e2e_source_table where id = 2",
	"UPDATE mysql_cdc.mysql_cdc_e2e_source_table SET f_bigint = 10000 where id = 3",
}

// upsertDelete runs upsertDeleteSourceTable on database.table.
func upsertDelete(t *testing.T, db *sql.DB, database, table string) {
	t.Helper()
	for _, s := range upsertDeleteStmts {
		exec1(t, db, strings.Replace(s, "mysql_cdc.mysql_cdc_e2e_source_table", database+"."+table, 1))
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return c
}

// setUp makes MysqlCDCIT's users and database (once per test binary).
func setUp(t *testing.T) *sql.DB {
	t.Helper()
	netns.Require(t)
	my := servers.MariaDB(t)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.MultiStatements = dbtest.User, "tcp", fmt.Sprintf("%s:%d", my.Host, my.Port), true
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var n int
	if err := db.QueryRowContext(ctx(t), "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'mysql_cdc'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		return db
	}
	ddl, err := os.ReadFile(filepath.Join("testdata", "mysql_cdc.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		// docker/setup.sql
		"CREATE USER 'st_user_source' IDENTIFIED BY 'mysqlpw'",
		"GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, DROP, LOCK TABLES ON *.* TO 'st_user_source'@'%'",
		"CREATE USER 'st_user_sink' IDENTIFIED BY 'mysqlpw'",
		"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON *.* TO 'st_user_sink'@'%'",
		strings.ReplaceAll(string(ddl), "utf8mb4_0900_ai_ci", "utf8mb4_general_ci"),
	} {
		if _, err := db.ExecContext(ctx(t), stmt); err != nil {
			t.Fatalf("setup %.80q: %v", stmt, err)
		}
	}
	return db
}

func query(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx(t), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = "<NULL>"
			if v.Valid {
				parts[i] = v.String
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pair is a source query and the sink query that must return its rows.
type pair struct{ source, sink string }

// sameTable compares the IT's source and sink tables (sinkSQL).
func sameTable(db1, t1, db2, t2 string) pair {
	return pair{fmt.Sprintf(sourceSQL, db1, t1), fmt.Sprintf(sinkSQL, db2, t2)}
}

// copied compares a source table with its copy in another database, both
// read with sourceSQL (as the IT's multi-table tests do).
func copied(table string) pair {
	return pair{fmt.Sprintf(sourceSQL, "mysql_cdc", table), fmt.Sprintf(sourceSQL, "mysql_cdc2", table)}
}

// await waits (60 s, as the IT) until every pair agrees, failing with the
// first difference.
func await(t *testing.T, db *sql.DB, done <-chan struct{}, log string, stage string, pairs ...pair) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		same := true
		var got, want []string
		for _, p := range pairs {
			want, got = query(t, db, p.source), query(t, db, p.sink)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				same = false
				break
			}
		}
		if same {
			return
		}
		select {
		case <-done:
			t.Fatalf("%s: the job ended\n%s", stage, readLog(log))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the sink table differs from the source table after 60 s:\nsink   %q\nsource %q\n%s", stage, got, want, readLog(log))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// runStreaming starts `stactor run` on a testdata file and ends it when the
// test ends; it returns a channel closed when the run ends and the file
// its output goes to.
func runStreaming(t *testing.T, file string) (<-chan struct{}, string) {
	t.Helper()
	r := startStactor(t, t.TempDir(), file)
	return r.done, r.log
}

// run is a `stactor run` process.
type run struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when it ended
	log  string        // the file its output goes to
}

// startStactor starts `stactor run -c FILE ARGS…` on a testdata file with
// STACTOR_HOME home (where its checkpoints are: a restore needs the
// same); the process is killed when the test ends.
func startStactor(t *testing.T, home, file string, args ...string) *run {
	t.Helper()
	job, err := filepath.Abs(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "stactor.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, append([]string{"run", "-c", job}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+home)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &run{cmd: cmd, done: make(chan struct{}), log: log}
	go func() { cmd.Wait(); f.Close(); close(r.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-r.done
		if s := readLog(log); strings.Contains(s, "panic:") {
			t.Errorf("stactor run %s printed a panic:\n%s", file, s)
		}
	})
	return r
}

// readLog is the end of a run's output.
func readLog(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}

func exec1(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx(t), s); err != nil {
			t.Fatalf("%.80q: %v", s, err)
		}
	}
}

// MysqlCDCIT.testMysqlCdcCheckDataE2e: an empty table snapshotted, then
// the upserts and deletes streamed (through a Sql transform).
func TestMysqlCdcCheckDataE2e(t *testing.T) {
	db := setUp(t)
	exec1(t, db, "truncate table mysql_cdc.mysql_cdc_e2e_source_table", "truncate table mysql_cdc.mysql_cdc_e2e_sink_table")
	done, log := runStreaming(t, "mysqlcdc_to_mysql.conf")
	main := sameTable("mysql_cdc", "mysql_cdc_e2e_source_table", "mysql_cdc", "mysql_cdc_e2e_sink_table")
	await(t, db, done, log, "snapshot", main)
	upsertDelete(t, db, "mysql_cdc", "mysql_cdc_e2e_source_table")
	await(t, db, done, log, "stream", main)
}

// MysqlCDCIT.testMysqlCdcCheckDataWithDisableExactlyonce: the IT's rows
// snapshotted in chunks of one row, then all deleted and the upserts
// streamed.
func TestMysqlCdcCheckDataWithDisableExactlyonce(t *testing.T) {
	db := setUp(t)
	exec1(t, db, "truncate table mysql_cdc.mysql_cdc_e2e_sink_table")
	if n := len(query(t, db, fmt.Sprintf(sourceSQL, "mysql_cdc", "mysql_cdc_e2e_source_table"))); n == 0 {
		// The first test emptied it; put the DDL's rows back.
		ddl, err := os.ReadFile(filepath.Join("testdata", "mysql_cdc.sql"))
		if err != nil {
			t.Fatal(err)
		}
		s := string(ddl)
		i := strings.Index(s, "INSERT INTO mysql_cdc_e2e_source_table (")
		j := strings.Index(s[i:], ";")
		exec1(t, db, "USE mysql_cdc;\n"+s[i:i+j])
	}
	done, log := runStreaming(t, "mysqlcdc_to_mysql_with_disable_exactly_once.conf")
	main := sameTable("mysql_cdc", "mysql_cdc_e2e_source_table", "mysql_cdc", "mysql_cdc_e2e_sink_table")
	await(t, db, done, log, "snapshot", main)
	exec1(t, db, "DELETE FROM mysql_cdc.mysql_cdc_e2e_source_table")
	upsertDelete(t, db, "mysql_cdc", "mysql_cdc_e2e_source_table")
	await(t, db, done, log, "stream", main)
}

// MysqlCDCIT.testMysqlCdcCheckDataWithNoPrimaryKey: a table without a key
// (one snapshot chunk, at least once) into a sink keyed by id.
func TestMysqlCdcCheckDataWithNoPrimaryKey(t *testing.T) {
	db := setUp(t)
	exec1(t, db, "truncate table mysql_cdc.mysql_cdc_e2e_sink_table")
	done, log := runStreaming(t, "mysqlcdc_to_mysql_with_no_primary_key.conf")
	p := sameTable("mysql_cdc", "mysql_cdc_e2e_source_table_no_primary_key", "mysql_cdc", "mysql_cdc_e2e_sink_table")
	await(t, db, done, log, "snapshot", p)
	exec1(t, db, "DELETE FROM mysql_cdc.mysql_cdc_e2e_source_table_no_primary_key")
	upsertDelete(t, db, "mysql_cdc", "mysql_cdc_e2e_source_table_no_primary_key")
	await(t, db, done, log, "stream", p)
}

// MysqlCDCIT.testMysqlCdcMultiTableE2e: two tables (parallelism 3, a
// server-id range) into their namesakes of another database.
func TestMysqlCdcMultiTableE2e(t *testing.T) {
	db := setUp(t)
	tables := []string{"mysql_cdc_e2e_source_table", "mysql_cdc_e2e_source_table2"}
	for _, tb := range tables {
		exec1(t, db, "truncate table mysql_cdc."+tb, "truncate table mysql_cdc2."+tb)
	}
	done, log := runStreaming(t, "mysqlcdc_to_mysql_with_multi_table_mode_two_table.conf")
	for _, tb := range tables {
		upsertDelete(t, db, "mysql_cdc", tb)
	}
	await(t, db, done, log, "stream", copied(tables[0]), copied(tables[1]))
}

// MysqlCDCIT.testMysqlCdcMultiTableWithCustomPrimaryKey: tables keyed by
// table-names-config's primaryKeys.
func TestMysqlCdcMultiTableWithCustomPrimaryKey(t *testing.T) {
	db := setUp(t)
	tables := []string{"mysql_cdc_e2e_source_table_1_custom_primary_key", "mysql_cdc_e2e_source_table_2_custom_primary_key"}
	for _, tb := range tables {
		exec1(t, db, "truncate table mysql_cdc."+tb, "truncate table mysql_cdc2."+tb)
	}
	done, log := runStreaming(t, "mysqlcdc_to_mysql_with_custom_primary_key.conf")
	for _, tb := range tables {
		upsertDelete(t, db, "mysql_cdc", tb)
	}
	await(t, db, done, log, "stream", copied(tables[0]), copied(tables[1]))
}

// MysqlCDCIT.testMultiTableWithRestore: a job capturing one table is
// stopped with a savepoint and restored from it with the two-table file:
// the second table, written to meanwhile, is snapshotted and streamed
// beside the first, which carries on from where it was. As the IT, once
// each stage agrees, the source and the sink each hold one connection
// (the readers' snapshot connections closed), and the runs log no error.
func TestMultiTableWithRestore(t *testing.T) {
	db := setUp(t)
	tables := []string{"mysql_cdc_e2e_source_table", "mysql_cdc_e2e_source_table2"}
	for _, tb := range tables {
		exec1(t, db, "truncate table mysql_cdc."+tb, "truncate table mysql_cdc2."+tb)
	}
	home, id := t.TempDir(), fmt.Sprintf("%d", time.Now().UnixNano())
	first := startStactor(t, home, "mysqlcdc_to_mysql_with_multi_table_mode_one_table.conf", "--job-id", id)
	upsertDelete(t, db, "mysql_cdc", tables[0])
	await(t, db, first.done, first.log, "stream (one table)", copied(tables[0]))
	awaitConnections(t, db, first)

	// container.savepointJob: Ctrl-C's savepoint (README), then the exit.
	if err := first.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("no exit 2 minutes after the savepoint was asked for\n%s", readLog(first.log))
	}
	// 130: stopped by an interrupt, as the README says.
	if code := first.cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(readLog(first.log), "SAVEPOINT_DONE") {
		t.Fatalf("the savepoint: exit code %d\n%s", code, readLog(first.log))
	}
	// Written while the job is stopped: the restored job's snapshot of
	// the new table holds it.
	upsertDelete(t, db, "mysql_cdc", tables[1])

	second := startStactor(t, home, "mysqlcdc_to_mysql_with_multi_table_mode_two_table.conf", "--restore", id)
	await(t, db, second.done, second.log, "stream (restored with two tables)", copied(tables[0]), copied(tables[1]))
	exec1(t, db, "UPDATE mysql_cdc."+tables[0]+" SET f_bigint = 20000 where id = 3", "UPDATE mysql_cdc."+tables[1]+" SET f_bigint = 20000 where id = 3",
		"DELETE FROM mysql_cdc."+tables[1]+" where id = 5")
	await(t, db, second.done, second.log, "stream after the restore", copied(tables[0]), copied(tables[1]))
	awaitConnections(t, db, second)
	for _, r := range []*run{first, second} {
		b, _ := os.ReadFile(r.log)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "ERROR") || strings.Contains(l, `"level":"error"`) {
				t.Errorf("%s logged an error: %s", r.cmd.Args[3], l)
			}
		}
	}
}

// awaitConnections waits (60 s, as the IT) until the source's user holds
// one connection to the server, the stream's (the readers' and the
// enumerator's snapshot connections closed), and the sink's at most one.
// The IT wants exactly one of the sink's, the session SeaTunnel's writer
// behind the stream keeps; a stactor Jdbc writer closes a session idle
// for two checkpoints (connectors/jdbc, releaseIdle), so none may remain.
func awaitConnections(t *testing.T, db *sql.DB, r *run) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var src, snk int
		q := "select count(*) from information_schema.processlist where USER = ?"
		if err := db.QueryRowContext(ctx(t), q, "st_user_source").Scan(&src); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx(t), q, "st_user_sink").Scan(&snk); err != nil {
			t.Fatal(err)
		}
		if src == 1 && snk <= 1 {
			return
		}
		if time.Now().After(deadline) {
			list := query(t, db, "select USER, HOST, DB, COMMAND, TIME, STATE, INFO from information_schema.processlist where USER in ('st_user_source', 'st_user_sink')")
			t.Fatalf("after 60 s st_user_source holds %d connections and st_user_sink %d, not 1 and at most 1:\n%s\n%s", src, snk, strings.Join(list, "\n"), readLog(r.log))
		}
		time.Sleep(time.Second)
	}
}
