package row

import (
	"reflect"
	"strings"
	"testing"
)

var (
	tBig = &Type{ID: TypeBigInt}
	tStr = &Type{ID: TypeString}
	tInt = &Type{ID: TypeInt}
)

func TestSchemaChangeRoundTrip(t *testing.T) {
	s := MustSchema("db.t", Field{Name: "id", Type: tBig}, Field{Name: "c", Type: tStr, Nullable: true})
	s.PrimaryKey = []string{"id"}
	changes := map[string]*SchemaChange{
		"announcement": {After: s},
		"versioned":    {After: s, Version: 7},
		"clauses": {After: s, Version: 3, Columns: []ColumnChange{
			{Op: AddColumn, Field: Field{Name: "c", Type: tStr, Nullable: true, Comment: "it's"}, Default: "'yy'", After: "id", MySQLType: "varchar(64)"},
			{Op: DropColumn, Name: "gone"},
			{Op: ChangeColumn, Name: "old", Field: Field{Name: "id", Type: tBig}, First: true},
			{Op: RenameColumn, Name: "x", Field: Field{Name: "y", Type: tInt}},
		}},
	}
	for name, c := range changes {
		enc := AppendBatch(nil, NewSchemaChange(c))
		if n := EncodedSize(NewSchemaChange(c)); n != len(enc) {
			t.Errorf("%s: EncodedSize %d, encoding %d bytes", name, n, len(enc))
		}
		for _, dec := range []*Decoder{NewDecoder(), NewDecoder().Recycle()} {
			b, rest, err := dec.Decode(enc)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := b.SchemaChange()
			if len(rest) != 0 || !b.IsSchemaChange() || b.Len() != 0 || !SameColumns(b.Schema, s) || b.Schema.PrimaryKey[0] != "id" {
				t.Fatalf("%s: decoded %+v (rest %d)", name, b, len(rest))
			}
			if got.Version != c.Version || got.After != b.Schema || !reflect.DeepEqual(fmtCols(got.Columns), fmtCols(c.Columns)) {
				t.Fatalf("%s: decoded %s, sent %s", name, got, c)
			}
			b.Release()
		}
	}
	// A plain batch of the same schema is no schema change.
	plain := NewBuilder(s, 1)
	plain.Col(0).AppendInt(1)
	plain.Col(1).AppendNull()
	plain.EndRow(Insert)
	b, _, err := NewDecoder().Decode(AppendBatch(nil, plain.Build()))
	if err != nil || b.IsSchemaChange() || b.Len() != 1 {
		t.Fatalf("plain batch: %v %v", b, err)
	}
	// A schema-change flag with kinds is corrupt, and so is a change's
	// detail without the flag, or a clause of no known operation.
	enc := AppendBatch(nil, NewSchemaChange(changes["announcement"]))
	for name, edit := range map[string]func([]byte){
		"kinds":     func(b []byte) { b[len(b)-1] |= batchKinds },
		"no change": func(b []byte) { b[len(b)-1] = batchChangeDetail },
	} {
		bad := append([]byte{}, enc...)
		edit(bad)
		if _, _, err := NewDecoder().Decode(bad); err == nil {
			t.Errorf("%s decoded", name)
		}
	}
	bad := AppendBatch(nil, NewSchemaChange(&SchemaChange{After: s, Version: 1, Columns: []ColumnChange{{Op: DropColumn, Name: "c"}}}))
	bad[len(bad)-1-1-1-1-1-1-1] = 9 // the op: before name (2), default (1), first (1), after (1), type (1)
	if _, _, err := NewDecoder().Decode(bad); err == nil || !strings.Contains(err.Error(), "column operation 9") {
		t.Errorf("bad op: %v", err)
	}
}

func fmtCols(cols []ColumnChange) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.String()+"|"+c.Name+"|"+c.Default+"|"+c.Field.Comment+"|"+c.MySQLType)
	}
	return out
}

func TestApply(t *testing.T) {
	v0 := MustSchema("db.t", Field{Name: "id", Type: tBig}, Field{Name: "a", Type: tStr}, Field{Name: "b", Type: tInt, Nullable: true})
	v0.PrimaryKey = []string{"id"}
	names := func(s *Schema) string {
		var parts []string
		for _, f := range s.Fields {
			p := f.Name + " " + f.Type.String()
			if f.Nullable {
				p += "?"
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, ", ")
	}
	for _, tc := range []struct {
		name string
		cols []ColumnChange
		want string // fields, or the error
		pk   string
	}{
		{"add last", []ColumnChange{{Op: AddColumn, Field: Field{Name: "c", Type: tInt}}}, "id bigint, a string, b int?, c int", "id"},
		{"add first", []ColumnChange{{Op: AddColumn, Field: Field{Name: "c", Type: tInt}, First: true}}, "c int, id bigint, a string, b int?", "id"},
		{"add after", []ColumnChange{{Op: AddColumn, Field: Field{Name: "c", Type: tInt}, After: "id"}}, "id bigint, c int, a string, b int?", "id"},
		{"two clauses, the second after the first's", []ColumnChange{
			{Op: AddColumn, Field: Field{Name: "c", Type: tInt}, After: "id"},
			{Op: AddColumn, Field: Field{Name: "d", Type: tInt}, After: "c"},
		}, "id bigint, c int, d int, a string, b int?", "id"},
		{"drop", []ColumnChange{{Op: DropColumn, Name: "a"}}, "id bigint, b int?", "id"},
		{"rename in place", []ColumnChange{{Op: ChangeColumn, Name: "a", Field: Field{Name: "a2", Type: tStr}}}, "id bigint, a2 string, b int?", "id"},
		{"rename keeps the definition", []ColumnChange{{Op: RenameColumn, Name: "b", Field: Field{Name: "b2"}}}, "id bigint, a string, b2 int?", "id"},
		{"rename the key", []ColumnChange{{Op: ChangeColumn, Name: "id", Field: Field{Name: "key", Type: tBig}}}, "key bigint, a string, b int?", "key"},
		{"modify and move first", []ColumnChange{{Op: ChangeColumn, Name: "b", Field: Field{Name: "b", Type: tStr}, First: true}}, "b string, id bigint, a string", "id"},
		{"modify and move after", []ColumnChange{{Op: ChangeColumn, Name: "id", Field: Field{Name: "id", Type: tBig}, After: "b"}}, "a string, b int?, id bigint", "id"},
		{"add existing", []ColumnChange{{Op: AddColumn, Field: Field{Name: "a", Type: tInt}}}, "table db.t: ADD COLUMN a int NOT NULL: the table has a column a already", ""},
		{"drop missing", []ColumnChange{{Op: DropColumn, Name: "x"}}, "the table has no column x", ""},
		{"drop key", []ColumnChange{{Op: DropColumn, Name: "id"}}, "id is a primary key column", ""},
		{"rename onto another", []ColumnChange{{Op: ChangeColumn, Name: "a", Field: Field{Name: "b", Type: tStr}}}, "the table has a column b already", ""},
		{"after missing", []ColumnChange{{Op: AddColumn, Field: Field{Name: "c", Type: tInt}, After: "x"}}, "no column x to place it after", ""},
		{"drop all", []ColumnChange{{Op: DropColumn, Name: "a"}, {Op: DropColumn, Name: "b"}, {Op: ChangeColumn, Name: "id", Field: Field{Name: "id", Type: tBig}}}, "id bigint", "id"},
	} {
		got, err := Apply(v0, tc.cols)
		switch {
		case tc.pk == "":
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want error %q", tc.name, err, tc.want)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case names(got) != tc.want || strings.Join(got.PrimaryKey, ",") != tc.pk:
			t.Errorf("%s: %s key %v, want %s key %s", tc.name, names(got), got.PrimaryKey, tc.want, tc.pk)
		}
	}
	if names(v0) != "id bigint, a string, b int?" {
		t.Fatalf("Apply changed its input: %s", names(v0))
	}
}

func TestGrowAndDiff(t *testing.T) {
	v1 := MustSchema("db.t", Field{Name: "id", Type: tBig}, Field{Name: "a", Type: tStr})
	v2 := MustSchema("db.t", Field{Name: "b", Type: tBig, Nullable: true}, Field{Name: "id", Type: tBig}, Field{Name: "a", Type: tStr}, Field{Name: "c", Type: tInt})
	cols, err := Grow(v1, v2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Apply(v1, cols); err != nil || !SameColumns(got, v2) {
		t.Fatalf("Grow %v applied: %v %v", cols, got, err)
	}
	if cols, err := Grow(v1, v1.WithTableID("db.t")); err != nil || cols != nil {
		t.Fatalf("Grow to the same: %v %v", cols, err)
	}
	for name, tc := range map[string]struct {
		after *Schema
		want  string
	}{
		"drop":   {MustSchema("db.t", Field{Name: "id", Type: tBig}), "column a is gone"},
		"rename": {MustSchema("db.t", Field{Name: "id", Type: tBig}, Field{Name: "a2", Type: tStr}), "column a is gone"},
		"type":   {MustSchema("db.t", Field{Name: "id", Type: tBig}, Field{Name: "a", Type: tBig}), "column a changed type"},
		"table":  {MustSchema("db.u", Field{Name: "id", Type: tBig}), "announced for table db.t"},
	} {
		if _, err := Grow(v1, tc.after); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Grow %s: %v, want %q", name, err, tc.want)
		}
	}
	// Diff makes any schema of another, whatever it dropped or retyped.
	v3 := MustSchema("db.t", Field{Name: "a", Type: tInt, Nullable: true}, Field{Name: "z", Type: tStr})
	for _, pair := range [][2]*Schema{{v1, v2}, {v2, v1}, {v2, v3}, {v3, v1}} {
		if got, err := Apply(pair[0], Diff(pair[0], pair[1])); err != nil || !reflect.DeepEqual(got.Fields, pair[1].Fields) {
			t.Errorf("Diff(%s, %s) = %v applied: %v %v", pair[0], pair[1], Diff(pair[0], pair[1]), got, err)
		}
	}
}
