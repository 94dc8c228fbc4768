package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	drv "github.com/go-sql-driver/mysql"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
)

// dialect is MySQL's and MariaDB's side of the CDC framework
// (cdc.Dialect): snapshot chunks read with plain SELECTs between two SHOW
// MASTER STATUS watermarks, the binlog read by a replica connection.
type dialect struct {
	o        *cdc.Options
	url      *jdbc.Conn
	driver   *drv.Config // the URL's address, user, password and TLS, for the binlog
	resolved resolved
	tables   []*cdc.Table
	my       []*table
	byID     map[string]int

	mu sync.Mutex // guards db: opened on first use
	db *sql.DB
}

var (
	_ cdc.Dialect        = (*dialect)(nil)
	_ cdc.LogReader      = (*dialect)(nil)
	_ cdc.SchemaFollower = (*dialect)(nil)
)

// resolved is the dialect's part of the resolved plan.
type resolved struct {
	Flavor   string    `json:"flavor"`
	ServerID serverIDs `json:"server_id"`
	Start    Offset    `json:"start,omitempty"` // startup.specific-offset.*
	Stop     Offset    `json:"stop,omitempty"`  // stop.specific-offset.*
}

// conn opens the pool on first use, retrying connect.max-retries times.
func (d *dialect) conn(ctx context.Context) (*sql.DB, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db != nil {
		return d.db, nil
	}
	db, err := connect(ctx, d.url, d.o)
	if err != nil {
		return nil, err
	}
	// A pool's idle connections close after idleClose: chunk reads reuse
	// them back to back, and once the snapshot is read a reader and the
	// enumerator hold none, only the stream its binlog connection (as
	// SeaTunnel's MysqlCDCIT checks: one connection of the source's user).
	db.SetConnMaxIdleTime(idleClose)
	d.db = db
	return db, nil
}

const idleClose = 2 * time.Second

// connect opens a pool and checks it, retried as connect.max-retries says.
func connect(ctx context.Context, c *jdbc.Conn, o *cdc.Options) (*sql.DB, error) {
	var last error
	for try := 0; try <= o.MaxRetries; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(try) * time.Second):
			}
		}
		db, err := c.ConnectMySQL(ctx)
		if err == nil {
			return db, nil
		}
		last = err
	}
	return nil, fmt.Errorf("%w (%d tries)", last, o.MaxRetries+1)
}

func (d *dialect) CompareOffsets(a, b cdc.Offset) (int, error) {
	x, err := parseOffset(string(a))
	if err != nil {
		return 0, err
	}
	y, err := parseOffset(string(b))
	if err != nil {
		return 0, err
	}
	return x.Compare(y), nil
}

// Prepare has nothing to create: the binlog is the server's.
func (d *dialect) Prepare(ctx context.Context, fresh bool) error { return nil }

func (d *dialect) StartOffset(ctx context.Context, mode cdc.StartupMode) (cdc.Offset, error) {
	if mode == cdc.StartupSpecific {
		return cdc.Offset(d.resolved.Start.String()), nil
	}
	db, err := d.conn(ctx)
	if err != nil {
		return "", err
	}
	var o Offset
	if mode == cdc.StartupEarliest {
		o, err = earliestOffset(ctx, db)
	} else {
		o, err = currentOffset(ctx, db, d.resolved.Flavor)
	}
	return cdc.Offset(o.String()), err
}

func (d *dialect) StopOffset(ctx context.Context, mode cdc.StopMode) (cdc.Offset, error) {
	if mode == cdc.StopSpecific {
		return cdc.Offset(d.resolved.Stop.String()), nil
	}
	db, err := d.conn(ctx)
	if err != nil {
		return "", err
	}
	o, err := currentOffset(ctx, db, d.resolved.Flavor)
	return cdc.Offset(o.String()), err
}

// keyExpr is the chunk key as the queries compare it: strings by their
// bytes (CAST AS BINARY), whatever the column's collation, as the
// framework orders keys.
func keyExpr(t *cdc.Table) string {
	k := quoteIdent(t.ChunkKey)
	if t.Schema.Fields[t.KeyIndex()].Type.ID == row.TypeString {
		return "CAST(" + k + " AS BINARY)"
	}
	return k
}

// keyArg is a key as a statement argument.
func keyArg(t *cdc.Table, k *cdc.Key) any {
	ty := t.Schema.Fields[t.KeyIndex()].Type
	if ty.ID == row.TypeDate {
		return time.Unix(k.I*86400, 0).UTC().Format("2006-01-02")
	}
	if ty.ID == row.TypeDecimal {
		return k.S
	}
	return k.Value(ty)
}

func (d *dialect) ChunkEnd(ctx context.Context, t *cdc.Table, after *cdc.Key, size int) (*cdc.Key, error) {
	db, err := d.conn(ctx)
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf("SELECT %s FROM %s", quoteIdent(t.ChunkKey), quoteTable(t.ID))
	var args []any
	if after != nil {
		q += " WHERE " + keyExpr(t) + " >= ?"
		args = append(args, keyArg(t, after))
	}
	q += fmt.Sprintf(" ORDER BY %s LIMIT 1 OFFSET %d", keyExpr(t), size)
	var text sql.RawBytes
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("chunking %s by %s: %w", t.ID, t.ChunkKey, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	if err := rows.Scan(&text); err != nil {
		return nil, fmt.Errorf("chunking %s by %s: %w", t.ID, t.ChunkKey, err)
	}
	return cdc.ParseKey(t.Schema.Fields[t.KeyIndex()].Type, string(text))
}

func (d *dialect) ReadChunk(ctx context.Context, t *cdc.Table, c cdc.Chunk, fetchSize int, emit func(*row.Batch) error) (low, high cdc.Offset, err error) {
	db, err := d.conn(ctx)
	if err != nil {
		return "", "", err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	tb := d.my[c.Table]
	q := "SELECT " + tb.selectList() + " FROM " + quoteTable(t.ID)
	var args []any
	var conds []string
	if c.Lo != nil {
		conds, args = append(conds, keyExpr(t)+" >= ?"), append(args, keyArg(t, c.Lo))
	}
	if c.Hi != nil {
		conds, args = append(conds, keyExpr(t)+" < ?"), append(args, keyArg(t, c.Hi))
	}
	for i, cond := range conds {
		if i == 0 {
			q += " WHERE " + cond
		} else {
			q += " AND " + cond
		}
	}
	if t.ChunkKey != "" {
		q += " ORDER BY " + keyExpr(t)
	}
	var lo Offset
	if d.resolved.Flavor == gomysql.MariaDBFlavor {
		// The low watermark is the read's own snapshot: MariaDB gives the
		// binlog position of a consistent snapshot, so every transaction
		// before it is visible to the read and none after. SHOW MASTER
		// STATUS before the read would do only almost: a transaction is
		// in the binlog a moment before InnoDB makes it visible, so one at
		// or before that position could be missing from the rows, and the
		// stream would drop it as the chunk's.
		if lo, err = snapshotRead(ctx, conn, func() error { return tb.query(ctx, conn, q, args, fetchSize, emit) }); err != nil {
			return "", "", err
		}
	} else {
		if lo, err = currentOffset(ctx, conn, d.resolved.Flavor); err != nil {
			return "", "", err
		}
		if err := tb.query(ctx, conn, q, args, fetchSize, emit); err != nil {
			return "", "", err
		}
	}
	hi, err := currentOffset(ctx, conn, d.resolved.Flavor)
	if err != nil {
		return "", "", err
	}
	return cdc.Offset(lo.String()), cdc.Offset(hi.String()), nil
}

// binlog opens a replica connection from an offset.
func (d *dialect) binlog(ctx context.Context, from cdc.Offset) (*binlogStream, error) {
	start, err := parseOffset(string(from))
	if err != nil {
		return nil, err
	}
	host, port, err := hostPort(d.driver.Addr)
	if err != nil {
		return nil, err
	}
	tables := make(map[string]*table, len(d.my))
	for _, t := range d.my {
		tables[t.id] = t
	}
	var last error
	for try := 0; try <= d.o.MaxRetries; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(try) * time.Second):
			}
		}
		id, release, err := d.resolved.ServerID.acquire(ctx)
		if err != nil {
			return nil, err
		}
		cfg := binlogConfig{Host: host, Port: port, User: d.driver.User, Password: d.driver.Passwd,
			TLS: d.driver.TLS, Flavor: d.resolved.Flavor, ServerID: id, Heartbeat: d.o.Heartbeat,
			Timeout: d.o.ConnectTimeout, Start: start, Tables: tables}
		if d.o.SchemaChanges {
			cfg.Follow = d.alter
		}
		s, err := openBinlog(ctx, cfg)
		if err == nil {
			s.release = release
			return s, nil
		}
		release()
		last = err
	}
	return nil, last
}

// event turns a change into the framework's event.
func (d *dialect) event(c Change) cdc.Event {
	e := cdc.Event{Table: -1, Rows: c.Batch, Changed: c.Changed, Columns: c.Columns, Tx: cdc.Offset(c.Tx.String()), Seq: c.Seq, End: c.End}
	if c.Batch != nil || c.Changed != nil {
		e.Table = d.byID[c.Table]
	}
	return e
}

// alter is table id after ALTER TABLE statement q of it, read from the
// statement (ddl.go), with its clauses; nils when the statement changes
// no column (an index, a table option). The dialect decodes the table by
// it from now on.
func (d *dialect) alter(id, q string, clauses []alterClause) (*table, *cdc.Table, []row.ColumnChange, error) {
	i, ok := d.byID[id]
	if !ok {
		return nil, nil, nil, fmt.Errorf("table %s is not captured", id)
	}
	old := d.tables[i]
	clauses = applicable(old.Schema, clauses)
	if len(clauses) == 0 {
		return nil, nil, nil, nil
	}
	var p tablePrivate
	if err := json.Unmarshal(old.Private, &p); err != nil || p.Jdbc == nil {
		return nil, nil, nil, fmt.Errorf("MySQL-CDC table %s: its description: %v", id, err)
	}
	cols := make([]row.ColumnChange, len(clauses))
	defs := make([]jdbc.MySQLColumn, len(clauses))
	for k, c := range clauses {
		cols[k], defs[k] = c.change, c.def
	}
	desc, cols, err := p.Jdbc.AlterMySQL(cols, defs)
	if err != nil {
		return nil, nil, nil, err
	}
	sch, err := row.Apply(old.Schema, cols)
	if err != nil {
		return nil, nil, nil, err
	}
	charsets, err := alterCharsets(old.Schema, p.Charsets, clauses, cols)
	if err != nil {
		return nil, nil, nil, err
	}
	enc, err := json.Marshal(tablePrivate{Jdbc: desc, Charsets: charsets})
	if err != nil {
		return nil, nil, nil, err
	}
	ct := &cdc.Table{ID: old.ID, Schema: sch, ChunkKey: old.ChunkKey, Private: enc}
	if ct.ChunkKey != "" && sch.Index(ct.ChunkKey) < 0 {
		for _, c := range cols { // the chunk key renamed
			if c.Name == ct.ChunkKey && (c.Op == row.ChangeColumn || c.Op == row.RenameColumn) {
				ct.ChunkKey = c.Field.Name
			}
		}
	}
	tb, err := d.useTable(i, ct)
	return tb, ct, cols, err
}

// applicable are the clauses that change s, as the earlier ones left it:
// without those whose IF [NOT] EXISTS found nothing to do.
func applicable(s *row.Schema, clauses []alterClause) []alterClause {
	names := map[string]bool{}
	for _, f := range s.Fields {
		names[strings.ToLower(f.Name)] = true
	}
	var out []alterClause
	for _, c := range clauses {
		old, now := strings.ToLower(c.change.Name), strings.ToLower(c.def.Name)
		switch c.change.Op {
		case row.AddColumn:
			if c.maybe && names[now] {
				continue
			}
			names[now] = true
		case row.DropColumn:
			if c.maybe && !names[old] {
				continue
			}
			delete(names, old)
		default:
			if c.maybe && !names[old] {
				continue
			}
			delete(names, old)
			names[now] = true
		}
		out = append(out, c)
	}
	return out
}

// alterCharsets are the character sets of the columns of old after the
// clauses: a column's own (CHARACTER SET), else, for a text column, the
// first text column's of the table (the table's default, as far as the
// binlog tells), else utf8mb4.
func alterCharsets(old *row.Schema, charsets []string, clauses []alterClause, cols []row.ColumnChange) ([]string, error) {
	byName := map[string]string{}
	def := ""
	for j, f := range old.Fields {
		if j < len(charsets) {
			byName[strings.ToLower(f.Name)] = charsets[j]
			if def == "" && charsets[j] != "" && charsets[j] != "binary" {
				def = charsets[j]
			}
		}
	}
	if def == "" {
		def = "utf8mb4"
	}
	fields := append([]row.Field(nil), old.Fields...)
	for k, c := range cols {
		switch c.Op {
		case row.DropColumn:
			delete(byName, strings.ToLower(c.Name))
			continue
		case row.RenameColumn:
			byName[strings.ToLower(c.Field.Name)] = byName[strings.ToLower(c.Name)]
			continue
		}
		cs := clauses[k].charset
		switch typeName(clauses[k].def.Type) {
		case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
			if cs == "" {
				cs = def
			}
		default:
			cs = ""
		}
		if _, err := charsetOf(cs); err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Field.Name, err)
		}
		byName[strings.ToLower(c.Field.Name)] = cs
	}
	after, err := row.Apply(row.MustSchema(old.TableID, fields...), cols)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(after.Fields))
	for j, f := range after.Fields {
		out[j] = byName[strings.ToLower(f.Name)]
	}
	return out, nil
}

// UseTable decodes table i as t from now on (cdc.SchemaFollower).
func (d *dialect) UseTable(i int, t *cdc.Table) error {
	if i < 0 || i >= len(d.tables) {
		return fmt.Errorf("table %d of %d", i, len(d.tables))
	}
	_, err := d.useTable(i, t)
	return err
}

func (d *dialect) useTable(i int, t *cdc.Table) (*table, error) {
	var p tablePrivate
	if err := json.Unmarshal(t.Private, &p); err != nil || p.Jdbc == nil {
		return nil, fmt.Errorf("MySQL-CDC table %s: its description: %v", t.ID, err)
	}
	tb, err := newTable(p.Jdbc, t.Schema, p.Charsets, d.o.ServerTimeZone, d.url.ZeroDate())
	if err != nil {
		return nil, err
	}
	d.my[i], d.tables[i] = tb, t
	return tb, nil
}

// Stream emits every transaction bound of tables not captured as a
// heartbeat too, at most every quietEvery, so the offset follows the
// binlog when the captured tables are idle and others are busy.
const quietEvery = 200 * time.Millisecond

func (d *dialect) Stream(ctx context.Context, from cdc.Offset, emit func(cdc.Event) error) error {
	s, err := d.binlog(ctx, from)
	if err != nil {
		return err
	}
	defer s.Close()
	var lastQuiet time.Time
	for {
		c, err := s.Next(ctx)
		if err != nil {
			return err
		}
		if c.Batch == nil && c.Changed == nil && !c.Heartbeat {
			if time.Since(lastQuiet) < quietEvery {
				continue
			}
			lastQuiet = time.Now()
		}
		if err := emit(d.event(c)); err != nil {
			return err
		}
	}
}

func (d *dialect) ReadLog(ctx context.Context, from, to cdc.Offset, emit func(cdc.Event) error) error {
	end, err := parseOffset(string(to))
	if err != nil {
		return err
	}
	if n, err := d.CompareOffsets(from, to); err != nil || n >= 0 {
		return err
	}
	s, err := d.binlog(ctx, from)
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		c, err := s.Next(ctx)
		if err != nil {
			return err
		}
		if c.Tx.Compare(end) > 0 {
			return nil
		}
		if c.Batch != nil || c.Changed != nil {
			if err := emit(d.event(c)); err != nil {
				return err
			}
		}
		if c.End && c.Tx.Compare(end) >= 0 {
			return nil
		}
	}
}

// Commit has nothing to confirm: the server purges its binlog by its own
// expire_logs_days / binlog_expire_logs_seconds.
func (d *dialect) Commit(cdc.Offset) {}

func (d *dialect) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db != nil {
		return d.db.Close()
	}
	return nil
}
