package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/row"
)

func kvTable(t *testing.T, dbName string) *table {
	t.Helper()
	myExec(t, myDB(t, ""), "CREATE DATABASE "+dbName, "CREATE TABLE "+dbName+".kv (k INT PRIMARY KEY, v VARCHAR(20))",
		"CREATE TABLE "+dbName+".other (k INT PRIMARY KEY)")
	return describe(t, dbName, "kv", time.UTC)
}

func nowOffset(t *testing.T) Offset {
	t.Helper()
	o, err := currentOffset(testCtx(t), myDB(t, ""), "mariadb")
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A transaction's changes come at its commit, each with the offset after
// the commit, numbered within the transaction; a stream started from
// that offset begins with the next transaction.
func TestTransactionsDeliveredWithTheirEnd(t *testing.T) {
	tb := kvTable(t, "cdc_tx")
	start := nowOffset(t)
	db := myDB(t, "cdc_tx")
	ctx := testCtx(t)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("INSERT INTO kv VALUES (%d, 'v%d')", i, i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE kv SET v = 'u' WHERE k IN (1, 2)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	afterFirst := nowOffset(t)
	myExec(t, db, "DELETE FROM kv WHERE k = 5")
	s := openTestStream(t, start, tb, 111)
	var got []string
	var seqs []int64
	for len(got) < 9 {
		c, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.Batch == nil {
			continue
		}
		if c.Tx.Compare(afterFirst) != 0 {
			t.Fatalf("change of the first transaction with offset %s, want %s (after its commit)", c.Tx, afterFirst)
		}
		if c.End != (len(got)+c.Batch.Len() == 9) {
			t.Fatalf("End %v at row %d", c.End, len(got))
		}
		seqs = append(seqs, c.Seq)
		for i := 0; i < c.Batch.Len(); i++ {
			got = append(got, c.Batch.Kind(i).Short()+render(c.Batch, i))
		}
	}
	want := []string{"+Ik=1 v=v1 ", "+Ik=2 v=v2 ", "+Ik=3 v=v3 ", "+Ik=4 v=v4 ", "+Ik=5 v=v5 ", "-Uk=1 v=v1 ", "+Uk=1 v=u ", "-Uk=2 v=v2 ", "+Uk=2 v=u "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows\n got %q\nwant %q", got, want)
	}
	if fmt.Sprint(seqs) != "[0 1 2 3 4 5]" {
		t.Errorf("seqs %v", seqs)
	}
	s.Close()
	s2 := openTestStream(t, afterFirst, tb, 111)
	kinds, rows, _ := nextRows(t, s2, 1)
	if kinds[0] != row.Delete || rows[0] != "k=5 v=v5 " {
		t.Fatalf("after a restart at the first commit: %v %q", kinds, rows)
	}
}

// The offset follows the binlog through transactions of tables that are
// not captured and through heartbeats while nothing happens.
func TestOffsetAdvancesWithoutCapturedRows(t *testing.T) {
	tb := kvTable(t, "cdc_idle")
	start := nowOffset(t)
	s := openTestStream(t, start, tb, 112)
	myExec(t, myDB(t, "cdc_idle"), "INSERT INTO other VALUES (1)", "INSERT INTO other VALUES (2)")
	end := nowOffset(t)
	ctx, cancel := context.WithTimeout(testCtx(t), 20*time.Second)
	defer cancel()
	var beat bool
	var last Offset
	for !beat || last.Compare(end) < 0 {
		c, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("at %s (want %s and a heartbeat): %v", last, end, err)
		}
		if c.Batch != nil {
			t.Fatalf("rows of a table not captured: %s", c.Table)
		}
		beat = beat || c.Heartbeat
		last = c.Tx
	}
	if last.Compare(end) != 0 {
		t.Errorf("offset %s, the server is at %s", last, end)
	}
}

// ALTER TABLE of a captured table stops the stream with an error naming
// the table; other tables' DDL passes.
func TestAlterOfCapturedTableIsAnError(t *testing.T) {
	tb := kvTable(t, "cdc_alter")
	start := nowOffset(t)
	s := openTestStream(t, start, tb, 113)
	myExec(t, myDB(t, "cdc_alter"), "ALTER TABLE other ADD COLUMN x INT", "INSERT INTO kv VALUES (1, 'a')",
		"ALTER TABLE kv ADD COLUMN extra INT", "INSERT INTO kv VALUES (2, 'b', 7)")
	_, rows, _ := nextRows(t, s, 1)
	if rows[0] != "k=1 v=a " {
		t.Fatalf("row %q", rows[0])
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 20*time.Second)
	defer cancel()
	for {
		c, err := s.Next(ctx)
		if err != nil {
			if !strings.Contains(err.Error(), "table cdc_alter.kv was changed") || !errors.Is(err, cdc.ErrSchemaChanged) {
				t.Fatalf("error %v, want one naming cdc_alter.kv", err)
			}
			return
		}
		if c.Batch != nil {
			t.Fatalf("rows after the ALTER: %s", render(c.Batch, 0))
		}
	}
}

// A rows event whose column count is not the table's (the table changed
// before the job described it) is an error, never misplaced values.
func TestColumnCountMismatchIsAnError(t *testing.T) {
	tb := kvTable(t, "cdc_mismatch")
	myExec(t, myDB(t, "cdc_mismatch"), "ALTER TABLE kv ADD COLUMN extra INT")
	start2 := nowOffset(t)
	myExec(t, myDB(t, "cdc_mismatch"), "INSERT INTO kv VALUES (1, 'a', 2)")
	s := openTestStream(t, start2, tb, 114)
	ctx, cancel := context.WithTimeout(testCtx(t), 20*time.Second)
	defer cancel()
	for {
		c, err := s.Next(ctx)
		if err != nil {
			if !strings.Contains(err.Error(), "cdc_mismatch.kv") || !strings.Contains(err.Error(), "3 columns") || !errors.Is(err, cdc.ErrSchemaChanged) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if c.Batch != nil {
			t.Fatalf("rows decoded against the wrong columns: %s", render(c.Batch, 0))
		}
	}
}

func TestCheckServer(t *testing.T) {
	db := myDB(t, "")
	where := "test server"
	if err := checkServer(testCtx(t), db, where, serverIDs{First: 5400, Last: 5404}); err != nil {
		t.Fatal(err)
	}
	if err := checkServer(testCtx(t), db, where, serverIDs{First: 1, Last: 1}); err == nil || !strings.Contains(err.Error(), "server's own server_id") {
		t.Errorf("own server id: %v", err)
	}
	myExec(t, db, "CREATE USER 'nopriv'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON *.* TO 'nopriv'@'%'")
	my := servers.MariaDB(t)
	np, err := openDSN(fmt.Sprintf("nopriv:pw@tcp(%s:%d)/", my.Host, my.Port))
	if err != nil {
		t.Fatal(err)
	}
	defer np.Close()
	err = checkServer(testCtx(t), np, where, serverIDs{First: 5400, Last: 5400})
	if err == nil || !strings.Contains(err.Error(), "REPLICATION SLAVE and REPLICATION CLIENT") {
		t.Errorf("user without privileges: %v", err)
	}
	// Another replica with id 6001.
	other := replication.NewBinlogSyncer(replication.BinlogSyncerConfig{ServerID: 6001, Flavor: "mariadb", Host: my.Host, Port: uint16(my.Port),
		User: "root", Localhost: "replica-7"})
	defer other.Close()
	if _, err := other.StartSync(gomysql.Position{Name: nowOffset(t).File, Pos: 4}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err = checkServer(testCtx(t), db, where, serverIDs{First: 6000, Last: 6002})
		if err != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err == nil || !strings.Contains(err.Error(), `server-id 6001 is in use by the replica at host "replica-7"`) {
		t.Errorf("id in use: %v", err)
	}
}
