package filterrowkind

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

var input = row.MustSchema("fake",
	row.Field{Name: "id", Type: row.BigInt},
	row.Field{Name: "name", Type: row.String},
)

func newTransform(t *testing.T, body string) (connectors.Transform, error) {
	t.Helper()
	return transformtest.New(t, Factory, body, input)
}

// batch has one row per kind given, with id = position.
func batch(t *testing.T, kinds ...row.Kind) *row.Batch {
	t.Helper()
	b := row.NewBuilder(input, len(kinds))
	for i, k := range kinds {
		var name any = k.String()
		if i%2 == 1 {
			name = nil
		}
		if err := b.AppendRow(k, []any{int64(i), name}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func rows(b *row.Batch) [][]any { return transformtest.Rows(b) }

func TestFilterRowKind(t *testing.T) {
	cdc := []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete, row.Insert}
	cases := []struct {
		name, body string
		kinds      []row.Kind
		want       [][]any
		same       bool // the input batch itself comes out
	}{
		{"exclude insert", `exclude_kinds = ["INSERT"]`, cdc,
			[][]any{{"-U", int64(1), nil}, {"+U", int64(2), "UPDATE_AFTER"}, {"-D", int64(3), nil}}, false},
		{"include updates", `include_kinds = [UPDATE_BEFORE, update_after]`, cdc,
			[][]any{{"-U", int64(1), nil}, {"+U", int64(2), "UPDATE_AFTER"}}, false},
		{"short forms", `include_kinds = ["+I", "-D"]`, cdc,
			[][]any{{"+I", int64(0), "INSERT"}, {"-D", int64(3), nil}, {"+I", int64(4), "INSERT"}}, false},
		{"all kept", `exclude_kinds = [DELETE]`, []row.Kind{row.Insert, row.UpdateAfter},
			[][]any{{"+I", int64(0), "INSERT"}, {"+U", int64(1), nil}}, true},
		{"none kept", `include_kinds = [DELETE]`, []row.Kind{row.Insert, row.UpdateAfter}, nil, false},
		{"inserts only, kept", `include_kinds = [INSERT]`, []row.Kind{row.Insert, row.Insert},
			[][]any{{"+I", int64(0), "INSERT"}, {"+I", int64(1), nil}}, true},
		{"inserts only, dropped", `exclude_kinds = [INSERT]`, []row.Kind{row.Insert, row.Insert}, nil, false},
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
			in := batch(t, c.kinds...)
			out, err := tr.Process(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(out); !reflect.DeepEqual(got, c.want) {
				t.Errorf("rows %v\nwant %v", got, c.want)
			}
			if (out == in) != c.same {
				t.Errorf("output is input: %v, want %v", out == in, c.same)
			}
			if c.want == nil && out != nil {
				t.Error("an empty result must be nil")
			}
		})
	}
}

func TestFilterRowKindErrors(t *testing.T) {
	cases := []struct{ name, body, at, msg string }{
		{"both", "include_kinds = [INSERT]\nexclude_kinds = [DELETE]", "t.conf:2:17", "mutually exclusive"},
		{"neither", "plugin_output = x", "t.conf:1:1", "set one of include_kinds or exclude_kinds"},
		{"empty", "include_kinds = []", "t.conf:1:17", "set one of include_kinds or exclude_kinds"},
		{"unknown kind", "exclude_kinds = [INSERT,\n  UPSERT]", "t.conf:2:3", `unknown row kind "UPSERT"`},
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
