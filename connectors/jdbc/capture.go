package jdbc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stactor/stactor/row"
)

// What the CDC sources (connectors/cdc/...) use of Jdbc: the connection
// settings of a JDBC URL, the catalog reads and type mapping, and the
// decoders, so a captured table has the same catalog table and values as
// the Jdbc source gives it.

// Conn is a parsed JDBC URL with its user and password.
type Conn struct{ c connOptions }

// ParseConn reads a JDBC URL (jdbc:postgresql://..., jdbc:mysql://...,
// jdbc:mariadb://...); timeout bounds connecting.
func ParseConn(url, user, password string, timeout time.Duration) (*Conn, error) {
	c := connOptions{URL: url, User: user, Password: password, CheckTimeout: timeout}
	if err := c.parse(); err != nil {
		return nil, err
	}
	return &Conn{c}, nil
}

// Postgres tells whether the URL is PostgreSQL's.
func (c *Conn) Postgres() bool { return c.c.dialect() == dialectPostgres }

// Database is the URL's database ("" when it names none).
func (c *Conn) Database() string { return c.c.url.database }

// WithDatabase is c connecting to database db.
func (c *Conn) WithDatabase(db string) *Conn {
	n := *c
	n.c.Database = db
	return &n
}

// Where names the server and user, for errors (never the password).
func (c *Conn) Where() string { return c.c.where() }

// PGConfig is the pgx configuration (sessions in UTC).
func (c *Conn) PGConfig() (*pgx.ConnConfig, error) { return c.c.pgConfig() }

// ConnectPG opens a PostgreSQL session.
func (c *Conn) ConnectPG(ctx context.Context) (*pgx.Conn, error) { return c.c.connectPG(ctx) }

// ConnectMySQL opens a MySQL/MariaDB pool and checks it reaches the server.
func (c *Conn) ConnectMySQL(ctx context.Context) (*sql.DB, error) { return c.c.connectMySQL(ctx) }

// Table is a table described as the Jdbc source reads it. Its JSON form
// is the resolved form (no secrets).
type Table struct{ t *sourceTable }

// DescribePostgres reads a PostgreSQL table's columns, keys and type
// mapping (as the Jdbc source: an unmappable type is an error naming the
// table and column).
func DescribePostgres(ctx context.Context, conn *pgx.Conn, database, schema, table string) (*Table, error) {
	info, err := describePostgres(ctx, conn, tablePath{Database: database, Schema: schema, Table: table})
	if err != nil {
		return nil, err
	}
	return newTable(info, dialectPostgres)
}

// DescribeMySQL reads a MySQL/MariaDB table's columns, keys and mapping.
func DescribeMySQL(ctx context.Context, db *sql.DB, database, table string) (*Table, error) {
	info, err := describeMySQL(ctx, db, tablePath{Database: database, Table: table})
	if err != nil {
		return nil, err
	}
	return newTable(info, dialectMySQL)
}

// IsTableNotFound tells whether err says a table does not exist.
func IsTableNotFound(err error) bool {
	return err != nil && strings.Contains(err.Error(), errTableNotFound.Error())
}

func newTable(info *tableInfo, dialect string) (*Table, error) {
	p := info.Path
	t := &sourceTable{ID: p.String(), Path: &p, Query: "SELECT * FROM " + dialectSQL{name: dialect}.table(p),
		Columns: info.Columns, PrimaryKey: info.PrimaryKey, UniqueKeys: info.UniqueKeys}
	if err := t.buildSchema(); err != nil {
		return nil, err
	}
	return &Table{t}, nil
}

// Schema is the catalog table.
func (t *Table) Schema() *row.Schema { return t.t.schema }

// Quoted is the table's quoted name in SQL (schema.table or database.table).
func (t *Table) Quoted(mysql bool) string {
	d := dialectSQL{name: dialectPostgres}
	if mysql {
		d.name = dialectMySQL
	}
	return d.table(*t.t.Path)
}

// SelectList is the quoted column list the decoders expect, in order.
func (t *Table) SelectList(mysql bool) string {
	d := dialectSQL{name: dialectPostgres}
	if mysql {
		d.name = dialectMySQL
	}
	return selectList(d, t.t)
}

// ColumnOIDs are PostgreSQL's type oids of the columns.
func (t *Table) ColumnOIDs() []uint32 {
	out := make([]uint32, len(t.t.Columns))
	for i, c := range t.t.Columns {
		out[i] = c.OID
	}
	return out
}

// QueryPostgres runs query (which selects SelectList) on conn and emits
// its rows as INSERTs in batches of size.
func (t *Table) QueryPostgres(ctx context.Context, conn *pgx.Conn, query string, args []any, size int, emit func(*row.Batch) error) error {
	st, err := queryPostgres(ctx, conn, query, args, t.t.Columns)
	if err != nil {
		return err
	}
	defer st.close()
	return drain(st, t.t.schema, size, emit)
}

// QueryMySQL is QueryPostgres for MySQL/MariaDB.
func (t *Table) QueryMySQL(ctx context.Context, conn *sql.Conn, query string, args []any, size int, emit func(*row.Batch) error) error {
	st, err := queryMySQL(ctx, conn, query, args, t.t.Columns, "")
	if err != nil {
		return err
	}
	defer st.close()
	return drain(st, t.t.schema, size, emit)
}

func drain(st rowStream, s *row.Schema, size int, emit func(*row.Batch) error) error {
	b := row.NewBuilder(s, size)
	cols := make([]*row.Column, s.Len())
	for {
		for j := range cols {
			cols[j] = b.Col(j)
		}
		k, done, err := st.read(cols, size)
		if err != nil {
			return err
		}
		for i := 0; i < k; i++ {
			b.EndRow(row.Insert)
		}
		if batch := b.Build(); batch != nil {
			if err := emit(batch); err != nil {
				return err
			}
		}
		if done {
			return nil
		}
	}
}

// Decoder appends one non-null value of a column to c.
type Decoder func(c *row.Column, b []byte) error

// PostgresTextDecoders decode the columns' values in PostgreSQL's text
// form (logical replication's pgoutput sends text): the read modes that
// the Jdbc source reads as text decode directly; the others go through
// pgx's codec to the binary form the Jdbc source decodes, so both give
// the same values.
func (t *Table) PostgresTextDecoders() ([]Decoder, error) {
	m := pgtype.NewMap()
	out := make([]Decoder, len(t.t.Columns))
	for j, c := range t.t.Columns {
		dec, err := pgTextDecoder(m, c.Read)
		if err != nil {
			return nil, fmt.Errorf("table %s column %q: %w", t.t.ID, c.Name, err)
		}
		out[j] = Decoder(dec)
	}
	return out, nil
}

// pgReadOID is the type oid a read mode decodes in binary.
var pgReadOID = map[string]uint32{
	"bool": pgtype.BoolOID, "int2": pgtype.Int2OID, "int4": pgtype.Int4OID, "int8": pgtype.Int8OID,
	"oid": pgtype.OIDOID, "float4": pgtype.Float4OID, "float8": pgtype.Float8OID, "uuid": pgtype.UUIDOID,
	"bytea": pgtype.ByteaOID, "date": pgtype.DateOID, "time": pgtype.TimeOID, "timestamp": pgtype.TimestampOID,
	"timestamptz": pgtype.TimestamptzOID,
	"array:bool":  pgtype.BoolArrayOID, "array:int2": pgtype.Int2ArrayOID, "array:int4": pgtype.Int4ArrayOID,
	"array:int8": pgtype.Int8ArrayOID, "array:float4": pgtype.Float4ArrayOID, "array:float8": pgtype.Float8ArrayOID,
	"array:text": pgtype.TextArrayOID,
}

func pgTextDecoder(m *pgtype.Map, read string) (decodeFunc, error) {
	switch {
	case pgTextRead[read], read == "text":
		return pgDecoder(read)
	case read == "jsonb":
		return func(c *row.Column, b []byte) error { c.AppendString(string(b)); return nil }, nil
	}
	oid, ok := pgReadOID[read]
	if !ok {
		return nil, fmt.Errorf("no text decoder for %q", read)
	}
	typ, ok := m.TypeForOID(oid)
	if !ok {
		return nil, fmt.Errorf("no codec for oid %d", oid)
	}
	bin, err := pgDecoder(read)
	if err != nil {
		return nil, err
	}
	return func(c *row.Column, b []byte) error {
		v, err := typ.Codec.DecodeValue(m, oid, pgtype.TextFormatCode, b)
		if err != nil {
			return fmt.Errorf("value %q: %w", b, err)
		}
		enc, err := m.Encode(oid, pgtype.BinaryFormatCode, v, nil)
		if err != nil {
			return fmt.Errorf("value %q: %w", b, err)
		}
		return bin(c, enc)
	}, nil
}

// MarshalJSON is the resolved form.
func (t *Table) MarshalJSON() ([]byte, error) {
	for i := range t.t.Columns {
		t.t.Columns[i].TypeText = t.t.Columns[i].Type.String()
	}
	return json.Marshal(t.t)
}

// UnmarshalJSON reads the resolved form back.
func (t *Table) UnmarshalJSON(b []byte) error {
	var st sourceTable
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	for i := range st.Columns {
		ty, err := row.ParseType(st.Columns[i].TypeText)
		if err != nil {
			return err
		}
		st.Columns[i].Type = ty
	}
	if err := st.buildSchema(); err != nil {
		return err
	}
	t.t = &st
	return nil
}
