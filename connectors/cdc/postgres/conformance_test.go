package postgres

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
)

var confTables atomic.Int64

// Postgres-CDC runs the shared source suite on its snapshot: with
// stop.mode = latest the source is bounded, reads each table (filled by
// the Jdbc sink, which creates it from the catalog table with its primary
// key) chunk by chunk and ends at the log's position at start, so the suite
// checks types, snapshots and restores of its chunk positions, rescaling,
// the poll bound and bad options as for any replayable source.
func TestConformanceSource(t *testing.T) {
	pg := servers.Postgres(t)
	types := conformance.Without(conformance.AllTypes(), "null", "tinyint", "map<string, int>", "row<a int, b string>")
	conformance.RunSource(t, conformance.Source{
		Factory:  cdc.Factory(Spec),
		Types:    types,
		Expected: conformance.TimestampTZAtUTC, // timestamptz keeps the instant, not the offset
		// the stream split follows the chunks once they are read
		EndsAfterReading: true,
		Table: func(_ string, schema *row.Schema, rows [][]any) (string, error) {
			// Each case's source made its own slot; the server has few, so
			// the ones no longer in use go.
			exec(t, pg, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE 'conf\\_%' AND NOT active")
			n := confTables.Add(1)
			table := fmt.Sprintf("conf_cdc_%d", n)
			exec(t, pg, "DROP TABLE IF EXISTS "+table)
			sink := fmt.Sprintf("url = %q\ndriver = \"org.postgresql.Driver\"\nuser = %q\ndatabase = postgres\ntable = %q\nprimary_keys = [id]\n",
				pg.JDBCURL("postgres"), "stactor", "public."+table)
			if err := conformance.Commit(jdbc.SinkFactory, sink, schema, rows); err != nil {
				return "", err
			}
			exec(t, pg, "ALTER TABLE "+table+" REPLICA IDENTITY FULL")
			return body(pg, fmt.Sprintf("conf_%d", n), "postgres.public."+table, "stop.mode = latest", "snapshot.split.size = 9", "exactly_once = true"), nil
		},
		BadOptions: []conformance.BadOption{
			{Name: "NoTables", Body: fmt.Sprintf("base-url = %q\nusername = u\npassword = p\n", pg.JDBCURL("postgres")), Error: "table-names"},
		},
	})
}
