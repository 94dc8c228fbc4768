package jdbc

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/row"
)

var confTables atomic.Int64

// readTable reads a table's rows back boxed, through the connector's own
// catalog and decoders.
func readTable(t testing.TB, tg target, table string) func() ([][]any, error) {
	return func() ([][]any, error) {
		src := resolvedSource(t, tg, fmt.Sprintf("table_path = %q\n", tg.tablePathOf(table)))
		h := newHarness(t, src, 1, nil, nil)
		c := &boxCollector{}
		h.out = nil
		for i := 0; i < 100000 && !h.rctx[0].ended; i++ {
			rd := h.readers[0]
			if err := rd.PollNext(c); err != nil {
				return nil, err
			}
			if h.rctx[0].requested {
				h.rctx[0].requested = false
				h.enum.HandleSplitRequest(0)
			}
			if s := h.ec.assigned[0]; len(s) > 0 {
				delete(h.ec.assigned, 0)
				rd.AddSplits(s)
			}
			if h.ec.noMore[0] {
				rd.HandleNoMoreSplits()
			}
		}
		return c.rows, nil
	}
}

type boxCollector struct{ rows [][]any }

func (c *boxCollector) Emit(b *row.Batch) {
	for i := 0; i < b.Len(); i++ {
		c.rows = append(c.rows, b.Row(i))
	}
}
func (c *boxCollector) BatchSize() int { return 50 }

// sinkTypes are the types the sink writes to tg: no null, map or row
// columns, and no arrays on MySQL.
func sinkTypes(tg target) []*row.Type {
	types := conformance.Without(conformance.AllTypes(), "null", "map<string, int>", "row<a int, b string>")
	if tg.dialect == dialectMySQL {
		types = conformance.Without(types, "array<int>", "array<string>")
	}
	return types
}

func TestConformanceSink(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			conformance.RunSink(t, conformance.Sink{
				Factory:     SinkFactory,
				Types:       sinkTypes(tg),
				Expected:    conformance.TimestampTZAtUTC, // neither database keeps a timestamp_tz's offset
				ExactlyOnce: true,
				Target: func(dir string, schema *row.Schema) (string, func() ([][]any, error), error) {
					table := fmt.Sprintf("conf_%d", confTables.Add(1))
					tg.exec(t, "DROP TABLE IF EXISTS "+table)
					body := tg.connBody() + fmt.Sprintf("database = %q\ntable = %q\nis_exactly_once = true\nxa_data_source_class_name = %q\n", tg.db, tg.tablePathOf(table), tg.xa)
					return body, readTable(t, tg, table), nil
				},
				BadOptions: []conformance.BadOption{
					{Name: "BadURL", Body: "url = \"postgresql://x\"\ndriver = \"org.postgresql.Driver\"\ntable = t\n", Error: "not a JDBC URL"},
					{Name: "WrongDriver", Body: fmt.Sprintf("url = %q\ndriver = \"oracle.jdbc.OracleDriver\"\ntable = t\n", tg.url(tg.db)), Error: "driver"},
				},
			})
		})
	}
}

// With multi_table_sink_replica the sink is one replicaWriter of three
// writers per subtask; without exactly-once it upserts by the key, so
// every row is committed once however the writers split them.
func TestConformanceSinkReplicas(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			conformance.RunSink(t, conformance.Sink{
				Factory:  SinkFactory,
				Types:    sinkTypes(tg),
				Expected: conformance.TimestampTZAtUTC,
				Target: func(dir string, schema *row.Schema) (string, func() ([][]any, error), error) {
					table := fmt.Sprintf("conf_%d", confTables.Add(1))
					tg.exec(t, "DROP TABLE IF EXISTS "+table)
					body := tg.connBody() + fmt.Sprintf("database = %q\ntable = %q\nprimary_keys = [\"id\"]\nmulti_table_sink_replica = 3\nbatch_size = 5\n", tg.db, tg.tablePathOf(table))
					return body, readTable(t, tg, table), nil
				},
			})
		})
	}
}

// The source reads back, exactly, tables its own sink created and filled
// (schema_save_mode's default creates them from the catalog table), with
// the types each database keeps: PostgreSQL has no tinyint (it comes back
// as smallint) and MySQL no arrays and no timestamp_tz (a datetime of the
// instant in UTC, read back as a timestamp); neither keeps an offset.
func TestConformanceSource(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			types := conformance.Without(conformance.AllTypes(), "null", "map<string, int>", "row<a int, b string>")
			if tg.dialect == dialectMySQL {
				types = conformance.Without(types, "array<int>", "array<string>")
			} else {
				types = conformance.Without(types, "tinyint")
			}
			var readsAs func(*row.Type) *row.Type
			if tg.dialect == dialectMySQL {
				readsAs = conformance.TimestampTZAsTimestamp // a datetime holds the instant in UTC
			}
			conformance.RunSource(t, conformance.Source{
				Factory:  SourceFactory,
				Types:    types,
				Expected: conformance.TimestampTZAtUTC,
				ReadsAs:  readsAs,
				Table: func(_ string, schema *row.Schema, rows [][]any) (string, error) {
					table := fmt.Sprintf("conf_src_%d", confTables.Add(1))
					tg.exec(t, "DROP TABLE IF EXISTS "+table)
					sink := tg.connBody() + fmt.Sprintf("database = %q\ntable = %q\n", tg.db, tg.tablePathOf(table))
					if err := conformance.Commit(SinkFactory, sink, schema, rows); err != nil {
						return "", err
					}
					return tg.connBody() + fmt.Sprintf("table_path = %q\nsplit.size = 9\n", tg.tablePathOf(table)), nil
				},
				BadOptions: []conformance.BadOption{
					{Name: "NoTable", Body: tg.connBody(), Error: "set query, table_path or table_list"},
					{Name: "MissingTable", Body: tg.connBody() + "table_path = \"no_such_table\"\n", Error: "no_such_table"},
				},
				DeadServer: &conformance.BadOption{Name: "DeadServer",
					Body:  fmt.Sprintf("url = %q\ndriver = %q\nuser = u\ntable_path = t\nconnection_check_timeout_sec = 2\n", deadURL(tg), tg.driver),
					Error: "127.0.0.1:1"},
			})
		})
	}
}

// deadURL is a URL of tg's kind where no server listens.
func deadURL(tg target) string {
	if tg.dialect == dialectPostgres {
		return "jdbc:postgresql://127.0.0.1:1/db"
	}
	return "jdbc:mysql://127.0.0.1:1/db"
}
