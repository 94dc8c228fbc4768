package jdbc

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/connectors"
)

// committer commits the writers' prepared transactions where the
// JobMaster runs (any node reaches the database). Every step can be
// repeated: a transaction committed before is recognised as such
// (xa.go), so a commit redone after a restore is a no-op.
type committer struct {
	r *sinkResolved
}

// Commit commits each info, trying each up to max_commit_attempts times
// on a fresh session (a connection reset during commit is retried); the
// engine retries what is still failing later, with backoff.
func (c *committer) Commit(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	for _, raw := range infos {
		info, err := decodeCommitInfo(raw)
		if err != nil {
			return connectors.Permanent(err)
		}
		for try := 1; ; try++ {
			err = c.commitOne(ctx, info)
			if err == nil || connectors.IsPermanent(err) || try >= c.r.Attempts || ctx.Err() != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(try) * 200 * time.Millisecond):
			}
		}
		if err != nil {
			return fmt.Errorf("Jdbc commit of %s (checkpoint %d): %w", info.XID, cc.CheckpointID, err)
		}
	}
	if c.r.Conn.dialect() == dialectMySQL && len(infos) > 0 {
		c.sweepMarkers(ctx, cc)
	}
	return nil
}

func (c *committer) commitOne(ctx context.Context, info *commitInfo) error {
	return c.withSession(ctx, func(pg *pgx.Conn, my *sql.Conn) error {
		if pg != nil {
			return commitPG(ctx, pg, info)
		}
		return commitMySQL(ctx, my, info)
	})
}

// withSession runs fn on a new session.
func (c *committer) withSession(ctx context.Context, fn func(*pgx.Conn, *sql.Conn) error) error {
	cctx, cancel := c.r.Conn.checkContext(ctx)
	defer cancel()
	if c.r.Conn.dialect() == dialectPostgres {
		conn, err := c.r.Conn.connectPG(cctx)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		return fn(conn, nil)
	}
	db, err := c.r.Conn.connectMySQL(cctx)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(nil, conn)
}

// sweepMarkers deletes the markers of this pipeline's transactions ten
// checkpoints old and more: a commit is redone only from the checkpoint
// restored, which is never that far behind one being committed now. The
// old markers are found with a plain (non-locking) read and deleted by
// key, so the sweep never waits on, or blocks, a writer's prepared
// transaction.
func (c *committer) sweepMarkers(ctx context.Context, cc connectors.CommitContext) {
	prefix := xidPrefix(cc.JobID, c.r.ID, cc.Pipeline)
	d := dialectSQL{name: dialectMySQL}
	table := d.quote(c.r.markerDB()) + "." + d.quote(markerTable)
	c.withSession(ctx, func(_ *pgx.Conn, my *sql.Conn) error {
		rows, err := my.QueryContext(ctx, "SELECT xid FROM "+table+" WHERE xid LIKE ? AND ckpt < ? LIMIT 1000", prefix+"%", cc.CheckpointID-10)
		if err != nil {
			return err
		}
		var old []any
		for rows.Next() {
			var x string
			if rows.Scan(&x) == nil {
				old = append(old, x)
			}
		}
		rows.Close()
		if len(old) == 0 {
			return nil
		}
		_, err = my.ExecContext(ctx, "DELETE FROM "+table+" WHERE xid IN (?"+strings.Repeat(",?", len(old)-1)+")", old...)
		return err
	})
}

// Abort rolls back prepared transactions that will never be committed.
func (c *committer) Abort(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	var err error
	for _, raw := range infos {
		info, derr := decodeCommitInfo(raw)
		if derr != nil {
			err = errors.Join(err, derr)
			continue
		}
		err = errors.Join(err, rollbackPrepared(ctx, &c.r.Conn, info.XID))
	}
	return err
}

// AbortStale rolls back what earlier attempts of this job's pipeline
// prepared and never committed (run on restore, after the restored
// checkpoint's infos were committed): the transactions XA RECOVER or
// pg_prepared_xacts lists under this sink's prefix with a lower attempt.
// Other jobs', sinks', pipelines' and the current or a newer attempt's are
// left alone.
func (c *committer) AbortStale(ctx context.Context, cc connectors.CommitContext) error {
	if !c.r.ExactlyOnce {
		return nil
	}
	prefix := xidPrefix(cc.JobID, c.r.ID, cc.Pipeline)
	var stale []string
	err := c.withSession(ctx, func(pg *pgx.Conn, my *sql.Conn) error {
		xids, err := listPrepared(ctx, pg, my, prefix)
		if err != nil {
			return err
		}
		for _, x := range xids {
			if a, ok := xidAttempt(x, prefix); ok && a < cc.Attempt {
				stale = append(stale, x)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("Jdbc: listing prepared transactions: %w", err)
	}
	for _, x := range stale {
		if err := rollbackPrepared(ctx, &c.r.Conn, x); err != nil {
			return err
		}
	}
	return nil
}

// listPrepared lists the prepared transactions whose id has prefix.
func listPrepared(ctx context.Context, pg *pgx.Conn, my *sql.Conn, prefix string) ([]string, error) {
	var out []string
	if pg != nil {
		rows, err := pg.Query(ctx, "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)", prefix)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var gid string
			if err := rows.Scan(&gid); err != nil {
				return nil, err
			}
			out = append(out, gid)
		}
		return out, rows.Err()
	}
	rows, err := my.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var format, glen, blen int64
		var data string
		if err := rows.Scan(&format, &glen, &blen, &data); err != nil {
			return nil, err
		}
		if int(glen) <= len(data) && strings.HasPrefix(data[:glen], prefix) && blen == 0 {
			out = append(out, data[:glen])
		}
	}
	return out, rows.Err()
}

// rollbackMySQL rolls back XA transaction xid. XAER_NOTA ("unknown")
// is not yet "gone": the session that prepared it may still be ending
// (PrepareCommit disconnects right after the prepare), and until it has
// the transaction is not another session's to roll back — though XA
// RECOVER lists it. So while XA RECOVER lists it, the rollback is tried
// again, for at most detachWait.
func rollbackMySQL(ctx context.Context, my *sql.Conn, xid string) error {
	deadline := time.Now().Add(detachWait)
	for {
		_, err := my.ExecContext(ctx, "XA ROLLBACK "+quoteLiteral(xid))
		if !mysqlXAGone(err) {
			return err
		}
		listed, lerr := listPrepared(ctx, nil, my, xid)
		if lerr != nil {
			return fmt.Errorf("XA transaction %s is unknown to this session and XA RECOVER failed: %w", xid, lerr)
		}
		if !slices.Contains(listed, xid) {
			return nil // rolled back or committed already
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("XA transaction %s is prepared but still held by the session that prepared it after %s", xid, detachWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// rollbackPrepared rolls back a prepared transaction on a new session;
// one that is gone is fine.
func rollbackPrepared(ctx context.Context, co *connOptions, xid string) error {
	c := &committer{r: &sinkResolved{Conn: *co}}
	err := c.withSession(ctx, func(pg *pgx.Conn, my *sql.Conn) error {
		if pg != nil {
			_, err := pg.Exec(ctx, "ROLLBACK PREPARED "+quoteLiteral(xid))
			if pgPreparedGone(err) {
				return nil
			}
			return err
		}
		return rollbackMySQL(ctx, my, xid)
	})
	if err != nil {
		return fmt.Errorf("Jdbc: rolling back %s: %w", xid, err)
	}
	return nil
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
