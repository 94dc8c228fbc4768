package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
)

const typesDDL = `CREATE TABLE types (
  id INT PRIMARY KEY,
  b1 TINYINT(1), ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  yr YEAR, f FLOAT, d DOUBLE, dec1 DECIMAL(10,3), dec2 DECIMAL(38,10),
  bit1 BIT(1), bit12 BIT(12),
  c CHAR(5), vc VARCHAR(40), gb VARCHAR(20) CHARACTER SET gbk COLLATE gbk_bin, l1 VARCHAR(20) CHARACTER SET latin1, tx TEXT, lt LONGTEXT, e ENUM('red','gr''een','blue'), st SET('a','b','c'), js JSON,
  bn BINARY(4), vb VARBINARY(10), bl BLOB,
  dt DATE, tm TIME(3), dtm DATETIME(6), ts TIMESTAMP(3) NULL DEFAULT NULL
)`

var typesRows = []string{
	`(1, 1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
	  2024, 1.5, 2.25, -1234567.891, 1234567890123456789012345678.0123456789,
	  b'1', b'101010101010',
	  'ab', 'héllo wörld', '中文字符', 'café €', 'some text', REPEAT('x', 300), 'gr''een', 'a,c', '{"k": [1, 2, {"z": null}]}',
	  x'0102', x'00ff', x'deadbeef',
	  '2024-02-29', '23:59:59.125', '2024-01-02 03:04:05.123456', '2024-06-30 22:30:00.5')`,
	`(2, 0, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0,
	  1901, -3.25, -1e300, 0.001, -0.0000000001,
	  b'0', b'000000000001',
	  '', '', '', '', '', '', 'blue', '', '[]',
	  x'', x'', x'',
	  '1000-01-01', '00:00:00', '1970-01-01 00:00:00', '1970-01-01 00:00:01')`,
	`(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL,
	  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, NULL,
	  NULL, NULL, NULL, NULL)`,
}

// render writes row i of b as text, one value per column.
func render(b *row.Batch, i int) string {
	var sb strings.Builder
	for j, f := range b.Schema.Fields {
		fmt.Fprintf(&sb, "%s=%s ", f.Name, row.Text(f.Type, b.Value(i, j)))
	}
	return sb.String()
}

// snapshotRows reads the whole table as the snapshot does, by id.
func snapshotRows(t *testing.T, tb *table, dbName string) map[string]string {
	t.Helper()
	ctx := testCtx(t)
	conn, err := myDB(t, dbName).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	out := map[string]string{}
	err = tb.query(ctx, conn, "SELECT "+tb.selectList()+" FROM "+quoteTable(tb.id)+" ORDER BY id", nil, 2, func(b *row.Batch) error {
		for i := 0; i < b.Len(); i++ {
			out[fmt.Sprint(b.Value(i, 0))] = render(b, i)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// openTestStream starts a binlog stream of tb at from.
func openTestStream(t *testing.T, from Offset, tb *table, serverID uint32) *binlogStream {
	t.Helper()
	my := servers.MariaDB(t)
	s, err := openBinlog(testCtx(t), binlogConfig{Host: my.Host, Port: uint16(my.Port), User: "root", Flavor: "mariadb",
		ServerID: serverID, Start: from, Heartbeat: 200 * time.Millisecond, Tables: map[string]*table{tb.id: tb}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// nextRows reads changes until n row changes of batches arrived.
func nextRows(t *testing.T, s *binlogStream, n int) (kinds []row.Kind, rows []string, last Offset) {
	t.Helper()
	ctx, cancel := context.WithTimeout(testCtx(t), 20*time.Second)
	defer cancel()
	for len(rows) < n {
		c, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("after %d rows: %v", len(rows), err)
		}
		last = c.Tx
		if c.Batch == nil {
			continue
		}
		for i := 0; i < c.Batch.Len(); i++ {
			kinds, rows = append(kinds, c.Batch.Kind(i)), append(rows, render(c.Batch, i))
		}
	}
	return kinds, rows, last
}

func describe(t *testing.T, dbName, tableName string, loc *time.Location) *table {
	t.Helper()
	desc, err := jdbc.DescribeMySQL(testCtx(t), myDB(t, dbName), dbName, tableName)
	if err != nil {
		t.Fatal(err)
	}
	charsets, err := columnCharsets(testCtx(t), myDB(t, dbName), dbName, tableName)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := newTable(desc, desc.Schema(), charsets, loc, "")
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestBinlogRowsEqualSnapshot: every type's binlog value decodes to what
// the snapshot query reads, so a row is the same whichever phase
// delivers it; updates come as UPDATE_BEFORE/UPDATE_AFTER pairs and
// deletes with the whole old row.
func TestBinlogRowsEqualSnapshot(t *testing.T) {
	db := myDB(t, "")
	myExec(t, db, "CREATE DATABASE cdc_types", "USE cdc_types", typesDDL)
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	tb := describe(t, "cdc_types", "types", loc)
	start, err := currentOffset(testCtx(t), db, "mariadb")
	if err != nil {
		t.Fatal(err)
	}
	s := openTestStream(t, start, tb, 101)
	tdb := myDB(t, "cdc_types")
	myExec(t, tdb, "INSERT INTO types VALUES "+strings.Join(typesRows, ","))
	kinds, rows, _ := nextRows(t, s, 3)
	snap := snapshotRows(t, tb, "cdc_types")
	for i, r := range rows {
		if kinds[i] != row.Insert {
			t.Errorf("row %d kind %s, want INSERT", i, kinds[i])
		}
		if want := snap[fmt.Sprint(i+1)]; r != want {
			t.Errorf("binlog row %d\n got %s\nwant %s", i+1, r, want)
		}
	}
	if !strings.Contains(snap["1"], "ts=2024-07-01T06:30:00.500") {
		t.Errorf("TIMESTAMP not in server-time-zone Asia/Shanghai: %s", snap["1"])
	}
	before := snap["2"]
	myExec(t, tdb, "UPDATE types SET vc = 'changed', biu = 18446744073709551615 WHERE id = 2", "DELETE FROM types WHERE id = 3")
	kinds, rows, _ = nextRows(t, s, 3)
	snap = snapshotRows(t, tb, "cdc_types")
	want := []string{before, snap["2"], render3(t, tb)}
	wantKinds := []row.Kind{row.UpdateBefore, row.UpdateAfter, row.Delete}
	for i := range rows {
		if kinds[i] != wantKinds[i] || rows[i] != want[i] {
			t.Errorf("change %d: %s %s\nwant %s %s", i, kinds[i], rows[i], wantKinds[i], want[i])
		}
	}
}

// render3 is row 3 (all nulls) as rendered.
func render3(t *testing.T, tb *table) string {
	cols := make([]*row.Column, len(tb.schema().Fields))
	vals := make([]any, len(cols))
	for j, f := range tb.schema().Fields {
		cols[j] = row.NewColumn(f.Type, 1)
	}
	vals[0] = int32(3)
	if err := tb.appendRow(cols, vals); err != nil {
		t.Fatal(err)
	}
	return render(row.NewBatch(tb.schema(), nil, cols), 0)
}
