package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/row"
)

// pluginCfg parses a block body and validates it as the planner does.
func pluginCfg(t testing.TB, where string, opts []config.Option, body string) (*config.PluginConfig, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg, _, err := config.Validate("job.conf", where, "Jdbc", root.Pos, root, opts, config.CommonPluginOptions)
	return cfg, err
}

// target is one of the test servers, as a job file names it.
type target struct {
	name    string
	dialect string
	url     func(db string) string
	driver  string
	xa      string
	db      string // the database tests use
}

func targets(t testing.TB) []target {
	var out []target
	if pg := servers.Postgres(t); pg != nil {
		out = append(out, target{name: "postgres", dialect: dialectPostgres, url: pg.JDBCURL, driver: "org.postgresql.Driver", xa: "org.postgresql.xa.PGXADataSource", db: "postgres"})
	}
	if my := servers.MariaDB(t); my != nil {
		out = append(out, target{name: "mariadb", dialect: dialectMySQL, url: my.JDBCURL, driver: "org.mariadb.jdbc.Driver", xa: "org.mariadb.jdbc.MariaDbDataSource", db: "test"})
	}
	return out
}

// connBody is the connection part of a block for tg.
func (tg target) connBody() string {
	return fmt.Sprintf("url = %q\ndriver = %q\nuser = %q\n", tg.url(tg.db), tg.driver, dbtest.User)
}

// tablePathOf is a table's path as table_path / table take it.
func (tg target) tablePathOf(table string) string {
	if tg.dialect == dialectPostgres {
		return "public." + table
	}
	return table
}

// exec runs statements on tg.
func (tg target) exec(t testing.TB, stmts ...string) {
	t.Helper()
	if tg.dialect == dialectPostgres {
		pgExec(t, pgConn(t, tg.db), stmts...)
	} else {
		myExec(t, myDB(t, tg.db), stmts...)
	}
}

// dump reads a table in key order as text rows, through the connector's
// own catalog and decoders.
func (tg target) dump(t testing.TB, table, order string) []string {
	t.Helper()
	ctx := testCtx(t)
	var cols []column
	var s rowStream
	q := "SELECT * FROM " + table + " ORDER BY " + order
	if tg.dialect == dialectPostgres {
		conn := pgConn(t, tg.db)
		info, err := describePostgres(ctx, conn, tablePath{Database: tg.db, Schema: "public", Table: table})
		if err != nil {
			t.Fatal(err)
		}
		cols = info.Columns
		if s, err = queryPostgres(ctx, conn, q, nil, cols); err != nil {
			t.Fatal(err)
		}
	} else {
		db := myDB(t, tg.db)
		info, err := describeMySQL(ctx, db, tablePath{Database: tg.db, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		cols = info.Columns
		q = "SELECT " + selectList(dialectSQL{name: dialectMySQL}, &sourceTable{Columns: cols}) + " FROM " + table + " ORDER BY " + order
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.ExecContext(ctx, "SET time_zone = '+00:00'")
		if s, err = queryMySQL(ctx, conn, q, nil, cols, ""); err != nil {
			t.Fatal(err)
		}
	}
	schema, err := schemaOf(table, cols, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := readAll(t, s, schema)
	var out []string
	if b == nil {
		return out
	}
	for i := 0; i < b.Len(); i++ {
		var vals []string
		for j := range cols {
			vals = append(vals, row.Text(cols[j].Type, b.Value(i, j)))
		}
		out = append(out, strings.Join(vals, "|"))
	}
	return out
}

// testSchema is the input of the sink tests.
var testSchema = func() *row.Schema {
	s := row.MustSchema("src.people",
		row.Field{Name: "id", Type: row.BigInt},
		row.Field{Name: "name", Type: row.String, Nullable: true},
		row.Field{Name: "score", Type: row.DecimalOf(10, 2), Nullable: true},
		row.Field{Name: "at", Type: row.Timestamp, Nullable: true},
		row.Field{Name: "ok", Type: row.Boolean, Nullable: true},
	)
	s.PrimaryKey = []string{"id"}
	return s
}()

// person is one input row.
func person(id int64, name string) []any {
	ts, _ := row.ParseTimestamp(fmt.Sprintf("2024-01-%02dT10:00:00.123456", id%28+1))
	return []any{id, name, decimal.New(id*125, -2), ts, id%2 == 0}
}

// batchOf builds a batch of kinds and rows.
func batchOf(t testing.TB, s *row.Schema, kinds []row.Kind, rows ...[]any) *row.Batch {
	t.Helper()
	b := row.NewBuilder(s, len(rows))
	for i, r := range rows {
		if err := b.AppendRow(kinds[i], r); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func kinds(ks ...row.Kind) []row.Kind { return ks }

// resolvedSink resolves a sink block for tg.
func resolvedSink(t testing.TB, tg target, body string, inputs ...*row.Schema) (*sinkResolved, error) {
	t.Helper()
	cfg, err := pluginCfg(t, "sink Jdbc", sinkOptions, tg.connBody()+body)
	if err != nil {
		return nil, err
	}
	return resolveSink(testCtx(t), cfg, inputs)
}

func mustSink(t testing.TB, tg target, body string, inputs ...*row.Schema) *sinkResolved {
	t.Helper()
	r, err := resolvedSink(t, tg, body, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := pluginCfg(t, "sink Jdbc", sinkOptions, tg.connBody()+body)
	// What the writers get went through the resolved form's encoding.
	b, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := decodeSinkResolved(cfg, b, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return r2
}

var testTask = connectors.TaskInfo{JobID: "job-1", Pipeline: 1, Attempt: 1, SubtaskIndex: 0, Parallelism: 1}

func ctxBG() context.Context { return context.Background() }

type (
	pgConnT = *pgx.Conn
	myConnT = *sql.Conn
)

// savedSink resolves a sink on tg and runs its save mode.
func savedSink(t testing.TB, tg target, body string, inputs ...*row.Schema) *sinkResolved {
	t.Helper()
	r := mustSink(t, tg, body, inputs...)
	if err := (&sink{r: r}).HandleSaveMode(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return r
}

// openSink is savedSink with a writer of testTask, closed when the test
// ends.
func openSink(t testing.TB, tg target, body string, inputs ...*row.Schema) (*sinkResolved, *writer) {
	t.Helper()
	r := savedSink(t, tg, body, inputs...)
	w, err := newWriter(testCtx(t), r, testTask)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return r, w
}
