package jdbc

import (
	"context"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/row"
)

var servers dbtest.Servers

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(servers.Run(m, dbtest.WithPostgres(), dbtest.WithMariaDB()))
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pgConn connects to the test PostgreSQL's database db.
func pgConn(t testing.TB, db string) *pgx.Conn {
	t.Helper()
	pg := servers.Postgres(t)
	conn, err := pgx.Connect(testCtx(t), pg.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// myDB opens the test MariaDB's database db.
func myDB(t testing.TB, db string) *sql.DB {
	t.Helper()
	my := servers.MariaDB(t)
	d, err := sql.Open("mysql", my.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// pgExec runs statements on PostgreSQL, failing the test on error.
func pgExec(t testing.TB, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(testCtx(t), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func myExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(testCtx(t), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// render writes a table's mapping and rows as text, one value per line,
// for golden files.
func render(cols []column, b *row.Batch) string {
	var sb strings.Builder
	for _, c := range cols {
		fmt.Fprintf(&sb, "column %s %s -> %s nullable=%v\n", c.Name, c.DBType, c.Type, c.Nullable)
	}
	if b == nil {
		return sb.String()
	}
	for i := 0; i < b.Len(); i++ {
		fmt.Fprintf(&sb, "row %d\n", i+1)
		for j, c := range cols {
			v := b.Value(i, j)
			s := row.Text(c.Type, v)
			if bs, ok := v.([]byte); ok {
				s = "0x" + hex.EncodeToString(bs)
			}
			fmt.Fprintf(&sb, "  %s = %s\n", c.Name, s)
		}
	}
	return sb.String()
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// readAll streams a whole stream into one batch of schema.
func readAll(t testing.TB, s rowStream, schema *row.Schema) *row.Batch {
	t.Helper()
	b := row.NewBuilder(schema, 16)
	cols := make([]*row.Column, schema.Len())
	for j := range cols {
		cols[j] = b.Col(j)
	}
	for {
		k, done, err := s.read(cols, 3)
		if err != nil {
			s.close() // before Fatal: an open result holds its connection
			t.Fatal(err)
		}
		for i := 0; i < k; i++ {
			b.EndRow(row.Insert)
		}
		if done {
			break
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	return b.Build()
}
