package jsonpath

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/transformtest"
	"github.com/stactor/stactor/row"
)

var input = func() *row.Schema {
	s := row.MustSchema("fake",
		row.Field{Name: "id", Type: row.BigInt},
		row.Field{Name: "data", Type: row.String, Nullable: true},
		row.Field{Name: "bin", Type: row.Bytes, Nullable: true},
		row.Field{Name: "arr", Type: row.ArrayOf(row.Double), Nullable: true},
		row.Field{Name: "m", Type: row.MapOf(row.String, row.DecimalOf(10, 2)), Nullable: true},
		row.Field{Name: "col", Type: row.RowOf(row.Field{Name: "name", Type: row.String}, row.Field{Name: "age", Type: row.Int}), Nullable: true},
	)
	s.PrimaryKey = []string{"id"}
	return s
}()

// The document of SeaTunnel's jsonpath.md example.
const docJSON = `{
  "data": {
    "c_string": "this is a string",
    "c_boolean": true,
    "c_integer": 42,
    "c_float": 3.14,
    "c_double": 3.14,
    "c_decimal": 10.55,
    "c_date": "2023-10-29",
    "c_datetime": "16:12:43.459",
    "c_array": ["item1", "item2", "item3"],
    "c_map_array": [{"c_string_1":"c_string_1","c_string_2":"c_string_2"},{"c_string_1":"x","c_string_2":"y"}]
  }
}`

func newTransform(t *testing.T, body string) (connectors.Transform, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "t.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg, _, err := config.Validate("t.conf", "transform JsonPath", "JsonPath", root.Pos, root, Factory.Options, config.CommonPluginOptions)
	if err != nil {
		return nil, err
	}
	return Factory.Create(cfg, input)
}

func mustTransform(t *testing.T, body string) connectors.Transform {
	t.Helper()
	tr, err := newTransform(t, body)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// batch makes rows of (data) with the other fields set to fixed values;
// row i has kind i%4.
func batch(t *testing.T, data ...any) *row.Batch {
	t.Helper()
	b := row.NewBuilder(input, len(data))
	for i, d := range data {
		vals := []any{int64(i), d, []byte(`{"b": [1, 2]}`), []any{1.5, 2.0}, map[string]any{"k": "1.50"}, []any{"a", int64(18)}}
		if err := b.AppendRow(row.Kind(i%4), vals); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// texts renders the output columns after the input's six, as SeaTunnel
// prints values (row.Text).
func texts(b *row.Batch, from int) [][]string {
	var out [][]string
	for i := 0; i < b.Len(); i++ {
		var r []string
		for j := from; j < len(b.Cols); j++ {
			r = append(r, row.Text(b.Schema.Fields[j].Type, b.Value(i, j)))
		}
		out = append(out, r)
	}
	return out
}

func TestDocumentExample(t *testing.T) {
	tr := mustTransform(t, `
columns = [
  { "src_field" = "data", "path" = "$.data.c_string", "dest_field" = "c1_string" },
  { src_field = data, path = "$.data.c_boolean", dest_field = c1_boolean, dest_type = boolean },
  { src_field = data, path = "$.data.c_integer", dest_field = c1_integer, dest_type = int },
  { src_field = data, path = "$.data.c_float", dest_field = c1_float, dest_type = float },
  { src_field = data, path = "$.data.c_double", dest_field = c1_double, dest_type = double },
  { src_field = data, path = "$.data.c_decimal", dest_field = c1_decimal, dest_type = "decimal(4,2)" },
  { src_field = data, path = "$.data.c_date", dest_field = c1_date, dest_type = date },
  { src_field = data, path = "$.data.c_datetime", dest_field = c1_datetime, dest_type = time },
  { src_field = data, path = "$.data.c_array", dest_field = c1_array, dest_type = "array<string>" },
  { src_field = data, path = "$.data.c_map_array", dest_field = c1_map_array, dest_type = "array<map<string, string>>" }
]`)
	s := tr.OutputSchema()
	wantTypes := []string{"string", "boolean", "int", "float", "double", "decimal(4, 2)", "date", "time", "array<string>", "array<map<string, string>>"}
	var gotTypes []string
	for _, f := range s.Fields[6:] {
		gotTypes = append(gotTypes, f.Type.String())
		if !f.Nullable {
			t.Errorf("%s is not nullable", f.Name)
		}
	}
	if !reflect.DeepEqual(gotTypes, wantTypes) || s.Fields[6].Name != "c1_string" || s.Fields[15].Name != "c1_map_array" || !reflect.DeepEqual(s.PrimaryKey, []string{"id"}) {
		t.Fatalf("schema %v", s)
	}
	in := batch(t, docJSON, nil)
	out, err := tr.Process(in)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"this is a string", "true", "42", "3.14", "3.14", "10.55", "2023-10-29", "16:12:43.459", "[item1, item2, item3]",
			"[{c_string_1=c_string_1, c_string_2=c_string_2}, {c_string_1=x, c_string_2=y}]"},
		{"null", "null", "null", "null", "null", "null", "null", "null", "null", "null"},
	}
	if got := texts(out, 6); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for j := 0; j < 6; j++ {
		if out.Cols[j] != in.Cols[j] {
			t.Errorf("input column %d copied", j)
		}
	}
	if out.Kind(1) != row.UpdateBefore {
		t.Error("kinds lost")
	}
}

func TestSources(t *testing.T) {
	cases := []struct {
		name, columns string
		data          any
		want          []string
	}{
		{"row fields by index", `
  { src_field = col, path = "$[0]", dest_field = name, dest_type = string },
  { src_field = col, path = "$[1]", dest_field = age, dest_type = int }`, "{}", []string{"a", "18"}},
		{"row as JSON", `{ src_field = col, path = "$", dest_field = j }`, "{}", []string{`["a",18]`}},
		{"array", `{ src_field = arr, path = "$[1]", dest_field = x, dest_type = double },
  { src_field = arr, path = "$", dest_field = y }`, "{}", []string{"2.0", "[1.5,2.0]"}},
		{"map", `{ src_field = m, path = "$.k", dest_field = x, dest_type = "decimal(10, 3)" },
  { src_field = m, path = "$", dest_field = y }`, "{}", []string{"1.500", `{"k":1.5}`}}, // 1.50 goes through Jackson text and back as a double
		{"bytes", `{ src_field = bin, path = "$.b[-1]", dest_field = x, dest_type = bigint }`, "{}", []string{"2"}},
		{"strings from other JSON", `
  { src_field = data, path = "$.n", dest_field = a },
  { src_field = data, path = "$.f", dest_field = b },
  { src_field = data, path = "$.t", dest_field = c },
  { src_field = data, path = "$.o", dest_field = d },
  { src_field = data, path = "$.o.x[*]", dest_field = e },
  { src_field = data, path = "$.big", dest_field = f },
  { src_field = data, path = "$.z", dest_field = g },
  { src_field = data, path = "$.e", dest_field = h }`,
			`{"n": 42, "f": 1e20, "t": true, "o": {"x": [1, "two", null], "y": "é\n"}, "big": 123456789012345678901, "z": null, "e": ""}`,
			[]string{"42", "1.0E20", "true", `{"x":[1,"two",null],"y":"é\n"}`, `[1,"two",null]`, "123456789012345678901", "null", ""}},
		{"numbers", `
  { src_field = data, path = "$.d", dest_field = a, dest_type = int },
  { src_field = data, path = "$.s", dest_field = b, dest_type = bigint },
  { src_field = data, path = "$.i", dest_field = c, dest_type = double },
  { src_field = data, path = "$.s", dest_field = d, dest_type = tinyint },
  { src_field = data, path = "$.d", dest_field = e, dest_type = float },
  { src_field = data, path = "$.t", dest_field = f, dest_type = boolean },
  { src_field = data, path = "$.i", dest_field = g, dest_type = boolean },
  { src_field = data, path = "$.i", dest_field = h, dest_type = "decimal(5, 1)" }`,
			`{"d": -3.7, "s": " 42 ", "i": 7, "t": "TRUE"}`,
			[]string{"-3", "42", "7.0", "42", "-3.7", "true", "false", "7.0"}},
		{"dates and times", `
  { src_field = data, path = "$.e", dest_field = a, dest_type = date },
  { src_field = data, path = "$.ts", dest_field = b, dest_type = timestamp },
  { src_field = data, path = "$.t", dest_field = c, dest_type = time },
  { src_field = data, path = "$.d", dest_field = d, dest_type = date },
  { src_field = data, path = "$.tz", dest_field = e, dest_type = timestamp_tz }`,
			`{"e": "", "ts": "2024-01-31 12:30:15", "t": "07:05:00.5", "d": 20240131, "tz": "2024-01-31T12:30:15+05:45"}`,
			[]string{"null", "2024-01-31T12:30:15", "07:05:00.500", "2024-01-31", "2024-01-31T12:30:15+05:45"}},
		{"containers", `
  { src_field = data, path = "$.o", dest_field = a, dest_type = "map<string, int>" },
  { src_field = data, path = "$.o", dest_field = b, dest_type = "row<x int, y string>" },
  { src_field = data, path = "$.a", dest_field = c, dest_type = "row<x int, y string>" },
  { src_field = data, path = "$.o", dest_field = d, dest_type = "array<int>" },
  { src_field = data, path = "$.a[0]", dest_field = e, dest_type = "array<int>" },
  { src_field = data, path = "$.b", dest_field = f, dest_type = bytes },
  { src_field = data, path = "$.a[0]", dest_field = g, dest_type = bytes },
  { src_field = data, path = "$.o.y", dest_field = h, dest_type = "null" }`,
			`{"o": {"x": 1, "y": "2"}, "a": [3, "z"], "b": "aGk="}`,
			[]string{"{x=1, y=2}", "[1, 2]", "[3, z]", "[null, null]", "[]", "hi", "null", "null"}},
		{"list form", `{ src_field = data, path = ["$.a", "$.b"], dest_field = [x, y], dest_type = [int, string] }`,
			`{"a": "5", "b": 6}`, []string{"5", "6"}},
		{"explicit null", `{ src_field = data, path = "$.a", dest_field = x, dest_type = int }`, `{"a": null}`, []string{"null"}},
		{"null source", `{ src_field = data, path = "$.a", dest_field = x, dest_type = int }`, nil, []string{"null"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := mustTransform(t, "columns = ["+c.columns+"\n]")
			out, err := tr.Process(batch(t, c.data))
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(out, 6); !reflect.DeepEqual(got, [][]string{c.want}) {
				t.Errorf("got  %q\nwant %q", got[0], c.want)
			}
			packed, err := tr.Process(transformtest.Packed(t, batch(t, c.data)))
			if err != nil || !reflect.DeepEqual(texts(packed, 6), texts(out, 6)) {
				t.Errorf("over packed strings: %v, %q", err, texts(packed, 6))
			}
		})
	}
}

func TestDestReplacesField(t *testing.T) {
	tr := mustTransform(t, `columns = [
  { src_field = data, path = "$.a", dest_field = id, dest_type = string },
  { src_field = data, path = "$.b", dest_field = data, dest_type = int },
  { src_field = data, path = "$.a", dest_field = x },
  { src_field = data, path = "$.b", dest_field = x, dest_type = bigint }
]`)
	s := tr.OutputSchema()
	if got := s.String(); got != "fake(id string, data int, bin bytes, arr array<double>, m map<string, decimal(10, 2)>, col row<name string, age int>, x bigint)" {
		t.Fatalf("schema %s", got)
	}
	if s.Fields[0].Nullable || !s.Fields[1].Nullable {
		t.Error("a replaced field keeps its nullability")
	}
	out, err := tr.Process(batch(t, `{"a": "A", "b": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Row(0); got[0] != "A" || got[1] != int64(2) || got[6] != int64(2) {
		t.Errorf("row %v", got)
	}
}

func TestErrorHandling(t *testing.T) {
	data := []any{`{"a": 1, "b": "x"}`, `{invalid`, `{"b": "y"}`, `{"a": "abc", "b": "z"}`, `{"a": 5, "b": "w"}`}
	const a = `{ src_field = data, path = "$.a", dest_field = a, dest_type = int %s }`
	const b = `{ src_field = data, path = "$.b", dest_field = b }`
	cases := []struct {
		name, body string
		rows       [][]string // nil: an error
		kinds      []row.Kind
		err        string
	}{
		{"fail by default", "columns = [" + a + ", " + b + "]", nil, nil, "row 1, column a"},
		{"row skip", "row_error_handle_way = SKIP\ncolumns = [" + a + ", " + b + "]",
			[][]string{{"1", "x"}, {"5", "w"}}, []row.Kind{row.Insert, row.Insert}, ""},
		{"column skip", "columns = [" + strings.Replace(a, "%s", `, column_error_handle_way = SKIP`, 1) + ", " + b + "]",
			nil, nil, "row 1, column b"},
		{"column skip, row skip", "row_error_handle_way = skip\ncolumns = [" + strings.Replace(a, "%s", `, column_error_handle_way = SKIP`, 1) + ", " + b + "]",
			[][]string{{"1", "x"}, {"null", "y"}, {"null", "z"}, {"5", "w"}}, []row.Kind{row.Insert, row.UpdateAfter, row.Delete, row.Insert}, ""},
		{"column skip_row", "columns = [" + strings.Replace(a, "%s", `, column_error_handle_way = SKIP_ROW`, 1) + ", " + b + "]",
			[][]string{{"1", "x"}, {"5", "w"}}, []row.Kind{row.Insert, row.Insert}, ""},
		{"column skip_row, column fail", "columns = [" + strings.Replace(b, "}", `, column_error_handle_way = SKIP_ROW }`, 1) + ", " +
			strings.Replace(a, "%s", "", 1) + "]", nil, nil, "row 2, column a (path $.a on field data): no results for path $.a"},
		{"column skip_row, column skip", "columns = [" + strings.Replace(a, "%s", `, column_error_handle_way = SKIP_ROW`, 1) + ", " +
			strings.Replace(b, "}", `, column_error_handle_way = SKIP }`, 1) + "]",
			[][]string{{"1", "x"}, {"5", "w"}}, []row.Kind{row.Insert, row.Insert}, ""},
		{"column fail beats row skip", "row_error_handle_way = SKIP\ncolumns = [" + strings.Replace(a, "%s", `, column_error_handle_way = FAIL`, 1) + ", " + b + "]",
			nil, nil, "row 1, column a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := mustTransform(t, strings.ReplaceAll(c.body, "%s", ""))
			in := batch(t, data...)
			out, err := tr.Process(in)
			if c.rows == nil {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(out, 6); !reflect.DeepEqual(got, c.rows) {
				t.Errorf("got  %q\nwant %q", got, c.rows)
			}
			var kinds []row.Kind
			for i := 0; i < out.Len(); i++ {
				kinds = append(kinds, out.Kind(i))
				if got := out.Value(i, 1); got != in.Value(int(out.Value(i, 0).(int64)), 1) {
					t.Errorf("row %d: data %v does not match its id", i, got)
				}
			}
			if !reflect.DeepEqual(kinds, c.kinds) {
				t.Errorf("kinds %v, want %v", kinds, c.kinds)
			}
		})
	}
}

func TestAllRowsSkipped(t *testing.T) {
	tr := mustTransform(t, "row_error_handle_way = SKIP\ncolumns = [{ src_field = data, path = \"$.a\", dest_field = a }]")
	out, err := tr.Process(batch(t, "[]", "{}"))
	if out != nil || err != nil {
		t.Fatalf("got %v, %v", out, err)
	}
	if out, err := tr.Process(row.NewBatch(input, nil, nil)); out != nil || err != nil {
		t.Fatalf("empty batch: %v, %v", out, err)
	}
}

func TestPlanErrors(t *testing.T) {
	col := func(s string) string { return "columns = [{" + s + "}]" }
	cases := []struct{ name, body, at, msg string }{
		{"no columns", "row_error_handle_way = FAIL", "t.conf:1:1", `"columns": missing`},
		{"not a list", "columns = {}", "t.conf:1:11", "expected a list"},
		{"empty", "columns = []", "t.conf:1:11", "lists no column"},
		{"not an object", "columns = [x]", "t.conf:1:12", "column 1: expected {"},
		{"no src", col(`path = "$.a", dest_field = x`), "t.conf:1:12", "src_field must name a field"},
		{"unknown src", col(`src_field = nope, path = "$.a", dest_field = x`), "t.conf:1:25", `field "nope" is not in table fake`},
		{"int src", col(`src_field = id, path = "$.a", dest_field = x`), "t.conf:1:25", "JsonPath reads string, bytes"},
		{"no path", col(`src_field = data, dest_field = x`), "t.conf:1:12", "path must be a JSONPath"},
		{"bad path", col(`src_field = data, path = "$.a[", dest_field = x`), "t.conf:1:38", "bad path at character 5: unterminated '['"},
		{"no dest", col(`src_field = data, path = "$.a"`), "t.conf:1:12", "dest_field must be a field name"},
		{"blank dest", col(`src_field = data, path = "$.a", dest_field = " "`), "t.conf:1:58", "dest_field must name a field"},
		{"bad type", col(`src_field = data, path = "$.a", dest_field = x, dest_type = integr`), "t.conf:1:73", `unknown type name "integr"`},
		{"lengths", col(`src_field = data, path = ["$.a", "$.b"], dest_field = x`), "t.conf:1:12", "as many entries (2, 1, 1)"},
		{"object path", col(`src_field = data, path { a = b }, dest_field = x`), "t.conf:1:36", "path must be a JSONPath"},
		{"bad column way", col(`src_field = data, path = "$.a", dest_field = x, column_error_handle_way = IGNORE`), "t.conf:1:87", "must be FAIL, SKIP or SKIP_ROW"},
		{"bad row way", "row_error_handle_way = SKIP_ROW\n" + col(`src_field = data, path = "$.a", dest_field = x`), "t.conf:1:24", "expected one of FAIL, SKIP"},
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
