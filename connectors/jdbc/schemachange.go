package jdbc

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Schema changes (connectors.SchemaChangeWriter): a CDC source with
// schema-changes.enabled announces that an input table's columns changed,
// with the DDL's clauses (row.ColumnChange). The writer writes the rows it
// holds (of the old columns), runs each clause on the target, and writes
// the rows that follow by the new columns:
//
//	clause          MySQL / MariaDB                       PostgreSQL
//	ADD COLUMN      ADD COLUMN c t [NOT NULL] [DEFAULT]   ADD COLUMN c t [NOT NULL if a DEFAULT]
//	                [COMMENT] [FIRST | AFTER p]           [DEFAULT]; COMMENT ON COLUMN (no place)
//	DROP COLUMN     DROP COLUMN c                         DROP COLUMN c
//	CHANGE, MODIFY  CHANGE COLUMN old c t [NOT NULL]      RENAME COLUMN old TO c; ALTER COLUMN c
//	                [DEFAULT] [COMMENT] [FIRST | AFTER]   TYPE t USING c::t, SET/DROP DEFAULT,
//	                (MODIFY COLUMN when the name stays)   SET/DROP NOT NULL; COMMENT ON COLUMN
//	RENAME COLUMN   RENAME COLUMN old TO c                RENAME COLUMN old TO c
//
// Types are the ones the sink creates tables with (mysqlDDL,
// postgresDDL), but a MySQL target takes a MySQL source's own column type
// (row.ColumnChange.MySQLType), so the target's column is the source's. A clause whose effect the target shows already is
// skipped — an ADD of a column it has, a DROP or rename of one it lacks
// — because after a restore the same change comes again: the DDL ran,
// but the checkpoint that followed it did not complete. An announcement
// (a change without clauses) runs nothing. On PostgreSQL a NOT NULL
// column without a default is added nullable: the target's rows so far
// have no value for it.
//
// Rows of an older schema of the table may still come (another channel,
// a replay): each batch is written by the columns of its own schema.
//
// With is_exactly_once the DDL runs outside the checkpoint's transaction
// (MySQL refuses DDL inside an XA transaction, and PostgreSQL's would be
// prepared with the rows), so there must be none open with rows: a
// source that emits schema changes makes each a checkpoint boundary
// (connectors/cdc, ddlGate), and the writer meets the change with every
// earlier row prepared. The DDL waits for those prepared transactions'
// commits, which the committer runs without this writer. Rows of the old
// schema still in an open transaction are an error naming the table
// (a failover, which restores to before the change). Not with a custom
// query, which names its own columns.

var (
	_ connectors.SchemaChangeWriter = (*writer)(nil)
	_ connectors.SchemaChangeSink   = (*sink)(nil)
)

// SchemaChanges tells the planner whether the writers can apply schema
// changes with these options.
func (s *sink) SchemaChanges() error { return s.r.schemaChanges() }

func (r *sinkResolved) schemaChanges() error {
	if r.Query != "" {
		return fmt.Errorf("a custom query names its own columns; generate the statements (generate_sink_sql, database, table) instead")
	}
	return nil
}

// ApplySchemaChange runs c's clauses on the target of its table.
func (w *writer) ApplySchemaChange(c *row.SchemaChange) error { return w.followSchemaChange(c, true) }

// followSchemaChange takes c's new schema for its table, after running its
// clauses on the target when run is set (another writer of a replicaWriter
// ran them when it is not).
func (w *writer) followSchemaChange(c *row.SchemaChange, run bool) error {
	id := c.After.TableID
	base, ok := w.tables[id]
	if !ok {
		return fmt.Errorf("Jdbc: a schema change of table %s, which is not an input of this sink", id)
	}
	if err := w.r.schemaChanges(); err != nil || base.t == nil {
		return fmt.Errorf("Jdbc: cannot follow the schema change of %s (%s): %v", id, c, err)
	}
	if w.r.ExactlyOnce && (w.inTx || w.rows > 0) {
		return fmt.Errorf("Jdbc: the schema change of %s (%s) came with rows of the old schema in the checkpoint's open transaction; with is_exactly_once a schema change must follow a checkpoint (the CDC sources make it one)", id, c)
	}
	if err := w.flush(); err != nil {
		return err
	}
	if run {
		if err := w.connect(); err != nil {
			return err
		}
	}
	key := append([]string(nil), base.t.Key...)
	for _, cc := range c.Columns {
		if run {
			if err := w.alter(base.t.Target, key, cc); err != nil {
				return fmt.Errorf("Jdbc: %s of %s: %w", cc, id, err)
			}
		}
		if cc.Op == row.ChangeColumn || cc.Op == row.RenameColumn {
			for i, k := range key {
				if k == caseOf(cc.Name, w.r.FieldIDE) {
					key[i] = caseOf(cc.Field.Name, w.r.FieldIDE)
				}
			}
		}
	}
	t := *base.t
	t.Key = key
	w.tables[id] = &tableWriter{t: &t, args: base.args}
	tw, err := w.versionOf(c.After)
	if err != nil {
		return err
	}
	w.tables[id] = tw
	return nil
}

// alter runs one clause on table t, unless the target shows it ran.
func (w *writer) alter(t tablePath, keys []string, c row.ColumnChange) error {
	name, col := caseOf(c.Name, w.r.FieldIDE), caseOf(c.Field.Name, w.r.FieldIDE)
	has := func(col string) (bool, error) {
		ok, err := w.hasColumn(t, col)
		if err != nil {
			return false, fmt.Errorf("columns of %s: %w", t, err)
		}
		return ok, nil
	}
	pg := w.d.name == dialectPostgres
	tbl := "ALTER TABLE " + w.d.table(t) + " "
	var stmts []string
	switch c.Op {
	case row.AddColumn:
		if ok, err := has(col); err != nil || ok {
			return err
		}
		def, err := w.columnDef(c, false)
		if err != nil {
			return err
		}
		stmts = append(stmts, tbl+"ADD COLUMN "+w.d.quote(col)+" "+def)
	case row.DropColumn:
		if ok, err := has(name); err != nil || !ok {
			return err
		}
		stmts = append(stmts, tbl+"DROP COLUMN "+w.d.quote(name))
	case row.RenameColumn:
		if ok, err := has(name); err != nil || !ok || name == col {
			return err
		}
		stmts = append(stmts, tbl+"RENAME COLUMN "+w.d.quote(name)+" TO "+w.d.quote(col))
	case row.ChangeColumn:
		cur := col
		if name != col {
			ok, err := has(name)
			if err != nil {
				return err
			}
			if ok {
				cur = name
			}
		}
		key := false
		for _, k := range keys {
			key = key || k == name || k == col
		}
		if !pg {
			def, err := w.columnDef(c, key)
			if err != nil {
				return err
			}
			if cur != col {
				stmts = append(stmts, tbl+"CHANGE COLUMN "+w.d.quote(cur)+" "+w.d.quote(col)+" "+def)
			} else {
				stmts = append(stmts, tbl+"MODIFY COLUMN "+w.d.quote(col)+" "+def)
			}
			break
		}
		typ, err := postgresDDL(c.Field.Type)
		if err != nil {
			return err
		}
		if cur != col {
			stmts = append(stmts, tbl+"RENAME COLUMN "+w.d.quote(cur)+" TO "+w.d.quote(col))
		}
		q := w.d.quote(col)
		stmts = append(stmts, tbl+"ALTER COLUMN "+q+" TYPE "+typ+" USING "+q+"::"+typ)
		if c.Default != "" {
			stmts = append(stmts, tbl+"ALTER COLUMN "+q+" SET DEFAULT "+c.Default)
		} else {
			stmts = append(stmts, tbl+"ALTER COLUMN "+q+" DROP DEFAULT")
		}
		if c.Field.Nullable {
			stmts = append(stmts, tbl+"ALTER COLUMN "+q+" DROP NOT NULL")
		} else {
			stmts = append(stmts, tbl+"ALTER COLUMN "+q+" SET NOT NULL")
		}
	}
	if pg && (c.Op == row.AddColumn || c.Op == row.ChangeColumn) && (c.Field.Comment != "" || c.Op == row.ChangeColumn) {
		comment := "NULL"
		if c.Field.Comment != "" {
			comment = "'" + strings.ReplaceAll(c.Field.Comment, "'", "''") + "'"
		}
		stmts = append(stmts, "COMMENT ON COLUMN "+w.d.table(t)+"."+w.d.quote(col)+" IS "+comment)
	}
	for i, q := range stmts {
		if err := w.exec(q); err != nil {
			// Another writer of the sink may have run the clause first
			// (a change reaches every writer behind a redistributing
			// edge): the target shows its effect, and the rest is left
			// to that writer too.
			if i == 0 && w.ran(t, c, name, col) {
				return nil
			}
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// ran tells whether the target shows clause c's effect on its columns:
// an added column there, a dropped one gone, a renamed one under its new
// name only.
func (w *writer) ran(t tablePath, c row.ColumnChange, name, col string) bool {
	hasOld, err1 := w.hasColumn(t, name)
	hasNew, err2 := w.hasColumn(t, col)
	if err1 != nil || err2 != nil {
		return false
	}
	switch c.Op {
	case row.AddColumn:
		return hasNew
	case row.DropColumn:
		return !hasOld
	case row.ChangeColumn, row.RenameColumn:
		return name != col && !hasOld && hasNew
	}
	return false
}

// columnDef is the column definition an ADD or a MySQL CHANGE / MODIFY
// writes after the column's name: its type, nullability, default,
// comment and (MySQL) place.
func (w *writer) columnDef(c row.ColumnChange, key bool) (string, error) {
	pg := w.d.name == dialectPostgres
	var typ string
	var err error
	switch {
	case pg:
		typ, err = postgresDDL(c.Field.Type)
	case c.MySQLType != "":
		typ = c.MySQLType // MySQL's own column from a MySQL source
	default:
		typ, err = mysqlDDL(c.Field.Type, key)
	}
	if err != nil {
		return "", err
	}
	def := typ
	if !c.Field.Nullable && (!pg || c.Default != "") {
		def += " NOT NULL"
	}
	if d := c.Default; d != "" {
		if !pg && c.MySQLType == "" && strings.EqualFold(d, "CURRENT_TIMESTAMP") && c.Field.Type.ID == row.TypeTimestamp {
			d = "CURRENT_TIMESTAMP(6)" // the precision of datetime(6)
		}
		def += " DEFAULT " + d
	}
	if pg {
		return def, nil
	}
	if c.Field.Comment != "" {
		def += " COMMENT '" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(c.Field.Comment) + "'"
	}
	switch {
	case c.First:
		def += " FIRST"
	case c.After != "":
		def += " AFTER " + w.d.quote(caseOf(c.After, w.r.FieldIDE))
	}
	return def, nil
}

// hasColumn tells whether the target table has the column.
func (w *writer) hasColumn(t tablePath, col string) (bool, error) {
	var n int
	var err error
	if w.pg != nil {
		err = w.pg.QueryRow(w.ctx, "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = $3", t.Schema, t.Table, col).Scan(&n)
	} else {
		err = w.my.QueryRowContext(w.ctx, "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?", t.Database, t.Table, col).Scan(&n)
	}
	return n > 0, err
}

// versionOf is how rows of schema s of one of the sink's input tables are
// written: s's fields as columns (field_ide applied), the key found among
// them by name. It is cached by the schema and by its columns.
func (w *writer) versionOf(s *row.Schema) (*tableWriter, error) {
	if tw := w.bySchema[s]; tw != nil {
		return tw, nil
	}
	key := s.String()
	if tw := w.versions[key]; tw != nil {
		w.bySchema[s] = tw
		return tw, nil
	}
	base := w.tables[s.TableID]
	if base == nil || base.t == nil {
		return nil, fmt.Errorf("Jdbc: rows of table %s, which is not an input of this sink", s.TableID)
	}
	t := *base.t
	t.Columns, t.KeyIdx, t.Create = nil, nil, ""
	tw := &tableWriter{t: &t}
	for _, f := range s.Fields {
		a, err := argOf(w.d.name, f.Type)
		if err != nil {
			return nil, fmt.Errorf("Jdbc: table %s field %q: %w", s.TableID, f.Name, err)
		}
		tw.args = append(tw.args, a)
		t.Columns = append(t.Columns, caseOf(f.Name, w.r.FieldIDE))
	}
	for _, k := range t.Key {
		i := -1
		for j, c := range t.Columns {
			if c == k {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("Jdbc: table %s: key column %s is not a field of %s", t.Target, k, s)
		}
		t.KeyIdx = append(t.KeyIdx, i)
	}
	if w.versions == nil {
		w.versions, w.bySchema = map[string]*tableWriter{}, map[*row.Schema]*tableWriter{}
	}
	if len(w.bySchema) > 64 { // decoders' schemas come and go: bound it
		clear(w.bySchema)
	}
	w.versions[key], w.bySchema[s] = tw, tw
	return tw, nil
}

// writerOf is how batch b is written: by its table's writer until the
// table's schema changed, then by the version of its own schema.
func (w *writer) writerOf(b *row.Batch) (*tableWriter, error) {
	tw := w.tables[b.Schema.TableID]
	if tw.t == nil || w.versions == nil {
		return tw, nil
	}
	return w.versionOf(b.Schema)
}
