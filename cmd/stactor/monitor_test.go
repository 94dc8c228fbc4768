package main

import (
	"os"
	"path/filepath"
	"testing"
)

// tap and top find a local run's NATS server, prefix and token by its job
// id, or the only local run's when no job is named.
func TestLocalRun(t *testing.T) {
	home := t.TempDir()
	t.Setenv("STACTOR_HOME", home)
	s := newSettings()
	if u, p, _ := localRun(s, "j1"); u != "" || p != "" {
		t.Fatalf("no run: %q %q", u, p)
	}
	dir := filepath.Join(home, "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "j1.nats"), []byte("nats://127.0.0.1:4333\nstactor.dev\ntok3n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{"j1", ""} {
		if u, p, tok := localRun(s, job); u != "nats://127.0.0.1:4333" || p != "stactor.dev" || tok != "tok3n" {
			t.Fatalf("localRun(%q) = %q %q %q", job, u, p, tok)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "j2.nats"), []byte("nats://127.0.0.1:4334\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if u, _, _ := localRun(s, ""); u != "" {
		t.Fatalf("two runs and no job named: %q", u)
	}
	if u, p, tok := localRun(s, "j2"); u != "nats://127.0.0.1:4334" || p != "" || tok != "" {
		t.Fatalf("localRun(j2) = %q %q %q", u, p, tok)
	}
}
