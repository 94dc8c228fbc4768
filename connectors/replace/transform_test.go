package replace

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

var input = row.MustSchema("fake",
	row.Field{Name: "id", Type: row.BigInt},
	row.Field{Name: "name", Type: row.String},
)

func newTransform(t *testing.T, body string) (connectors.Transform, error) {
	t.Helper()
	return transformtest.New(t, Factory, body, input)
}

func batch(t *testing.T, names ...any) *row.Batch {
	t.Helper()
	b := row.NewBuilder(input, len(names))
	for i, n := range names {
		if err := b.AppendRow(row.Kind(i%4), []any{int64(i), n}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func TestReplace(t *testing.T) {
	in := []any{"Joy Ding", nil, "a.b.c", "aaa", "2024-01-31", "", "x-y"}
	cases := []struct {
		name, body string
		want       []any
	}{
		{"literal", `replace_field = name, pattern = " ", replacement = "_"`,
			[]any{"Joy_Ding", nil, "a.b.c", "aaa", "2024-01-31", "", "x-y"}},
		{"literal dot is not a regex", `replace_field = name, pattern = ".", replacement = "-"`,
			[]any{"Joy Ding", nil, "a-b-c", "aaa", "2024-01-31", "", "x-y"}},
		{"literal ignores replace_first", `replace_field = name, pattern = "a", replacement = "b", replace_first = true`,
			[]any{"Joy Ding", nil, "b.b.c", "bbb", "2024-01-31", "", "x-y"}},
		{"literal $ is literal", `replace_field = name, pattern = "-", replacement = "$1"`,
			[]any{"Joy Ding", nil, "a.b.c", "aaa", "2024$101$131", "", "x$1y"}},
		{"regex all", `replace_field = name, pattern = ".+", replacement = "b", is_regex = true`,
			[]any{"b", nil, "b", "b", "b", "", "b"}},
		{"regex first", `replace_field = name, pattern = "a", replacement = "X", is_regex = true, replace_first = true`,
			[]any{"Joy Ding", nil, "X.b.c", "Xaa", "2024-01-31", "", "x-y"}},
		{"groups", `replace_field = name, pattern = "(\\d+)-(\\d+)-(\\d+)", replacement = "$3/$2/$1", is_regex = true`,
			[]any{"Joy Ding", nil, "a.b.c", "aaa", "31/01/2024", "", "x-y"}},
		{"named group and escapes", `replace_field = name, pattern = "(?P<first>\\w)-(\\w)", replacement = "${first}\\$$2\\\\", is_regex = true`,
			[]any{"Joy Ding", nil, "a.b.c", "aaa", "2024$0\\1$3\\1", "", "x$y\\"}},
		{"$12 is $1 then 2 with one group", `replace_field = name, pattern = "(a)", replacement = "$12", is_regex = true`,
			[]any{"Joy Ding", nil, "a2.b.c", "a2a2a2", "2024-01-31", "", "x-y"}},
		{"empty matches", `replace_field = name, pattern = "x*", replacement = "-", is_regex = true`,
			[]any{"-J-o-y- -D-i-n-g-", nil, "-a-.-b-.-c-", "-a-a-a-", "-2-0-2-4---0-1---3-1-", "-", "---y-"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := newTransform(t, c.body)
			if err != nil {
				t.Fatal(err)
			}
			if tr.OutputSchema() != input {
				t.Error("schema changed")
			}
			b := batch(t, in...)
			out, err := tr.Process(b)
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			for i := 0; i < out.Len(); i++ {
				got = append(got, out.Value(i, 1))
				if out.Kind(i) != b.Kind(i) || out.Value(i, 0) != b.Value(i, 0) {
					t.Errorf("row %d: kind or id changed", i)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			packed, err := tr.Process(transformtest.Packed(t, b))
			if err != nil || !reflect.DeepEqual(transformtest.Rows(packed), transformtest.Rows(out)) {
				t.Errorf("over packed strings: %v, %q", err, transformtest.Rows(packed))
			}
			if out.Cols[0] != b.Cols[0] {
				t.Error("untouched column was copied")
			}
			if b.Value(0, 1) != "Joy Ding" {
				t.Error("input batch modified")
			}
		})
	}
}

func TestReplaceEmptyBatch(t *testing.T) {
	tr, err := newTransform(t, `replace_field = name, pattern = a, replacement = b`)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tr.Process(row.NewBatch(input, nil, nil)); out != nil || err != nil {
		t.Fatalf("got %v, %v", out, err)
	}
}

func TestReplaceErrors(t *testing.T) {
	const base = "replace_field = name\n"
	cases := []struct{ name, body, at, msg string }{
		{"missing pattern", "replace_field = name\nreplacement = b", "t.conf:1:1", `"pattern": missing`},
		{"unknown field", "replace_field = nope\npattern = a\nreplacement = b", "t.conf:1:17", `field "nope" is not in table fake`},
		{"not a string field", "replace_field = id\npattern = a\nreplacement = b", "t.conf:1:17", "is bigint; Replace works on string fields only"},
		{"bad regex", base + "pattern = \"a(\"\nreplacement = b\nis_regex = true", "t.conf:2:11", "not a regular expression"},
		{"lookahead", base + "pattern = \"a(?=b)\"\nreplacement = b\nis_regex = true", "t.conf:2:11", "not a regular expression"},
		{"bad regex ignored when literal", base + "pattern = \"a(\"\nreplacement = b", "", ""},
		{"trailing backslash", base + "pattern = a\nreplacement = \"x\\\\\"\nis_regex = true", "t.conf:3:15", "character to be escaped is missing"},
		{"trailing dollar", base + "pattern = a\nreplacement = \"x$\"\nis_regex = true", "t.conf:3:15", "group index is missing"},
		{"no such group", base + "pattern = \"(a)\"\nreplacement = \"$2\"\nis_regex = true", "t.conf:3:15", "no group 2"},
		{"bad reference", base + "pattern = a\nreplacement = \"$x\"\nis_regex = true", "t.conf:3:15", "illegal group reference"},
		{"no such name", base + "pattern = a\nreplacement = \"${n}\"\nis_regex = true", "t.conf:3:15", "no group with name {n}"},
		{"empty name", base + "pattern = a\nreplacement = \"${}\"\nis_regex = true", "t.conf:3:15", "0 length name"},
		{"unclosed name", base + "pattern = a\nreplacement = \"${n\"\nis_regex = true", "t.conf:3:15", "missing trailing '}'"},
		{"both keys", "replace_field = name\nreplace_fields = [name]\npattern = a\nreplacement = b", "t.conf:1:17", "set either replace_field or replace_fields, not both"},
		{"empty list", "replace_fields = []\npattern = a\nreplacement = b", "t.conf:1:18", `"replace_fields": must name at least one field`},
		{"unknown field in list", "replace_fields = [name, nope]\npattern = a\nreplacement = b", "t.conf:1:18", `field "nope" is not in table fake`},
		{"digit name", base + "pattern = a\nreplacement = \"${1n}\"\nis_regex = true", "t.conf:3:15", "starts with digit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newTransform(t, c.body)
			if c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
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

// TestReplaceFields: replace_fields replaces each listed field (a field
// listed twice twice, as SeaTunnel's transformRow does) and shares the rest.
func TestReplaceFields(t *testing.T) {
	in := row.MustSchema("t",
		row.Field{Name: "name", Type: row.String},
		row.Field{Name: "title", Type: row.String},
		row.Field{Name: "card", Type: row.Int},
	)
	root, err := hocon.Parse([]byte(`replace_fields = [name, title, title], pattern = "a", replacement = "aa"`), hocon.Options{File: "t.conf"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Validate("t.conf", "transform Replace", "Replace", root.Pos, root, Factory.Options)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Factory.Create(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	bl := row.NewBuilder(in, 2)
	for _, r := range [][]any{{"Ada", "a", int32(1)}, {nil, "ba", int32(2)}} {
		if err := bl.AppendRow(row.Insert, r); err != nil {
			t.Fatal(err)
		}
	}
	b := bl.Build()
	out, err := tr.Process(b)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{"Adaa", "aaaa", int64(1)}, {nil, "baaaa", int64(2)}}
	for i := range want {
		if got := out.Row(i); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("row %d = %v, want %v", i, got, want[i])
		}
	}
	if out.Cols[2] != b.Cols[2] {
		t.Error("untouched column was copied")
	}
}
