package mysql

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/stactor/stactor/internal/dbtest"
)

var servers dbtest.Servers

func TestMain(m *testing.M) { os.Exit(servers.Run(m, dbtest.WithMariaDB())) }

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// myDB opens the test MariaDB's database db.
func myDB(t testing.TB, db string) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", servers.MariaDB(t).DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func myExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(testCtx(t), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func openDSN(dsn string) (*sql.DB, error) { return sql.Open("mysql", dsn) }
