package mysql

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/row"
)

var confTables atomic.Int64

// The shared source suite on MySQL-CDC's snapshot, bounded by stop.mode
// = latest, as for Postgres-CDC (cdc/postgres/conformance_test.go): the
// Jdbc sink fills each table and the source reads it back chunk by chunk
// between binlog watermarks. MariaDB has no arrays, and no timestamp_tz:
// the sink writes its instant in UTC to a datetime, which reads back as a
// timestamp.
func TestConformanceSource(t *testing.T) {
	my := servers.MariaDB(t)
	myExec(t, myDB(t, ""), "CREATE DATABASE IF NOT EXISTS conf_cdc")
	types := conformance.Without(conformance.AllTypes(), "null", "map<string, int>", "row<a int, b string>", "array<int>", "array<string>")
	conn := fmt.Sprintf("base-url = %q\nusername = %q\npassword = \"\"\n", my.JDBCURL(""), dbtest.User)
	conformance.RunSource(t, conformance.Source{
		Factory:  cdc.Factory(Spec),
		Types:    types,
		Expected: conformance.TimestampTZAtUTC,
		ReadsAs:  conformance.TimestampTZAsTimestamp,
		// the stream split follows the chunks once they are read
		EndsAfterReading: true,
		Table: func(_ string, schema *row.Schema, rows [][]any) (string, error) {
			table := fmt.Sprintf("conf_%d", confTables.Add(1))
			myExec(t, myDB(t, "conf_cdc"), "DROP TABLE IF EXISTS "+table)
			sink := fmt.Sprintf("url = %q\ndriver = \"org.mariadb.jdbc.Driver\"\nuser = %q\ndatabase = conf_cdc\ntable = %q\nprimary_keys = [id]\n",
				my.JDBCURL("conf_cdc"), dbtest.User, "conf_cdc."+table)
			if err := conformance.Commit(jdbc.SinkFactory, sink, schema, rows); err != nil {
				return "", err
			}
			return conn + fmt.Sprintf("table-names = [%q]\nserver-id = \"7300-7310\"\nstop.mode = latest\nsnapshot.split.size = 9\nexactly_once = true\n", "conf_cdc."+table), nil
		},
		BadOptions: []conformance.BadOption{
			{Name: "NoTables", Body: conn, Error: "table-names"},
			{Name: "MissingTable", Body: conn + "table-names = [\"conf_cdc.no_such_table\"]\n", Error: "no_such_table"},
			{Name: "BadServerID", Body: conn + "table-names = [\"conf_cdc.x\"]\nserver-id = \"9-3\"\n", Error: "server-id"},
		},
		DeadServer: &conformance.BadOption{Name: "DeadServer",
			Body:  "base-url = \"jdbc:mysql://127.0.0.1:1/db\"\nusername = u\npassword = p\ntable-names = [\"db.t\"]\nconnect.timeout.ms = 2000\nconnect.max-retries = 0\n",
			Error: "127.0.0.1:1"},
	})
}
