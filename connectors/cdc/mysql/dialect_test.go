package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/row"
)

// newTestDialect resolves a MySQL-CDC block body against the test server
// and makes a dialect from it, as the planner and a part would.
func newTestDialect(t *testing.T, body string) (*dialect, []*cdc.Table, error) {
	t.Helper()
	my := servers.MariaDB(t)
	body = fmt.Sprintf("base-url = %q\nusername = %q\npassword = \"\"\n", my.JDBCURL(""), dbtest.User) + body
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	opts := append(append([]config.Option{}, cdc.CommonOptions...), Options...)
	cfg, _, err := config.Validate("job.conf", "source", "MySQL-CDC", root.Pos, root, opts, config.CommonPluginOptions)
	if err != nil {
		return nil, nil, err
	}
	o, err := cdc.ParseOptions(cfg)
	if err != nil {
		return nil, nil, err
	}
	tables, private, err := resolve(testCtx(t), cfg, o)
	if err != nil {
		return nil, nil, err
	}
	d, err := newDialect(cfg, o, tables, private)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { d.Close() })
	return d.(*dialect), tables, nil
}

func TestDialectChunksAndWatermarks(t *testing.T) {
	myExec(t, myDB(t, ""), "CREATE DATABASE cdc_chunks", "CREATE TABLE cdc_chunks.kv (k INT PRIMARY KEY, v VARCHAR(20))")
	var vals []string
	for i := 0; i < 25; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 'v%d')", i, i))
	}
	myExec(t, myDB(t, "cdc_chunks"), "INSERT INTO kv VALUES "+strings.Join(vals, ","))
	d, tables, err := newTestDialect(t, `table-names = ["cdc_chunks.kv"]
server-id = "7100-7103"`)
	if err != nil {
		t.Fatal(err)
	}
	tb := tables[0]
	if tb.ChunkKey != "k" || tb.Schema.TableID != "cdc_chunks.kv" {
		t.Fatalf("table %+v", tb)
	}
	ctx := testCtx(t)
	var ends []string
	var after *cdc.Key
	for {
		k, err := d.ChunkEnd(ctx, tb, after, 10)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, k.String())
		if k == nil {
			break
		}
		after = k
	}
	if fmt.Sprint(ends) != "[10 20 -]" {
		t.Fatalf("chunk ends %v", ends)
	}
	var got []string
	low, high, err := d.ReadChunk(ctx, tb, cdc.Chunk{Lo: &cdc.Key{I: 10}, Hi: &cdc.Key{I: 20}}, 4, func(b *row.Batch) error {
		for i := 0; i < b.Len(); i++ {
			got = append(got, render(b, i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 || got[0] != "k=10 v=v10 " || got[9] != "k=19 v=v19 " {
		t.Fatalf("chunk rows %q", got)
	}
	if n, _ := d.CompareOffsets(low, high); n != 0 {
		t.Fatalf("watermarks %s %s of a chunk read with no writes differ", low, high)
	}
	// The log between two watermarks holds what was written between them.
	myExec(t, myDB(t, "cdc_chunks"), "UPDATE kv SET v = 'x' WHERE k = 15", "DELETE FROM kv WHERE k = 3")
	_, high2, err := d.ReadChunk(ctx, tb, cdc.Chunk{Lo: &cdc.Key{I: 20}}, 100, func(*row.Batch) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var changes []string
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = d.ReadLog(rctx, high, high2, func(e cdc.Event) error {
		for i := 0; i < e.Rows.Len(); i++ {
			changes = append(changes, e.Rows.Kind(i).Short()+render(e.Rows, i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(changes) != "[-Uk=15 v=v15  +Uk=15 v=x  -Dk=3 v=v3 ]" {
		t.Fatalf("log between watermarks: %q", changes)
	}
}

func TestDialectStreamAndStartOffsets(t *testing.T) {
	myExec(t, myDB(t, ""), "CREATE DATABASE cdc_stream", "CREATE TABLE cdc_stream.a (k INT PRIMARY KEY)", "CREATE TABLE cdc_stream.b (k VARCHAR(10) PRIMARY KEY, n INT)")
	d, tables, err := newTestDialect(t, `table-names = ["cdc_stream\\.(a|b)"]
heartbeat.interval.ms = 200
server-id = 7200`)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 || tables[1].ID != "cdc_stream.b" {
		t.Fatalf("tables %v", tables)
	}
	ctx := testCtx(t)
	latest, err := d.StartOffset(ctx, cdc.StartupLatest)
	if err != nil {
		t.Fatal(err)
	}
	earliest, err := d.StartOffset(ctx, cdc.StartupEarliest)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := d.CompareOffsets(earliest, latest); n >= 0 {
		t.Fatalf("earliest %s not before latest %s", earliest, latest)
	}
	myExec(t, myDB(t, "cdc_stream"), "INSERT INTO b VALUES ('x', 1)", "INSERT INTO a VALUES (7)")
	sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var got []string
	beats := 0
	stop := errors.New("stop")
	err = d.Stream(sctx, latest, func(e cdc.Event) error {
		if e.Table < 0 {
			beats++
		} else {
			got = append(got, fmt.Sprintf("%d:%s", e.Table, render(e.Rows, 0)))
		}
		if len(got) == 2 && beats > 0 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("stream: %v (rows %q, heartbeats %d)", err, got, beats)
	}
	if fmt.Sprint(got) != "[1:k=x n=1  0:k=7 ]" {
		t.Fatalf("stream rows %q", got)
	}
}

func TestResolveErrors(t *testing.T) {
	myExec(t, myDB(t, ""), "CREATE DATABASE cdc_errs", "CREATE TABLE cdc_errs.t (k INT PRIMARY KEY)")
	for _, c := range []struct{ body, want string }{
		{`table-names = ["cdc_errs.missing"]`, "cdc_errs.missing"},
		{`table-names = ["nodot"]`, "want database.table"},
		{`table-names = ["cdc_errs.t"]
startup.mode = specific`, "startup.specific-offset.file"},
		{`table-names = ["cdc_errs.t"]
server-id = "9-3"`, "range ends before it starts"},
		{`table-names = ["cdc_errs.t"]
server-id = 1`, "server's own server_id"},
		{`table-names = ["cdc_errs.nothing_.*"]`, "matches no table"},
	} {
		_, _, err := newTestDialect(t, c.body)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.body, err, c.want)
		}
	}
}

// startup.mode specific: from a binlog file and position, or after a
// MariaDB GTID set; both deliver what was committed after that point.
func TestDialectSpecificOffsets(t *testing.T) {
	myExec(t, myDB(t, ""), "CREATE DATABASE cdc_specific", "CREATE TABLE cdc_specific.t (k INT PRIMARY KEY)")
	root := myDB(t, "")
	pos, err := currentOffset(testCtx(t), root, "mariadb")
	if err != nil {
		t.Fatal(err)
	}
	if pos.GTIDs == "" {
		t.Fatal("MariaDB reports no GTID position")
	}
	myExec(t, myDB(t, "cdc_specific"), "INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)")
	for _, body := range []string{
		fmt.Sprintf("startup.specific-offset.file = %q\nstartup.specific-offset.pos = %d", pos.File, pos.Pos),
		fmt.Sprintf("startup.specific-offset.gtid-set = %q", pos.GTIDs),
	} {
		d, _, err := newTestDialect(t, "table-names = [\"cdc_specific.t\"]\nstartup.mode = specific\nserver-id = 7300\n"+body)
		if err != nil {
			t.Fatal(err)
		}
		from, err := d.StartOffset(testCtx(t), cdc.StartupSpecific)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(testCtx(t), 15*time.Second)
		var got []string
		stop := errors.New("stop")
		err = d.Stream(ctx, from, func(e cdc.Event) error {
			if e.Rows != nil {
				for i := 0; i < e.Rows.Len(); i++ {
					got = append(got, render(e.Rows, i))
				}
			}
			if len(got) == 2 {
				return stop
			}
			return nil
		})
		cancel()
		if !errors.Is(err, stop) || fmt.Sprint(got) != "[k=1  k=2 ]" {
			t.Fatalf("%s: from %s got %q (%v)", body, from, got, err)
		}
	}
}

// A chunk's low watermark is its read's snapshot: the rows read are
// exactly those the binlog up to the low watermark inserted, while
// writers commit all the time (with SHOW MASTER STATUS before the read
// they were not: commits between it and the read were seen too, and a
// transaction binlogged before it could still be invisible).
func TestChunkLowWatermarkIsTheReadsSnapshot(t *testing.T) {
	myExec(t, myDB(t, ""), "CREATE DATABASE cdc_snap", "CREATE TABLE cdc_snap.kv (k INT PRIMARY KEY, v VARCHAR(20))")
	d, tables, err := newTestDialect(t, `table-names = ["cdc_snap.kv"]
server-id = "7200-7203"`)
	if err != nil {
		t.Fatal(err)
	}
	start := nowOffset(t)
	ctx := testCtx(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, 2)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := myDB(t, "cdc_snap")
			for {
				select {
				case <-stop:
					return
				default:
				}
				k := next.Add(1)
				if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO kv VALUES (%d, 'v%d')", k, k)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	type read struct {
		low  Offset
		rows map[string]bool
	}
	var reads []read
	for i := 0; i < 12; i++ {
		time.Sleep(20 * time.Millisecond)
		r := read{rows: map[string]bool{}}
		low, _, err := d.ReadChunk(ctx, tables[0], cdc.Chunk{}, 1000, func(b *row.Batch) error {
			for i := 0; i < b.Len(); i++ {
				r.rows[render(b, i)] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.low, err = parseOffset(string(low)); err != nil {
			t.Fatal(err)
		}
		reads = append(reads, r)
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	// The inserts the binlog holds, with their offsets, up to the last read.
	type ins struct {
		tx  Offset
		row string
	}
	var log []ins
	s := openTestStream(t, start, d.my[0], 7210)
	last := reads[len(reads)-1].low
	for {
		c, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.Tx.Compare(last) > 0 {
			break
		}
		for i := 0; c.Batch != nil && i < c.Batch.Len(); i++ {
			log = append(log, ins{c.Tx, render(c.Batch, i)})
		}
		if c.End && c.Tx.Compare(last) == 0 {
			break
		}
	}
	for i, r := range reads {
		n := 0
		for _, e := range log {
			if e.tx.Compare(r.low) > 0 {
				continue
			}
			n++
			if !r.rows[e.row] {
				t.Fatalf("read %d at %s: %q, inserted at %s, is not in the rows read", i, r.low, e.row, e.tx)
			}
		}
		if n != len(r.rows) {
			t.Fatalf("read %d at %s: %d rows read, the binlog up to it inserted %d", i, r.low, len(r.rows), n)
		}
	}
	t.Logf("%d reads while %d rows were inserted", len(reads), next.Load())
}
