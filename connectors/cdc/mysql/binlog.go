package mysql

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/row"
)

// Change is what the binlog stream delivers: the row changes of one rows
// event of a captured table (Batch, its rows' kinds INSERT, UPDATE_BEFORE
// and UPDATE_AFTER pairs, or DELETE), or nothing but a new position
// (Batch nil: a heartbeat, a transaction of tables not captured, a
// rotation).
//
// A transaction's changes are delivered when its commit has been read,
// so that each carries Tx, the offset after the commit: the offset a
// restart continues from once the transaction was emitted whole, and
// what snapshot watermarks are compared with. Seq is the index of the
// batch's first row among the transaction's rows; End marks its last
// batch (and every position-only change).
type Change struct {
	Table     string // db.table; "" with no Batch
	Batch     *row.Batch
	Tx        Offset
	Seq       int64
	End       bool
	Heartbeat bool // made from a server heartbeat
	// Changed is the table's new description after an ALTER TABLE that
	// changed its columns (binlogConfig.Follow), and Columns the
	// statement's clauses; Batch is nil.
	Changed *cdc.Table
	Columns []row.ColumnChange
}

// binlogConfig is what a binlog stream needs.
type binlogConfig struct {
	Host      string
	Port      uint16
	User      string
	Password  string
	TLS       *tls.Config
	Flavor    string // gomysql.MySQLFlavor or gomysql.MariaDBFlavor
	ServerID  uint32
	Heartbeat time.Duration // 0: none
	Timeout   time.Duration // connect timeout
	// Start is where to begin: a transaction bound, or a GTID set
	// (Offset.GTIDs only).
	Start Offset
	// Stop, when not zero, ends the stream (io.EOF) at the first
	// transaction bound at or after it.
	Stop Offset
	// Tables are the captured tables by db.table.
	Tables map[string]*table
	// Follow, when set (schema-changes.enabled), describes a captured
	// table anew after ALTER TABLE statement q of it (its column clauses,
	// parseAlter's): its decoders, the framework's description and the
	// clauses in the row model, or nils when no column changed (an
	// index, a table option). Without it an ALTER is an error.
	Follow func(id, q string, clauses []alterClause) (*table, *cdc.Table, []row.ColumnChange, error)
	Logger *slog.Logger
}

// binlogStream reads the binlog from a position and decodes the rows of
// the captured tables. It is used from one goroutine.
type binlogStream struct {
	cfg      binlogConfig
	syncer   *replication.BinlogSyncer
	streamer *replication.BinlogStreamer

	pos  Offset // after the last event read
	inTx bool   // a transaction (or a statement outside one) has begun
	// explicit says the transaction began with BEGIN (MySQL) or a
	// MariaDB GTID of a transaction: a query event inside it is no bound.
	explicit bool
	tx       []Change // the open transaction's batches
	txRows   int64
	gtids    string
	pending  []Change
	done     bool   // the stop offset is reached
	release  func() // gives the server id back (dialect.binlog)
}

// openBinlog registers with the server as a replica and starts the dump.
func openBinlog(ctx context.Context, cfg binlogConfig) (*binlogStream, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	dialer := &net.Dialer{Timeout: timeout}
	sc := replication.BinlogSyncerConfig{
		ServerID: cfg.ServerID, Flavor: cfg.Flavor,
		Host: cfg.Host, Port: cfg.Port, User: cfg.User, Password: cfg.Password,
		Localhost: "stactor", TLSConfig: cfg.TLS,
		Charset: "utf8mb4",
		// Temporal values as text in UTC: the decoders read them as the
		// text protocol's (decode.go).
		ParseTime: false, TimestampStringLocation: time.UTC, UseDecimal: true,
		HeartbeatPeriod: cfg.Heartbeat,
		// A broken connection is an error: go-mysql's own retry restarts
		// at the last event, possibly inside a transaction whose table
		// maps it would not see again. The engine restores from the
		// checkpoint instead, at a transaction start.
		DisableRetrySync: true,
		Logger:           logger,
		Dialer:           dialer.DialContext,
		EventCacheCount:  1024,
	}
	if cfg.Heartbeat > 0 {
		sc.ReadTimeout = 3*cfg.Heartbeat + 10*time.Second
	}
	s := &binlogStream{cfg: cfg, syncer: replication.NewBinlogSyncer(sc)}
	var err error
	if cfg.Start.File == "" {
		set, perr := gomysql.ParseGTIDSet(cfg.Flavor, cfg.Start.GTIDs)
		if perr != nil {
			s.syncer.Close()
			return nil, fmt.Errorf("startup.specific-offset.gtid-set %q is not a %s GTID set: %v", cfg.Start.GTIDs, cfg.Flavor, perr)
		}
		s.streamer, err = s.syncer.StartSyncGTID(set)
	} else {
		s.pos = cfg.Start
		s.streamer, err = s.syncer.StartSync(gomysql.Position{Name: cfg.Start.File, Pos: cfg.Start.Pos})
	}
	if err != nil {
		s.syncer.Close()
		return nil, fmt.Errorf("binlog dump from %s:%d as server-id %d: %w", cfg.Host, cfg.Port, cfg.ServerID, explain(err, cfg.ServerID))
	}
	return s, nil
}

// Close ends the dump.
func (s *binlogStream) Close() {
	s.syncer.Close()
	if s.release != nil {
		s.release()
	}
}

// Offset is the last transaction bound read.
func (s *binlogStream) Offset() Offset { return s.pos }

// Next returns the next change, waiting for the server up to ctx. It
// returns io.EOF once the stop offset is reached.
func (s *binlogStream) Next(ctx context.Context) (Change, error) {
	for len(s.pending) == 0 {
		if s.done {
			return Change{}, io.EOF
		}
		ev, err := s.streamer.GetEvent(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return Change{}, ctx.Err()
			}
			return Change{}, fmt.Errorf("binlog at %s: %w", s.Offset(), explain(err, s.cfg.ServerID))
		}
		if err := s.handle(ev); err != nil {
			return Change{}, err
		}
	}
	c := s.pending[0]
	s.pending = s.pending[1:]
	return c, nil
}

// handle follows one event: positions, transaction bounds, rows.
func (s *binlogStream) handle(ev *replication.BinlogEvent) error {
	h := ev.Header
	if rot, ok := ev.Event.(*replication.RotateEvent); ok {
		s.pos = Offset{File: string(rot.NextLogName), Pos: uint32(rot.Position)}
		if h.Timestamp != 0 && !s.inTx {
			s.pending = append(s.pending, Change{Tx: s.pos, End: true})
		}
		return nil
	}
	switch h.EventType {
	case replication.FORMAT_DESCRIPTION_EVENT, replication.MARIADB_GTID_LIST_EVENT,
		replication.MARIADB_BINLOG_CHECKPOINT_EVENT, replication.PREVIOUS_GTIDS_EVENT:
		// Sent at the start of every dump with their positions in the
		// file, which may lie before where the dump starts: they only
		// move the position on (past a new file's header).
		if h.LogPos > s.pos.Pos && !s.inTx {
			s.pos.Pos = h.LogPos
			s.pending = append(s.pending, Change{Tx: s.pos, End: true})
		}
		return nil
	}
	if h.EventType == replication.HEARTBEAT_EVENT || h.EventType == replication.HEARTBEAT_LOG_EVENT_V2 {
		return s.heartbeat(ev)
	}
	if h.LogPos > 0 {
		s.pos.Pos = h.LogPos
	}
	switch e := ev.Event.(type) {
	case *replication.MariadbGTIDEvent:
		// MariaDB writes no BEGIN: its GTID event opens the transaction,
		// or a standalone statement (DDL) that its query event ends.
		s.begin()
		s.explicit = !e.IsStandalone() && !e.IsDDL()
	case *replication.GTIDEvent:
		s.begin()
	case *replication.QueryEvent:
		q := strings.TrimSpace(string(e.Query))
		switch {
		case strings.EqualFold(q, "BEGIN"):
			s.begin()
			s.explicit = true
			return nil
		case strings.EqualFold(q, "COMMIT"), strings.EqualFold(q, "ROLLBACK"):
			return s.commit(e.GSet)
		case s.explicit:
			return nil // SAVEPOINT and the like, inside a transaction
		}
		if !s.inTx {
			s.begin()
		}
		if err := s.ddl(string(e.Schema), q); err != nil {
			return err
		}
		return s.commit(e.GSet)
	case *replication.XIDEvent:
		return s.commit(e.GSet)
	case *replication.RowsEvent:
		if !s.inTx {
			s.begin()
		}
		return s.rows(h.EventType, e)
	}
	return nil
}

// heartbeat moves the position to the server's (the server sends one
// after heartbeat period without events), so that the offset of a job
// whose tables are idle follows the binlog.
func (s *binlogStream) heartbeat(ev *replication.BinlogEvent) error {
	if s.inTx {
		return nil
	}
	if g, ok := ev.Event.(*replication.GenericEvent); ok && ev.Header.EventType == replication.HEARTBEAT_EVENT && len(g.Data) > 0 {
		if file := strings.TrimRight(string(g.Data), "\x00"); file != s.pos.File && file != "" {
			s.pos = Offset{File: file, Pos: ev.Header.LogPos}
		}
	}
	if ev.Header.LogPos > s.pos.Pos {
		s.pos.Pos = ev.Header.LogPos
	}
	s.pending = append(s.pending, Change{Tx: s.pos, End: true, Heartbeat: true})
	if !s.cfg.Stop.IsZero() && s.pos.Compare(s.cfg.Stop) >= 0 {
		s.done = true
	}
	return nil
}

// begin notes the start of a transaction.
func (s *binlogStream) begin() {
	if !s.inTx {
		s.inTx, s.explicit, s.tx, s.txRows = true, false, nil, 0
	}
}

// commit ends the open transaction (or a statement outside one) and
// delivers its changes with the offset after it.
func (s *binlogStream) commit(gset gomysql.GTIDSet) error {
	if gset != nil {
		s.gtids = gset.String()
	}
	s.pos.GTIDs = s.gtids
	if len(s.tx) == 0 {
		s.pending = append(s.pending, Change{Tx: s.pos, End: true})
	}
	for i := range s.tx {
		s.tx[i].Tx = s.pos
		s.tx[i].End = i == len(s.tx)-1
		s.pending = append(s.pending, s.tx[i])
	}
	s.inTx, s.explicit, s.tx = false, false, nil
	if !s.cfg.Stop.IsZero() && s.pos.Compare(s.cfg.Stop) >= 0 {
		s.done = true
	}
	return nil
}

// rows decodes a rows event of a captured table into a batch.
func (s *binlogStream) rows(typ replication.EventType, e *replication.RowsEvent) error {
	id := string(e.Table.Schema) + "." + string(e.Table.Table)
	t := s.cfg.Tables[id]
	if t == nil {
		return nil
	}
	if n := int(e.Table.ColumnCount); n != len(t.vals) {
		return fmt.Errorf("table %s: the binlog at %s has rows of %d columns, the table as described has %d: the table was altered (ALTER TABLE) while it was captured; restart the job with a fresh snapshot of it (startup.mode = initial): %w", id, s.Offset(), n, len(t.vals), cdc.ErrSchemaChanged)
	}
	if names := e.Table.ColumnNameString(); len(names) == len(t.vals) {
		for j, n := range names {
			if f := t.schema().Fields[j].Name; !strings.EqualFold(n, f) {
				return fmt.Errorf("table %s: the binlog at %s has column %d named %q, the table as described has %q: the table was altered while it was captured: %w", id, s.Offset(), j+1, n, f, cdc.ErrSchemaChanged)
			}
		}
	}
	var kinds []row.Kind
	var images [][]any
	switch typ {
	case replication.WRITE_ROWS_EVENTv0, replication.WRITE_ROWS_EVENTv1, replication.WRITE_ROWS_EVENTv2, replication.MARIADB_WRITE_ROWS_COMPRESSED_EVENT_V1:
		for _, r := range e.Rows {
			kinds, images = append(kinds, row.Insert), append(images, r)
		}
	case replication.DELETE_ROWS_EVENTv0, replication.DELETE_ROWS_EVENTv1, replication.DELETE_ROWS_EVENTv2, replication.MARIADB_DELETE_ROWS_COMPRESSED_EVENT_V1:
		for _, r := range e.Rows {
			kinds, images = append(kinds, row.Delete), append(images, r)
		}
	case replication.UPDATE_ROWS_EVENTv0, replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2, replication.MARIADB_UPDATE_ROWS_COMPRESSED_EVENT_V1:
		if len(e.Rows)%2 != 0 {
			return fmt.Errorf("table %s: update rows event at %s has an odd number of row images", id, s.Offset())
		}
		for i := 0; i < len(e.Rows); i += 2 {
			kinds = append(kinds, row.UpdateBefore, row.UpdateAfter)
			images = append(images, e.Rows[i], e.Rows[i+1])
		}
	default:
		return fmt.Errorf("table %s: binlog event %s at %s is not supported (partial row images: set binlog_row_image = FULL and binlog_row_value_options = '')", id, typ, s.Offset())
	}
	for _, skipped := range e.SkippedColumns {
		if len(skipped) > 0 {
			return fmt.Errorf("table %s: the binlog at %s has partial row images; set binlog_row_image = FULL", id, s.Offset())
		}
	}
	schema := t.schema()
	cols := make([]*row.Column, len(schema.Fields))
	for j, f := range schema.Fields {
		cols[j] = row.NewColumn(f.Type, len(images))
	}
	for _, img := range images {
		if err := t.appendRow(cols, img); err != nil {
			return fmt.Errorf("binlog at %s: %w", s.Offset(), err)
		}
	}
	t.localTimestamps(cols, 0)
	s.tx = append(s.tx, Change{Table: id, Batch: row.NewBatch(schema, kinds, cols), Seq: s.txRows})
	s.txRows += int64(len(kinds))
	return nil
}

// ddl handles a statement of the binlog that is not a transaction
// bound. An ALTER TABLE of a captured table is read (ddl.go) and, with
// schema-changes.enabled, carried: the table's decoders follow it and a
// Change announces the new description. Any other DDL of a captured
// table (DROP, RENAME, TRUNCATE TABLE), an ALTER without
// schema-changes.enabled, and an ALTER the parser cannot carry are an
// error naming the table and the statement: binlog rows carry no column
// names, and the rows that follow could not be matched to columns.
func (s *binlogStream) ddl(schema, q string) error {
	target, ok := ddlTable(q, schema)
	if !ok {
		return nil
	}
	if s.cfg.Tables[target] == nil {
		return nil
	}
	fail := func(why string) error {
		return fmt.Errorf("table %s was changed at binlog %s by %q: %s: %w", target, s.Offset(), firstLine(q, 200), why, cdc.ErrSchemaChanged)
	}
	alter := strings.EqualFold(strings.Fields(stripComments(q))[0], "ALTER")
	if !alter {
		return fail("only ALTER TABLE is carried; restart the job with a fresh snapshot (startup.mode = initial)")
	}
	if s.cfg.Follow == nil {
		return fail("set schema-changes.enabled = true to carry ALTER TABLE, or restart the job with a fresh snapshot (startup.mode = initial)")
	}
	_, clauses, _, err := parseAlter(q, schema)
	if err != nil {
		return fail(err.Error())
	}
	tb, ct, cols, err := s.cfg.Follow(target, q, clauses)
	if err != nil {
		return fail(err.Error())
	}
	if tb == nil {
		return nil // no column changed
	}
	s.cfg.Tables[target] = tb
	s.tx = append(s.tx, Change{Table: target, Changed: ct, Columns: cols, Seq: s.txRows})
	return nil
}

// ddlTable is the table an ALTER TABLE, RENAME TABLE, TRUNCATE or DROP
// TABLE statement changes, as db.table (schema is the statement's
// default database).
func ddlTable(q, schema string) (string, bool) {
	words := strings.Fields(stripComments(q))
	upper := func(i int) string {
		if i < len(words) {
			return strings.ToUpper(words[i])
		}
		return ""
	}
	i := 0
	switch upper(0) {
	case "ALTER":
		i = 1
		for upper(i) == "ONLINE" || upper(i) == "IGNORE" {
			i++
		}
		if upper(i) != "TABLE" {
			return "", false
		}
		i++
	case "TRUNCATE":
		i = 1
		if upper(i) == "TABLE" {
			i++
		}
	case "RENAME", "DROP":
		if upper(1) != "TABLE" {
			return "", false
		}
		i = 2
	default:
		return "", false
	}
	if upper(i) == "IF" { // IF EXISTS
		i += 2
	}
	if i >= len(words) {
		return "", false
	}
	name := strings.TrimRight(words[i], ",;")
	if j := strings.IndexByte(name, '('); j >= 0 {
		name = name[:j]
	}
	parts := strings.Split(name, ".")
	for k := range parts {
		parts[k] = strings.Trim(parts[k], "`\"")
	}
	if len(parts) == 1 {
		return schema + "." + parts[0], true
	}
	return parts[0] + "." + parts[1], true
}

func stripComments(q string) string {
	for {
		i := strings.Index(q, "/*")
		if i < 0 {
			return q
		}
		j := strings.Index(q[i+2:], "*/")
		if j < 0 {
			return q[:i]
		}
		q = q[:i] + " " + q[i+2+j+2:]
	}
}

func firstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// explain turns the server's replication errors into what to do.
func explain(err error, serverID uint32) error {
	var me *gomysql.MyError
	if errors.As(err, &me) {
		switch {
		case me.Code == gomysql.ER_MASTER_FATAL_ERROR_READING_BINLOG && strings.Contains(me.Message, "same server_uuid/server_id"),
			strings.Contains(me.Message, "same server_id"):
			return fmt.Errorf("server-id %d is used by another replica of this server (give MySQL-CDC a server-id no other replica uses): %w", serverID, err)
		case me.Code == gomysql.ER_MASTER_FATAL_ERROR_READING_BINLOG:
			return fmt.Errorf("the server cannot send the binlog from this position (was it purged? see SHOW BINARY LOGS; restart with startup.mode = initial): %w", err)
		case me.Code == gomysql.ER_SPECIFIC_ACCESS_DENIED_ERROR || me.Code == gomysql.ER_ACCESS_DENIED_ERROR:
			return fmt.Errorf("the user lacks the REPLICATION SLAVE privilege (GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO the user): %w", err)
		}
	}
	return err
}

// hostPort splits a go-sql-driver address.
func hostPort(addr string) (string, uint16, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("port %q: %w", p, err)
	}
	return h, uint16(n), nil
}
