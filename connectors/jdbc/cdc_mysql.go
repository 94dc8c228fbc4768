package jdbc

import (
	"context"
	"database/sql"
	"fmt"

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
