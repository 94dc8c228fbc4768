package copy

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
		row.Field{Name: "name", Type: row.String, Nullable: true, Comment: "who"},
		row.Field{Name: "age", Type: row.Int},
		row.Field{Name: "tags", Type: row.ArrayOf(row.String), Nullable: true},
	)
	s.PrimaryKey = []string{"name"}
	return s
}()

func newTransform(t *testing.T, body string) (connectors.Transform, error) {
	t.Helper()
	return transformtest.New(t, Factory, body, input)
}

func batch(t *testing.T) *row.Batch {
	t.Helper()
	b := row.NewBuilder(input, 2)
	if err := b.AppendRow(row.Insert, []any{"Joy Ding", int64(20), []any{"a", nil}}); err != nil {
		t.Fatal(err)
	}
	if err := b.AppendRow(row.UpdateBefore, []any{nil, int64(21), nil}); err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

func rows(b *row.Batch) [][]any { return transformtest.Rows(b) }

func TestCopy(t *testing.T) {
	name := input.Fields[0]
	age := input.Fields[1]
	tags := input.Fields[2]
	rename := func(f row.Field, n string) row.Field { f.Name = n; return f }
	cases := []struct {
		name, body string
		fields     []row.Field
		source     []int
		rows       [][]any
	}{
		{"doc example", `fields { name1 = name, name2 = name, age1 = age }`,
			[]row.Field{name, age, tags, rename(name, "name1"), rename(name, "name2"), rename(age, "age1")},
			[]int{0, 1, 2, 0, 0, 1},
			[][]any{
				{"+I", "Joy Ding", int64(20), []any{"a", nil}, "Joy Ding", "Joy Ding", int64(20)},
				{"-U", nil, int64(21), nil, nil, nil, int64(21)},
			}},
		{"old form", "src_field = tags\ndest_field = tags2",
			[]row.Field{name, age, tags, rename(tags, "tags2")}, []int{0, 1, 2, 2},
			[][]any{
				{"+I", "Joy Ding", int64(20), []any{"a", nil}, []any{"a", nil}},
				{"-U", nil, int64(21), nil, nil},
			}},
		{"fields wins over old form", "fields { a = age }\nsrc_field = name\ndest_field = x",
			[]row.Field{name, age, tags, rename(age, "a")}, []int{0, 1, 2, 1},
			[][]any{
				{"+I", "Joy Ding", int64(20), []any{"a", nil}, int64(20)},
				{"-U", nil, int64(21), nil, int64(21)},
			}},
		{"existing dest is overwritten in place", `fields { name = age, n = name }`,
			[]row.Field{{Name: "name", Type: row.Int, Nullable: true, Comment: "who"}, age, tags, rename(name, "n")},
			[]int{1, 1, 2, 0},
			[][]any{
				{"+I", int64(20), int64(20), []any{"a", nil}, "Joy Ding"},
				{"-U", int64(21), int64(21), nil, nil},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := newTransform(t, c.body)
			if err != nil {
				t.Fatal(err)
			}
			s := tr.OutputSchema()
			if !reflect.DeepEqual(s.Fields, c.fields) || !reflect.DeepEqual(s.PrimaryKey, []string{"name"}) {
				t.Fatalf("schema %+v key %v", s.Fields, s.PrimaryKey)
			}
			in := batch(t)
			out, err := tr.Process(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(out); !reflect.DeepEqual(got, c.rows) {
				t.Errorf("rows %v\nwant %v", got, c.rows)
			}
			for k, j := range c.source {
				if out.Cols[k] != in.Cols[j] {
					t.Errorf("output column %d is not input column %d", k, j)
				}
			}
		})
	}
}

func TestCopyEmptyBatch(t *testing.T) {
	tr, err := newTransform(t, `fields { a = age }`)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tr.Process(row.NewBatch(input, nil, nil)); out != nil || err != nil {
		t.Fatalf("got %v, %v", out, err)
	}
}

func TestCopyErrors(t *testing.T) {
	cases := []struct{ name, body, at, msg string }{
		{"nothing", "plugin_output = x", "t.conf:1:1", "set fields { new_field = src_field }"},
		{"empty fields", "fields {}", "t.conf:1:8", "copies no field"},
		{"unknown src", "fields {\n  a = nope\n}", "t.conf:2:7", `field "nope" is not in table fake`},
		{"object src", "fields { a { b = c } }", "t.conf:1:12", "expected the name of the field to copy"},
		{"old form unknown", "src_field = nope\ndest_field = x", "t.conf:1:13", `field "nope" is not in table fake`},
		{"src only", "src_field = name", "t.conf:1:13", "src_field needs dest_field"},
		{"dest only", "dest_field = x", "t.conf:1:14", "dest_field needs src_field"},
		{"empty dest", "src_field = name\ndest_field = \"\"", "t.conf:2:14", "the new field needs a name"},
		{"fields not an object", "fields = [a]", "t.conf:1:10", "expected an object"},
		{"empty dest key", "fields {\n  \"\" = name\n}", "t.conf:2:3", "the new field needs a name"},
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
