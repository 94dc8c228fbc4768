package cdc

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stactor/stactor/internal/dbtest"
)

// TestMySQLCDCSchemaChangeKilled: a MySQL-CDC stream whose table goes
// through every kind of ALTER TABLE MySQL-CDC carries — ADD with a default
// and AFTER, two ADDs with FIRST in one statement, CHANGE (rename and
// retype), MODIFY, DROP, RENAME COLUMN — between rounds of inserts,
// updates and deletes, into an exactly-once (XA) MariaDB target, while the
// stactor binary is SIGKILLed several times at random and restored with
// its job file. At the end the target has the source's columns, in the
// source's order, and the source's rows.
func TestMySQLCDCSchemaChangeKilled(t *testing.T) {
	my := servers.MariaDB(t)
	ctx := testCtx(t)
	src, dst := mySide(my, "sck_src"), mySide(my, "sck_dst")
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS sck_src", "CREATE DATABASE IF NOT EXISTS sck_dst", "DROP TABLE IF EXISTS sck_dst.k"} {
		if err := my.Exec(ctx, "", q); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.exec(ctx, "DROP TABLE IF EXISTS k", "CREATE TABLE k (id BIGINT PRIMARY KEY, v VARCHAR(40), n INT)",
		"CREATE TABLE IF NOT EXISTS seq (i BIGINT PRIMARY KEY)", "INSERT IGNORE INTO seq VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		"INSERT INTO k SELECT 1 + a.i + 10*b.i + 100*c.i, CONCAT('row-', a.i), a.i FROM seq a, seq b, seq c"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	job := filepath.Join(dir, "job.conf")
	writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  checkpoint.interval = 1000
  job.retry.times = 0
}
source {
  MySQL-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["sck_src.k"]
    server-id = "5600-5603"
    snapshot.split.size = 200
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
    database = sck_dst
    table = k
    generate_sink_sql = true
    primary_keys = ["id"]
    is_exactly_once = true
    xa_data_source_class_name = "org.mariadb.jdbc.MariaDbDataSource"
    parallelism = 1
  }
}`, my.JDBCURL(""), dbtest.User, my.JDBCURL(""), dbtest.User))

	// The writer: rounds of changes, an ALTER every few rounds; num is
	// the integer column of the moment (n, then n2 after the CHANGE).
	ddl := []struct{ stmt, num string }{
		{"ALTER TABLE k ADD COLUMN a1 VARCHAR(20) NOT NULL DEFAULT 'd1' AFTER id", "n"},
		{"ALTER TABLE k ADD COLUMN a2 INT, ADD COLUMN a3 DOUBLE DEFAULT 1.5 FIRST", "n"},
		{"ALTER TABLE k CHANGE n n2 BIGINT COMMENT 'was n'", "n2"},
		{"ALTER TABLE k MODIFY v VARCHAR(80) NULL DEFAULT 'vv'", "n2"},
		{"ALTER TABLE k DROP COLUMN a1", "n2"},
		{"ALTER TABLE k RENAME COLUMN a2 TO a2r", "n2"},
	}
	final := []string{"a3", "v", "n2", "a2r"}
	var (
		mu      sync.Mutex // guards werr
		werr    error
		stopped = make(chan struct{})
	)
	go func() {
		defer close(stopped)
		num, next := "n", int64(5000)
		for round := 0; round < 3*len(ddl)+3; round++ {
			var stmts []string
			if round%3 == 2 && round/3 < len(ddl) {
				d := ddl[round/3]
				stmts, num = append(stmts, d.stmt), d.num
			}
			stmts = append(stmts,
				fmt.Sprintf("INSERT INTO k (id, v) VALUES (%d, 'r%d'), (%d, NULL)", next, round, next+1),
				fmt.Sprintf("UPDATE k SET v = CONCAT(IFNULL(v, ''), 'u') WHERE id %% 7 = %d", round%7),
				fmt.Sprintf("UPDATE k SET %s = id * %d WHERE id %% 5 = %d", num, round+1, round%5),
				fmt.Sprintf("DELETE FROM k WHERE id %% 97 = %d AND id < 1000", round))
			next += 2
			if err := src.exec(ctx, stmts...); err != nil {
				mu.Lock()
				werr = err
				mu.Unlock()
				return
			}
			time.Sleep(400 * time.Millisecond)
		}
	}()
	var out lockedBuffer
	started := time.Now()
	// A job id of its own: the XA transaction ids, and the target's
	// markers of committed ones, are named after it.
	jobID := fmt.Sprintf("schema-kill-%d", time.Now().UnixNano())
	last := killLoop(ctx, t, filepath.Join(dir, "home"), job, jobID, killPlan{kills: 4, min: 1500 * time.Millisecond, spread: 2 * time.Second,
		after: func(i int) { t.Logf("kill %d at %v", i+1, time.Since(started).Round(100*time.Millisecond)) }}, &out)
	select {
	case <-stopped:
	case <-time.After(2 * time.Minute):
		t.Fatal("the writer did not finish")
	}
	mu.Lock()
	if werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	mu.Unlock()

	columns := func(database string) string {
		var names []string
		db, err := sql.Open("mysql", my.DSN(database))
		if err != nil {
			return err.Error()
		}
		defer db.Close()
		rows, err := db.QueryContext(ctx, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'k' ORDER BY ORDINAL_POSITION", database)
		if err != nil {
			return err.Error()
		}
		defer rows.Close()
		names, err = oneColumn(rows)
		if err != nil {
			return err.Error()
		}
		return strings.Join(names, ",")
	}
	want, err := src.rows(ctx, "k", final)
	if err != nil {
		t.Fatal(err)
	}
	ok, why := last.awaitCaughtUp(t, 3*time.Minute, &out, func() (bool, string) {
		got, err := dst.rows(ctx, "k", final)
		sc, dc := columns("sck_src"), columns("sck_dst")
		if err == nil && sc == dc && strings.Join(got, "\n") == strings.Join(want, "\n") {
			return true, fmt.Sprintf("columns %s, %d rows", dc, len(want))
		}
		return false, fmt.Sprintf("columns %s, source %s; %v %s %s", dc, sc, err, diff(got, want), firstMismatch(got, want))
	})
	if !ok {
		t.Fatalf("the target did not catch up: %s\n%s", why, tail(out.String()))
	}
	t.Logf("the target equals the source: %s", why)
	last.kill()
}
