package fieldmapper

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/transformtest"
	"github.com/stactor/stactor/row"
)

var input = func() *row.Schema {
	s := row.MustSchema("fake",
		row.Field{Name: "id", Type: row.BigInt},
		row.Field{Name: "name", Type: row.String, Nullable: true, Comment: "who"},
		row.Field{Name: "age", Type: row.Int},
		row.Field{Name: "card", Type: row.Int},
	)
	s.PrimaryKey = []string{"id"}
	return s
}()

func newTransform(t *testing.T, body string) (connectors.Transform, error) {
	t.Helper()
	return transformtest.New(t, Factory, body, input)
}

func batch(t *testing.T) *row.Batch {
	t.Helper()
	b := row.NewBuilder(input, 2)
	if err := b.AppendRow(row.Insert, []any{int64(1), "Joy Ding", int64(20), int64(123)}); err != nil {
		t.Fatal(err)
	}
	if err := b.AppendRow(row.UpdateAfter, []any{int64(2), nil, int64(21), int64(124)}); err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

func rows(b *row.Batch) [][]any { return transformtest.Rows(b) }

func TestFieldMapper(t *testing.T) {
	cases := []struct {
		name, body string
		fields     []row.Field
		pk         []string
		rows       [][]any
	}{
		{"doc example", `field_mapper = { id = id, card = card, name = new_name }`,
			[]row.Field{
				{Name: "id", Type: row.BigInt},
				{Name: "card", Type: row.Int},
				{Name: "new_name", Type: row.String, Nullable: true, Comment: "who"},
			}, []string{"id"},
			[][]any{{"+I", int64(1), int64(123), "Joy Ding"}, {"+U", int64(2), int64(124), nil}}},
		{"key renamed away", `field_mapper { id = key, "age" = "years" }`,
			[]row.Field{{Name: "key", Type: row.BigInt}, {Name: "years", Type: row.Int}}, nil,
			[][]any{{"+I", int64(1), int64(20)}, {"+U", int64(2), int64(21)}}},
		{"swap names", `field_mapper { age = card, card = age }`,
			[]row.Field{{Name: "card", Type: row.Int}, {Name: "age", Type: row.Int}}, nil,
			[][]any{{"+I", int64(20), int64(123)}, {"+U", int64(21), int64(124)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := newTransform(t, c.body)
			if err != nil {
				t.Fatal(err)
			}
			s := tr.OutputSchema()
			if !reflect.DeepEqual(s.Fields, c.fields) || !reflect.DeepEqual(s.PrimaryKey, c.pk) || s.TableID != "fake" {
				t.Fatalf("schema %v key %v", s, s.PrimaryKey)
			}
			in := batch(t)
			out, err := tr.Process(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(out); !reflect.DeepEqual(got, c.rows) {
				t.Errorf("rows %v, want %v", got, c.rows)
			}
			if out.Schema != s {
				t.Error("batch schema is not the output schema")
			}
		})
	}
}

func TestFieldMapperSharesColumns(t *testing.T) {
	tr, err := newTransform(t, `field_mapper { card = c, id = i }`)
	if err != nil {
		t.Fatal(err)
	}
	in := batch(t)
	out, _ := tr.Process(in)
	if out.Cols[0] != in.Cols[3] || out.Cols[1] != in.Cols[0] {
		t.Error("columns were copied")
	}
	if out, err := tr.Process(row.NewBatch(input, nil, nil)); out != nil || err != nil {
		t.Errorf("empty batch: %v, %v", out, err)
	}
}

func TestFieldMapperErrors(t *testing.T) {
	cases := []struct{ name, body, at, msg string }{
		{"missing", "plugin_output = x", "t.conf:1:1", `"field_mapper": missing`},
		{"not an object", "field_mapper = [a]", "t.conf:1:16", "expected an object"},
		{"empty", "field_mapper {}", "t.conf:1:14", "maps no field"},
		{"unknown field", "field_mapper {\n  id = a\n  nope = b\n}", "t.conf:3:3", `field "nope" is not in table fake`},
		{"object value", "field_mapper { id { x = y } }", "t.conf:1:19", "expected the output field's name"},
		{"twice", "field_mapper { id = a, age = a }", "t.conf:1:30", `output field "a" is mapped twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newTransform(t, c.body)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if !strings.HasPrefix(err.Error(), c.at) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q, want at %s containing %q", err, c.at, c.msg)
			}
		})
	}
}
