package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/row"
)

// keyQuerier runs the small queries that plan splits: they return one row
// of text values (nil for NULL).
type keyQuerier interface {
	queryText(ctx context.Context, q string, args ...any) ([]*string, error)
	close()
}

type pgQuerier struct{ conn *pgx.Conn }

func (p pgQuerier) queryText(ctx context.Context, q string, args ...any) ([]*string, error) {
	rows, err := p.conn.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	vals := make([]*string, len(rows.FieldDescriptions()))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	return vals, rows.Err()
}

func (p pgQuerier) close() { p.conn.Close(context.Background()) }

type myQuerier struct{ db *sql.DB }

func (m myQuerier) queryText(ctx context.Context, q string, args ...any) ([]*string, error) {
	rows, err := m.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		return nil, rows.Err()
	}
	raw := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([]*string, len(cols))
	for i, r := range raw {
		if r.Valid {
			s := r.String
			out[i] = &s
		}
	}
	return out, rows.Err()
}

func (m myQuerier) close() { m.db.Close() }

// openQuerier connects for planning.
func openQuerier(ctx context.Context, c *connOptions) (keyQuerier, error) {
	if c.dialect() == dialectPostgres {
		conn, err := c.connectPG(ctx)
		if err != nil {
			return nil, err
		}
		return pgQuerier{conn}, nil
	}
	db, err := c.connectMySQL(ctx)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return myQuerier{db}, nil
}

// textCast is the key as text in SQL.
func textCast(d dialectSQL, expr string) string {
	if d.name == dialectMySQL {
		return "CAST(" + expr + " AS CHAR)"
	}
	return "CAST(" + expr + " AS text)"
}

// parseKey reads a key value as the database wrote it in text.
func parseKey(t *row.Type, s string) (*keyVal, error) {
	switch t.ID {
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("split key %q: %w", s, err)
		}
		return &keyVal{I: n}, nil
	case row.TypeDate:
		d, err := row.ParseDate(s)
		if err != nil {
			return nil, fmt.Errorf("split key %q: %w", s, err)
		}
		return &keyVal{I: row.DateOf(d)}, nil
	case row.TypeDecimal, row.TypeString:
		return &keyVal{S: s}, nil
	}
	return nil, errors.New("not a split key type: " + t.String())
}
