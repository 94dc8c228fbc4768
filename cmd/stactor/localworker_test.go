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
	lw, err := s.localWorker()
	if err != nil || len(lw.tags) != 0 || lw.slots != 0 || lw.slotMemoryMB != 128 || lw.memoryMB != machineMemoryMB() || lw.memoryMB <= 0 {
		t.Fatalf("defaults: %+v %v", lw, err)
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
	lw, err = s.localWorker()
	if err != nil || lw.tags["group"] != "platform" || lw.tags["zone"] != "a" || len(lw.tags) != 2 || lw.slots != 3 {
		t.Fatalf("from the file: %+v %v", lw, err)
	}

	t.Setenv("STACTOR_TAGS", "group=x,team=y")
	t.Setenv("STACTOR_DYNAMIC_SLOT", "false")
	t.Setenv("STACTOR_SLOT_NUM", "0")
	lw, err = newSettings().localWorker()
	if err == nil || !strings.Contains(err.Error(), "slot-num must be at least 1") {
		t.Fatalf("slot-num 0: %+v %v", lw, err)
	}
	t.Setenv("STACTOR_SLOT_NUM", "4")
	lw, err = newSettings().localWorker()
	if err != nil || lw.tags["group"] != "x" || lw.tags["team"] != "y" || lw.slots != 4 {
		t.Fatalf("from the environment: %+v %v", lw, err)
	}
	t.Setenv("STACTOR_TAGS", "nokey")
	if _, err := newSettings().localWorker(); err == nil {
		t.Fatal("a bad tags setting was accepted")
	}

	// Dynamic slots cut the memory setting into slots of slot.memory.
	t.Setenv("STACTOR_TAGS", "")
	t.Setenv("STACTOR_DYNAMIC_SLOT", "true")
	t.Setenv("STACTOR_MEMORY", "1000")
	t.Setenv("STACTOR_SLOT_MEMORY", "100")
	lw, err = newSettings().localWorker()
	if err != nil || lw.slots != 0 || lw.memoryMB != 1000 || lw.slotMemoryMB != 100 {
		t.Fatalf("memory settings: %+v %v", lw, err)
	}
	t.Setenv("STACTOR_SLOT_MEMORY", "0")
	if _, err := newSettings().localWorker(); err == nil || !strings.Contains(err.Error(), "slot.memory must be at least 1") {
		t.Fatalf("slot.memory 0: %v", err)
	}
}
