package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/row"
)

// tablePath names a table: PostgreSQL's database.schema.table, MySQL's
// database.table (Schema empty).
type tablePath struct {
	Database string `json:"database"`
	Schema   string `json:"schema,omitempty"`
	Table    string `json:"table"`
}

// String is the path as SeaTunnel's TablePath prints it, the catalog
// table's id.
func (p tablePath) String() string {
	parts := []string{}
	for _, s := range []string{p.Database, p.Schema, p.Table} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ".")
}

// parseTablePath reads a table_path: for PostgreSQL database.schema.table,
// schema.table or table (schema public), the database being the URL's; for
// MySQL database.table or table. Quotes ("x" or `x`) are taken off.
func parseTablePath(s, dialect, urlDB string) (tablePath, error) {
	var parts []string
	for _, p := range splitIdent(s) {
		parts = append(parts, p)
	}
	var p tablePath
	switch {
	case dialect == dialectPostgres && len(parts) == 3:
		p = tablePath{Database: parts[0], Schema: parts[1], Table: parts[2]}
	case dialect == dialectPostgres && len(parts) == 2:
		p = tablePath{Database: urlDB, Schema: parts[0], Table: parts[1]}
	case dialect == dialectPostgres && len(parts) == 1:
		p = tablePath{Database: urlDB, Schema: "public", Table: parts[0]}
	case dialect == dialectMySQL && len(parts) == 2:
		p = tablePath{Database: parts[0], Table: parts[1]}
	case dialect == dialectMySQL && len(parts) == 1:
		p = tablePath{Database: urlDB, Table: parts[0]}
	default:
		want := "database.table or table"
		if dialect == dialectPostgres {
			want = "database.schema.table, schema.table or table"
		}
		return p, fmt.Errorf("table path %q: want %s", s, want)
	}
	if p.Table == "" || (dialect == dialectMySQL && p.Database == "") {
		return p, fmt.Errorf("table path %q names no database (the url has none either)", s)
	}
	if dialect == dialectPostgres && urlDB != "" && p.Database != urlDB {
		return p, fmt.Errorf("table path %q is in database %s but the url connects to %s (PostgreSQL reads one database per connection)", s, p.Database, urlDB)
	}
	return p, nil
}

// splitIdent splits a dotted name, keeping dots inside quotes.
func splitIdent(s string) []string {
	var out []string
	var cur strings.Builder
	var q rune
	for _, r := range strings.TrimSpace(s) {
		switch {
		case q != 0 && r == q:
			q = 0
		case q == 0 && (r == '"' || r == '`'):
			q = r
		case q == 0 && r == '.':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(out, cur.String())
}

// tableInfo is a table's (or a query's) columns and keys, as the source's
// catalog table and the sink's target are described.
type tableInfo struct {
	Path       tablePath  `json:"path"`
	Columns    []column   `json:"columns"`
	PrimaryKey []string   `json:"primary_key,omitempty"`
	UniqueKeys [][]string `json:"unique_keys,omitempty"`
}

// errTableNotFound says a table does not exist.
var errTableNotFound = errors.New("table not found")

// describePostgres reads a table's columns and keys from pg_catalog.
func describePostgres(ctx context.Context, conn *pgx.Conn, p tablePath) (*tableInfo, error) {
	rows, err := conn.Query(ctx, `SELECT a.attname, a.atttypid, a.atttypmod, NOT a.attnotnull, format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, p.Schema, p.Table)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", p, err)
	}
	info := &tableInfo{Path: p}
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.Name, &c.OID, &c.Mod, &c.Nullable, &c.DBType); err != nil {
			rows.Close()
			return nil, fmt.Errorf("describe %s: %w", p, err)
		}
		info.Columns = append(info.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("describe %s: %w", p, err)
	}
	if len(info.Columns) == 0 {
		return nil, fmt.Errorf("%w: %s", errTableNotFound, p)
	}
	keys, err := conn.Query(ctx, `SELECT i.indisprimary, ARRAY(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.ord)
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relname = $2 AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
ORDER BY NOT i.indisprimary, i.indexrelid`, p.Schema, p.Table)
	if err != nil {
		return nil, fmt.Errorf("keys of %s: %w", p, err)
	}
	defer keys.Close()
	for keys.Next() {
		var primary bool
		var cols []string
		if err := keys.Scan(&primary, &cols); err != nil {
			return nil, fmt.Errorf("keys of %s: %w", p, err)
		}
		if primary {
			info.PrimaryKey = cols
		} else {
			info.UniqueKeys = append(info.UniqueKeys, cols)
		}
	}
	if err := keys.Err(); err != nil {
		return nil, fmt.Errorf("keys of %s: %w", p, err)
	}
	for i := range info.Columns {
		if err := mapPostgres(p.String(), &info.Columns[i], pgLookup(ctx, conn)); err != nil {
			return nil, err
		}
	}
	return info, nil
}

// pgLookup reads pg_type for types that are not built in.
func pgLookup(ctx context.Context, conn *pgx.Conn) func(uint32) (pgTypeInfo, error) {
	return func(oid uint32) (pgTypeInfo, error) {
		var kind string
		var info pgTypeInfo
		err := conn.QueryRow(ctx, "SELECT typtype::text, typname::text, typbasetype, typtypmod FROM pg_type WHERE oid = $1", oid).Scan(&kind, &info.name, &info.base, &info.baseMod)
		if err != nil {
			return info, fmt.Errorf("type oid %d: %w", oid, err)
		}
		if kind != "" {
			info.kind = kind[0]
		}
		return info, nil
	}
}

// describePostgresQuery reads the result columns of a query by preparing
// it (nothing runs). A column of the table (when known) lends its
// nullability and type name.
func describePostgresQuery(ctx context.Context, conn *pgx.Conn, name, query string, table *tableInfo) ([]column, error) {
	sd, err := conn.Prepare(ctx, "", query)
	if err != nil {
		return nil, fmt.Errorf("query of %s: %w", name, err)
	}
	var cols []column
	for _, f := range sd.Fields {
		c := column{Name: f.Name, OID: f.DataTypeOID, Mod: f.TypeModifier, Nullable: true, DBType: pgTypeName(f.DataTypeOID, f.TypeModifier)}
		if tc := table.column(f.Name); tc != nil && tc.OID == c.OID {
			c.Nullable, c.DBType = tc.Nullable, tc.DBType
		}
		if err := mapPostgres(name, &c, pgLookup(ctx, conn)); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// column is the named column of the table (nil when t is nil or has none).
func (t *tableInfo) column(name string) *column {
	if t == nil {
		return nil
	}
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// describeMySQL reads a table's columns and keys from information_schema.
func describeMySQL(ctx context.Context, db *sql.DB, p tablePath) (*tableInfo, error) {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, p.Database, p.Table)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", p, err)
	}
	info := &tableInfo{Path: p}
	for rows.Next() {
		var c column
		var nullable string
		if err := rows.Scan(&c.Name, &c.DBType, &nullable); err != nil {
			rows.Close()
			return nil, fmt.Errorf("describe %s: %w", p, err)
		}
		c.Nullable = nullable == "YES"
		info.Columns = append(info.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("describe %s: %w", p, err)
	}
	if len(info.Columns) == 0 {
		return nil, fmt.Errorf("%w: %s", errTableNotFound, p)
	}
	keys, err := db.QueryContext(ctx, `SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0
ORDER BY INDEX_NAME <> 'PRIMARY', INDEX_NAME, SEQ_IN_INDEX`, p.Database, p.Table)
	if err != nil {
		return nil, fmt.Errorf("keys of %s: %w", p, err)
	}
	defer keys.Close()
	var last string
	for keys.Next() {
		var idx, col string
		if err := keys.Scan(&idx, &col); err != nil {
			return nil, fmt.Errorf("keys of %s: %w", p, err)
		}
		switch {
		case idx == "PRIMARY":
			info.PrimaryKey = append(info.PrimaryKey, col)
		case idx != last:
			info.UniqueKeys = append(info.UniqueKeys, []string{col})
		default:
			k := &info.UniqueKeys[len(info.UniqueKeys)-1]
			*k = append(*k, col)
		}
		last = idx
	}
	if err := keys.Err(); err != nil {
		return nil, fmt.Errorf("keys of %s: %w", p, err)
	}
	for i := range info.Columns {
		if err := mapMySQL(p.String(), &info.Columns[i]); err != nil {
			return nil, err
		}
	}
	return info, nil
}

// describeMySQLQuery reads a query's result columns (running it with
// LIMIT 0); columns of the table, when known, lend their exact type.
func describeMySQLQuery(ctx context.Context, db *sql.DB, name, query string, table *tableInfo) ([]column, error) {
	rows, err := db.QueryContext(ctx, "SELECT * FROM ("+query+") stactor_q LIMIT 0")
	if err != nil {
		return nil, fmt.Errorf("query of %s: %w", name, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, fmt.Errorf("query of %s: %w", name, err)
	}
	exact := mysqlQueryTypes(ctx, db, query)
	var cols []column
	for _, ct := range types {
		p, s, ok := ct.DecimalSize()
		nullable, _ := ct.Nullable()
		c := column{Name: ct.Name(), DBType: mysqlDriverType(ct.DatabaseTypeName(), p, s, ok), Nullable: nullable}
		if e, ok := exact[c.Name]; ok {
			c.DBType, c.Nullable = e.DBType, e.Nullable
		} else if c.DBType == "bit" {
			// Of unknown width: bytes hold every BIT(n) without loss (a
			// BIT(1) read as boolean would turn 0x0101 into 1).
			c.DBType = "bit(64)"
		}
		if tc := table.column(c.Name); tc != nil {
			if n, _, _ := parseMySQLType(tc.DBType); strings.HasPrefix(c.DBType, n) || n == "bit" || n == "tinyint" || n == "json" {
				c.DBType, c.Nullable = tc.DBType, tc.Nullable
			}
		}
		if err := mapMySQL(name, &c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// mysqlQueryTypes asks the server for the exact column types of a
// query's result, which the driver's metadata lacks (BIT(16) and BIT(1),
// TINYINT(1) and TINYINT(4) look alike there): a temporary table made from
// the query with no rows, described by SHOW COLUMNS and dropped. It is nil
// when the server refuses (no CREATE TEMPORARY TABLES privilege, columns
// of the same name); the driver's types are used then.
func mysqlQueryTypes(ctx context.Context, db *sql.DB, query string) map[string]column {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil
	}
	defer conn.Close()
	const tmp = "stactor_describe_q"
	if _, err := conn.ExecContext(ctx, "CREATE TEMPORARY TABLE "+tmp+" AS SELECT * FROM ("+query+") stactor_q LIMIT 0"); err != nil {
		return nil
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DROP TEMPORARY TABLE IF EXISTS "+tmp)
	rows, err := conn.QueryContext(ctx, "SHOW COLUMNS FROM "+tmp)
	if err != nil {
		return nil
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil || len(names) < 3 {
		return nil
	}
	out := map[string]column{}
	for rows.Next() {
		vals := make([]sql.NullString, len(names))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil
		}
		// Field, Type, Null, Key, Default, Extra
		out[vals[0].String] = column{Name: vals[0].String, DBType: strings.ToLower(vals[1].String), Nullable: vals[2].String == "YES"}
	}
	if rows.Err() != nil {
		return nil
	}
	return out
}

// schemaOf is the catalog table for the columns of a table or query.
func schemaOf(id string, cols []column, pk []string, unique [][]string) (*row.Schema, error) {
	fields := make([]row.Field, len(cols))
	for i, c := range cols {
		fields[i] = row.Field{Name: c.Name, Type: c.Type, Nullable: c.Nullable}
	}
	s, err := row.NewSchema(id, fields...)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	for _, k := range pk {
		if s.Index(k) < 0 {
			pk = nil // a query that does not select the whole key has none
			break
		}
	}
	s.PrimaryKey = pk
	for i, u := range unique {
		ck := row.ConstraintKey{Name: fmt.Sprintf("uk_%d", i+1), Type: "UNIQUE_KEY"}
		for _, c := range u {
			if s.Index(c) < 0 {
				ck.Columns = nil
				break
			}
			ck.Columns = append(ck.Columns, row.ConstraintColumn{Name: c, Sort: "ASC"})
		}
		if len(ck.Columns) > 0 {
			s.ConstraintKeys = append(s.ConstraintKeys, ck)
		}
	}
	return s, nil
}
