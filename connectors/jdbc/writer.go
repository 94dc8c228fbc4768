package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// maxParams bounds the arguments of one statement (PostgreSQL's limit is
// 65535; MySQL's statements carry their values inline and are bounded by
// max_allowed_packet, kept small by batch_size).
const maxParams = 65535

// writer applies a subtask's rows in batches of batch_size: runs of
// INSERT and UPDATE_AFTER as multi-row inserts or upserts (or COPY), runs
// of UPDATE_BEFORE and DELETE as deletes by key, in the order they came.
// Without exactly-once each round is one transaction, retried up to
// max_retries on a fresh session; with it, every round of a checkpoint
// goes into the one transaction that PrepareCommit prepares.
type writer struct {
	r    *sinkResolved
	task connectors.TaskInfo
	ctx  context.Context
	d    dialectSQL

	pg    *pgx.Conn
	myDB  *sql.DB
	my    *sql.Conn
	stmts map[string]*sql.Stmt // MySQL statements prepared on my

	tables   map[string]*tableWriter
	versions map[string]*tableWriter      // by schema columns, after schema changes (schemachange.go)
	bySchema map[*row.Schema]*tableWriter // versions by schema, a cache
	pending  []*row.Batch
	rows     int
	flushed  bool // rows were written since the last PrepareCommit
	idle     int  // PrepareCommits in a row with no rows written
	// deadlocks counts the rounds tried again after the server aborted
	// them for a deadlock (deadlockRetries).
	deadlocks int

	// exactly-once
	inTx         bool
	xid          string
	seq          int64
	txRows       int64
	lastPrepared *commitInfo
	marked       bool // MySQL: the marker table is known to exist
}

// tableWriter is how rows of one input table are written.
type tableWriter struct {
	t    *sinkTable
	args []argFunc
}

func newWriter(ctx context.Context, r *sinkResolved, task connectors.TaskInfo) (*writer, error) {
	w := &writer{r: r, task: task, ctx: ctx, d: dialectSQL{name: r.Conn.dialect()}, tables: map[string]*tableWriter{}}
	for i, in := range r.inputs {
		tw := &tableWriter{}
		if len(r.Tables) > 0 {
			tw.t = r.Tables[i]
		}
		for _, f := range in.Fields {
			a, err := argOf(w.d.name, f.Type)
			if err != nil {
				return nil, fmt.Errorf("Jdbc: table %s field %q: %w", in.TableID, f.Name, err)
			}
			tw.args = append(tw.args, a)
		}
		w.tables[in.TableID] = tw
	}
	return w, nil
}

// connect opens the writer's session when it has none.
func (w *writer) connect() error {
	if w.pg != nil || w.my != nil {
		return nil
	}
	ctx, cancel := w.r.Conn.checkContext(w.ctx)
	defer cancel()
	if w.d.name == dialectPostgres {
		conn, err := w.r.Conn.connectPG(ctx)
		if err != nil {
			return err
		}
		if w.r.TxTimeout > 0 {
			if _, err := conn.Exec(ctx, fmt.Sprintf("SET idle_in_transaction_session_timeout = '%ds'", w.r.TxTimeout)); err != nil {
				conn.Close(context.Background())
				return err
			}
		}
		w.pg = conn
		return nil
	}
	db, err := w.r.Conn.connectMySQL(ctx)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return fmt.Errorf("connect to %s: %w", w.r.Conn.where(), err)
	}
	// READ COMMITTED: InnoDB then takes no gap locks for the writes, so
	// the transactions of two writers (prepared, waiting for their
	// checkpoint to complete) never block each other.
	if _, err := conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"); err != nil {
		conn.Close()
		db.Close()
		return fmt.Errorf("Jdbc: %s: %w", w.r.Conn.where(), err)
	}
	if w.r.TxTimeout > 0 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION wait_timeout = %d", w.r.TxTimeout)); err != nil {
			conn.Close()
			db.Close()
			return err
		}
	}
	if w.r.ExactlyOnce && !w.marked {
		// DDL commits implicitly: make sure of the marker table before any XA START.
		if err := ensureMarker(ctx, conn, w.r.markerDB()); err != nil {
			conn.Close()
			db.Close()
			return fmt.Errorf("Jdbc: creating %s: %w", markerTable, err)
		}
		w.marked = true
	}
	w.myDB, w.my = db, conn
	return nil
}

func (w *writer) disconnect() {
	if w.pg != nil {
		w.pg.Close(context.Background())
		w.pg = nil
	}
	if w.my != nil {
		for _, st := range w.stmts {
			st.Close()
		}
		w.stmts = nil
		w.my.Close()
		w.myDB.Close()
		w.my, w.myDB = nil, nil
	}
}

func (w *writer) exec(q string, args ...any) error {
	if w.pg != nil {
		_, err := w.pg.Exec(w.ctx, q, args...)
		return err
	}
	_, err := w.my.ExecContext(w.ctx, q, args...)
	return err
}

// execBulk runs a multi-row statement. On MySQL it is prepared once per
// session and shape and run in the binary protocol, so the server parses
// no values.
func (w *writer) execBulk(q string, args ...any) error {
	if w.my == nil {
		return w.exec(q, args...)
	}
	st, ok := w.stmts[q]
	if !ok {
		var err error
		if st, err = w.my.PrepareContext(w.ctx, q); err != nil {
			return err
		}
		if w.stmts == nil {
			w.stmts = map[string]*sql.Stmt{}
		}
		w.stmts[q] = st
	}
	_, err := st.ExecContext(w.ctx, args...)
	return err
}

func (w *writer) Write(b *row.Batch) error {
	if _, ok := w.tables[b.Schema.TableID]; !ok {
		return fmt.Errorf("Jdbc: rows of table %s, which is not an input of this sink", b.Schema.TableID)
	}
	w.pending = append(w.pending, b)
	w.rows += b.Len()
	if w.rows >= w.r.BatchSize {
		return w.flush()
	}
	return nil
}

// flush writes the pending rows.
func (w *writer) flush() error {
	if w.rows == 0 {
		return nil
	}
	w.flushed = true
	if w.r.ExactlyOnce {
		if err := w.connect(); err != nil {
			return err
		}
		if !w.inTx {
			if err := w.begin(); err != nil {
				return err
			}
		}
		if err := w.apply(); err != nil {
			return err
		}
		w.txRows += int64(w.rows)
		w.pending, w.rows = w.pending[:0], 0
		return nil
	}
	for try, deadlocks := 0, 0; ; {
		err := w.round()
		if err == nil {
			w.pending, w.rows = w.pending[:0], 0
			return nil
		}
		switch {
		case isDeadlock(err) && deadlocks < deadlockRetries:
			// The server rolled the round back to break a deadlock with
			// another writer: try again on the same session soon,
			// without using up max_retries.
			deadlocks++
			w.deadlocks++
			time.Sleep(time.Duration(deadlocks*deadlocks)*10*time.Millisecond + time.Duration(rand.IntN(20))*time.Millisecond)
		case try < w.r.MaxRetries:
			try++
			w.disconnect()
			time.Sleep(time.Duration(try) * time.Second)
		default:
			return err
		}
	}
}

// round writes the pending rows in one transaction (without
// exactly-once), rolled back when a statement fails.
func (w *writer) round() error {
	if err := w.connect(); err != nil {
		return err
	}
	if err := w.exec("BEGIN"); err != nil {
		return err
	}
	if err := w.apply(); err != nil {
		w.exec("ROLLBACK")
		return err
	}
	return w.exec("COMMIT")
}

// deadlockRetries is how often a round the server rolled back to break a
// deadlock is tried again before the error counts as a failure (and
// max_retries takes over). Writers of one table in parallel — subtasks,
// multi_table_sink_replica — write different keys, but an upsert's
// duplicate-key check and a delete take locks on index ranges, so InnoDB
// and PostgreSQL may find two rounds waiting for each other and abort one.
// Repeating the aborted round is always safe: nothing of it was written.
const deadlockRetries = 8

// isDeadlock tells whether err is the server aborting the transaction
// for a deadlock (MySQL 1213; PostgreSQL 40P01) or, in PostgreSQL, a
// serialization failure (40001).
func isDeadlock(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1213
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// begin opens the checkpoint's transaction.
func (w *writer) begin() error {
	w.seq++
	w.xid = xidOf(w.task, w.r.ID, w.seq)
	q := "BEGIN"
	if w.d.name == dialectMySQL {
		q = "XA START " + quoteLiteral(w.xid)
	}
	if err := w.exec(q); err != nil {
		return fmt.Errorf("Jdbc: %s on %s: %w", q, w.r.Conn.where(), err)
	}
	w.inTx, w.txRows = true, 0
	return nil
}

// apply writes the pending batches in the current transaction.
func (w *writer) apply() error {
	for _, b := range w.pending {
		tw, err := w.writerOf(b)
		if err != nil {
			return err
		}
		if tw.t == nil {
			if err := w.applyQuery(tw, b); err != nil {
				return err
			}
			continue
		}
		for i := 0; i < b.Len(); {
			del := isDelete(b.Kind(i))
			j := i + 1
			for j < b.Len() && isDelete(b.Kind(j)) == del {
				j++
			}
			var err error
			if del {
				err = w.deleteRun(tw, b, i, j)
			} else {
				err = w.insertRun(tw, b, i, j)
			}
			if err != nil {
				return fmt.Errorf("Jdbc: writing to %s: %w", tw.t.Target, lockWaitDetail(w.ctx, &w.r.Conn, withDetail(err)))
			}
			i = j
		}
	}
	return nil
}

func isDelete(k row.Kind) bool { return k == row.UpdateBefore || k == row.Delete }

// withDetail adds PostgreSQL's detail (which names the key of a
// constraint violation) to its error.
func withDetail(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Detail != "" {
		return fmt.Errorf("%w (%s)", err, pe.Detail)
	}
	return err
}

// rowArgs appends the arguments of row i.
func (tw *tableWriter) rowArgs(args []any, b *row.Batch, i int) []any {
	for j, f := range tw.args {
		c := b.Col(j)
		if c.IsNull(i) {
			args = append(args, nil)
		} else {
			args = append(args, f(c, i))
		}
	}
	return args
}

// insertRun writes rows [from, to) of b, all inserts or upserts.
func (w *writer) insertRun(tw *tableWriter, b *row.Batch, from, to int) error {
	upsert := w.r.Upsert && len(tw.t.Key) > 0
	idx := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		idx = append(idx, i)
	}
	if upsert && w.d.name == dialectPostgres {
		idx = lastPerKey(tw, b, idx) // ON CONFLICT may touch a row once per statement
	}
	if w.r.Copy && !upsert {
		rows := make([][]any, len(idx))
		for k, i := range idx {
			rows[k] = tw.rowArgs(nil, b, i)
		}
		t := tw.t.Target
		_, err := w.pg.CopyFrom(w.ctx, pgx.Identifier{t.Schema, t.Table}, tw.t.Columns, pgx.CopyFromRows(rows))
		return err
	}
	per := min(w.r.BatchSize, maxParams/max(1, len(tw.t.Columns)))
	args := make([]any, 0, per*len(tw.t.Columns))
	for len(idx) > 0 {
		n := min(per, len(idx))
		args = args[:0]
		for _, i := range idx[:n] {
			args = tw.rowArgs(args, b, i)
		}
		if err := w.execBulk(insertSQL(w.d, tw.t, n, upsert), args...); err != nil {
			return err
		}
		idx = idx[n:]
	}
	return nil
}

// lastPerKey keeps, of rows with the same key, the last.
func lastPerKey(tw *tableWriter, b *row.Batch, idx []int) []int {
	seen := make(map[string]bool, len(idx))
	keep := make([]int, 0, len(idx))
	for k := len(idx) - 1; k >= 0; k-- {
		key := keyString(tw, b, idx[k])
		if seen[key] {
			continue
		}
		seen[key] = true
		keep = append(keep, idx[k])
	}
	for l, r := 0, len(keep)-1; l < r; l, r = l+1, r-1 {
		keep[l], keep[r] = keep[r], keep[l]
	}
	return keep
}

func keyString(tw *tableWriter, b *row.Batch, i int) string {
	var sb strings.Builder
	for _, j := range tw.t.KeyIdx {
		v := b.Value(i, j)
		fmt.Fprintf(&sb, "%T:%v\x00", v, v)
	}
	return sb.String()
}

// deleteRun deletes by key the rows [from, to) of b.
func (w *writer) deleteRun(tw *tableWriter, b *row.Batch, from, to int) error {
	if len(tw.t.Key) == 0 {
		return fmt.Errorf("a %s row arrived but the table has no key to delete by: set primary_keys", b.Kind(from))
	}
	per := min(w.r.BatchSize, maxParams/len(tw.t.Key))
	args := make([]any, 0, per*len(tw.t.Key))
	for i := from; i < to; {
		n := min(per, to-i)
		args = args[:0]
		for r := i; r < i+n; r++ {
			for _, j := range tw.t.KeyIdx {
				c := b.Col(j)
				if c.IsNull(r) {
					args = append(args, nil)
				} else {
					args = append(args, tw.args[j](c, r))
				}
			}
		}
		if err := w.exec(deleteSQL(w.d, tw.t, n), args...); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// applyQuery runs the custom statement once per row, as SeaTunnel's
// query mode does (whatever the row's kind).
func (w *writer) applyQuery(tw *tableWriter, b *row.Batch) error {
	q := w.r.Query
	if w.d.name == dialectPostgres {
		q = numberPlaceholders(q)
		batch := &pgx.Batch{}
		for i := 0; i < b.Len(); i++ {
			batch.Queue(q, tw.rowArgs(nil, b, i)...)
		}
		if err := w.pg.SendBatch(w.ctx, batch).Close(); err != nil {
			return fmt.Errorf("Jdbc: query %q: %w", w.r.Query, withDetail(err))
		}
		return nil
	}
	args := make([]any, 0, len(tw.args))
	for i := 0; i < b.Len(); i++ {
		if err := w.exec(q, tw.rowArgs(args[:0], b, i)...); err != nil {
			return fmt.Errorf("Jdbc: query %q: %w", w.r.Query, err)
		}
	}
	return nil
}

// PrepareCommit flushes; with exactly-once it prepares the checkpoint's
// transaction and returns its commit info.
func (w *writer) PrepareCommit(checkpointID int64) ([]byte, error) {
	if err := w.flush(); err != nil {
		return nil, err
	}
	w.releaseIdle()
	if !w.r.ExactlyOnce || !w.inTx {
		return nil, nil
	}
	info := &commitInfo{V: commitInfoVersion, XID: w.xid, Rows: w.txRows, Targets: strings.Join(w.r.targets(), ",")}
	lit := quoteLiteral(w.xid)
	if w.d.name == dialectMySQL {
		info.Marker = w.r.markerDB()
		d := dialectSQL{name: dialectMySQL}
		if err := w.exec("INSERT INTO "+d.quote(info.Marker)+"."+d.quote(markerTable)+" (xid, ckpt) VALUES (?, ?)", w.xid, checkpointID); err != nil {
			return nil, fmt.Errorf("Jdbc: marking %s: %w", w.xid, err)
		}
		for _, q := range []string{"XA END " + lit, "XA PREPARE " + lit} {
			if err := w.exec(q); err != nil {
				return nil, fmt.Errorf("Jdbc: %s on %s: %w", q, w.r.Conn.where(), err)
			}
		}
		// A prepared XA transaction belongs to its session until that
		// ends; only then can the committer's session commit it.
		w.inTx = false
		w.disconnect()
	} else {
		if err := w.pg.QueryRow(w.ctx, "SELECT txid_current()").Scan(&info.TxID); err != nil {
			return nil, fmt.Errorf("Jdbc: transaction id of %s: %w", w.xid, err)
		}
		if err := w.exec("PREPARE TRANSACTION " + lit); err != nil {
			return nil, fmt.Errorf("Jdbc: PREPARE TRANSACTION %s on %s: %w", lit, w.r.Conn.where(), err)
		}
	}
	w.inTx, w.lastPrepared = false, info
	return info.encode()
}

// idleCheckpoints is how many checkpoints in a row a writer writes
// nothing before it closes its session.
const idleCheckpoints = 2

// releaseIdle closes the session of a writer that wrote nothing for
// idleCheckpoints checkpoints and has no transaction open; the next rows
// open a new one (connect). A CDC job's writers are the case: after the
// snapshot only the one behind the stream reader gets rows, and the
// others would hold a session each for as long as the job runs (as
// SeaTunnel's MysqlCDCIT checks, one session of the sink's user remains).
func (w *writer) releaseIdle() {
	if w.flushed {
		w.flushed, w.idle = false, 0
		return
	}
	w.idle++
	if w.idle >= idleCheckpoints && !w.inTx {
		w.disconnect()
	}
}

// markerDB is where the MySQL marker table lives: the first target's
// database, else the URL's.
func (r *sinkResolved) markerDB() string {
	if len(r.Tables) > 0 {
		return r.Tables[0].Target.Database
	}
	if r.Conn.Database != "" {
		return r.Conn.Database
	}
	return r.Conn.url.database
}

func (c *commitInfo) encode() ([]byte, error) {
	c.V = commitInfoVersion
	b, err := jsonMarshal(c)
	return b, err
}

func (w *writer) SnapshotState(checkpointID int64) ([][]byte, error) { return nil, nil }

// AbortPrepare rolls back what the last PrepareCommit prepared.
func (w *writer) AbortPrepare() error {
	info := w.lastPrepared
	w.lastPrepared = nil
	if info == nil {
		return nil
	}
	return rollbackPrepared(w.ctx, &w.r.Conn, info.XID)
}

// Close rolls back the open transaction (prepared ones stay for the
// committer) and the rows not yet written: Close commits nothing.
func (w *writer) Close() error {
	var err error
	if w.inTx && (w.pg != nil || w.my != nil) {
		if w.d.name == dialectMySQL {
			lit := quoteLiteral(w.xid)
			w.exec("XA END " + lit)
			err = w.exec("XA ROLLBACK " + lit)
		} else {
			err = w.exec("ROLLBACK")
		}
		w.inTx = false
	}
	w.pending, w.rows = nil, 0
	w.disconnect()
	if err != nil && w.ctx.Err() == nil {
		return fmt.Errorf("Jdbc: rolling back %s: %w", w.xid, err)
	}
	return nil
}
