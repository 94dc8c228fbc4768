package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The local worker of stactor run takes tags and slot-num from the engine
// settings, as a node's worker does.
func TestLocalWorkerSettings(t *testing.T) {
	s := newSettings()
	tags, slots, err := s.localWorker()
	if err != nil || len(tags) != 0 || slots != 0 {
		t.Fatalf("defaults: %v %d %v", tags, slots, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "stactor.yaml")
	if err := os.WriteFile(file, []byte("tags:\n  group: platform\n  zone: a\ndynamic-slot: false\nslot-num: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = newSettings()
	if err := s.load(file); err != nil {
		t.Fatal(err)
	}
	tags, slots, err = s.localWorker()
	if err != nil || tags["group"] != "platform" || tags["zone"] != "a" || len(tags) != 2 || slots != 3 {
		t.Fatalf("from the file: %v %d %v", tags, slots, err)
	}

	t.Setenv("STACTOR_TAGS", "group=x,team=y")
	t.Setenv("STACTOR_DYNAMIC_SLOT", "false")
	t.Setenv("STACTOR_SLOT_NUM", "0")
	tags, _, err = newSettings().localWorker()
	if err == nil || !strings.Contains(err.Error(), "slot-num must be at least 1") {
		t.Fatalf("slot-num 0: %v %v", tags, err)
	}
	t.Setenv("STACTOR_SLOT_NUM", "4")
	tags, slots, err = newSettings().localWorker()
	if err != nil || tags["group"] != "x" || tags["team"] != "y" || slots != 4 {
		t.Fatalf("from the environment: %v %d %v", tags, slots, err)
	}
	t.Setenv("STACTOR_TAGS", "nokey")
	if _, _, err := newSettings().localWorker(); err == nil {
		t.Fatal("a bad tags setting was accepted")
	}
}
