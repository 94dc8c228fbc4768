// Package jdbc runs SeaTunnel's own Jdbc e2e job files for PostgreSQL and
// MySQL through the stactor binary, byte for byte unchanged (testdata, each
// file's first line naming where it came from), the way SeaTunnel's
// JdbcPostgresIT, JdbcPostgresIdentifierIT, JdbcMysqlIT and
// JdbcMysqlMultipleTablesIT run them: the same tables created and
// filled first, the job run, then the sink table compared with the source
// table value by value, the sink emptied before the next file.
//
// The files name their servers as SeaTunnel's Docker network does
// (postgresql:5432 with user test, mysql-e2e:3306 with root and its
// password). The test binary runs in network and mount namespaces of its
// own (tests/internal/netns) where those names resolve to 127.0.0.1 and
// the private servers of internal/dbtest listen on exactly those ports;
// the machine's own servers are never touched. The PostgreSQL files read
// PostGIS geometry columns, so PostGIS must be installed
// (tools/test-deps.sh installs it with the server).
package jdbc

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
	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/tests/internal/netns"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var (
	binary  string
	servers dbtest.Servers
)

// What SeaTunnel's ITs give their containers.
const (
	pgUser, pgPassword, pgDatabase = "test", "test", "test"
	myUser, myPassword, myDatabase = "root", "Abc!@#135_seatunnel", "seatunnel"
)

func TestMain(m *testing.M) {
	// The binary is built outside the namespaces (where the module proxy is
	// reachable) and handed to the re-executed test binary.
	os.Exit(stactorbin.Main(func() int {
		os.Setenv(stactorbin.EnvBinary, binary)
		return netns.Main(func() int {
			return servers.Run(m,
				dbtest.WithPostgres(dbtest.WithPort(5432), dbtest.WithMaxPreparedTransactions(100)),
				dbtest.WithMariaDB(dbtest.WithMariaDBPort(3306)))
		}, "postgresql", "mysql-e2e")
	}, &binary))
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return c
}

// runFile runs `stactor run` on a testdata file and fails the test when it
// does not exit 0.
func runFile(t *testing.T, name string) {
	t.Helper()
	job, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", "-c", job)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+t.TempDir())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stactor run %s: %v\n%s", name, err, tail(string(out)))
	}
	if s := string(out); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Fatalf("stactor run %s printed a panic:\n%s", name, tail(s))
	}
	t.Logf("%s ran in %v", name, time.Since(start).Round(time.Millisecond))
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

// compare fails t unless got and want hold the same rows in the same order,
// naming the first difference.
func compare(t *testing.T, file string, want, got [][]string, columns []string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the source query returned no rows", file)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: sink has %d rows, source %d", file, len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("%s: row %d column %s: sink %q, source %q", file, i+1, columns[j], got[i][j], want[i][j])
			}
		}
	}
}

// nullText is how a NULL is shown in comparisons.
const nullText = "<NULL>"

// --- PostgreSQL (JdbcPostgresIT) ---

// pgSetUp makes what JdbcPostgresIT's container and initializeJdbcTable
// make: user and database test, PostGIS, the source table with 1,000 rows
// and the empty sink table.
func pgSetUp(t *testing.T) *pgx.Conn {
	conn := pgConnect(t)
	for _, stmt := range []string{"DROP TABLE IF EXISTS pg_e2e_source_table", "DROP TABLE IF EXISTS pg_e2e_sink_table", pgSourceDDL, pgSinkDDL} {
		if _, err := conn.Exec(ctx(t), stmt); err != nil {
			t.Fatal(err)
		}
	}
	batch := &pgx.Batch{}
	for i := 1; i <= 1000; i++ {
		batch.Queue(fmt.Sprintf(pgInsert, i))
	}
	if err := conn.SendBatch(ctx(t), batch).Close(); err != nil {
		t.Fatal(err)
	}
	return conn
}

// pgConnect makes the IT container's user and database test with PostGIS
// (once: the server is shared by the package's tests) and connects to it.
func pgConnect(t *testing.T) *pgx.Conn {
	pg := servers.Postgres(t)
	for _, stmt := range []string{
		"CREATE ROLE " + pgUser + " LOGIN SUPERUSER PASSWORD '" + pgPassword + "'",
		"CREATE DATABASE " + pgDatabase + " OWNER " + pgUser,
	} {
		if err := pg.Exec(ctx(t), "postgres", stmt); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx(t), pg.DSN(pgDatabase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx(t), "CREATE EXTENSION IF NOT EXISTS postgis"); err != nil {
		t.Skipf("PostGIS is not installed (Debian package postgresql-<version>-postgis-3; go tool task deps installs it): %v", err)
	}
	return conn
}

// pgQuery reads a query's rows in the server's text form, ordered by the
// first column (gid).
func pgQuery(t *testing.T, conn *pgx.Conn, query string) ([][]string, []string) {
	query = strings.TrimSuffix(strings.TrimSpace(query), ";")
	rows, err := conn.Query(ctx(t), "SELECT * FROM ("+query+") q ORDER BY 1", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	var out [][]string
	for rows.Next() {
		raw := rows.RawValues()
		vals := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				vals[i] = nullText
			} else {
				vals[i] = string(v)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out, cols
}

func TestPostgresFiles(t *testing.T) {
	netns.Require(t)
	conn := pgSetUp(t)
	for _, file := range []string{
		"jdbc_postgres_source_and_sink.conf",
		"jdbc_postgres_source_and_sink_copy_stmt.conf",
		"jdbc_postgres_source_and_sink_parallel.conf",
		"jdbc_postgres_source_and_sink_parallel_upper_lower.conf",
		"jdbc_postgres_source_and_sink_xa.conf",
	} {
		t.Run(strings.TrimSuffix(file, ".conf"), func(t *testing.T) {
			t.Cleanup(func() { conn.Exec(context.Background(), "truncate table pg_e2e_sink_table") })
			runFile(t, file)
			want, cols := pgQuery(t, conn, pgSourceSQL)
			got, _ := pgQuery(t, conn, pgSinkSQL)
			compare(t, file, want, got, cols)
		})
	}
}

// JdbcPostgresIdentifierIT: 10 rows into a sink table whose names are
// upper case (field_ide = UPPERCASE), an inet column among them.
func TestPostgresIdentifierFile(t *testing.T) {
	netns.Require(t)
	conn := pgConnect(t)
	for _, stmt := range []string{"DROP TABLE IF EXISTS pg_ide_source_table", `DROP TABLE IF EXISTS "PG_IDE_SINK_TABLE"`, pgIdeSourceDDL, pgIdeSinkDDL} {
		if _, err := conn.Exec(ctx(t), stmt); err != nil {
			t.Fatal(err)
		}
	}
	batch := &pgx.Batch{}
	for i := 1; i <= 10; i++ {
		batch.Queue(fmt.Sprintf(pgIdeInsert, i))
	}
	if err := conn.SendBatch(ctx(t), batch).Close(); err != nil {
		t.Fatal(err)
	}
	const file = "jdbc_postgres_ide_source_and_sink.conf"
	runFile(t, file)
	want, cols := pgQuery(t, conn, pgIdeSourceSQL)
	got, _ := pgQuery(t, conn, pgIdeSinkSQL)
	compare(t, file, want, got, cols)
}

// --- MySQL (JdbcMysqlIT) ---

// mySetUp makes what JdbcMysqlIT's container and AbstractJdbcIT make: root
// with the IT's password over TCP, database seatunnel, the source table
// with the IT's 100 rows and the empty sink table.
func mySetUp(t *testing.T) *sql.DB {
	db := myConnect(t)
	for _, table := range []string{"source", "sink"} {
		if _, err := db.ExecContext(ctx(t), "DROP TABLE IF EXISTS "+table); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx(t), fmt.Sprintf(myCreateSQL, table)); err != nil {
			t.Fatal(err)
		}
	}
	insert := "INSERT INTO source (" + strings.Join(myFields, ", ") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(myFields)), ", ") + ")"
	for _, r := range myTestData(time.Now()) {
		if _, err := db.ExecContext(ctx(t), insert, r...); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// myConnect makes the IT's root account and database (again: the server
// is shared by the package's tests) and connects to it as the files do.
func myConnect(t *testing.T) *sql.DB {
	my := servers.MariaDB(t)
	for _, stmt := range []string{
		"CREATE USER IF NOT EXISTS '" + myUser + "'@'127.0.0.1'",
		"ALTER USER '" + myUser + "'@'127.0.0.1' IDENTIFIED BY '" + myPassword + "'",
		"GRANT ALL ON *.* TO '" + myUser + "'@'127.0.0.1' WITH GRANT OPTION",
		"CREATE DATABASE IF NOT EXISTS " + myDatabase,
	} {
		if err := my.Exec(ctx(t), "test", stmt); err != nil {
			t.Fatal(err)
		}
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = myUser, myPassword, "tcp", "mysql-e2e:3306", myDatabase
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// myTestData is JdbcMysqlIT.initTestData: 99 rows of values and one of
// nulls but for the two unique 30-digit columns.
func myTestData(now time.Time) [][]any { return myRows(now, true) }

// myRows are the rows of JdbcMysqlIT.initTestData (nullRow) or, with the
// hundredth row like the others, of JdbcMysqlMultipleTablesIT, in
// myFields' order.
func myRows(now time.Time, nullRow bool) [][]any {
	const bigint, decimal = "2844674407371055000", "999999999999999999999999999899"
	add := func(base string, i int) string { // base + i, base's last digits being 0s or 899
		n := len(base)
		var v int
		fmt.Sscan(base[n-3:], &v)
		return base[:n-3] + fmt.Sprintf("%03d", v+i)
	}
	var rows [][]any
	for i := 0; i < 100; i++ {
		if i == 99 && nullRow {
			r := make([]any, len(myFields))
			r[42], r[43] = add(bigint, i), add(decimal, i)
			rows = append(rows, r)
			continue
		}
		b := byte(i)
		rows = append(rows, []any{
			map[bool]int{true: 1, false: 0}[i%2 == 0],
			[]byte{b}, []byte{b, b}, []byte{b, b, b, b}, []byte{b, b, b, b, b, b, b, b},
			i%2 == 0,
			i, i, i, i, i, i, i, i, i, // tinyint … c_year
			1, 1, 1, // c_int_unsigned, c_integer_unsigned, c_bigint
			fmt.Sprint(i), fmt.Sprintf("%d.%018d", 0, i), fmt.Sprintf("%d.%018d", 0, i), // bigint_unsigned, decimal, decimal_unsigned
			float32(1.1), float32(1.1), 1.1, 1.1,
			"f",
			fmt.Sprintf("f1_%d", i), fmt.Sprintf("f1_%d", i), fmt.Sprintf("f1_%d", i), fmt.Sprintf("f1_%d", i),
			fmt.Sprintf(`{"aa":"bb_%d"}`, i), fmt.Sprintf("f1_%d", i),
			now.Format("2006-01-02"), now.Format("2006-01-02 15:04:05.000"), now.Format("15:04:05"), now.Format("2006-01-02 15:04:05.000"),
			[]byte("test"), []byte("test"), []byte("test"), []byte("test"), []byte("test"), []byte("f"),
			add(bigint, i), add(decimal, i), add(decimal, i),
		})
	}
	return rows
}

// myQuery reads the IT's comparison query (SELECT * … ORDER BY
// c_bigint_30) as the server's text of each field of myFields.
func myQuery(t *testing.T, db *sql.DB, table string) [][]string {
	return myQueryFields(t, db, table, myFields)
}

func myQueryFields(t *testing.T, db *sql.DB, table string, fields []string) [][]string {
	rows, err := db.QueryContext(ctx(t), "SELECT "+strings.Join(fields, ", ")+" FROM "+table+" ORDER BY c_bigint_30")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		raw := make([]sql.RawBytes, len(fields))
		ptrs := make([]any, len(raw))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		vals := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				vals[i] = nullText
			} else {
				vals[i] = string(v)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMySQLFiles(t *testing.T) {
	netns.Require(t)
	db := mySetUp(t)
	for _, file := range []string{
		"jdbc_mysql_source_and_sink.conf",
		"jdbc_mysql_source_and_sink_parallel.conf",
		"jdbc_mysql_source_and_sink_parallel_upper_lower.conf",
	} {
		t.Run(strings.TrimSuffix(file, ".conf"), func(t *testing.T) {
			t.Cleanup(func() { db.Exec("TRUNCATE TABLE sink") })
			runFile(t, file)
			compare(t, file, myQuery(t, db, "source"), myQuery(t, db, "sink"), myFields)
		})
	}
}

// JdbcMysqlMultipleTablesIT: tables source.table1 and source.table2 with
// its 100 rows each, empty sink.table1 and sink.table2; one file reads a
// table_path, the other a table_list into ${table_name}.
func TestMySQLMultipleTablesFiles(t *testing.T) {
	netns.Require(t)
	db := myConnect(t)
	var fields []string
	drop := -1
	for i, f := range myFields {
		if f == "c_time" {
			drop = i
			continue
		}
		fields = append(fields, f)
	}
	if strings.Join(fields, ",") != strings.Join(myMultiFields, ",") {
		t.Fatalf("JdbcMysqlMultipleTablesIT's fields are not JdbcMysqlIT's without c_time: %v", myMultiFields)
	}
	insert := func(table string) {
		q := "INSERT INTO " + table + " (" + strings.Join(fields, ", ") + ") VALUES (" +
			strings.TrimSuffix(strings.Repeat("?, ", len(fields)), ", ") + ")"
		for _, r := range myRows(time.Now(), false) {
			r = append(append([]any(nil), r[:drop]...), r[drop+1:]...)
			if _, err := db.ExecContext(ctx(t), q, r...); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, database := range []string{"source", "sink"} {
		if _, err := db.ExecContext(ctx(t), "CREATE DATABASE IF NOT EXISTS "+database); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"table1", "table2"} {
			if _, err := db.ExecContext(ctx(t), fmt.Sprintf(myMultiCreateSQL, database+"."+table)); err != nil {
				t.Fatal(err)
			}
			if database == "source" {
				insert(database + "." + table)
			}
		}
	}
	for _, tc := range []struct {
		file   string
		tables []string
	}{
		{"jdbc_mysql_source_using_table_path.conf", []string{"table1"}},
		{"jdbc_mysql_source_and_sink_with_multiple_tables.conf", []string{"table1", "table2"}},
	} {
		t.Run(strings.TrimSuffix(tc.file, ".conf"), func(t *testing.T) {
			t.Cleanup(func() {
				db.Exec("TRUNCATE TABLE sink.table1")
				db.Exec("TRUNCATE TABLE sink.table2")
			})
			runFile(t, tc.file)
			for _, table := range tc.tables {
				compare(t, tc.file+" "+table, myQueryFields(t, db, "source."+table, fields), myQueryFields(t, db, "sink."+table, fields), fields)
			}
		})
	}
}
