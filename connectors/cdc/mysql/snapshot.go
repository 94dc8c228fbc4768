package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

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
func (t *table) query(ctx context.Context, conn *sql.Conn, q string, args []any, fetch int, emit func(*row.Batch) error) error {
	err := t.desc.QueryMySQLZero(ctx, conn, q, args, t.zero, fetch, func(b *row.Batch) error {
		t.localTimestamps(b.Cols, 0)
		return emit(b.WithColumns(t.sch, b.Cols))
	})
	if err != nil {
		return fmt.Errorf("snapshot of %s: %w", t.id, err)
	}
	return nil
}
