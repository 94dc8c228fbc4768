package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
)

// dialect is PostgreSQL's side of CDC. Its session (pc) is opened when
// first needed and used by one goroutine at a time (the framework's
// contract); the replication connection is Stream's own.
type dialect struct {
	o      *cdc.Options
	conn   *jdbc.Conn
	r      resolved
	tables []*capTable
	pc     *pgx.Conn
	// bf is the session's backfill slot, when it has one, and settled the
	// latest settled WAL position (backfill.go).
	bf      backfillSlot
	settled pglogrepl.LSN
	// committed is the LSN a completed checkpoint holds (Commit), which
	// Stream confirms to the server.
	committed atomic.Uint64
}

var (
	_ cdc.Dialect        = (*dialect)(nil)
	_ cdc.LogReader      = (*dialect)(nil)
	_ cdc.SchemaFollower = (*dialect)(nil)
)

func newDialect(cfg *config.PluginConfig, o *cdc.Options, tables []*cdc.Table, private []byte) (cdc.Dialect, error) {
	conn, _, err := options(cfg, o)
	if err != nil {
		return nil, err
	}
	d := &dialect{o: o}
	if err := json.Unmarshal(private, &d.r); err != nil {
		return nil, fmt.Errorf("Postgres-CDC resolved form: %w", err)
	}
	d.conn = conn.WithDatabase(d.r.Database)
	for _, t := range tables {
		c, err := newCapTable(t)
		if err != nil {
			return nil, err
		}
		d.tables = append(d.tables, c)
	}
	return d, nil
}

// newCapTable is a captured table with its decoders.
func newCapTable(t *cdc.Table) (*capTable, error) {
	var p tablePrivate
	if err := json.Unmarshal(t.Private, &p); err != nil {
		return nil, fmt.Errorf("Postgres-CDC resolved table %s: %w", t.ID, err)
	}
	decs, err := p.Jdbc.PostgresTextDecoders()
	if err != nil {
		return nil, err
	}
	return &capTable{t: t, jt: p.Jdbc, decs: decs, oids: p.Jdbc.ColumnOIDs(), schema: p.Schema, name: p.Name}, nil
}

// UseTable decodes table i as t from now on (cdc.SchemaFollower).
func (d *dialect) UseTable(i int, t *cdc.Table) error {
	if i < 0 || i >= len(d.tables) {
		return fmt.Errorf("table %d of %d", i, len(d.tables))
	}
	c, err := newCapTable(t)
	if err != nil {
		return err
	}
	d.tables[i] = c
	return nil
}

// describeAgain is table ti described from the catalog after a Relation
// message m showed its columns changed, checked against m: the catalog
// must have m's columns (names and types), else the table changed again
// since and the stream cannot tell the columns of the rows in between.
// It keeps the table's primary key and chunk key as the job planned them.
func (d *dialect) describeAgain(ctx context.Context, ti int, m *pglogrepl.RelationMessage) (*capTable, error) {
	old := d.tables[ti]
	pc, err := connectRetry(ctx, d.conn, d.o)
	if err != nil {
		return nil, fmt.Errorf("describing %s after its columns changed: %w", old.t.ID, err)
	}
	defer pc.Close(context.Background())
	jt, err := jdbc.DescribePostgres(ctx, pc, d.r.Database, old.schema, old.name)
	if err != nil {
		return nil, fmt.Errorf("describing %s after its columns changed: %w", old.t.ID, err)
	}
	s, oids := jt.Schema(), jt.ColumnOIDs()
	var names []string
	for _, c := range m.Columns {
		names = append(names, c.Name)
	}
	same := len(oids) == len(m.Columns)
	for j := 0; same && j < len(oids); j++ {
		same = s.Fields[j].Name == m.Columns[j].Name && oids[j] == m.Columns[j].DataType
	}
	if !same {
		return nil, fmt.Errorf("%w: table %s has columns (%s) in the log, but (%s) now: it changed again since; start the job anew (not from its checkpoint)",
			cdc.ErrSchemaChanged, old.t.ID, strings.Join(names, ", "), strings.Join(s.Names(), ", "))
	}
	s.PrimaryKey = old.t.Schema.PrimaryKey
	priv, err := json.Marshal(tablePrivate{Schema: old.schema, Name: old.name, Jdbc: jt})
	if err != nil {
		return nil, err
	}
	return newCapTable(&cdc.Table{ID: old.t.ID, Schema: s, ChunkKey: old.t.ChunkKey, Private: priv})
}

// connectRetry opens a session, retrying connect.max-retries times.
func connectRetry(ctx context.Context, conn *jdbc.Conn, o *cdc.Options) (*pgx.Conn, error) {
	var err error
	for i := 0; i <= o.MaxRetries; i++ {
		var pc *pgx.Conn
		if pc, err = conn.ConnectPG(ctx); err == nil {
			return pc, nil
		}
		if ctx.Err() != nil {
			break
		}
		if i < o.MaxRetries {
			select {
			case <-time.After(time.Duration(i+1) * 200 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return nil, err
}

func (d *dialect) session(ctx context.Context) (*pgx.Conn, error) {
	if d.pc != nil && !d.pc.IsClosed() {
		return d.pc, nil
	}
	pc, err := connectRetry(ctx, d.conn, d.o)
	if err != nil {
		return nil, err
	}
	d.pc = pc
	return pc, nil
}

func (d *dialect) dropSession() {
	if d.pc != nil {
		d.pc.Close(context.Background())
		d.pc = nil
	}
	d.bf.name = "" // a temporary slot ends with its session
}

// CompareOffsets orders LSNs.
func (d *dialect) CompareOffsets(a, b cdc.Offset) (int, error) {
	x, err := parseLSN(a)
	if err != nil {
		return 0, err
	}
	y, err := parseLSN(b)
	if err != nil {
		return 0, err
	}
	switch {
	case x < y:
		return -1, nil
	case x > y:
		return 1, nil
	}
	return 0, nil
}

func parseLSN(o cdc.Offset) (pglogrepl.LSN, error) {
	if o == "" {
		return 0, nil
	}
	l, err := pglogrepl.ParseLSN(string(o))
	if err != nil {
		return 0, fmt.Errorf("offset %q is not an LSN: %w", o, err)
	}
	return l, nil
}

// Prepare makes the publication (or adds missing tables to it) and the
// slot. On a fresh start a slot in use by another session is an error (it
// belongs to another job), and an idle one is moved to the WAL's end
// unless startup.mode is earliest; a restore needs the slot to exist
// still.
func (d *dialect) Prepare(ctx context.Context, fresh bool) error {
	pc, err := d.session(ctx)
	if err != nil {
		return err
	}
	if err := d.publication(ctx, pc); err != nil {
		d.dropSession()
		return err
	}
	var active bool
	var pid *int32
	// A session of a process that was killed may hold the slot a moment
	// longer: wait for it up to connect.timeout.ms.
	for deadline := time.Now().Add(d.o.ConnectTimeout); ; {
		err = pc.QueryRow(ctx, "SELECT active, active_pid FROM pg_replication_slots WHERE slot_name = $1", d.r.Slot).Scan(&active, &pid)
		if err != nil || !fresh || !active || time.Now().After(deadline) {
			break
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if !fresh {
			return fmt.Errorf("replication slot %q is gone: the changes since the checkpoint are lost (start the job anew)", d.r.Slot)
		}
		if _, err := pc.Exec(ctx, "SELECT pg_create_logical_replication_slot($1, 'pgoutput')", d.r.Slot); err != nil {
			return fmt.Errorf("creating replication slot %q: %w", d.r.Slot, err)
		}
		return nil
	case err != nil:
		d.dropSession()
		return fmt.Errorf("reading replication slot %q: %w", d.r.Slot, err)
	case fresh && active && pid != nil:
		return fmt.Errorf("replication slot %q is in use by server process %d (another job or client?): set another slot.name", d.r.Slot, *pid)
	case fresh && d.o.Startup != cdc.StartupEarliest:
		// A new job on a slot an earlier job left: move it to now, as
		// if just created. The chunks' low watermark is the slot's
		// confirmed position, and a backfill reading the earlier
		// job's changes would meet what the snapshot already holds but
		// cannot be replayed onto it: a TRUNCATE, or a table's older
		// columns.
		if _, err := pc.Exec(ctx, "SELECT pg_replication_slot_advance($1, pg_current_wal_flush_lsn())", d.r.Slot); err != nil {
			d.dropSession()
			return fmt.Errorf("moving replication slot %q to the WAL's end for a new job: %w", d.r.Slot, err)
		}
	}
	return nil
}

// publication makes sure the publication publishes every captured table.
func (d *dialect) publication(ctx context.Context, pc *pgx.Conn) error {
	pub := pgx.Identifier{d.r.Publication}.Sanitize()
	var exists bool
	if err := pc.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = $1)", d.r.Publication).Scan(&exists); err != nil {
		return fmt.Errorf("reading publication %q: %w", d.r.Publication, err)
	}
	var missing []string
	for _, t := range d.tables {
		var in bool
		if exists {
			if err := pc.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND schemaname = $2 AND tablename = $3)", d.r.Publication, t.schema, t.name).Scan(&in); err != nil {
				return fmt.Errorf("reading publication %q: %w", d.r.Publication, err)
			}
		}
		if !in {
			missing = append(missing, t.jt.Quoted(false))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	stmt := "ALTER PUBLICATION " + pub + " ADD TABLE " + strings.Join(missing, ", ")
	if !exists {
		stmt = "CREATE PUBLICATION " + pub + " FOR TABLE " + strings.Join(missing, ", ")
	}
	if _, err := pc.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}

// StartOffset: EARLIEST is the slot's confirmed LSN, LATEST the WAL's end,
// each one byte before (byteBefore): a transaction whose commit record
// starts there is not yet emitted.
func (d *dialect) StartOffset(ctx context.Context, mode cdc.StartupMode) (cdc.Offset, error) {
	if mode == cdc.StartupEarliest {
		return d.confirmed(ctx)
	}
	return d.current(ctx)
}

// StopOffset: LATEST is the WAL's end now.
func (d *dialect) StopOffset(ctx context.Context, mode cdc.StopMode) (cdc.Offset, error) {
	return d.current(ctx)
}

func (d *dialect) current(ctx context.Context) (cdc.Offset, error) {
	pc, err := d.session(ctx)
	if err != nil {
		return "", err
	}
	var lsn string
	if err := pc.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn); err != nil {
		d.dropSession()
		return "", fmt.Errorf("reading the WAL position: %w", err)
	}
	return byteBefore(cdc.Offset(lsn))
}

func (d *dialect) confirmed(ctx context.Context) (cdc.Offset, error) {
	pc, err := d.session(ctx)
	if err != nil {
		return "", err
	}
	var lsn *string
	if err := pc.QueryRow(ctx, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", d.r.Slot).Scan(&lsn); err != nil {
		d.dropSession()
		return "", fmt.Errorf("reading replication slot %q: %w", d.r.Slot, err)
	}
	if lsn == nil {
		return "", fmt.Errorf("replication slot %q has no confirmed position", d.r.Slot)
	}
	return byteBefore(cdc.Offset(*lsn))
}

// keyExpr is the chunk key in SQL and a parameter of it, so that both
// order as cdc.Key does (strings by their bytes: COLLATE "C").
func keyExpr(t *capTable, n int) (col, param string) {
	f := t.t.Schema.Fields[t.t.KeyIndex()]
	col = pgx.Identifier{f.Name}.Sanitize()
	p := "$" + strconv.Itoa(n)
	switch f.Type.ID {
	case row.TypeString:
		return col + ` COLLATE "C"`, p + `::text COLLATE "C"`
	case row.TypeDecimal:
		return col, p + "::numeric"
	case row.TypeDate:
		return col, p + "::date"
	}
	return col, p
}

// keyArg is k as the parameter keyExpr writes.
func keyArg(t *capTable, k *cdc.Key) any {
	f := t.t.Schema.Fields[t.t.KeyIndex()]
	switch f.Type.ID {
	case row.TypeDate:
		return time.Unix(k.I*86400, 0).UTC().Format("2006-01-02")
	case row.TypeDecimal, row.TypeString:
		return k.S
	}
	return k.I
}

func (d *dialect) table(t *cdc.Table) (*capTable, error) {
	for _, c := range d.tables {
		if c.t.ID == t.ID {
			return c, nil
		}
	}
	return nil, fmt.Errorf("table %s is not captured", t.ID)
}

// ChunkEnd finds the next chunk's first key with one indexed query.
func (d *dialect) ChunkEnd(ctx context.Context, t *cdc.Table, after *cdc.Key, size int) (*cdc.Key, error) {
	ct, err := d.table(t)
	if err != nil {
		return nil, err
	}
	pc, err := d.session(ctx)
	if err != nil {
		return nil, err
	}
	col, param := keyExpr(ct, 1)
	q := "SELECT " + pgx.Identifier{t.ChunkKey}.Sanitize() + "::text FROM " + ct.jt.Quoted(false)
	var args []any
	if after != nil {
		q += " WHERE " + col + " >= " + param
		args = append(args, keyArg(ct, after))
	}
	// ORDER BY the column qualified: a bare name is the output column,
	// the key as text, whose order is not a number's (and a sort of every
	// row from after on instead of an index scan).
	q += " ORDER BY " + ct.jt.Quoted(false) + "." + col + " OFFSET " + strconv.Itoa(size) + " LIMIT 1"
	var s string
	err = pc.QueryRow(ctx, q, args...).Scan(&s)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		d.dropSession()
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return cdc.ParseKey(t.Schema.Fields[t.KeyIndex()].Type, s)
}

// ReadChunk reads a chunk in a REPEATABLE READ transaction. Its high
// watermark is one byte before the WAL insert position read by the
// transaction's first statement, after its snapshot was taken: every
// transaction the snapshot sees committed before it. A transaction's
// offset is its commit record's LSN, and the first record reserved after
// the position was read starts exactly there: that transaction is not in
// the snapshot (nor in the backfill, which may peek before its commit is
// flushed), so its offset must be after the watermark, or the stream
// drops it as the chunk's. Its low watermark, with exactly_once, is the
// tight one lowWatermark finds when it can (backfill.go); otherwise one
// byte before the slot's confirmed position, which does not move during
// the snapshot phase: every change the snapshot may miss is after it.
func (d *dialect) ReadChunk(ctx context.Context, t *cdc.Table, c cdc.Chunk, fetchSize int, emit func(*row.Batch) error) (cdc.Offset, cdc.Offset, error) {
	ct, err := d.table(t)
	if err != nil {
		return "", "", err
	}
	low, err := d.lowWatermark(ctx)
	if err != nil {
		return "", "", err
	}
	pc, err := d.session(ctx)
	if err != nil {
		return "", "", err
	}
	tx, err := pc.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		d.dropSession()
		return "", "", err
	}
	defer tx.Rollback(context.Background())
	var high string
	if err := tx.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&high); err != nil {
		d.dropSession()
		return "", "", err
	}
	q := "SELECT " + ct.jt.SelectList(false) + " FROM " + ct.jt.Quoted(false)
	var conds []string
	var args []any
	if t.ChunkKey != "" {
		if c.Lo != nil {
			col, p := keyExpr(ct, len(args)+1)
			conds = append(conds, col+" >= "+p)
			args = append(args, keyArg(ct, c.Lo))
		}
		if c.Hi != nil {
			col, p := keyExpr(ct, len(args)+1)
			conds = append(conds, col+" < "+p)
			args = append(args, keyArg(ct, c.Hi))
		}
	}
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	if err := ct.jt.QueryPostgres(ctx, pc, q, args, fetchSize, emit); err != nil {
		d.dropSession()
		return "", "", err
	}
	if err := tx.Commit(ctx); err != nil {
		d.dropSession()
		return "", "", err
	}
	hi, err := byteBefore(cdc.Offset(high))
	return low, hi, err
}

// byteBefore is the LSN one byte before o: the offset of every
// transaction whose commit record starts before o, and before every one
// whose commit record starts at o (a transaction's offset is its commit
// record's LSN, and positions read from the server are where the next
// record will start).
func byteBefore(o cdc.Offset) (cdc.Offset, error) {
	l, err := parseLSN(o)
	if err != nil || l == 0 {
		return o, err
	}
	return cdc.Offset((l - 1).String()), nil
}

// ReadLog peeks at a slot's changes (without consuming them) up to to:
// the transactions whose commit records start before the insert position
// to is one byte before (ReadChunk). The slot is the session's temporary
// one moved up to from when it can be, else the job's (backfill.go). Only
// one session may use a slot at a time, so a peek at the job's slot waits
// while another reader peeks.
func (d *dialect) ReadLog(ctx context.Context, from, to cdc.Offset, emit func(cdc.Event) error) error {
	last, err := parseLSN(to)
	if err != nil {
		return err
	}
	end := last + 1
	if err := d.flushedTo(ctx, end); err != nil {
		return err
	}
	from0, err := parseLSN(from)
	if err != nil {
		return err
	}
	slot, err := d.backfillFrom(ctx, from0)
	if err != nil {
		return err
	}
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		err := d.peek(ctx, slot, end, emit)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55006" { // object_in_use: the slot is active
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// flushedTo waits until the WAL is flushed up to lsn. A peek reads the
// WAL only as far as it is flushed when it starts, and a transaction whose
// commit record was reserved before the high watermark (so that the
// stream will not emit it again) may not be flushed yet: without the wait
// the backfill would miss it. The insert position the high watermark is
// counts every reserved record whole, so once the flush position reaches
// it, every record before it is in the WAL.
//
// A record past the last commit (an open transaction's) may sit unflushed
// in a partly filled WAL page for seconds (until the background writer's
// next standby snapshot): when the flush is behind, a transaction id is
// taken and committed (txid_current), whose commit record comes after lsn
// and is flushed with everything before it.
func (d *dialect) flushedTo(ctx context.Context, lsn pglogrepl.LSN) error {
	pc, err := d.session(ctx)
	if err != nil {
		return err
	}
	for nudged := false; ; {
		var s string
		if err := pc.QueryRow(ctx, "SELECT pg_current_wal_flush_lsn()::text").Scan(&s); err != nil {
			d.dropSession()
			return fmt.Errorf("reading the WAL flush position: %w", err)
		}
		f, err := pglogrepl.ParseLSN(s)
		if err != nil {
			return err
		}
		if f >= lsn {
			return nil
		}
		if !nudged {
			nudged = true
			if _, err := pc.Exec(ctx, "SELECT txid_current()"); err != nil && pc.IsClosed() {
				d.dropSession()
				return fmt.Errorf("flushing the WAL: %w", err)
			}
			continue
		}
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (d *dialect) peek(ctx context.Context, slot string, upto pglogrepl.LSN, emit func(cdc.Event) error) error {
	pc, err := d.session(ctx)
	if err != nil {
		return err
	}
	rows, err := pc.Query(ctx, "SELECT data FROM pg_logical_slot_peek_binary_changes($1, $2::text::pg_lsn, NULL, 'proto_version', '1', 'publication_names', $3)",
		slot, upto.String(), d.r.Publication)
	if err != nil {
		return err
	}
	defer rows.Close()
	dec := newDecoder(d.tables)
	var data []byte
	for rows.Next() {
		if err := rows.Scan(&data); err != nil {
			return err
		}
		if err := dec.feed(data, emit); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Commit records the LSN Stream confirms to the server.
func (d *dialect) Commit(offset cdc.Offset) {
	l, err := parseLSN(offset)
	if err != nil {
		return // not one of ours: the framework hands back what Stream gave
	}
	for {
		cur := d.committed.Load()
		if uint64(l) <= cur || d.committed.CompareAndSwap(cur, uint64(l)) {
			return
		}
	}
}

func (d *dialect) Close() error {
	d.dropSession()
	return nil
}
