package cdcmysql

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SeaTunnel's MysqlCDCWithSchemaChangeIT: its shop database (ddl/shop.sql)
// made, the job streaming shop.products into a Jdbc sink table, and the
// IT's DDL scripts run one after the other — add_columns (ADD COLUMN with
// NOT NULL defaults, CURRENT_TIMESTAMP among them, two clauses in one
// statement, with rows between), drop_columns, change_columns (a rename
// with a type), modify_columns — each followed, as the IT checks, by the
// sink table's DESC equal to the source's (the columns, types,
// nullability, keys and defaults) and its rows equal too. Both job files:
// the upsert sink, and is_exactly_once (XA). The IT leaves its first job
// running while the second's shop.sql drops and recreates the captured
// table; here the first run ends before that.

// The IT's queries.
const (
	descSQL       = "desc %s.%s"
	querySQL      = "select * from %s.%s"
	projectionSQL = "select id,name,description,weight,add_column1,add_column2,add_column3 from %s.%s"
)

// runScript runs one of the IT's DDL scripts (testdata), as its
// UniqueDatabase.createAndInitialize does.
func runScript(t *testing.T, db *sql.DB, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	exec1(t, db, string(b))
}

func TestMysqlCdcWithSchemaEvolutionCase(t *testing.T) {
	schemaEvolution(t, "mysqlcdc_to_mysql_with_schema_change.conf", "mysql_cdc_e2e_sink_table_with_schema_change")
}

func TestMysqlCdcWithSchemaEvolutionCaseExactlyOnce(t *testing.T) {
	schemaEvolution(t, "mysqlcdc_to_mysql_with_schema_change_exactly_once.conf", "mysql_cdc_e2e_sink_table_with_schema_change_exactly_once")
}

// schemaEvolution is the IT's assertSchemaEvolution for one job file and
// its sink table.
func schemaEvolution(t *testing.T, file, sink string) {
	db := setUp(t)
	runScript(t, db, "shop")
	r := startStactor(t, t.TempDir(), file)
	const database, source = "shop", "products"
	same := func(q string) pair { return pair{fmt.Sprintf(q, database, source), fmt.Sprintf(q, database, sink)} }
	where := func(q, cond string) pair { p := same(q); return pair{p.source + cond, p.sink + cond} }
	// The IT waits 30 s for each; a change takes two checkpoints of 5 s
	// to reach the sink (connectors/cdc, ddlGate), as SeaTunnel's do.
	await(t, db, r.done, r.log, "snapshot", same(querySQL))

	// case1: add columns with cdc data at the same time.
	runScript(t, db, "add_columns")
	await(t, db, r.done, r.log, "add_columns: desc", same(descSQL))
	await(t, db, r.done, r.log, "add_columns: rows", where(querySQL, " where id >= 128"), same(projectionSQL))
	// add_column4's default is current_timestamp(): the sink's older
	// rows got it when the sink ran the ALTER, within 3 s of the source.
	for _, l := range query(t, db, fmt.Sprintf("SELECT t1.id, ABS(TIMESTAMPDIFF(SECOND, t1.add_column4, t2.add_column4)) FROM %s.%s t1 INNER JOIN %s.%s t2 ON t1.id = t2.id", database, source, database, sink)) {
		id, diff, _ := strings.Cut(l, "|")
		if n, err := strconv.Atoi(diff); err != nil || n > 3 {
			t.Errorf("row %s: add_column4 %s s apart (more than 3)", id, diff)
		}
	}

	// case2..4: drop columns, change a column's name, modify a type.
	for _, script := range []string{"drop_columns", "change_columns", "modify_columns"} {
		runScript(t, db, script)
		await(t, db, r.done, r.log, script+": desc", same(descSQL))
		await(t, db, r.done, r.log, script+": rows", same(querySQL))
	}
	for _, l := range strings.Split(readLog(r.log), "\n") {
		if strings.Contains(l, `"level":"error"`) {
			t.Errorf("the run logged an error: %s", l)
		}
	}
	r.cmd.Process.Kill()
	select {
	case <-r.done:
	case <-time.After(time.Minute):
		t.Fatal("the run did not end after it was killed")
	}
}
