package postgres

import (
	"context"

	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/row"
)

// TestBackfillFromChunk: with exactly_once, a chunk's low watermark is
// near the chunk, not the job slot's confirmed position, and its backfill
// peeks at the session's temporary slot moved up to it, so a change
// committed before the chunk was read (which its rows hold) is not read
// from the log again; the temporary slot ends with the session.
func TestBackfillFromChunk(t *testing.T) {
	d, tables, job, conn := backfillRig(t, "bfc", "(1, 'a'), (2, 'b'), (3, 'c')")
	ctx := testCtx(t)
	for round, v := range []string{"x", "y"} {
		// Committed before the chunk is read: in its rows, not its backfill.
		if _, err := conn.Exec(ctx, "UPDATE bfc SET v = $1 WHERE id = 1", v); err != nil {
			t.Fatal(err)
		}
		got := map[int64]string{}
		low, high, err := d.ReadChunk(ctx, tables[0], cdc.Chunk{}, 10, func(b *row.Batch) error {
			for i := 0; i < b.Len(); i++ {
				got[b.Cols[0].Ints[i]] = b.Cols[1].Str(i)
			}
			return nil
		})
		if err != nil || len(got) != 3 || got[1] != v {
			t.Fatalf("round %d: chunk %v, %v; want id 1 = %s", round, got, err, v)
		}
		if n, err := d.CompareOffsets(low, job); err != nil || n <= 0 {
			t.Fatalf("round %d: low watermark %s is not past the job slot's confirmed position %s (%v)", round, low, job, err)
		}
		var backfill collect
		if err := d.ReadLog(ctx, low, high, backfill.add); err != nil {
			t.Fatal(err)
		}
		if rows := backfill.rows(); len(rows) != 0 {
			t.Fatalf("round %d: backfill %q, want nothing: it read the log from before the chunk", round, rows)
		}
		var temp bool
		var at string
		name := backfillSlotName("bfc_slot", d.pc.PgConn().PID())
		if err := conn.QueryRow(ctx, "SELECT temporary, confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", name).Scan(&temp, &at); err != nil || !temp {
			t.Fatalf("round %d: temporary slot %s: %v, %v", round, name, temp, err)
		}
		if n, err := d.CompareOffsets(cdc.Offset(at), low); err != nil || n < 0 {
			t.Fatalf("round %d: the temporary slot is at %s, before the low watermark %s (%v)", round, at, low, err)
		}
	}
	if cur, err := d.confirmed(ctx); err != nil || cur != job {
		t.Fatalf("the job's slot moved during the snapshot: %s, was %s (%v)", cur, job, err)
	}
	d.Close()
	waitFor(t, "the temporary slot to go with its session", func() bool {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'bfc_slot_bf_%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}

// TestBackfillLowWaitsForRunningTransactions: a transaction running when
// the low watermark's position is read might have its commit record
// before it and yet be invisible to the chunk's snapshot, so the position
// is taken only once it has ended; one that does not end in time makes
// the chunk take the last position so found, and with none the job
// slot's confirmed position. The backfill stays exact either way.
func TestBackfillLowWaitsForRunningTransactions(t *testing.T) {
	d, tables, job, conn := backfillRig(t, "bfw", "(1, 'a'), (2, 'b')")
	ctx := testCtx(t)
	open := func() pgx.Tx {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "UPDATE bfw SET v = 'open' WHERE id = 2"); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	chunk := func(what string) (cdc.Offset, cdc.Offset, time.Duration) {
		start := time.Now()
		low, high, err := d.ReadChunk(ctx, tables[0], cdc.Chunk{}, 10, func(*row.Batch) error { return nil })
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var backfill collect
		if err := d.ReadLog(ctx, low, high, backfill.add); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return low, high, time.Since(start)
	}

	// The temporary slot is made first: making one waits for the
	// transactions running then (slotCreateTimeout).
	if ok, err := d.ensureBackfillSlot(ctx); err != nil || !ok {
		t.Fatalf("temporary slot: %v, %v", ok, err)
	}
	tx := open()
	low, _, took := chunk("with a transaction open and no position found yet")
	if low != job || took < backfillWait {
		t.Fatalf("low watermark %s after %v, want the job slot's %s after waiting %v for the open transaction", low, took, job, backfillWait)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	settled, _, _ := chunk("with nothing running")
	if n, err := d.CompareOffsets(settled, job); err != nil || n <= 0 {
		t.Fatalf("low watermark %s with nothing running, want past %s (%v)", settled, job, err)
	}

	tx = open()
	defer tx.Rollback(ctx)
	low, _, took = chunk("with a transaction open after a position was found")
	if low != settled || took < backfillWait {
		t.Fatalf("low watermark %s after %v, want the last found %s after waiting %v", low, took, settled, backfillWait)
	}
}

// backfillRig makes table (id int key, v text) holding rows, an
// exactly-once dialect on it with its slot prepared afresh, the slot's
// confirmed position, and a connection for the test's own writes.
func backfillRig(t *testing.T, table, rows string) (*dialect, []*cdc.Table, cdc.Offset, *pgx.Conn) {
	t.Helper()
	pg := servers.Postgres(t)
	exec(t, pg, "DROP TABLE IF EXISTS "+table, "CREATE TABLE "+table+" (id int PRIMARY KEY, v text)", "ALTER TABLE "+table+" REPLICA IDENTITY FULL",
		"INSERT INTO "+table+" VALUES "+rows,
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE '"+table+"_slot%'")
	d, tables := newTestDialect(t, body(pg, table+"_slot", "postgres.public."+table, "exactly_once = true"))
	ctx := testCtx(t)
	if err := d.Prepare(ctx, true); err != nil {
		t.Fatal(err)
	}
	job, err := d.confirmed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return d, tables, job, conn
}
