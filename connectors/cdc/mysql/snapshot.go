package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
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

// snapshotRead runs read in a MariaDB transaction WITH CONSISTENT SNAPSHOT
// on conn and returns the snapshot's binlog position (the status
// variables binlog_snapshot_file and binlog_snapshot_position, which
// MariaDB sets for exactly that snapshot).
func snapshotRead(ctx context.Context, conn *sql.Conn, read func() error) (Offset, error) {
	for _, s := range []string{"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "START TRANSACTION WITH CONSISTENT SNAPSHOT"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return Offset{}, fmt.Errorf("%s: %w", s, err)
		}
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK") // read only; after COMMIT a no-op
	rows, err := conn.QueryContext(ctx, "SHOW STATUS LIKE 'binlog_snapshot_%'")
	if err != nil {
		return Offset{}, fmt.Errorf("the snapshot's binlog position: %w", err)
	}
	list, err := showRows(rows)
	if err != nil {
		return Offset{}, fmt.Errorf("the snapshot's binlog position: %w", err)
	}
	var o Offset
	for _, r := range list {
		switch strings.ToLower(r["variable_name"]) {
		case "binlog_snapshot_file":
			o.File = r["value"]
		case "binlog_snapshot_position":
			p, err := strconv.ParseUint(r["value"], 10, 32)
			if err != nil {
				return Offset{}, fmt.Errorf("binlog_snapshot_position %q: %w", r["value"], err)
			}
			o.Pos = uint32(p)
		}
	}
	if o.File == "" {
		return Offset{}, fmt.Errorf("the server names no binlog position for the snapshot (binlog_snapshot_file is empty: is the binlog on?)")
	}
	if err := read(); err != nil {
		return Offset{}, err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return Offset{}, err
	}
	return o, nil
}
