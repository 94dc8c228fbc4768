package row

import (
	"fmt"
	"strings"
)

// A schema-change batch says that, from it on in its channel, rows of its
// table are of its schema: a table's columns changed while a job runs (an
// ALTER TABLE captured by a CDC source). It has no rows; it carries a
// SchemaChange whose After is the batch's Schema. It travels like any
// batch — in order with the rows through a chain, over channels and NATS,
// in checkpoint channel state — so every operator meets it exactly where
// the rows of the new schema begin. The codec carries it as a batch flag
// and the change after it.
//
// Versions, not shapes, order a table's schemas: the plan's schema is
// version 0 and each change the source sees is one more. Columns may be
// added, dropped, renamed and retyped, so no shape tells an older schema
// from a newer one; the version does. An operator takes a change whose
// version is above the one it has and ignores any other (a replay after a
// restore brings changes again): that makes a schema-change batch
// idempotent. A change with no Columns only announces its schema (a
// checkpoint's channel state, a source restored with a changed table):
// the operator takes After without running DDL, which its target has
// already had. Rows of an older schema that still arrive after a change
// (from another channel of a parallel DAG, where a change is no global
// barrier) are read by their own Schema.

// ColumnOp is what one clause of an ALTER TABLE does to a column.
type ColumnOp uint8

// The column operations, SeaTunnel's AlterTableColumnEvent kinds
// (AlterTableAddColumnEvent, DropColumn, ChangeColumn, ModifyColumn: a
// MODIFY is a CHANGE that keeps the name).
const (
	AddColumn    ColumnOp = iota + 1 // ADD COLUMN Field, placed by First / After
	DropColumn                       // DROP COLUMN Name
	ChangeColumn                     // CHANGE / MODIFY COLUMN Name to Field: rename, type, nullability, default, comment, place
	RenameColumn                     // RENAME COLUMN Name TO Field.Name: the column keeps its definition
)

func (o ColumnOp) String() string {
	switch o {
	case AddColumn:
		return "ADD COLUMN"
	case DropColumn:
		return "DROP COLUMN"
	case ChangeColumn:
		return "CHANGE COLUMN"
	case RenameColumn:
		return "RENAME COLUMN"
	}
	return fmt.Sprintf("ColumnOp(%d)", uint8(o))
}

// ColumnChange is one clause of a schema change.
type ColumnChange struct {
	Op ColumnOp
	// Name is the column as the table had it before the clause (DROP,
	// CHANGE); "" for ADD.
	Name string
	// Field is the column after the clause (ADD, CHANGE): its name, type,
	// nullability and comment.
	Field Field
	// Default is the column's default as portable SQL text — a quoted
	// string, a number, NULL or CURRENT_TIMESTAMP — or "" for none
	// (ADD, CHANGE).
	Default string
	// First places the column first; After, when set, after that column
	// (as named once the clause's earlier ones applied). Neither: ADD puts
	// it last, CHANGE leaves it where it is.
	First bool
	After string
	// MySQLType is the column's type as MySQL writes it ("varchar(64)",
	// "int unsigned") when the source is MySQL or MariaDB (ADD, CHANGE),
	// so that a sink of the same kind makes the very column (as
	// SeaTunnel's converters keep a column's source type); "" otherwise.
	MySQLType string
}

// String renders the clause as MySQL would write it.
func (c ColumnChange) String() string {
	switch c.Op {
	case DropColumn:
		return "DROP COLUMN " + c.Name
	case RenameColumn:
		return "RENAME COLUMN " + c.Name + " TO " + c.Field.Name
	}
	var b strings.Builder
	b.WriteString(c.Op.String())
	if c.Op == ChangeColumn {
		b.WriteString(" " + c.Name)
	}
	b.WriteString(" " + c.Field.Name + " " + c.Field.Type.String())
	if !c.Field.Nullable {
		b.WriteString(" NOT NULL")
	}
	if c.Default != "" {
		b.WriteString(" DEFAULT " + c.Default)
	}
	if c.Field.Comment != "" {
		b.WriteString(" COMMENT '" + strings.ReplaceAll(c.Field.Comment, "'", "''") + "'")
	}
	switch {
	case c.First:
		b.WriteString(" FIRST")
	case c.After != "":
		b.WriteString(" AFTER " + c.After)
	}
	return b.String()
}

// SchemaChange is a change of a table's schema: After is Before with
// Columns applied, in order, and Version is After's version (see above).
// Before is nil where it is not known (a decoded batch carries After
// alone). No Columns: an announcement of After.
type SchemaChange struct {
	Version int64
	Before  *Schema
	After   *Schema
	Columns []ColumnChange
}

// String names the change as DDL would: "db.t ADD COLUMN c int, DROP
// COLUMN d (version 2)".
func (c *SchemaChange) String() string {
	if len(c.Columns) == 0 {
		return fmt.Sprintf("%s (version %d)", c.After, c.Version)
	}
	parts := make([]string, len(c.Columns))
	for i, cc := range c.Columns {
		parts[i] = cc.String()
	}
	return fmt.Sprintf("%s %s (version %d)", c.After.TableID, strings.Join(parts, ", "), c.Version)
}

// NewSchemaChange is the schema-change batch carrying c (its Schema is
// c.After; Before is not carried).
func NewSchemaChange(c *SchemaChange) *Batch {
	return &Batch{Schema: c.After, change: c} // no columns: nothing reads them
}

// IsSchemaChange tells whether b is a schema-change batch.
func (b *Batch) IsSchemaChange() bool { return b != nil && b.change != nil }

// SchemaChange is the change b carries, nil when b is not a schema-change
// batch.
func (b *Batch) SchemaChange() *SchemaChange {
	if b == nil {
		return nil
	}
	return b.change
}

// Apply is s with cols applied in order: the schema an ALTER TABLE makes
// of s. The primary key follows renames. An error names the table, the
// clause and the column: a column the table lacks, one it has already, a
// dropped key column, a table left without columns.
func Apply(s *Schema, cols []ColumnChange) (*Schema, error) {
	fields := append([]Field(nil), s.Fields...)
	pk := append([]string(nil), s.PrimaryKey...)
	find := func(name string) int {
		for i, f := range fields {
			if f.Name == name {
				return i
			}
		}
		return -1
	}
	for _, c := range cols {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("table %s: %s: %s", s.TableID, c, fmt.Sprintf(format, args...))
		}
		at := len(fields) // where the column goes
		switch c.Op {
		case AddColumn:
			if find(c.Field.Name) >= 0 {
				return nil, fail("the table has a column %s already", c.Field.Name)
			}
		case DropColumn, ChangeColumn, RenameColumn:
			i := find(c.Name)
			if i < 0 {
				return nil, fail("the table has no column %s", c.Name)
			}
			if c.Op == DropColumn {
				for _, k := range pk {
					if k == c.Name {
						return nil, fail("%s is a primary key column", c.Name)
					}
				}
				fields = append(fields[:i], fields[i+1:]...)
				if len(fields) == 0 {
					return nil, fail("the table would have no column")
				}
				continue
			}
			if c.Field.Name != c.Name && find(c.Field.Name) >= 0 {
				return nil, fail("the table has a column %s already", c.Field.Name)
			}
			for k := range pk {
				if pk[k] == c.Name {
					pk[k] = c.Field.Name
				}
			}
			if c.Op == RenameColumn {
				f := fields[i]
				f.Name = c.Field.Name
				fields[i] = f
				continue
			}
			if !c.First && c.After == "" {
				fields[i] = c.Field
				continue
			}
			fields = append(fields[:i], fields[i+1:]...)
		default:
			return nil, fail("unknown operation")
		}
		switch {
		case c.First:
			at = 0
		case c.After != "":
			j := find(c.After)
			if j < 0 {
				return nil, fail("the table has no column %s to place it after", c.After)
			}
			at = j + 1
		}
		fields = append(fields[:at], append([]Field{c.Field}, fields[at:]...)...)
	}
	out, err := NewSchema(s.TableID, fields...)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.TableID, err)
	}
	out.PrimaryKey = pk
	out.ConstraintKeys = s.ConstraintKeys
	return out, nil
}

// Added are the columns c's clauses add to the table (ADD COLUMN, in order).
func (c *SchemaChange) Added() []Field {
	var out []Field
	for _, cc := range c.Columns {
		if cc.Op == AddColumn {
			out = append(out, cc.Field)
		}
	}
	return out
}

// Grow is the change after makes of before for a source that sees only
// schemas, not the DDL (a description read anew): after must keep every
// column of before, with its type, and may add columns, since a rename
// or drop cannot be told from schemas alone (a rename would look like a
// drop and an add, losing the column's values). It is nil when after adds
// nothing; an error names the table and the column.
func Grow(before, after *Schema) ([]ColumnChange, error) {
	if before.TableID != after.TableID {
		return nil, fmt.Errorf("schema of table %s announced for table %s", after.TableID, before.TableID)
	}
	for _, f := range before.Fields {
		j := after.Index(f.Name)
		if j < 0 {
			return nil, fmt.Errorf("table %s: column %s is gone (dropped or renamed); this source carries only ADD COLUMN into a running job", before.TableID, f.Name)
		}
		if now := after.Fields[j]; !now.Type.Equal(f.Type) {
			return nil, fmt.Errorf("table %s: column %s changed type (%s, then %s); this source carries only ADD COLUMN into a running job", before.TableID, f.Name, f.Type, now.Type)
		}
	}
	var cols []ColumnChange
	prev := ""
	for i, f := range after.Fields {
		if before.Index(f.Name) < 0 {
			cc := ColumnChange{Op: AddColumn, Field: f, After: prev, First: i == 0}
			if i == len(after.Fields)-1 {
				cc.After, cc.First = "", false
			}
			cols = append(cols, cc)
		}
		prev = f.Name
	}
	return cols, nil
}

// Diff is a change that makes before into after, for an operator whose
// output schema changed without it seeing DDL of its own (a transform's
// new instance): columns after lacks are dropped, columns before lacks
// added in place, columns whose type, nullability or comment differ
// changed. It cannot tell a rename (a drop and an add).
func Diff(before, after *Schema) []ColumnChange {
	var cols []ColumnChange
	for _, f := range before.Fields {
		if after.Index(f.Name) < 0 {
			cols = append(cols, ColumnChange{Op: DropColumn, Name: f.Name})
		}
	}
	prev := ""
	for i, f := range after.Fields {
		j := before.Index(f.Name)
		switch {
		case j < 0:
			cc := ColumnChange{Op: AddColumn, Field: f, After: prev, First: i == 0}
			cols = append(cols, cc)
		case !sameField(before.Fields[j], f):
			cols = append(cols, ColumnChange{Op: ChangeColumn, Name: f.Name, Field: f})
		}
		prev = f.Name
	}
	return cols
}

func sameField(a, b Field) bool {
	return a.Name == b.Name && a.Type.Equal(b.Type) && a.Nullable == b.Nullable && a.Comment == b.Comment
}

// SameColumns tells whether a and b have the same table id and the same
// fields (names and types) in the same order: the same schema for the
// rows, whatever their comments.
func SameColumns(a, b *Schema) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.TableID != b.TableID || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !a.Fields[i].Type.Equal(b.Fields[i].Type) {
			return false
		}
	}
	return true
}
