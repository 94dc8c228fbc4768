package localfile

import (
	"path/filepath"
	"testing"
)

// TestEmptyFolder: a folder with nothing to read reads zero rows of the
// table SeaTunnel's BaseFileSourceConfig returns before any format looks
// at a file — the simple text table without a schema, a table of no
// columns for a schema that declares none, the declared one otherwise —
// for every format, parquet and orc too (no file to take a schema from).
func TestEmptyFolder(t *testing.T) {
	for _, tc := range []struct{ body, schema string }{
		{"file_format_type = parquet", "default.default.default(content string)"},
		{"file_format_type = orc", "default.default.default(content string)"},
		{"file_format_type = json", "default.default.default(content string)"},
		{"file_format_type = excel", "default.default.default(content string)"},
		{"file_format_type = json\nschema {\n\n}", "default.default.default()"},
		{"file_format_type = csv\nschema {}\nplugin_output = t", "t()"},
		{"file_format_type = parquet\nschema { table = db.t }", "db.t()"},
		{"file_format_type = orc\nschema { fields { a = int } }", "default.default.default(a int)"},
		{"file_format_type = parquet\nschema { fields { a = int } }", "default.default.default(a int)"},
	} {
		src := newTestSource(t, "path = "+q(t.TempDir())+"\n"+tc.body)
		if got := src.cfg.schema.String(); got != tc.schema {
			t.Errorf("%s: schema %s, want %s", tc.body, got, tc.schema)
		}
		if rows := readAll(t, src, 2); len(rows) != 0 {
			t.Errorf("%s: %d rows from an empty folder", tc.body, len(rows))
		}
	}
	// A schema that is not an object is still a mistake.
	_, err := createSourceErr(t, "path = "+q(t.TempDir())+"\nfile_format_type = json\nschema = x")
	wantConfigError(t, err, "schema", "expected an object")
}

// TestSchemaWithoutFields: with files, schema {} is a table of no columns
// and each record a row of no fields (SeaTunnel's ReadonlyConfigParser
// does not validate it); excel refuses it, as SeaTunnel's reader does.
func TestSchemaWithoutFields(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), "{\"a\":1}\n{\"a\":2}\n{}\n")
	src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = json\nschema {}")
	if got := src.cfg.schema.String(); got != "default.default.default()" {
		t.Fatalf("schema %s", got)
	}
	rows := readAll(t, src, 1)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for _, r := range rows {
		if len(r) != 0 {
			t.Fatalf("row %v has fields", r)
		}
	}
	x := t.TempDir()
	writeFile(t, filepath.Join(x, "a.xlsx"), "x")
	_, err := createSourceErr(t, "path = "+q(x)+"\nfile_format_type = excel\nschema {}")
	wantConfigError(t, err, "schema", "has no fields")
}
