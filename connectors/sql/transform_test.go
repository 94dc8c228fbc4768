package sql

import (
	"errors"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors/transformtest"
	"github.com/stactor/stactor/row"
)

func people() *row.Schema {
	return row.MustSchema("fake",
		row.Field{Name: "id", Type: row.Int},
		row.Field{Name: "name", Type: row.String},
		row.Field{Name: "age", Type: row.Int},
	)
}

// TestFactory runs the transform as the planner does: options checked,
// errors placed at the query option with the position inside it.
func TestFactory(t *testing.T) {
	tr, err := transformtest.New(t, Factory, `plugin_input = "fake"
plugin_output = "fake1"
query = "select id, concat(name, '_') as name, age+1 as age from fake where id>0"`, people())
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.OutputSchema().String(); got != "fake(id int, name string, age int)" {
		t.Errorf("schema %s", got)
	}
	b := row.NewBuilder(people(), 2)
	for _, r := range [][]any{{int64(0), "a", int64(1)}, {int64(1), "b", int64(2)}} {
		if err := b.AppendRow(row.Insert, r); err != nil {
			t.Fatal(err)
		}
	}
	out, err := tr.Process(b.Build())
	if err != nil {
		t.Fatal(err)
	}
	if got := transformtest.Rows(out); len(got) != 1 || got[0][2] != "b_" || got[0][3] != int64(3) {
		t.Errorf("rows %v", got)
	}

	_, err = transformtest.New(t, Factory, `query = "select agee from fake"`, people())
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%T: %v", err, err)
	}
	want := `t.conf:1:9: transform Sql: option "query": unknown column "agee" at 1:8 of query (columns: id, name, age)`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	if _, err := transformtest.New(t, Factory, `plugin_input = "fake"`, people()); err == nil || !strings.Contains(err.Error(), `"query": missing`) {
		t.Errorf("missing query: %v", err)
	}
	// The FROM table is the input: its table id, a plugin_input name or
	// dual, in any case; another name is an error naming it.
	for _, tc := range []struct{ body, err string }{
		{`query = "select id from fake"`, ""},
		{`query = "select id from FAKE"`, ""},
		{`query = "select id from dual"`, ""},
		{`query = "select id from DUAL"`, ""},
		{`plugin_input = "src", query = "select id from src"`, ""},
		{`plugin_input = ["a", "b"], query = "select id from ` + "`b`" + `"`, ""},
		{`plugin_input = "a, b", query = "select id from b"`, ""},
		{`query = "SELECT * FROM nope"`, `t.conf:1:9: transform Sql: option "query": table "nope" not found at 1:15 of query (the input table is fake, a name in plugin_input or dual)`},
		{`plugin_input = "src", query = "select id from other"`, `table "other" not found at 1:16 of query (the input table is fake, src or dual)`},
	} {
		_, err := transformtest.New(t, Factory, tc.body, people())
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.body, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.err)
		}
	}
}
