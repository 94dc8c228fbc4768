package cdc

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/row"
)

// Offset is a position in a database's change log in the dialect's own
// text form (PostgreSQL's LSN as "0/16B3A40"; MySQL's "file:pos" or a GTID
// set). The framework stores, compares (Dialect.CompareOffsets) and hands
// back offsets without reading them. "" is no offset.
type Offset string

// Table is one captured table as Resolve described it. It travels in the
// resolved plan, so it holds no secret.
type Table struct {
	// ID is the catalog table's id: database.schema.table or
	// database.table, as the rows carry it.
	ID string `json:"id"`
	// Schema is the catalog table (primary key included).
	Schema *row.Schema `json:"-"`
	// ChunkKey is the column chunks split by, "" for one chunk. It is
	// never null (a primary-key column, or a column the user named).
	ChunkKey string `json:"chunk_key,omitempty"`
	// Private is the dialect's own description (type oids, decoders, the
	// quoted name), opaque to the framework.
	Private json.RawMessage `json:"private,omitempty"`
}

// KeyIndex is the chunk key's field index, -1 without one.
func (t *Table) KeyIndex() int {
	if t.ChunkKey == "" {
		return -1
	}
	return t.Schema.Index(t.ChunkKey)
}

// Chunk is a key range of one table: Lo <= key < Hi; a nil bound is open.
type Chunk struct {
	Table int  `json:"t"` // index into the source's tables
	Seq   int  `json:"n"` // the chunk's number within its table, from 0
	Lo    *Key `json:"lo,omitempty"`
	Hi    *Key `json:"hi,omitempty"`
}

// Event is what a dialect's log reading delivers: changes of one table
// within one transaction, in log order, or a heartbeat.
type Event struct {
	// Table is the index of the changed table; -1 for a heartbeat.
	Table int
	// Rows are the changes with their kinds: INSERT, UPDATE_BEFORE
	// followed by its UPDATE_AFTER, DELETE (a DELETE carries the old row,
	// at least its key). Nil for a heartbeat. The framework owns the
	// batch once delivered.
	Rows *row.Batch
	// Tx is the offset of the end of the transaction the rows belong to:
	// after the transaction's last row the position is Tx. Watermarks are
	// compared with Tx: a change is covered by a chunk whose high
	// watermark is at or after its Tx. For a heartbeat, Tx is an offset
	// such that every transaction whose Tx is at or before it has been
	// delivered (the position moves to it, and a transaction at it would
	// be dropped as emitted).
	Tx Offset
	// Seq is the index of Rows' first row among the rows of its
	// transaction (0 for the first event of a transaction). Restores skip
	// the rows a checkpoint says were emitted by it.
	Seq int64
	// Changed, with schema-changes.enabled, is the changed table's new
	// description (Rows nil): from this event on its rows are of
	// Changed.Schema. Columns are the DDL's clauses that made it of the
	// old schema (row.Apply(old, Columns) is Changed.Schema); a dialect
	// that reads no DDL leaves them out, and then Changed.Schema must be
	// the old one with columns added (row.Grow). The framework emits the
	// change as a schema-change batch (row.NewSchemaChange) of the
	// table's next version, in order with the rows, keeps it in the
	// stream split's state, and drops one that changes nothing (a
	// dialect may announce a table again on a restart). Tx and Seq place
	// it as they place rows; End is set when it ends its transaction (a
	// DDL statement of its own).
	Changed *Table
	Columns []row.ColumnChange
	// End says Rows end the transaction (true for a heartbeat). The event
	// that ends a transaction may have no rows (a dialect that learns of
	// the end only at the commit sends an empty batch of any captured
	// table with End set).
	End bool
}

// StartupMode is startup.mode.
type StartupMode string

// The startup modes (SeaTunnel's StartupMode).
const (
	StartupInitial  StartupMode = "INITIAL"  // snapshot, then stream
	StartupEarliest StartupMode = "EARLIEST" // stream from the earliest offset kept
	StartupLatest   StartupMode = "LATEST"   // stream from the log's end
	StartupSpecific StartupMode = "SPECIFIC" // stream from the dialect's startup.specific-offset.* options
)

// StopMode is stop.mode.
type StopMode string

// The stop modes.
const (
	StopNever    StopMode = "NEVER"    // stream until cancelled (unbounded)
	StopLatest   StopMode = "LATEST"   // stop at the log's end when the job started
	StopSpecific StopMode = "SPECIFIC" // stop at the dialect's stop.specific-offset.* options
)

// Dialect is one database's side of CDC. The framework makes one per part
// (the enumerator, each reader) with Spec.New, without I/O; the dialect
// connects when first used, bounded by connect.timeout.ms and retried
// connect.max-retries times.
//
// Threading: one part calls its dialect from one goroutine at a time,
// except Commit, which may come from the reader's actor while Stream runs
// in the reader's fetch goroutine. Errors fail the part (and the pipeline
// fails over from its latest checkpoint); they should name the table,
// offset or setting at fault.
type Dialect interface {
	// CompareOffsets orders two offsets of this database: negative when a
	// is before b, 0 when equal, positive after.
	CompareOffsets(a, b Offset) (int, error)
	// Prepare readies the server for capture; the enumerator calls it on
	// open, fresh on a new job and not on a restore. PostgreSQL creates its
	// publication and slot (a restore needs them to exist still).
	Prepare(ctx context.Context, fresh bool) error
	// StartOffset is where the stream starts for startup.mode EARLIEST,
	// LATEST and SPECIFIC; StopOffset where it ends for stop.mode LATEST
	// and SPECIFIC. The enumerator asks once, on a fresh start.
	StartOffset(ctx context.Context, mode StartupMode) (Offset, error)
	StopOffset(ctx context.Context, mode StopMode) (Offset, error)
	// ChunkEnd is the Hi of the chunk that starts at after (inclusive;
	// from the table's first key when after is nil) and holds size
	// (snapshot.split.size) keys: the least key that has size keys at or
	// above after below it (SQL: WHERE key >= after ORDER BY key OFFSET
	// size LIMIT 1). It is nil when no key is left past the chunk (the
	// chunk is the table's last, open above). Keys are ordered as Key.Compare
	// orders them: strings by their bytes, whatever the column's
	// collation, so that chunk ranges and the stream's filter agree.
	ChunkEnd(ctx context.Context, t *Table, after *Key, size int) (*Key, error)
	// ReadChunk reads the rows of chunk c of table t (its Lo <= key < Hi),
	// emitting them in batches of about fetchSize rows as INSERTs, and
	// returns the watermarks: low, an offset at or before every change the
	// rows do not hold, and high, an offset at or after every change they
	// hold. A dialect that reads the chunk at an exact log position (an
	// exported snapshot) returns low == high.
	ReadChunk(ctx context.Context, t *Table, c Chunk, fetchSize int, emit func(*row.Batch) error) (low, high Offset, err error)
	// Stream delivers the changes of the captured tables in log order,
	// from the first transaction that ends after from, and heartbeats when
	// the tables are idle (about every heartbeat.interval.ms), until ctx is
	// done or emit returns an error. It blocks; the reader runs it in its
	// fetch goroutine. It returns ctx's error after ctx is done.
	Stream(ctx context.Context, from Offset, emit func(Event) error) error
	// Commit says every change up to offset is in a completed checkpoint:
	// the database may discard the log before it (PostgreSQL's slot
	// confirms it). It must not block; a Stream that is running sends it
	// on. Offsets only grow.
	Commit(offset Offset)
	// Close releases connections. Called once.
	Close() error
}

// LogReader is the optional capability exactly_once needs when
// ReadChunk's watermarks differ: ReadLog delivers (like Stream) the
// changes of the captured tables whose transactions end after from and at
// or before to, then returns. It may deliver changes from before from as
// well: the backfill applies full row images in order, so a change the
// chunk's rows already hold is applied again harmlessly.
type LogReader interface {
	ReadLog(ctx context.Context, from, to Offset, emit func(Event) error) error
}

// Spec is what a database registers (Register).
type Spec struct {
	// Name is SeaTunnel's plugin name: "Postgres-CDC", "MySQL-CDC".
	Name string
	// Connector and ServerName are what format COMPATIBLE_DEBEZIUM_JSON
	// writes as Debezium's connector name ("mysql", "postgresql") and the
	// default database.server.name, the topics' prefix (SeaTunnel's).
	Connector, ServerName string
	// Options are the dialect's own options, beyond CommonOptions.
	Options []config.Option
	// Resolve runs once per job on the master (DESIGN §2): it connects,
	// checks the prerequisites (an error says what to change on the
	// server), and describes the tables the options name, choosing each
	// chunk key (Options.ChunkKeyOf helps). It returns the tables and
	// the dialect's own resolved bytes (no secrets: those are read again
	// from cfg in New).
	Resolve func(ctx context.Context, cfg *config.PluginConfig, o *Options) (tables []*Table, private []byte, err error)
	// New makes a dialect from what Resolve returned, without I/O.
	New func(cfg *config.PluginConfig, o *Options, tables []*Table, private []byte) (Dialect, error)
}

// SchemaFollower is the capability schema-changes.enabled needs of a
// dialect: its Stream delivers a table's new description (Event.Changed)
// when the log shows the table's columns changed, and decodes the table's
// later rows by it; UseTable makes it describe table i as t (a
// description its Stream delivered before, kept in a checkpoint), so a
// restore continues with the schema its checkpoint holds. UseTable is
// called before Stream, from the reader's goroutine.
type SchemaFollower interface {
	UseTable(i int, t *Table) error
}

// ErrSchemaChanged is wrapped by a dialect's error when a captured
// table's columns changed while the job runs in a way its output schema
// cannot follow (without schema-changes.enabled, any change; with it, a
// DDL the dialect cannot carry); the error names the table and the
// change.
var ErrSchemaChanged = errors.New("captured table changed")
