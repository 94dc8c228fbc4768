package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
)

// quoteIdent quotes a MySQL identifier.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// quoteTable quotes db.table.
func quoteTable(id string) string {
	db, t, _ := strings.Cut(id, ".")
	return quoteIdent(db) + "." + quoteIdent(t)
}

// selectList is the table's columns, quoted, in catalog order.
func (t *table) selectList() string {
	names := make([]string, len(t.schema().Fields))
	for j, f := range t.schema().Fields {
		names[j] = quoteIdent(f.Name)
	}
	return strings.Join(names, ", ")
}

// query reads the rows of a query over the table's columns (in catalog
// order) as INSERT batches of up to fetch rows, handing each to emit.
func (t *table) query(ctx context.Context, conn *sql.Conn, q string, args []any, zero string, fetch int, emit func(*row.Batch) error) error {
	rs, err := jdbc.QueryMySQL(ctx, conn, q, args, t.desc, zero)
	if err != nil {
		return fmt.Errorf("snapshot of %s: %w", t.id, err)
	}
	defer rs.Close()
	schema := t.schema()
	for {
		cols := make([]*row.Column, len(schema.Fields))
		for j, f := range schema.Fields {
			cols[j] = row.NewColumn(f.Type, fetch)
		}
		k, done, err := rs.Read(cols, fetch)
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", t.id, err)
		}
		if k > 0 {
			t.localTimestamps(cols, 0)
			if err := emit(row.NewBatch(schema, nil, cols)); err != nil {
				return err
			}
		}
		if done {
			return rs.Close()
		}
	}
}
