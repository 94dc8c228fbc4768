package row

import (
	"fmt"
	"strings"
)

// Field is a named, typed column of a schema or a nested row.
type Field struct {
	Name     string
	Type     *Type
	Nullable bool
	Comment  string
}

// Schema is a catalog table: the table's id and its fields. It travels with
// every batch and is fixed at plan time. Never modify a Schema after it is
// built: batches share it.
type Schema struct {
	TableID    string // e.g. "fake", "db.table"
	Fields     []Field
	PrimaryKey []string
	// ConstraintKeys are the table's unique and index keys: catalog
	// metadata that plugins read at plan time (Assert's
	// constraint_key_rule). Rows do not depend on them, and the batch
	// codec does not carry them.
	ConstraintKeys []ConstraintKey
	index          map[string]int
}

// ConstraintKey is SeaTunnel's ConstraintKey: a named key of a type
// (INDEX_KEY, UNIQUE_KEY, FOREIGN_KEY, VECTOR_INDEX_KEY) over columns.
type ConstraintKey struct {
	Name    string
	Type    string
	Columns []ConstraintColumn
}

// ConstraintColumn is a column of a constraint key and its order, ASC or
// DESC.
type ConstraintColumn struct {
	Name string
	Sort string
}

// String renders the key as SeaTunnel's ConstraintKey.toString does, for
// messages.
func (k ConstraintKey) String() string {
	cols := make([]string, len(k.Columns))
	for i, c := range k.Columns {
		cols[i] = fmt.Sprintf("ConstraintKey.ConstraintKeyColumn(columnName=%s, sortType=%s)", c.Name, c.Sort)
	}
	return fmt.Sprintf("ConstraintKey(constraintType=%s, constraintName=%s, columnNames=[%s])", k.Type, k.Name, strings.Join(cols, ", "))
}

// KeptConstraintKeys are s's constraint keys whose columns all are fields
// of out: what a transform that drops fields keeps (as SeaTunnel's
// FilterFieldTransform).
func (s *Schema) KeptConstraintKeys(out *Schema) []ConstraintKey {
	var kept []ConstraintKey
keys:
	for _, k := range s.ConstraintKeys {
		for _, c := range k.Columns {
			if out.Index(c.Name) < 0 {
				continue keys
			}
		}
		kept = append(kept, k)
	}
	return kept
}

// NewSchema builds a schema. Field names must be unique.
func NewSchema(tableID string, fields ...Field) (*Schema, error) {
	s := &Schema{TableID: tableID, Fields: fields, index: make(map[string]int, len(fields))}
	for i, f := range fields {
		if f.Name == "" {
			return nil, fmt.Errorf("field %d has no name", i+1)
		}
		if f.Type == nil {
			return nil, fmt.Errorf("field %q has no type", f.Name)
		}
		if _, dup := s.index[f.Name]; dup {
			return nil, fmt.Errorf("field %q appears twice", f.Name)
		}
		s.index[f.Name] = i
	}
	return s, nil
}

// MustSchema is NewSchema for fields known to be valid (tests, built-ins).
func MustSchema(tableID string, fields ...Field) *Schema {
	s, err := NewSchema(tableID, fields...)
	if err != nil {
		panic(err)
	}
	return s
}

// Index is the position of the named field, or -1.
func (s *Schema) Index(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// Len is the number of fields.
func (s *Schema) Len() int { return len(s.Fields) }

// Names are the field names in order.
func (s *Schema) Names() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// WithTableID is a copy of s under another table id.
func (s *Schema) WithTableID(id string) *Schema {
	c := *s
	c.TableID = id
	return &c
}

// String renders the schema as "table(name type, ...)".
func (s *Schema) String() string {
	var b strings.Builder
	b.WriteString(s.TableID)
	b.WriteString("(")
	for i, f := range s.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + " " + f.Type.String())
	}
	b.WriteString(")")
	return b.String()
}
