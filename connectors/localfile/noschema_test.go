package localfile

import (
	"path/filepath"
	"testing"

	"github.com/stactor/stactor/row"
)

// TestNoSchemaContent: json, xml and excel files read without a schema
// are SeaTunnel's simple text table, default.default.default of one
// string field content, read as if it were the schema
// (BaseFileSourceConfig.parseCatalogTable): a json line's "content" key
// (null without it; an object as its JSON text), an xml row's content
// element (a row without one is no row), an excel row's first cell.
func TestNoSchemaContent(t *testing.T) {
	check := func(t *testing.T, src *source) {
		t.Helper()
		tables := src.Tables()
		if len(tables) != 1 || tables[0].TableID != defaultTable || len(tables[0].Fields) != 1 ||
			tables[0].Fields[0].Name != "content" || tables[0].Fields[0].Type.ID != row.TypeString {
			t.Fatalf("tables: %v", tables)
		}
	}
	t.Run("json", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "a.json")
		writeFile(t, path, "{\"content\":\"a\",\"x\":1}\n{\"x\":2}\n{\"content\":{\"k\":1}}\n")
		src := newTestSource(t, "path = "+q(path)+"\nfile_format_type = json")
		check(t, src)
		compareRows(t, []string{"content"}, readAll(t, src, 1), [][]any{{"a"}, {nil}, {`{"k":1}`}})
		// Each line is still a JSON object.
		writeFile(t, path, "{\"content\":\"a\"}\nnot json\n")
		if _, err := readAllErr(t, newTestSource(t, "path = "+q(path)+"\nfile_format_type = json"), 1); err == nil {
			t.Fatal("a line that is not JSON was read")
		}
	})
	t.Run("xml", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "a.xml")
		writeFile(t, path, `<?xml version="1.0"?><rows><row><content>a</content><x>1</x></row><row><x>2</x></row><row><content>b</content></row></rows>`)
		src := newTestSource(t, "path = "+q(path)+"\nfile_format_type = xml\nxml_row_tag = row\nxml_use_attr_format = false")
		check(t, src)
		compareRows(t, []string{"content"}, readAll(t, src, 1), [][]any{{"a"}, {"b"}})
	})
	t.Run("excel", func(t *testing.T) {
		dir := t.TempDir()
		s := row.MustSchema("t", row.Field{Name: "name", Type: row.String, Nullable: true}, row.Field{Name: "n", Type: row.Int, Nullable: true})
		k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = excel", s)
		writeAndCommit(t, k, task(0, 0), 1, batchOf(t, s, []any{"a", int64(1)}, []any{"b", int64(2)}))
		src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = excel\nskip_header_row_number = 1")
		check(t, src)
		compareRows(t, []string{"content"}, readAll(t, src, 1), [][]any{{"a"}, {"b"}})
	})
}
