package split

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/transformtest"
	"github.com/stactor/stactor/row"
)

var input = func() *row.Schema {
	s := row.MustSchema("fake",
		row.Field{Name: "id", Type: row.BigInt},
		row.Field{Name: "name", Type: row.String, Nullable: true, Comment: "who"},
		row.Field{Name: "price", Type: row.DecimalOf(10, 2)},
		row.Field{Name: "tags", Type: row.ArrayOf(row.String)},
	)
	s.PrimaryKey = []string{"id"}
	return s
}()

func newTransform(t *testing.T, body string) (connectors.Transform, error) {
	t.Helper()
	return transformtest.New(t, Factory, body, input)
}

func batch(t *testing.T, names ...any) *row.Batch {
	t.Helper()
	b := row.NewBuilder(input, len(names))
	for i, n := range names {
		if err := b.AppendRow(row.Kind(i%4), []any{int64(i), n, decimal.RequireFromString("12.50"), []any{}}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func TestJavaSplit(t *testing.T) {
	cases := []struct {
		s, sep string
		limit  int
		want   []string
	}{
		{"Joy Ding", " ", 2, []string{"Joy", "Ding"}},
		{"a b c", " ", 2, []string{"a", "b c"}},
		{"a b c", " ", 5, []string{"a", "b", "c"}},
		{"abc", " ", 3, []string{"abc"}},
		{"", " ", 2, []string{""}},
		{" a ", " ", 3, []string{"", "a", ""}},
		{"a,,", ",", 4, []string{"a", "", ""}},
		{"a1b22c", `\d+`, 3, []string{"a", "b", "c"}},
		{"abc", "", 2, []string{"a", "bc"}},
		{"abc", "", 5, []string{"a", "b", "c", ""}}, // Java keeps trailing empties for limit > 0
		{"a|b", "|", 3, []string{"a", "|", "b"}},    // Java: "|" is an empty alternation
		{"a b", " ", 1, []string{"a b"}},
	}
	for _, c := range cases {
		got := javaSplit(nil, regexp.MustCompile(c.sep), c.s, c.limit)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("split(%q, %q, %d) = %q, want %q", c.s, c.sep, c.limit, got, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	str := func(n string) row.Field { return row.Field{Name: n, Type: row.String, Nullable: true} }
	in := []any{"Joy Ding", nil, "Kin Dom Jr", "Single"}
	cases := []struct {
		name, body string
		fields     []row.Field
		rows       [][]any // the columns after the input's four
		replaced   [][]any // for replacements: the whole rows
	}{
		{"doc example", `separator = " ", split_field = name, output_fields = [first_name, second_name]`,
			append(append([]row.Field(nil), input.Fields...), str("first_name"), str("second_name")),
			[][]any{{"Joy", "Ding"}, {nil, nil}, {"Kin", "Dom Jr"}, {"Single", nil}}, nil},
		{"regex separator, more fields", `separator = "\\s+", split_field = name, output_fields = [a, b, c, d]`,
			append(append([]row.Field(nil), input.Fields...), str("a"), str("b"), str("c"), str("d")),
			[][]any{{"Joy", "Ding", nil, nil}, {nil, nil, nil, nil}, {"Kin", "Dom", "Jr", nil}, {"Single", nil, nil, nil}}, nil},
		{"decimal as Java prints it", `separator = "\\.", split_field = price, output_fields = [units, cents]`,
			append(append([]row.Field(nil), input.Fields...), str("units"), str("cents")),
			[][]any{{"12", "50"}, {"12", "50"}, {"12", "50"}, {"12", "50"}}, nil},
		{"output replaces the split field", `separator = " ", split_field = name, output_fields = [name, last]`,
			[]row.Field{input.Fields[0], input.Fields[1], input.Fields[2], input.Fields[3], str("last")},
			nil, [][]any{
				{int64(0), "Joy", "12.50", []any{}, "Ding"},
				{int64(1), nil, "12.50", []any{}, nil},
				{int64(2), "Kin", "12.50", []any{}, "Dom Jr"},
				{int64(3), "Single", "12.50", []any{}, nil},
			}},
		{"output replaces another field's type", `separator = " ", split_field = name, output_fields = [first, id]`,
			[]row.Field{{Name: "id", Type: row.String}, input.Fields[1], input.Fields[2], input.Fields[3], str("first")},
			nil, [][]any{
				{"Ding", "Joy Ding", "12.50", []any{}, "Joy"},
				{nil, nil, "12.50", []any{}, nil},
				{"Dom Jr", "Kin Dom Jr", "12.50", []any{}, "Kin"},
				{nil, "Single", "12.50", []any{}, "Single"},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := newTransform(t, c.body)
			if err != nil {
				t.Fatal(err)
			}
			s := tr.OutputSchema()
			if !reflect.DeepEqual(s.Fields, c.fields) || !reflect.DeepEqual(s.PrimaryKey, []string{"id"}) {
				t.Fatalf("schema %+v key %v", s.Fields, s.PrimaryKey)
			}
			b := batch(t, in...)
			out, err := tr.Process(b)
			if err != nil {
				t.Fatal(err)
			}
			if packed, err := tr.Process(transformtest.Packed(t, b)); err != nil || !reflect.DeepEqual(transformtest.Rows(packed), transformtest.Rows(out)) {
				t.Errorf("over packed strings: %v, %q", err, transformtest.Rows(packed))
			}
			for i := 0; i < out.Len(); i++ {
				if out.Kind(i) != b.Kind(i) {
					t.Errorf("row %d kind %v", i, out.Kind(i))
				}
				got := out.Row(i)
				if p, ok := got[2].(decimal.Decimal); ok {
					got[2] = p.StringFixed(2)
				}
				want := c.replaced
				if want == nil {
					if !reflect.DeepEqual(got[:4], []any{int64(i), in[i], "12.50", []any{}}) {
						t.Errorf("row %d input part %v", i, got[:4])
					}
					got, want = got[4:], c.rows
				}
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("row %d = %v, want %v", i, got, want[i])
				}
			}
			if out.Cols[3] != b.Cols[3] {
				t.Error("untouched column was copied")
			}
		})
	}
}

func TestSplitEmptyBatch(t *testing.T) {
	tr, err := newTransform(t, `separator = " ", split_field = name, output_fields = [a]`)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tr.Process(row.NewBatch(input, nil, nil)); out != nil || err != nil {
		t.Fatalf("got %v, %v", out, err)
	}
}

func TestSplitErrors(t *testing.T) {
	cases := []struct{ name, body, at, msg string }{
		{"missing separator", "split_field = name\noutput_fields = [a]", "t.conf:1:1", `"separator": missing`},
		{"unknown field", "separator = \" \"\nsplit_field = nope\noutput_fields = [a]", "t.conf:2:15", `field "nope" is not in table fake`},
		{"array field", "separator = \" \"\nsplit_field = tags\noutput_fields = [a]", "t.conf:2:15", "Split works on strings"},
		{"bad regex", "separator = \"(\"\nsplit_field = name\noutput_fields = [a]", "t.conf:1:13", "not a regular expression"},
		{"no outputs", "separator = \" \"\nsplit_field = name\noutput_fields = []", "t.conf:3:17", "names no field"},
		{"empty name", "separator = \" \"\nsplit_field = name\noutput_fields = [a, \"\"]", "t.conf:3:21", "a field needs a name"},
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
