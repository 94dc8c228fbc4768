package row

import (
	"strings"
	"testing"
)

func TestSchemaChangeRoundTrip(t *testing.T) {
	s := MustSchema("db.t", Field{Name: "id", Type: &Type{ID: TypeBigInt}}, Field{Name: "c", Type: &Type{ID: TypeString}, Nullable: true})
	s.PrimaryKey = []string{"id"}
	enc := AppendBatch(nil, NewSchemaChange(s))
	for _, dec := range []*Decoder{NewDecoder(), NewDecoder().Recycle()} {
		b, rest, err := dec.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(rest) != 0 || !b.IsSchemaChange() || b.Len() != 0 || !SameColumns(b.Schema, s) || b.Schema.PrimaryKey[0] != "id" {
			t.Fatalf("decoded %+v (rest %d)", b, len(rest))
		}
		b.Release()
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
	// A schema-change flag with rows, or with kinds, is corrupt.
	bad := append([]byte{}, enc...)
	bad[len(bad)-1] |= batchKinds
	if _, _, err := NewDecoder().Decode(bad); err == nil {
		t.Fatal("schema change with kinds decoded")
	}
}

func TestChangeOf(t *testing.T) {
	bi, str := &Type{ID: TypeBigInt}, &Type{ID: TypeString}
	v1 := MustSchema("db.t", Field{Name: "id", Type: bi}, Field{Name: "a", Type: str})
	v2 := MustSchema("db.t", Field{Name: "id", Type: bi}, Field{Name: "a", Type: str}, Field{Name: "b", Type: bi, Nullable: true})
	first := MustSchema("db.t", Field{Name: "b", Type: bi}, Field{Name: "id", Type: bi}, Field{Name: "a", Type: str})
	c, err := ChangeOf(v1, v2)
	if err != nil || c == nil || len(c.Added) != 1 || c.Added[0].Name != "b" {
		t.Fatalf("add: %v %v", c, err)
	}
	if got := c.String(); got != "db.t ADD COLUMN b bigint" {
		t.Fatalf("String: %q", got)
	}
	if c, err := ChangeOf(v1, first); err != nil || c == nil || c.Added[0].Name != "b" {
		t.Fatalf("add first: %v %v", c, err)
	}
	for name, after := range map[string]*Schema{"same": v1.WithTableID("db.t"), "older": v1} {
		if c, err := ChangeOf(v2, after); err != nil || c != nil {
			t.Fatalf("%s: %v %v", name, c, err)
		}
	}
	if _, err := Evolve(v2, v1); err == nil || !strings.Contains(err.Error(), "column b is gone") {
		t.Fatalf("Evolve to fewer columns: %v", err)
	}
	if c, err := Evolve(v1, v2); err != nil || c == nil {
		t.Fatalf("Evolve: %v %v", c, err)
	}
	for name, tc := range map[string]struct {
		after *Schema
		want  string
	}{
		"drop":   {MustSchema("db.t", Field{Name: "id", Type: bi}, Field{Name: "b", Type: bi}), "column a is gone"},
		"rename": {MustSchema("db.t", Field{Name: "id", Type: bi}, Field{Name: "a2", Type: str}), "column a is gone"},
		"type":   {MustSchema("db.t", Field{Name: "id", Type: bi}, Field{Name: "a", Type: bi}, Field{Name: "b", Type: bi}), "column a changed type"},
		"table":  {MustSchema("db.u", Field{Name: "id", Type: bi}), "announced for table db.t"},
	} {
		if _, err := ChangeOf(v1, tc.after); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
