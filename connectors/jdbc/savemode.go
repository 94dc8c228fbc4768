package jdbc

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// HandleSaveMode applies schema_save_mode, then data_save_mode, to each
// target table, as SeaTunnel's DefaultSaveModeHandler does with its JDBC
// catalog:
//
//	RECREATE_SCHEMA               drop the table if it exists, create it from the input
//	CREATE_SCHEMA_WHEN_NOT_EXIST  create it from the input if it does not exist
//	ERROR_WHEN_SCHEMA_NOT_EXIST   fail if it does not exist
//	IGNORE                        nothing
//	DROP_DATA                     empty the table (TRUNCATE)
//	APPEND_DATA                   nothing
//	CUSTOM_PROCESSING             run custom_sql
//	ERROR_WHEN_DATA_EXISTS        fail if the table holds a row
//
// With exactly-once on MySQL it also creates the table of commit markers.
func (s *sink) HandleSaveMode(ctx context.Context) error {
	c := &committer{r: s.r}
	d := dialectSQL{name: s.r.Conn.dialect()}
	return c.withSession(ctx, func(pg *pgx.Conn, my *sql.Conn) error {
		exec := func(q string) error {
			var err error
			if pg != nil {
				_, err = pg.Exec(ctx, q)
			} else {
				_, err = my.ExecContext(ctx, q)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", firstLine(q), err)
			}
			return nil
		}
		exists := func(t *sinkTable) (bool, error) {
			var n int
			var err error
			if pg != nil {
				err = pg.QueryRow(ctx, "SELECT COUNT(*) FROM pg_tables WHERE schemaname = $1 AND tablename = $2", t.Target.Schema, t.Target.Table).Scan(&n)
			} else {
				err = my.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", t.Target.Database, t.Target.Table).Scan(&n)
			}
			return n > 0, err
		}
		for _, t := range s.r.Tables {
			ok, err := exists(t)
			if err != nil {
				return fmt.Errorf("Jdbc save mode of %s: %w", t.Target, err)
			}
			create := func() error {
				if t.Create == "" {
					return fmt.Errorf("Jdbc: cannot create %s: its input has types without a column type", t.Target)
				}
				if pg != nil {
					if err := exec("CREATE SCHEMA IF NOT EXISTS " + d.quote(t.Target.Schema)); err != nil {
						return err
					}
				} else if err := exec("CREATE DATABASE IF NOT EXISTS " + d.quote(t.Target.Database)); err != nil {
					return err
				}
				return exec(t.Create)
			}
			switch s.r.SchemaSave {
			case "RECREATE_SCHEMA":
				if ok {
					if err := exec("DROP TABLE " + d.table(t.Target)); err != nil {
						return fmt.Errorf("Jdbc RECREATE_SCHEMA: %w", err)
					}
				}
				if err := create(); err != nil {
					return fmt.Errorf("Jdbc RECREATE_SCHEMA: %w", err)
				}
				ok = true
			case "CREATE_SCHEMA_WHEN_NOT_EXIST":
				if !ok {
					if err := create(); err != nil {
						return fmt.Errorf("Jdbc CREATE_SCHEMA_WHEN_NOT_EXIST: %w", err)
					}
					ok = true
				}
			case "ERROR_WHEN_SCHEMA_NOT_EXIST":
				if !ok {
					return fmt.Errorf("Jdbc ERROR_WHEN_SCHEMA_NOT_EXIST: table %s does not exist", t.Target)
				}
			}
			if !ok {
				continue
			}
			switch s.r.DataSave {
			case "DROP_DATA":
				if err := exec("TRUNCATE TABLE " + d.table(t.Target)); err != nil {
					return fmt.Errorf("Jdbc DROP_DATA: %w", err)
				}
			case "ERROR_WHEN_DATA_EXISTS":
				var n int
				q := "SELECT COUNT(*) FROM (SELECT 1 FROM " + d.table(t.Target) + " LIMIT 1) x"
				if pg != nil {
					err = pg.QueryRow(ctx, q).Scan(&n)
				} else {
					err = my.QueryRowContext(ctx, q).Scan(&n)
				}
				if err != nil {
					return fmt.Errorf("Jdbc ERROR_WHEN_DATA_EXISTS: %w", err)
				}
				if n > 0 {
					return fmt.Errorf("Jdbc ERROR_WHEN_DATA_EXISTS: table %s already holds data", t.Target)
				}
			}
		}
		if s.r.DataSave == "CUSTOM_PROCESSING" {
			if err := exec(s.r.CustomSQL); err != nil {
				return fmt.Errorf("Jdbc CUSTOM_PROCESSING: %w", err)
			}
		}
		if s.r.ExactlyOnce && my != nil {
			if err := ensureMarker(ctx, my, s.r.markerDB()); err != nil {
				return fmt.Errorf("Jdbc: creating %s: %w", markerTable, err)
			}
		}
		return nil
	})
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i] + " ..."
		}
	}
	return s
}
