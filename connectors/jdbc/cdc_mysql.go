package jdbc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stactor/stactor/row"
)

// What the MySQL-CDC source (connectors/cdc/mysql) takes from here, so
// that a table read by CDC has exactly the types and values Jdbc gives
// it: the connection options of a JDBC URL, the catalog table and its
// type mapping, and the text-protocol decoders of a snapshot query.

// MySQLURL is what a jdbc:mysql:// or jdbc:mariadb:// URL says.
type MySQLURL struct {
	Config   *mysql.Config // go-sql-driver's, sessions in UTC
	Database string        // the URL's database, "" when it names none
	ZeroDate string        // zeroDateTimeBehavior, "" for an error
}

// ParseMySQLURL reads a JDBC URL as the Jdbc connector does, for user and
// password, with connect timeout timeout (0: the URL's or none).
func ParseMySQLURL(url, user, password string, timeout time.Duration) (*MySQLURL, error) {
	c := &connOptions{URL: url, User: user, Password: password, CheckTimeout: timeout}
	if err := c.parse(); err != nil {
		return nil, err
	}
	if c.dialect() != dialectMySQL {
		return nil, fmt.Errorf("%s is not a MySQL or MariaDB URL (want jdbc:mysql:// or jdbc:mariadb://)", c.url)
	}
	cfg, err := c.mysqlConfig()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.url, err)
	}
	zero, _ := c.param("zeroDateTimeBehavior")
	return &MySQLURL{Config: cfg, Database: c.url.database, ZeroDate: zero}, nil
}

// MySQLTable is a MySQL table's catalog table and its columns as the
// server describes them.
type MySQLTable struct {
	Schema *row.Schema
	cols   []column
}

// ColumnType is column j's type as information_schema writes it
// ("int(10) unsigned", "enum('a','b')").
func (t *MySQLTable) ColumnType(j int) string { return t.cols[j].DBType }

// DescribeMySQL reads table database.table from information_schema and
// maps its columns as the Jdbc source does. primaryKey, when not empty,
// replaces the table's own key (SeaTunnel's table-names-config).
func DescribeMySQL(ctx context.Context, db *sql.DB, database, table string, primaryKey []string) (*MySQLTable, error) {
	p := tablePath{Database: database, Table: table}
	info, err := describeMySQL(ctx, db, p)
	if err != nil {
		return nil, err
	}
	pk := info.PrimaryKey
	if len(primaryKey) > 0 {
		pk = primaryKey
		for _, k := range pk {
			if info.column(k) == nil {
				return nil, fmt.Errorf("table %s has no column %q (named as its primary key)", p, k)
			}
		}
	}
	s, err := schemaOf(p.String(), info.Columns, pk, info.UniqueKeys)
	if err != nil {
		return nil, err
	}
	return &MySQLTable{Schema: s, cols: info.Columns}, nil
}

// MySQLRows streams the rows of a query, a batch at a time, into columns
// of a MySQLTable's schema.
type MySQLRows struct{ s *myStream }

// QueryMySQL runs query on conn; its result must have t's columns in t's
// order. zero is the URL's zeroDateTimeBehavior ("" for an error).
func QueryMySQL(ctx context.Context, conn *sql.Conn, query string, args []any, t *MySQLTable, zero string) (*MySQLRows, error) {
	s, err := queryMySQL(ctx, conn, query, args, t.cols, zeroDate(zero))
	if err != nil {
		return nil, err
	}
	return &MySQLRows{s: s}, nil
}

// Read appends up to n rows to cols and tells how many; done is true once
// the result is exhausted.
func (r *MySQLRows) Read(cols []*row.Column, n int) (k int, done bool, err error) {
	return r.s.read(cols, n)
}

// Close ends the query.
func (r *MySQLRows) Close() error { return r.s.close() }

// TextDecoder appends column j's value, given in MySQL's text form (as
// the text protocol sends it: "2024-01-02 03:04:05.5", "12.50"), to a
// column of the catalog type. zero is as for QueryMySQL.
func (t *MySQLTable) TextDecoder(j int, zero string) (func(c *row.Column, text []byte) error, error) {
	dec, err := myDecoder(t.cols[j].Read, t.cols[j].Type, zeroDate(zero))
	if err != nil {
		return nil, fmt.Errorf("table %s column %q: %w", t.Schema.TableID, t.cols[j].Name, err)
	}
	return dec, nil
}

// Encode is the table's columns for a resolved plan (no I/O is needed to
// rebuild the table from it with DecodeMySQLTable).
func (t *MySQLTable) Encode() ([]byte, error) {
	cols := append([]column(nil), t.cols...)
	for i := range cols {
		cols[i].TypeText = cols[i].Type.String()
	}
	return json.Marshal(cols)
}

// DecodeMySQLTable rebuilds a table from Encode's bytes and its catalog
// table.
func DecodeMySQLTable(schema *row.Schema, data []byte) (*MySQLTable, error) {
	var cols []column
	if err := json.Unmarshal(data, &cols); err != nil {
		return nil, fmt.Errorf("table %s: resolved columns: %w", schema.TableID, err)
	}
	if len(cols) != len(schema.Fields) {
		return nil, fmt.Errorf("table %s: %d resolved columns for %d fields", schema.TableID, len(cols), len(schema.Fields))
	}
	for i := range cols {
		ty, err := row.ParseType(cols[i].TypeText)
		if err != nil {
			return nil, fmt.Errorf("table %s: resolved columns: %w", schema.TableID, err)
		}
		cols[i].Type = ty
	}
	return &MySQLTable{Schema: schema, cols: cols}, nil
}
