package connectors

import (
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

// tagged is a test transform that remembers the options it was made with.
type tagged struct {
	passThrough
	tag string
}

var tagFactory = TransformFactory{
	Name:    "Tag",
	Options: []config.Option{{Key: "tag", Type: config.TypeString, Required: true}},
	Create: func(cfg *config.PluginConfig, input *row.Schema) (Transform, error) {
		return tagged{passThrough{input}, cfg.String("tag")}, nil
	},
}

func multiTableCreate(t *testing.T, body, table string) (Transform, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "t.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	f := withMultiTable(tagFactory)
	cfg, warns, err := config.Validate("t.conf", "transform Tag", "Tag", root.Pos, root, f.Options, config.CommonPluginOptions)
	if err != nil {
		return nil, err
	}
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	return f.Create(cfg, row.MustSchema(table, row.Field{Name: "id", Type: row.BigInt}))
}

// TestMultiTable follows AbstractMultiCatalogTransform: a table_transform
// entry for the table wins (its options alone), else table_match_regex
// must match the whole table id, else the table passes through.
func TestMultiTable(t *testing.T) {
	const body = `
tag = top
table_match_regex = "test.a.*"
table_transform = [
  { table_path = "test.xyz", tag = xyz }
  { tablePath = "test.old", tag = old }
  { table_path = "test.abc", tag = abc }
]`
	cases := []struct{ body, table, want string }{
		{body, "test.abc", "abc"},     // the entry wins over the regex
		{body, "test.axe", "top"},     // the regex, whole id
		{body, "test.xyz", "xyz"},     // an entry, regex or not
		{body, "test.old", "old"},     // tablePath, as SeaTunnel's older Copy
		{body, "test.www", ""},        // neither: passes through
		{body, "xtest.abc", ""},       // the regex matches the whole id only
		{"tag = top", "any.t", "top"}, // default regex .*
	}
	for _, c := range cases {
		tr, err := multiTableCreate(t, c.body, c.table)
		if err != nil {
			t.Errorf("%s: %v", c.table, err)
			continue
		}
		got := ""
		if tg, ok := tr.(tagged); ok {
			got = tg.tag
		} else if _, ok := tr.(passThrough); !ok {
			t.Errorf("%s: got %T", c.table, tr)
		}
		if got != c.want {
			t.Errorf("%s: tag %q, want %q", c.table, got, c.want)
		}
		if tr.OutputSchema().TableID != c.table {
			t.Errorf("%s: output table %s", c.table, tr.OutputSchema().TableID)
		}
	}
}

func TestMultiTableErrors(t *testing.T) {
	cases := []struct{ body, at, msg string }{
		{`tag = a, table_match_regex = "("`, "t.conf:1:30", `option "table_match_regex": bad regular expression`},
		{"tag = a\ntable_transform = [ { table_path = t } ]", "t.conf:2:21", `transform Tag: table_transform[0]: option "tag": missing`},
		{"tag = a\ntable_transform = [ 5 ]", "t.conf:2:21", `option "table_transform[0]": expected { table_path`},
	}
	for _, c := range cases {
		_, err := multiTableCreate(t, c.body, "t")
		if err == nil || !strings.HasPrefix(err.Error(), c.at) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want at %s containing %q", c.body, err, c.at, c.msg)
		}
	}
}

func TestPassThroughSharesBatch(t *testing.T) {
	s := row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt})
	b := row.NewBatch(s, nil, nil)
	if out, err := PassThrough(s).Process(b); out != b || err != nil {
		t.Fatalf("got %v, %v", out, err)
	}
}
