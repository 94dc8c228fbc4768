package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

// parseSchema reads "schema = <src>" (src starts on line 1) as FakeSource's
// schema option would be.
func parseSchema(t *testing.T, src string) (*row.Schema, error) {
	t.Helper()
	root, err := hocon.Parse([]byte("schema = "+src), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return config.ParseSchema(root.Get("schema"), "default.default.default", "source FakeSource")
}

func TestParseSchemaFields(t *testing.T) {
	s, err := parseSchema(t, `{
  fields {
    c_map = "map<string, string>"
    c_array = "array<int>"
    c_string = string
    c_boolean = boolean
    c_tinyint = tinyint
    c_smallint = smallint
    c_int = int
    c_bigint = bigint
    c_float = float
    c_double = double
    c_decimal = "decimal(30, 8)"
    c_decimal_default = decimal
    c_null = "null"
    c_bytes = bytes
    c_date = date
    c_time = time
    c_timestamp = timestamp
    c_timestamp_tz = timestamp_tz
    c_tz_upper = TIMESTAMP_TZ
    c_tz_array = "array<timestamp_tz>"
    c_upper = BIGINT
    c_nested = "array<map<string, array<decimal(5, 2)>>>"
    c_row_string = "row<a int, b string>"
    c_row = {
      c_map = "map<string, string>"
      c_array = "array<int>"
      c_inner = { x = double }
    }
  }
}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []row.Field{
		{Name: "c_map", Type: row.MapOf(row.String, row.String)},
		{Name: "c_array", Type: row.ArrayOf(row.Int)},
		{Name: "c_string", Type: row.String},
		{Name: "c_boolean", Type: row.Boolean},
		{Name: "c_tinyint", Type: row.TinyInt},
		{Name: "c_smallint", Type: row.SmallInt},
		{Name: "c_int", Type: row.Int},
		{Name: "c_bigint", Type: row.BigInt},
		{Name: "c_float", Type: row.Float},
		{Name: "c_double", Type: row.Double},
		{Name: "c_decimal", Type: row.DecimalOf(30, 8)},
		{Name: "c_decimal_default", Type: row.DecimalOf(38, 18)},
		{Name: "c_null", Type: row.Null},
		{Name: "c_bytes", Type: row.Bytes},
		{Name: "c_date", Type: row.Date},
		{Name: "c_time", Type: row.Time},
		{Name: "c_timestamp", Type: row.Timestamp},
		{Name: "c_timestamp_tz", Type: row.TimestampTZ},
		{Name: "c_tz_upper", Type: row.TimestampTZ},
		{Name: "c_tz_array", Type: row.ArrayOf(row.TimestampTZ)},
		{Name: "c_upper", Type: row.BigInt},
		{Name: "c_nested", Type: row.ArrayOf(row.MapOf(row.String, row.ArrayOf(row.DecimalOf(5, 2))))},
		{Name: "c_row_string", Type: row.RowOf(row.Field{Name: "a", Type: row.Int}, row.Field{Name: "b", Type: row.String})},
		{Name: "c_row", Type: row.RowOf(
			row.Field{Name: "c_map", Type: row.MapOf(row.String, row.String), Nullable: true},
			row.Field{Name: "c_array", Type: row.ArrayOf(row.Int), Nullable: true},
			row.Field{Name: "c_inner", Type: row.RowOf(row.Field{Name: "x", Type: row.Double, Nullable: true}), Nullable: true},
		)},
	}
	if s.TableID != "default.default.default" {
		t.Errorf("table = %q, want the default", s.TableID)
	}
	if len(s.Fields) != len(want) {
		t.Fatalf("%d fields, want %d: %v", len(s.Fields), len(want), s)
	}
	for i, w := range want {
		f := s.Fields[i]
		if f.Name != w.Name || !f.Type.Equal(w.Type) || !f.Nullable {
			t.Errorf("field %d = %s %s (nullable %v), want %s %s nullable", i, f.Name, f.Type, f.Nullable, w.Name, w.Type)
		}
	}
	if got := s.Fields[len(s.Fields)-1].Type.String(); got != "row<c_map map<string, string>, c_array array<int>, c_inner row<x double>>" {
		t.Errorf("nested row renders as %q", got)
	}
}

func TestParseSchemaColumns(t *testing.T) {
	s, err := parseSchema(t, `{
  table = "db.orders"
  columns = [
    { name = id, type = bigint, nullable = false, comment = "the key" }
    { name = amount, type = "decimal(10, 2)" }
    { name = tags, type = "array<string>", nullable = true }
    { name = at, type = timestamp_tz }
  ]
  primaryKey { name = pk, columnNames = [id] }
  constraintKeys = [
    { constraintName = uk, constraintType = UNIQUE_KEY, constraintColumns = [ { columnName = amount, sortType = DESC }, { columnName = id } ] }
    { constraintName = ix, constraintType = index_key, constraintColumns = [ { columnName = tags, sortType = asc } ] }
  ]
}`)
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []row.ConstraintKey{
		{Name: "uk", Type: "UNIQUE_KEY", Columns: []row.ConstraintColumn{{Name: "amount", Sort: "DESC"}, {Name: "id", Sort: "ASC"}}},
		{Name: "ix", Type: "INDEX_KEY", Columns: []row.ConstraintColumn{{Name: "tags", Sort: "ASC"}}},
	}
	if !reflect.DeepEqual(s.ConstraintKeys, wantKeys) {
		t.Errorf("constraint keys %v, want %v", s.ConstraintKeys, wantKeys)
	}
	want := []row.Field{
		{Name: "id", Type: row.BigInt, Nullable: false, Comment: "the key"},
		{Name: "amount", Type: row.DecimalOf(10, 2), Nullable: true},
		{Name: "tags", Type: row.ArrayOf(row.String), Nullable: true},
		{Name: "at", Type: row.TimestampTZ, Nullable: true},
	}
	if s.TableID != "db.orders" || !reflect.DeepEqual(s.PrimaryKey, []string{"id"}) {
		t.Errorf("table %q primary key %v; want db.orders [id]", s.TableID, s.PrimaryKey)
	}
	if len(s.Fields) != len(want) {
		t.Fatalf("fields %v", s.Fields)
	}
	for i, w := range want {
		f := s.Fields[i]
		if f.Name != w.Name || !f.Type.Equal(w.Type) || f.Nullable != w.Nullable || f.Comment != w.Comment {
			t.Errorf("column %d = %+v, want %+v", i, f, w)
		}
	}
}

func TestParseSchemaErrors(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		line  int
		key   string
		wants []string
	}{
		{"not an object", `"id int"`, 1, "schema", []string{"expected an object"}},
		{"neither", "{\n  table = t\n}", 1, "schema", []string{"neither fields", "nor columns"}},
		{"fields a list", "{\n  fields = [a]\n}", 2, "schema.fields", []string{"expected an object"}},
		{"decimal too precise", "{ fields {\n  id = int\n  c = \"decimal(100, 2)\"\n} }", 3, "schema.fields.c", []string{`bad type "decimal(100, 2)"`, "precision 1..38"}},
		{"decimal scale above precision", "{ fields {\n  c = \"decimal(5, 6)\"\n} }", 2, "schema.fields.c", []string{"out of range"}},
		{"misspelled map", "{ fields {\n  id = int\n  m = \"mapp<string,int>\"\n} }", 3, "schema.fields.m", []string{`unknown type name "mapp"`}},
		{"unknown name", "{ fields {\n  s = strin\n} }", 2, "schema.fields.s", []string{`unknown type name "strin"`}},
		{"unclosed array", "{ fields {\n  a = \"array<int\"\n} }", 2, "schema.fields.a", []string{`bad type "array<int"`}},
		{"trailing junk", "{ fields {\n  a = \"int int\"\n} }", 2, "schema.fields.a", []string{"unexpected"}},
		{"type as list", "{ fields {\n  a = [int]\n} }", 2, "schema.fields.a", []string{"expected a type name"}},
		{"bad type in nested row", "{ fields {\n  r = {\n    ok = int\n    bad = integr\n  }\n} }", 4, "schema.fields.r.bad", []string{`"integr"`}},
		{"columns an object", "{\n  columns { a = int }\n}", 2, "schema.columns", []string{"expected a list"}},
		{"column without type", "{ columns = [\n  { name = a, type = int }\n  { name = b }\n] }", 3, "schema.columns[1]", []string{"name = ..., type = ..."}},
		{"column bad type", "{ columns = [\n  { name = a,\n    type = \"decimal(0, 0)\" }\n] }", 3, "schema.columns[0].type", []string{"out of range"}},
		{"duplicate column", "{ columns = [\n  { name = a, type = int }\n  { name = a, type = string }\n] }", 3, "schema.columns[1]", []string{`"a" appears twice`}},
		{"constraint key column not a field", "{\n  fields { a = int }\n  constraintKeys = [{ constraintName = k, constraintType = UNIQUE_KEY,\n    constraintColumns = [{ columnName = b }] }]\n}", 4, "schema.constraintKeys[0].constraintColumns[0].columnName", []string{`column "b" is not a field`}},
		{"constraint key type", "{\n  fields { a = int }\n  constraintKeys = [{ constraintName = k,\n    constraintType = UNIQUE, constraintColumns = [] }]\n}", 4, "schema.constraintKeys[0].constraintType", []string{"expected one of INDEX_KEY, UNIQUE_KEY"}},
		{"constraint key without name", "{\n  fields { a = int }\n  constraintKeys = [\n    { constraintType = UNIQUE_KEY, constraintColumns = [] }]\n}", 4, "schema.constraintKeys[0].constraintName", []string{"missing"}},
		{"primary key not a field", "{\n  fields { a = int }\n  primaryKey { name = pk, columnNames = [a,\n    b] }\n}", 4, "schema.primaryKey", []string{`column "b" is not a field`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSchema(t, tt.src)
			ce := wantError(t, err, tt.line, tt.wants...)
			if ce.Key != tt.key || ce.Where != "source FakeSource" {
				t.Errorf("key %q where %q; want %q, source FakeSource", ce.Key, ce.Where, tt.key)
			}
		})
	}
}

func TestParseSchemaNil(t *testing.T) {
	_, err := config.ParseSchema(nil, "t", "source X")
	if err == nil {
		t.Fatal("no error for a nil schema")
	}
}

// FuzzParseSchema checks that no schema block makes ParseSchema panic and
// that its mistakes are positioned *config.Errors.
func FuzzParseSchema(f *testing.F) {
	for _, s := range []string{
		`{ fields { id = bigint, m = "map<string, array<decimal(10, 2)>>", r = { a = int } } }`,
		`{ columns = [ { name = a, type = "row<x int, y string>" } ], primaryKey { columnNames = [a] } }`,
		`{ fields { d = "decimal(100, 2)" } }`,
		`{ fields { m = "mapp<string,int>" } }`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		root, err := hocon.Parse([]byte("schema = "+src), hocon.Options{File: "job.conf"})
		if err != nil {
			return
		}
		s, err := config.ParseSchema(root.Get("schema"), "t", "source X")
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "job.conf:") {
				t.Fatalf("error %T %q is not a positioned *config.Error", err, err)
			}
			return
		}
		if s == nil {
			t.Fatal("no schema and no error")
		}
	})
}
