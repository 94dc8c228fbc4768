package rowkindextractor

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
		row.Field{Name: "pk_id", Type: row.BigInt},
		row.Field{Name: "name", Type: row.String, Nullable: true},
		row.Field{Name: "score", Type: row.Int},
	)
	s.PrimaryKey = []string{"pk_id"}
	return s
}()

func newTransform(t *testing.T, body string) (connectors.Transform, error) {
	t.Helper()
	return transformtest.New(t, Factory, body, input)
}

// The rows of the documentation's example.
func cdc(t *testing.T) *row.Batch {
	t.Helper()
	b := row.NewBuilder(input, 10)
	for _, r := range []struct {
		k row.Kind
		v []any
	}{
		{row.Insert, []any{int64(1), "A", int64(100)}},
		{row.Insert, []any{int64(3), nil, int64(100)}},
		{row.UpdateBefore, []any{int64(1), "A", int64(100)}},
		{row.UpdateAfter, []any{int64(1), "F", int64(100)}},
		{row.Delete, []any{int64(3), "C", int64(100)}},
	} {
		if err := b.AppendRow(r.k, r.v); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func rows(b *row.Batch) [][]any { return transformtest.Rows(b) }

func TestRowKindExtractor(t *testing.T) {
	cases := []struct {
		name, body, field string
		rows              [][]any
	}{
		{"defaults", ``, "row_kind", [][]any{
			{"+I", int64(1), "A", int64(100), "+I"},
			{"+I", int64(3), nil, int64(100), "+I"},
			{"+I", int64(1), "A", int64(100), "-U"},
			{"+I", int64(1), "F", int64(100), "+U"},
			{"+I", int64(3), "C", int64(100), "-D"},
		}},
		{"full, custom name", "custom_field_name = \"custom_name\"\ntransform_type = full", "custom_name", [][]any{
			{"+I", int64(1), "A", int64(100), "INSERT"},
			{"+I", int64(3), nil, int64(100), "INSERT"},
			{"+I", int64(1), "A", int64(100), "UPDATE_BEFORE"},
			{"+I", int64(1), "F", int64(100), "UPDATE_AFTER"},
			{"+I", int64(3), "C", int64(100), "DELETE"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := newTransform(t, c.body)
			if err != nil {
				t.Fatal(err)
			}
			s := tr.OutputSchema()
			want := append(append([]row.Field(nil), input.Fields...), row.Field{Name: c.field, Type: row.String, Comment: "Output column of RowKind"})
			if !reflect.DeepEqual(s.Fields, want) || !reflect.DeepEqual(s.PrimaryKey, []string{"pk_id"}) {
				t.Fatalf("schema %+v key %v", s.Fields, s.PrimaryKey)
			}
			in := cdc(t)
			out, err := tr.Process(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(out); !reflect.DeepEqual(got, c.rows) {
				t.Errorf("rows %v\nwant %v", got, c.rows)
			}
			if out.Kinds != nil {
				t.Error("output kinds should be all INSERT (nil)")
			}
			for j := range in.Cols {
				if out.Cols[j] != in.Cols[j] {
					t.Errorf("column %d copied", j)
				}
			}
			if in.Kind(2) != row.UpdateBefore {
				t.Error("input batch modified")
			}
		})
	}
}

func TestRowKindExtractorInsertOnly(t *testing.T) {
	tr, err := newTransform(t, ``)
	if err != nil {
		t.Fatal(err)
	}
	b := row.NewBuilder(input, 2)
	_ = b.AppendRow(row.Insert, []any{int64(1), "A", int64(1)})
	out, err := tr.Process(b.Build())
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(out); !reflect.DeepEqual(got, [][]any{{"+I", int64(1), "A", int64(1), "+I"}}) {
		t.Errorf("rows %v", got)
	}
	if out, err := tr.Process(row.NewBatch(input, nil, nil)); out != nil || err != nil {
		t.Errorf("empty batch: %v, %v", out, err)
	}
}

func TestRowKindExtractorErrors(t *testing.T) {
	cases := []struct{ name, body, at, msg string }{
		{"field exists", "custom_field_name = name", "t.conf:1:21", `field "name" is already in table fake`},
		{"empty name", `custom_field_name = ""`, "t.conf:1:21", "needs a name"},
		{"bad type", "transform_type = MEDIUM", "t.conf:1:18", "expected one of SHORT, FULL"},
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
