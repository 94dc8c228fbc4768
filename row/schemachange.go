package row

import (
	"fmt"
	"strings"
)

// A schema-change batch says that, from it on in its channel, rows of its
// table are of its schema: a table's columns changed while a job runs
// (an ALTER TABLE … ADD COLUMN captured by a CDC source). It has no rows;
// its Schema is the table's new schema. It travels like any batch — in
// order with the rows through a chain, over channels and NATS, in
// checkpoint channel state — so every operator meets it exactly where the
// rows of the new schema begin. The codec carries it as a batch flag.
//
// Schemas only grow: a change adds columns and keeps every column it had,
// with its type (ChangeOf). That makes a schema-change batch idempotent —
// one that brings a schema an operator already has, or an older one (a
// replay after a restore may), changes nothing — and lets an operator
// keep taking rows of an older schema of the table after a change (from
// another channel of a parallel DAG, where a change is no global
// barrier): each batch is read by its own Schema.

// NewSchemaChange is the schema-change batch announcing s.
func NewSchemaChange(s *Schema) *Batch {
	return &Batch{Schema: s, change: true} // no columns: nothing reads them
}

// IsSchemaChange tells whether b is a schema-change batch.
func (b *Batch) IsSchemaChange() bool { return b != nil && b.change }

// SchemaChange is how a table's schema grew: After is Before with the
// Added fields (After's fields that Before lacks, in After's order).
type SchemaChange struct {
	Before, After *Schema
	Added         []Field
}

// String names the change as DDL would: "db.t ADD COLUMN c int, ADD
// COLUMN d string".
func (c *SchemaChange) String() string {
	parts := make([]string, len(c.Added))
	for i, f := range c.Added {
		parts[i] = "ADD COLUMN " + f.Name + " " + f.Type.String()
	}
	return c.After.TableID + " " + strings.Join(parts, ", ")
}

// ChangeOf is how after changes before, both schemas of one table. It is
// nil when after adds no column (the same columns, or an older schema of
// the table: a subset of before's columns, which a replay may bring). An
// error names the table and the column when after drops, renames or
// retypes a column before has: only added columns are carried.
func ChangeOf(before, after *Schema) (*SchemaChange, error) {
	if before == after {
		return nil, nil
	}
	if before.TableID != after.TableID {
		return nil, fmt.Errorf("schema of table %s announced for table %s", after.TableID, before.TableID)
	}
	var added []Field
	for _, f := range after.Fields {
		if before.Index(f.Name) < 0 {
			added = append(added, f)
		}
	}
	if len(added) == 0 { // the same columns, or fewer: an older schema
		return nil, sameTypes(after, before)
	}
	for _, f := range before.Fields {
		if after.Index(f.Name) < 0 {
			return nil, fmt.Errorf("table %s: column %s is gone (dropped or renamed); only ADD COLUMN is carried into a running job", after.TableID, f.Name)
		}
	}
	if err := sameTypes(before, after); err != nil {
		return nil, err
	}
	return &SchemaChange{Before: before, After: after, Added: added}, nil
}

// Evolve is ChangeOf for the one who sees the change happen (a source
// reading the table's log): after must keep every column of before, so an
// older-looking schema is a dropped column, an error naming it; nil when
// after has before's columns and no more.
func Evolve(before, after *Schema) (*SchemaChange, error) {
	for _, f := range before.Fields {
		if after.Index(f.Name) < 0 {
			return nil, fmt.Errorf("table %s: column %s is gone (dropped or renamed); only ADD COLUMN is carried into a running job", before.TableID, f.Name)
		}
	}
	return ChangeOf(before, after)
}

// sameTypes checks that every column of a that b has is of the same type
// in b.
func sameTypes(a, b *Schema) error {
	for _, f := range a.Fields {
		if j := b.Index(f.Name); j >= 0 && !b.Fields[j].Type.Equal(f.Type) {
			old, now := f, b.Fields[j]
			return fmt.Errorf("table %s: column %s changed type (%s, then %s); only ADD COLUMN is carried into a running job", a.TableID, f.Name, old.Type, now.Type)
		}
	}
	return nil
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
