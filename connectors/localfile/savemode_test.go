package localfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHandleSaveMode(t *testing.T) {
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	cases := []struct {
		schema, data string
		setup        func(root string)
		err          string
		check        func(t *testing.T, root string)
	}{
		{"CREATE_SCHEMA_WHEN_NOT_EXIST", "APPEND_DATA", nil, "", func(t *testing.T, root string) {
			if !exists(root) {
				t.Error("path not created")
			}
		}},
		{"CREATE_SCHEMA_WHEN_NOT_EXIST", "APPEND_DATA", func(root string) { write(root + "/a/old.csv") }, "", func(t *testing.T, root string) {
			if !exists(root + "/a/old.csv") {
				t.Error("appending dropped data")
			}
		}},
		{"CREATE_SCHEMA_WHEN_NOT_EXIST", "DROP_DATA", func(root string) { write(root + "/a/old.csv") }, "", func(t *testing.T, root string) {
			if exists(root+"/a") || !exists(root) {
				t.Error("DROP_DATA left data or removed the path")
			}
		}},
		{"RECREATE_SCHEMA", "APPEND_DATA", func(root string) { write(root + "/old.csv") }, "", func(t *testing.T, root string) {
			if exists(root+"/old.csv") || !exists(root) {
				t.Error("RECREATE_SCHEMA kept data or removed the path")
			}
		}},
		{"IGNORE", "DROP_DATA", nil, "", func(t *testing.T, root string) {
			if exists(root) {
				t.Error("DROP_DATA of a missing path created it")
			}
		}},
		{"ERROR_WHEN_SCHEMA_NOT_EXIST", "APPEND_DATA", nil, "ERROR_WHEN_SCHEMA_NOT_EXIST", nil},
		{"IGNORE", "ERROR_WHEN_DATA_EXISTS", func(root string) { write(root + "/" + stagingDir + "/j/1/1/0/f") }, "", nil},
		{"IGNORE", "ERROR_WHEN_DATA_EXISTS", func(root string) { write(root + "/k=v/old.csv") }, "already holds data", nil},
	}
	for i, c := range cases {
		root := filepath.Join(t.TempDir(), "out")
		if c.setup != nil {
			c.setup(root)
		}
		s := &sink{cfg: &sinkConfig{root: root, schemaSaveMode: c.schema, dataSaveMode: c.data}}
		err := s.HandleSaveMode(context.Background())
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("case %d (%s, %s): error %v, want %q", i, c.schema, c.data, err, c.err)
			continue
		}
		if c.check != nil {
			c.check(t, root)
		}
	}
}
