package filter

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
		row.Field{Name: "name", Type: row.String, Nullable: true},
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
	b := row.NewBuilder(input, 4)
	for _, r := range []struct {
		k row.Kind
		v []any
	}{
		{row.Insert, []any{int64(1), "Joy Ding", int64(20), int64(123)}},
		{row.Delete, []any{int64(2), nil, int64(21), int64(124)}},
	} {
		if err := b.AppendRow(r.k, r.v); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func rows(b *row.Batch) [][]any { return transformtest.Rows(b) }

func TestFilter(t *testing.T) {
	cases := []struct {
		name, body string
		fields     []string
		pk         []string
		rows       [][]any
	}{
		{"include keeps list order", `include_fields = [card, name]`, []string{"card", "name"}, nil,
			[][]any{{"+I", int64(123), "Joy Ding"}, {"-D", int64(124), nil}}},
		{"include with key", `include_fields = [name, id]`, []string{"name", "id"}, []string{"id"},
			[][]any{{"+I", "Joy Ding", int64(1)}, {"-D", nil, int64(2)}}},
		{"fallback key fields", `fields = [age]`, []string{"age"}, nil,
			[][]any{{"+I", int64(20)}, {"-D", int64(21)}}},
		{"single string", `include_fields = age`, []string{"age"}, nil,
			[][]any{{"+I", int64(20)}, {"-D", int64(21)}}},
		{"exclude keeps input order", `exclude_fields = [card, age]`, []string{"id", "name"}, []string{"id"},
			[][]any{{"+I", int64(1), "Joy Ding"}, {"-D", int64(2), nil}}},
		{"exclude key", `exclude_fields = [id]`, []string{"name", "age", "card"}, nil,
			[][]any{{"+I", "Joy Ding", int64(20), int64(123)}, {"-D", nil, int64(21), int64(124)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := newTransform(t, c.body)
			if err != nil {
				t.Fatal(err)
			}
			s := tr.OutputSchema()
			if !reflect.DeepEqual(s.Names(), c.fields) || !reflect.DeepEqual(s.PrimaryKey, c.pk) || s.TableID != "fake" {
				t.Fatalf("schema %v key %v", s, s.PrimaryKey)
			}
			for k, n := range c.fields {
				if want := input.Fields[input.Index(n)]; !reflect.DeepEqual(s.Fields[k], want) {
					t.Errorf("field %s = %+v, want %+v", n, s.Fields[k], want)
				}
			}
			in := batch(t)
			out, err := tr.Process(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(out); !reflect.DeepEqual(got, c.rows) {
				t.Errorf("rows %v, want %v", got, c.rows)
			}
			for k, n := range c.fields { // shared, not copied
				if out.Cols[k] != in.Cols[input.Index(n)] {
					t.Errorf("column %s was copied", n)
				}
			}
		})
	}
}

func TestFilterEmptyBatch(t *testing.T) {
	tr, err := newTransform(t, `include_fields = [id]`)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tr.Process(row.NewBatch(input, nil, nil)); out != nil || err != nil {
		t.Fatalf("got %v, %v", out, err)
	}
}

func TestFilterErrors(t *testing.T) {
	cases := []struct{ name, body, line, msg string }{
		{"both", "include_fields = [id]\nexclude_fields = [age]", "t.conf:2:", "mutually exclusive"},
		{"neither", "plugin_output = x", "t.conf:1:", "set one of include_fields or exclude_fields"},
		{"unknown include", "include_fields = [id,\n  nope]", "t.conf:2:3", `field "nope" is not in table fake`},
		{"unknown exclude", "exclude_fields = [nope]", "t.conf:1:19", `field "nope" is not in table fake`},
		{"twice", "include_fields = [id, id]", "t.conf:1:23", "listed twice"},
		{"not a list", "include_fields { a = b }", "t.conf:1:", "expected a list of strings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newTransform(t, c.body)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if !strings.HasPrefix(err.Error(), c.line) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q, want at %s containing %q", err, c.line, c.msg)
			}
		})
	}
}
