package cdc

import (
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
)

func parseCommon(t *testing.T, body string) (*Options, error) {
	t.Helper()
	root, err := hocon.Parse([]byte("base-url = \"jdbc:postgresql://h/db\"\nusername = u\npassword = p\ntable-names = [\"db.s.t\"]\n"+body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg, _, err := config.Validate("job.conf", "source", "Postgres-CDC", root.Pos, root, CommonOptions, config.CommonPluginOptions)
	if err != nil {
		return nil, err
	}
	return ParseOptions(cfg)
}

// schema-changes.enabled, or SeaTunnel's older debezium spelling, turns
// schema changes on; the option wins over the spelling.
func TestSchemaChangesOption(t *testing.T) {
	for body, want := range map[string]bool{
		"":                              false,
		"schema-changes.enabled = true": true,
		"debezium { include.schema.changes = true }":                                    true,
		"debezium { include.schema.changes = \"false\" }":                               false,
		"schema-changes.enabled = false\ndebezium { include.schema.changes = true }":    false,
		"format = compatible_debezium_json\ndebezium { include.schema.changes = true }": true,
	} {
		o, err := parseCommon(t, body)
		if err != nil || o.SchemaChanges != want {
			t.Errorf("%q: %v %v, want %v", body, o, err, want)
		}
	}
	if _, err := parseCommon(t, "debezium { include.schema.changes = maybe }"); err == nil || !strings.Contains(err.Error(), "include.schema.changes") {
		t.Errorf("bad spelling: %v", err)
	}
	if o, err := parseCommon(t, "format = compatible_debezium_json"); err != nil || o.Format != FormatDebezium {
		t.Errorf("format: %v %v", o, err)
	}
}

// A schema change at or before a chunk's high watermark came while the
// chunk was read with the old columns: an error naming the table; after
// every chunk of the table, or without chunks, it is carried.
func TestChangedDuringSnapshot(t *testing.T) {
	tables := []*Table{{ID: "db.t", Schema: fakeSchema, ChunkKey: "id"}}
	d := &fakeDialect{}
	s := &streamSplit{Chunks: []doneChunk{{Chunk: Chunk{Table: 0, Seq: 0}, High: off(10)}, {Chunk: Chunk{Table: 0, Seq: 1}, High: off(20)}}}
	f, err := newStreamFilter(tables, d, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.changedDuringSnapshot(0, off(15)); err == nil || !strings.Contains(err.Error(), "table db.t changed at 15, while its snapshot was read (chunk 1") {
		t.Fatalf("at 15: %v", err)
	}
	if err := f.changedDuringSnapshot(0, off(21)); err != nil {
		t.Fatalf("at 21: %v", err)
	}
	none, _ := newStreamFilter(tables, d, &streamSplit{})
	if err := none.changedDuringSnapshot(0, off(1)); err != nil {
		t.Fatalf("no chunks: %v", err)
	}
}
