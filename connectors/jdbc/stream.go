package jdbc

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/row"
)

// rowStream reads the rows of a running query into columns, a batch at a
// time. PostgreSQL's and MySQL's protocols both stream a result as it is
// read, so memory holds one batch whatever the result's size.
type rowStream interface {
	// read appends up to n rows to cols and tells how many; done is true
	// once the result is exhausted.
	read(cols []*row.Column, n int) (k int, done bool, err error)
	close() error
}

type pgStream struct {
	rows  pgx.Rows
	decs  []decodeFunc
	names []string
}

// queryPostgres runs query on conn and streams its rows as cols say.
func queryPostgres(ctx context.Context, conn *pgx.Conn, query string, args []any, cols []column) (*pgStream, error) {
	s := &pgStream{decs: make([]decodeFunc, len(cols)), names: make([]string, len(cols))}
	formats := make(pgx.QueryResultFormats, len(cols))
	for j, c := range cols {
		dec, err := pgDecoder(c.Read)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		s.decs[j], formats[j], s.names[j] = dec, pgFormat(c.Read), c.Name
	}
	rows, err := conn.Query(ctx, query, append([]any{formats}, args...)...)
	if err != nil {
		return nil, err
	}
	if n := len(rows.FieldDescriptions()); n != len(cols) {
		rows.Close()
		return nil, fmt.Errorf("query returns %d columns, the catalog table has %d (did the table change since the job was planned?)", n, len(cols))
	}
	s.rows = rows
	return s, nil
}

func (s *pgStream) read(cols []*row.Column, n int) (int, bool, error) {
	k := 0
	for k < n {
		if !s.rows.Next() {
			if err := s.rows.Err(); err != nil {
				return k, false, err
			}
			return k, true, nil
		}
		for j, b := range s.rows.RawValues() {
			if b == nil {
				cols[j].AppendNull()
				continue
			}
			if err := s.decs[j](cols[j], b); err != nil {
				return k, false, fmt.Errorf("column %q: %w", s.names[j], err)
			}
		}
		k++
	}
	return k, false, nil
}

func (s *pgStream) close() error {
	s.rows.Close()
	return s.rows.Err()
}

type myStream struct {
	rows  *sql.Rows
	raw   []sql.RawBytes
	ptrs  []any
	decs  []decodeFunc
	names []string
}

// queryMySQL runs query on conn and streams its rows as cols say.
func queryMySQL(ctx context.Context, conn *sql.Conn, query string, args []any, cols []column, zero zeroDate) (*myStream, error) {
	s := &myStream{raw: make([]sql.RawBytes, len(cols)), ptrs: make([]any, len(cols)), decs: make([]decodeFunc, len(cols)), names: make([]string, len(cols))}
	for j, c := range cols {
		dec, err := myDecoder(c.Read, c.Type, zero)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		s.decs[j], s.ptrs[j], s.names[j] = dec, &s.raw[j], c.Name
	}
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	if names, _ := rows.Columns(); len(names) != len(cols) {
		rows.Close()
		return nil, fmt.Errorf("query returns %d columns, the catalog table has %d (did the table change since the job was planned?)", len(names), len(cols))
	}
	s.rows = rows
	return s, nil
}

func (s *myStream) read(cols []*row.Column, n int) (int, bool, error) {
	k := 0
	for k < n {
		if !s.rows.Next() {
			if err := s.rows.Err(); err != nil {
				return k, false, err
			}
			return k, true, nil
		}
		if err := s.rows.Scan(s.ptrs...); err != nil {
			return k, false, err
		}
		for j, b := range s.raw {
			if b == nil {
				cols[j].AppendNull()
				continue
			}
			if err := s.decs[j](cols[j], b); err != nil {
				return k, false, fmt.Errorf("column %q: %w", s.names[j], err)
			}
		}
		k++
	}
	return k, false, nil
}

func (s *myStream) close() error { return s.rows.Close() }
