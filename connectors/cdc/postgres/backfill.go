package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/connectors/cdc"
)

// The backfill of exactly_once reads the log between a chunk's watermarks
// (cdc.LogReader). PostgreSQL can only read a slot's changes from where
// the slot is: the job's slot stays at the job's start during the snapshot
// phase (the stream needs every change from there), so a backfill that
// peeks at it decodes all the WAL written since the job started, for every
// chunk, and a snapshot under a busy writer slows down chunk by chunk.
//
// Instead each reader's session makes a temporary slot of its own (dropped
// by the server when the session ends, also when the process is killed, so
// none is left behind holding WAL) and, for each chunk, moves it up to the
// chunk's low watermark (pg_replication_slot_advance, which decodes only
// the WAL since its last position) and peeks at it from there: a chunk
// costs the WAL written while it was read. That needs a low watermark near
// the chunk, not the job's start, which lowWatermark finds:
//
//  1. it reads the WAL insert position L (one statement), then takes a
//     transaction id N (txid_current, a later statement): a transaction
//     whose commit record was reserved before L had its id before N;
//  2. it waits until the oldest running transaction of a snapshot is
//     past N: every transaction with an id below N has ended, so every
//     one whose commit record is before L is visible to a snapshot taken
//     after that — the chunk's — and none of the changes the chunk's rows
//     miss is before L;
//  3. the low watermark is one byte before L (byteBefore), so a
//     transaction whose commit record starts at L is backfilled.
//
// Running transactions are read from snapshots (their xmin), not from the
// commit log: a transaction is marked committed in the commit log before
// it stops running in snapshots, and only the latter makes its rows
// visible. A snapshot's xip list alone would not do either: a transaction
// at or past its xmax is running without being listed.
//
// A position so found stays good for every later chunk (a transaction,
// once visible, stays so). When a transaction running at L does not end
// within backfillWait (a long one, or one prepared for two-phase commit
// and not yet committed), the chunk takes the last position found before
// instead, and with none yet, the job slot's confirmed position, as
// before. A backfill whose low watermark is before the session's
// temporary slot (none could be made: max_replication_slots reached, and
// or a transaction running when it was
// made did not end within slotCreateTimeout: it is tried again after
// backfillRetry; or the session was reconnected
// since) peeks at the job's slot. Every way is exact; the fallbacks are
// only slower.
const (
	backfillWait  = 500 * time.Millisecond
	backfillRetry = 5 * time.Minute
	// slotCreateTimeout bounds the making of a temporary slot, which waits
	// for the transactions running when it starts (with a long one open,
	// a reader so loses this long once every backfillRetry).
	slotCreateTimeout = 2 * time.Second
)

// backfillSlot is a session's temporary slot: name (empty when there is
// none), the session it belongs to, and its confirmed position.
type backfillSlot struct {
	name    string
	pc      *pgx.Conn
	at      pglogrepl.LSN
	retryAt time.Time
}

// live tells whether the slot is the current session's.
func (d *dialect) backfillLive() bool {
	return d.bf.name != "" && d.bf.pc == d.pc && d.pc != nil && !d.pc.IsClosed()
}

// ensureBackfillSlot makes the session's temporary slot if it has none,
// and tells whether it has one.
func (d *dialect) ensureBackfillSlot(ctx context.Context) (bool, error) {
	if d.backfillLive() {
		return true, nil
	}
	d.bf.name = ""
	if time.Now().Before(d.bf.retryAt) {
		return false, nil
	}
	pc, err := d.session(ctx)
	if err != nil {
		return false, err
	}
	name := backfillSlotName(d.r.Slot, pc.PgConn().PID())
	var lsn string
	err = withStatementTimeout(ctx, pc, slotCreateTimeout, func() error {
		return pc.QueryRow(ctx, "SELECT lsn::text FROM pg_create_logical_replication_slot($1, 'pgoutput', true)", name).Scan(&lsn)
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if pc.IsClosed() {
			d.dropSession()
			return false, fmt.Errorf("creating temporary replication slot %q: %w", name, err)
		}
		d.bf.retryAt = time.Now().Add(backfillRetry)
		return false, nil
	}
	at, err := pglogrepl.ParseLSN(lsn)
	if err != nil {
		return false, err
	}
	d.bf = backfillSlot{name: name, pc: pc, at: at}
	return true, nil
}

// backfillSlotName is slot's name with the session's process id, cut to
// PostgreSQL's 63 bytes.
func backfillSlotName(slot string, pid uint32) string {
	suffix := fmt.Sprintf("_bf_%d", pid)
	if len(slot)+len(suffix) > 63 {
		slot = slot[:63-len(suffix)]
	}
	return slot + suffix
}

// withStatementTimeout runs f with the session's statement_timeout set to
// t, and resets it after.
func withStatementTimeout(ctx context.Context, pc *pgx.Conn, t time.Duration, f func() error) error {
	if _, err := pc.Exec(ctx, fmt.Sprintf("SET statement_timeout = %d", t.Milliseconds())); err != nil {
		return err
	}
	ferr := f()
	if _, err := pc.Exec(ctx, "RESET statement_timeout"); err != nil && ferr == nil {
		return err
	}
	return ferr
}

// lowWatermark is a chunk's low watermark (see above; ReadChunk): one
// byte before the latest settled position, when the session has a
// backfill slot to read from it, else the job slot's confirmed position.
// Without exactly_once no backfill runs, and the chunk's offsets are the
// confirmed position (cdc's reader).
func (d *dialect) lowWatermark(ctx context.Context) (cdc.Offset, error) {
	if !d.o.ExactlyOnce {
		return d.confirmed(ctx)
	}
	ok, err := d.ensureBackfillSlot(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return d.confirmed(ctx)
	}
	l, ok, err := d.settledPosition(ctx)
	if err != nil {
		return "", err
	}
	if ok {
		if d.settled, err = pglogrepl.ParseLSN(l); err != nil {
			return "", err
		}
	}
	if d.settled == 0 {
		return d.confirmed(ctx)
	}
	return byteBefore(cdc.Offset(d.settled.String()))
}

// settledPosition is a WAL insert position L such that every transaction
// whose commit record starts before L is visible to a snapshot taken after
// it returns, or false when the transactions running at L do not all end
// within backfillWait (or no transaction id can be had: a standby).
func (d *dialect) settledPosition(ctx context.Context) (string, bool, error) {
	pc, err := d.session(ctx)
	if err != nil {
		return "", false, err
	}
	var l string
	if err := pc.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&l); err != nil {
		d.dropSession()
		return "", false, fmt.Errorf("reading the WAL position: %w", err)
	}
	// A later statement: every transaction whose commit record was
	// reserved before l has an id below this one's.
	var n int64
	if err := pc.QueryRow(ctx, "SELECT txid_current()").Scan(&n); err != nil {
		if pc.IsClosed() {
			d.dropSession()
			return "", false, fmt.Errorf("reading a transaction id: %w", err)
		}
		return "", false, nil
	}
	for deadline, wait := time.Now().Add(backfillWait), time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		var xmin int64
		if err := pc.QueryRow(ctx, "SELECT txid_snapshot_xmin(txid_current_snapshot())").Scan(&xmin); err != nil {
			d.dropSession()
			return "", false, fmt.Errorf("reading the oldest running transaction: %w", err)
		}
		if xmin > n {
			return l, true, nil
		}
		if time.Now().After(deadline) {
			return "", false, nil
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
	}
}

// backfillFrom is the slot a backfill from from peeks at: the session's
// backfill slot, moved up to from, when it has one at or before from, else
// the job's slot. The WAL must be flushed past from (ReadLog waits for
// that first), or the slot moves up only as far as the flush.
func (d *dialect) backfillFrom(ctx context.Context, from pglogrepl.LSN) (string, error) {
	// The slot delivers the transactions whose commit records start at or
	// after its position; the backfill needs those after from.
	if !d.backfillLive() || from+1 < d.bf.at {
		return d.r.Slot, nil
	}
	if from > d.bf.at {
		var end string
		err := d.pc.QueryRow(ctx, "SELECT end_lsn::text FROM pg_replication_slot_advance($1, $2::text::pg_lsn)", d.bf.name, from.String()).Scan(&end)
		if err == nil {
			var at pglogrepl.LSN
			if at, err = pglogrepl.ParseLSN(end); err == nil {
				d.bf.at = at
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			if d.pc.IsClosed() {
				d.dropSession()
				return "", fmt.Errorf("moving temporary replication slot %q to %s: %w", d.bf.name, from, err)
			}
			// The job's slot has every change: give this one up.
			if _, derr := d.pc.Exec(ctx, "SELECT pg_drop_replication_slot($1)", d.bf.name); derr != nil {
				d.dropSession() // which drops it too
			}
			d.bf = backfillSlot{retryAt: time.Now().Add(backfillRetry)}
			return d.r.Slot, nil
		}
	}
	return d.bf.name, nil
}
