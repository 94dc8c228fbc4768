package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/stactor/stactor/row"
)

// What MySQL-CDC (connectors/cdc/mysql) uses beyond capture.go: the
// driver configuration for its replica connection, the URL's
// zeroDateTimeBehavior, the columns' MySQL types and their text-form
// decoders (the binlog's temporal and decimal values are text).

// MySQLConfig is go-sql-driver's configuration of a MySQL/MariaDB URL
// (sessions in UTC); its address, user, password and TLS serve the binlog
// connection too.
func (c *Conn) MySQLConfig() (*mysql.Config, error) { return c.c.mysqlConfig() }

// ZeroDate is the URL's zeroDateTimeBehavior ("" when unset: an error).
func (c *Conn) ZeroDate() string {
	v, _ := c.c.param("zeroDateTimeBehavior")
	return v
}

// ColumnType is column j's type as the server writes it ("int(10)
// unsigned", "enum('a','b')").
func (t *Table) ColumnType(j int) string { return t.t.Columns[j].DBType }

// MySQLTextDecoders decode the columns' values in MySQL's text form (as
// the text protocol sends them), zero dates as zero says (ZeroDate).
func (t *Table) MySQLTextDecoders(zero string) ([]Decoder, error) {
	out := make([]Decoder, len(t.t.Columns))
	for j, c := range t.t.Columns {
		dec, err := myDecoder(c.Read, c.Type, zeroDate(zero))
		if err != nil {
			return nil, fmt.Errorf("table %s column %q: %w", t.t.ID, c.Name, err)
		}
		out[j] = Decoder(dec)
	}
	return out, nil
}

// QueryMySQLZero is QueryMySQL with zero dates read as zero says.
func (t *Table) QueryMySQLZero(ctx context.Context, conn *sql.Conn, query string, args []any, zero string, size int, emit func(*row.Batch) error) error {
	st, err := queryMySQL(ctx, conn, query, args, t.t.Columns, zeroDate(zero))
	if err != nil {
		return err
	}
	defer st.close()
	return drain(st, t.t.schema, size, emit)
}

// MySQLColumn is a column as a MySQL DDL clause defines it.
type MySQLColumn struct {
	Name     string
	Type     string // COLUMN_TYPE's form: "varchar(64)", "int unsigned", "enum('a','b')"
	Nullable bool
	Comment  string
}

// AlterMySQL is t after the column clauses of an ALTER TABLE: cols are
// the row model's clauses, with their Field's type left for AlterMySQL to
// map from defs[i] (MySQL's type of clause i's column; for RENAME only
// its name, unused for DROP).
// It returns the table described anew and the clauses with their fields'
// types mapped as the Jdbc source maps them (an unmappable type is an
// error naming the table and column). The primary and unique keys follow
// renames; a unique key that loses a column is gone.
func (t *Table) AlterMySQL(cols []row.ColumnChange, defs []MySQLColumn) (*Table, []row.ColumnChange, error) {
	st := *t.t
	st.Columns = append([]column(nil), t.t.Columns...)
	st.PrimaryKey = append([]string(nil), t.t.PrimaryKey...)
	st.UniqueKeys = nil
	for _, u := range t.t.UniqueKeys {
		st.UniqueKeys = append(st.UniqueKeys, append([]string(nil), u...))
	}
	out := append([]row.ColumnChange(nil), cols...)
	find := func(name string) int {
		for i, c := range st.Columns {
			if strings.EqualFold(c.Name, name) {
				return i
			}
		}
		return -1
	}
	for i := range out {
		cc := &out[i]
		var col column
		if cc.Op == row.AddColumn || cc.Op == row.ChangeColumn {
			d := defs[i]
			col = column{Name: d.Name, DBType: d.Type, Nullable: d.Nullable}
			if err := mapMySQL(st.ID, &col); err != nil {
				return nil, nil, err
			}
			cc.Field = row.Field{Name: d.Name, Type: col.Type, Nullable: d.Nullable, Comment: d.Comment}
			cc.MySQLType = d.Type
		}
		// Names as the table has them (MySQL's are case-insensitive).
		if cc.Name != "" {
			if j := find(cc.Name); j >= 0 {
				cc.Name = st.Columns[j].Name
			}
		}
		if cc.After != "" {
			if j := find(cc.After); j >= 0 {
				cc.After = st.Columns[j].Name
			}
		}
		j := find(cc.Name)
		switch cc.Op {
		case row.AddColumn:
			st.Columns = placeColumn(st.Columns, col, cc, find)
		case row.DropColumn:
			if j < 0 {
				return nil, nil, fmt.Errorf("table %s: %s: no such column", st.ID, cc)
			}
			st.Columns = append(st.Columns[:j], st.Columns[j+1:]...)
			st.UniqueKeys = slices.DeleteFunc(st.UniqueKeys, func(u []string) bool { return containsFold(u, cc.Name) })
		case row.ChangeColumn, row.RenameColumn:
			if j < 0 {
				return nil, nil, fmt.Errorf("table %s: %s: no such column", st.ID, cc)
			}
			if cc.Op == row.RenameColumn {
				col = st.Columns[j]
				col.Name = defs[i].Name
				cc.Field = row.Field{Name: col.Name, Type: col.Type, Nullable: col.Nullable}
			}
			for _, k := range append([][]string{st.PrimaryKey}, st.UniqueKeys...) {
				for n := range k {
					if strings.EqualFold(k[n], cc.Name) {
						k[n] = col.Name
					}
				}
			}
			if !cc.First && cc.After == "" {
				st.Columns[j] = col
				continue
			}
			st.Columns = placeColumn(append(st.Columns[:j], st.Columns[j+1:]...), col, cc, find)
		}
	}
	if err := st.buildSchema(); err != nil {
		return nil, nil, err
	}
	return &Table{&st}, out, nil
}

// placeColumn inserts c where clause cc puts it.
func placeColumn(cols []column, c column, cc *row.ColumnChange, find func(string) int) []column {
	at := len(cols)
	switch {
	case cc.First:
		at = 0
	case cc.After != "":
		if j := find(cc.After); j >= 0 {
			at = j + 1
		}
	}
	return append(cols[:at], append([]column{c}, cols[at:]...)...)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
