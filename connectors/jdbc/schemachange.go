package jdbc

import (
	"fmt"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Schema changes (connectors.SchemaChangeWriter): a CDC source with
// schema-changes.enabled announces that an input table gained columns.
// The writer writes the rows it holds (of the old columns), adds the new
// columns to the target with ALTER TABLE … ADD COLUMN (each only if the
// target lacks it: after a restore the same change comes again), and
// writes the rows that follow with the new columns. The columns are added
// nullable whatever the source says: the target's rows so far have no
// value for them.
//
// Rows of an older schema of the table may still come (another channel,
// a replay): each batch is written by the columns of its own schema, so
// an upsert of an older row leaves the new columns as they are.
//
// Not with is_exactly_once: the DDL would have to wait for the prepared
// transactions of the sink's other writers (and MySQL refuses DDL inside
// an XA transaction) while their checkpoint waits for this writer; it
// is an error naming the table. Not with a custom query either, which
// names its own columns.

var (
	_ connectors.SchemaChangeWriter = (*writer)(nil)
	_ connectors.SchemaChangeSink   = (*sink)(nil)
)

// SchemaChanges tells the planner whether the writers can apply schema
// changes with these options.
func (s *sink) SchemaChanges() error { return s.r.schemaChanges() }

func (r *sinkResolved) schemaChanges() error {
	switch {
	case r.Query != "":
		return fmt.Errorf("a custom query names its own columns; generate the statements (generate_sink_sql, database, table) instead")
	case r.ExactlyOnce:
		return fmt.Errorf("is_exactly_once = true (DDL cannot run while the checkpoint's transactions are open); use the upsert sink (enable_upsert, primary keys) without is_exactly_once")
	}
	return nil
}

// ApplySchemaChange adds c's columns to the target of its table.
func (w *writer) ApplySchemaChange(c *row.SchemaChange) error {
	id := c.After.TableID
	base, ok := w.tables[id]
	if !ok {
		return fmt.Errorf("Jdbc: a schema change of table %s, which is not an input of this sink", id)
	}
	if err := w.r.schemaChanges(); err != nil || base.t == nil {
		return fmt.Errorf("Jdbc: cannot follow the schema change of %s (%s): %v", id, c, err)
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.connect(); err != nil {
		return err
	}
	tw, err := w.versionOf(c.After)
	if err != nil {
		return err
	}
	for _, f := range c.Added {
		col := caseOf(f.Name, w.r.FieldIDE)
		has, err := w.hasColumn(tw.t.Target, col)
		if err != nil {
			return fmt.Errorf("Jdbc: columns of %s: %w", tw.t.Target, err)
		}
		if has {
			continue
		}
		var typ string
		if w.d.name == dialectPostgres {
			typ, err = postgresDDL(f.Type)
		} else {
			typ, err = mysqlDDL(f.Type, false)
		}
		if err != nil {
			return fmt.Errorf("Jdbc: column %s of %s: %w", f.Name, id, err)
		}
		q := "ALTER TABLE " + w.d.table(tw.t.Target) + " ADD COLUMN " + w.d.quote(col) + " " + typ
		if err := w.exec(q); err != nil {
			return fmt.Errorf("Jdbc: %s: %w", q, err)
		}
	}
	w.tables[id] = tw
	return nil
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
// them by name. It is cached by the table and its number of fields,
// which tells a table's schemas apart (they only grow).
func (w *writer) versionOf(s *row.Schema) (*tableWriter, error) {
	key := versionKey{s.TableID, len(s.Fields)}
	if tw := w.versions[key]; tw != nil {
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
		w.versions = map[versionKey]*tableWriter{}
	}
	w.versions[key] = tw
	return tw, nil
}

type versionKey struct {
	table  string
	fields int
}

// writerOf is how batch b is written: by its table's writer, or, when
// its schema is not the one that writer was made for (a schema change),
// by the version of its own schema.
func (w *writer) writerOf(b *row.Batch) (*tableWriter, error) {
	tw := w.tables[b.Schema.TableID]
	if tw.t == nil || len(tw.args) == len(b.Schema.Fields) {
		return tw, nil
	}
	return w.versionOf(b.Schema)
}
