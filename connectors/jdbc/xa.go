package jdbc

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stactor/stactor/connectors"
)

// Exactly-once: each writer writes a checkpoint's rows in one
// transaction that PrepareCommit prepares (MySQL/MariaDB: XA START … XA
// END, XA PREPARE; PostgreSQL: BEGIN … PREPARE TRANSACTION) and the
// committer commits once the checkpoint is complete (XA COMMIT, COMMIT
// PREPARED). A prepared transaction survives the writer, a crash of
// stactor and a restart of the server, so the commit can always be done
// or redone from the commit info in the checkpoint.
//
// Transaction ids are fixed by who prepares what: job, sink, pipeline,
// term, attempt, subtask and sequence (xidOf). A restore is a new attempt,
// so an id is never used twice, and AbortStale finds the transactions an
// earlier attempt prepared but never committed by their prefix.
//
// A commit that finds its transaction gone is good only when that is
// provable: on PostgreSQL txid_status of the transaction's id (recorded
// before PREPARE) says committed; on MySQL the transaction wrote a row
// with its id into stactor_xa_commits, which exists only if it committed.
// Anything else is a permanent error naming the transaction.

// markerTable is the MySQL table that proves a transaction committed.
const markerTable = "stactor_xa_commits"

// commitInfo is what PrepareCommit returns.
type commitInfo struct {
	V       int    `json:"v"`
	XID     string `json:"xid"`
	TxID    int64  `json:"txid,omitempty"`   // PostgreSQL's transaction id
	Marker  string `json:"marker,omitempty"` // MySQL: the database holding markerTable
	Rows    int64  `json:"rows"`
	Targets string `json:"targets,omitempty"` // for messages
}

const commitInfoVersion = 1

func decodeCommitInfo(b []byte) (*commitInfo, error) {
	var c commitInfo
	if err := json.Unmarshal(b, &c); err != nil || c.V != commitInfoVersion || c.XID == "" {
		return nil, fmt.Errorf("Jdbc commit info %q: not one of this version (%v)", b, err)
	}
	return &c, nil
}

// xidPrefix is the id prefix of a sink's transactions in one pipeline.
func xidPrefix(job, sinkID string, pipeline int) string {
	h := sha256.Sum256([]byte(job))
	return fmt.Sprintf("stx-%s-%s-p%d-", hex.EncodeToString(h[:4]), sinkID, pipeline)
}

// xidOf names a writer's seq-th transaction. MySQL's gtrid holds at most
// 64 bytes; this stays well below.
func xidOf(task connectors.TaskInfo, sinkID string, seq int64) string {
	return xidPrefix(task.JobID, sinkID, task.Pipeline) + fmt.Sprintf("t%d-a%d-s%d-n%d", task.Term, task.Attempt, task.SubtaskIndex, seq)
}

// xidAttempt reads the attempt out of an id with the prefix.
func xidAttempt(xid, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(xid, prefix)
	if !ok {
		return 0, false
	}
	for _, part := range strings.Split(rest, "-") {
		if a, ok := strings.CutPrefix(part, "a"); ok {
			n, err := strconv.Atoi(a)
			return n, err == nil
		}
	}
	return 0, false
}

// checkServer connects once (a wrong URL or password fails the job at
// plan time) and, for exactly-once, checks that the server keeps
// prepared transactions.
func checkServer(ctx context.Context, c *connOptions, exactlyOnce bool) error {
	if c.dialect() == dialectPostgres {
		conn, err := c.connectPG(ctx)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		if !exactlyOnce {
			return nil
		}
		var n string
		if err := conn.QueryRow(ctx, "SHOW max_prepared_transactions").Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", c.where(), err)
		}
		if n == "0" {
			return fmt.Errorf("PostgreSQL at %s has max_prepared_transactions = 0, so it cannot prepare transactions: is_exactly_once needs it above 0 (at least the sink's parallelism; set it in postgresql.conf and restart the server)", c.url)
		}
		return nil
	}
	db, err := c.connectMySQL(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if !exactlyOnce {
		return nil
	}
	rows, err := db.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		return fmt.Errorf("%s: XA RECOVER (is_exactly_once needs it; MySQL 8 users need XA_RECOVER_ADMIN): %w", c.where(), err)
	}
	rows.Close()
	return nil
}

// ensureMarker creates markerTable in database db.
func ensureMarker(ctx context.Context, conn *sql.Conn, db string) error {
	d := dialectSQL{name: dialectMySQL}
	_, err := conn.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+d.quote(db)+"."+d.quote(markerTable)+
		" (xid varchar(64) NOT NULL PRIMARY KEY, ckpt bigint NOT NULL, at timestamp(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB")
	return err
}

// mysqlXAGone tells whether err is MySQL's "unknown XID" (XAER_NOTA).
func mysqlXAGone(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1397
}

// pgPreparedGone tells whether err says a prepared transaction does not
// exist (undefined_object).
func pgPreparedGone(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42704"
}

// quoteLiteral is s as an SQL string literal (ids are ours: [a-z0-9-]).
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// commitPG commits a prepared transaction, or proves it committed.
func commitPG(ctx context.Context, conn *pgx.Conn, info *commitInfo) error {
	_, err := conn.Exec(ctx, "COMMIT PREPARED "+quoteLiteral(info.XID))
	if err == nil || !pgPreparedGone(err) {
		return err
	}
	var status *string
	if qerr := conn.QueryRow(ctx, "SELECT txid_status($1)", info.TxID).Scan(&status); qerr != nil {
		return fmt.Errorf("transaction %s is not prepared and its status cannot be read: %w", info.XID, qerr)
	}
	if status != nil && *status == "committed" {
		return nil // committed before (a commit redone after a restore)
	}
	s := "unknown (too old)"
	if status != nil {
		s = *status
	}
	return connectors.Permanent(fmt.Errorf("transaction %s (%d rows for %s) is not prepared any more and was not committed (status %s): its rows are lost; was it rolled back by hand?", info.XID, info.Rows, info.Targets, s))
}

// commitMySQL commits an XA transaction, or proves it committed. The
// writer's session detaches its prepared transaction when it ends, and
// the server finishes ending a session after the client has gone: until
// then another session is told the XID is unknown. So "unknown and no
// marker" is asked again for a few seconds before it counts as lost.
func commitMySQL(ctx context.Context, conn *sql.Conn, info *commitInfo) error {
	d := dialectSQL{name: dialectMySQL}
	deadline := time.Now().Add(detachWait)
	for {
		_, err := conn.ExecContext(ctx, "XA COMMIT "+quoteLiteral(info.XID))
		if err == nil || !mysqlXAGone(err) {
			return err
		}
		var n int
		qerr := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+d.quote(info.Marker)+"."+d.quote(markerTable)+" WHERE xid = ?", info.XID).Scan(&n)
		if qerr != nil {
			return fmt.Errorf("XA transaction %s is unknown and its marker cannot be read: %w", info.XID, qerr)
		}
		if n > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return connectors.Permanent(fmt.Errorf("XA transaction %s (%d rows for %s) is unknown to the server and did not commit: its rows are lost; was it rolled back by hand?", info.XID, info.Rows, info.Targets))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// detachWait is how long an unknown XID may still be detaching from the
// session that prepared it.
const detachWait = 5 * time.Second

// lockWaitDetail adds to MySQL's "Lock wait timeout exceeded" (1205) what
// may hold the lock and outlive every session: the server's prepared XA
// transactions (XA RECOVER, read on a session of its own). A prepared
// transaction keeps its row locks until someone commits or rolls it back;
// one left by a crash is rolled back by the next restore of its job
// (AbortStale), one of another program or of a job that is not restored
// holds them for good. Any other error is returned as it is.
func lockWaitDetail(ctx context.Context, c *connOptions, err error) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1205 {
		return err
	}
	db, cerr := c.connectMySQL(ctx)
	if cerr != nil {
		return err
	}
	defer db.Close()
	conn, cerr := db.Conn(ctx)
	if cerr != nil {
		return err
	}
	defer conn.Close()
	xids, lerr := listPrepared(ctx, nil, conn, "")
	switch {
	case lerr != nil:
		return err
	case len(xids) == 0:
		return fmt.Errorf("%w (the server has no prepared XA transaction: another session holds the lock)", err)
	}
	shown := strings.Join(xids[:min(len(xids), 5)], ", ")
	if len(xids) > 5 {
		shown += ", …"
	}
	return fmt.Errorf("%w (the server has %d prepared XA transactions, which hold their locks until committed or rolled back: %s; stactor's are named stx-…, and a job's restore rolls back those of its earlier attempts)",
		err, len(xids), shown)
}
