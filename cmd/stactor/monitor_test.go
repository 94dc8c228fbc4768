package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go"
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

// A local run's file is readable by its user only, also where a killed
// run of the same job left one that others could read, and it names a
// server that wants the token in it.
func TestLocalRunFileIsPrivate(t *testing.T) {
	home := t.TempDir()
	t.Setenv("STACTOR_HOME", home)
	s := newSettings()
	dir := filepath.Join(home, "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "j1.nats")
	if err := os.WriteFile(file, []byte("nats://127.0.0.1:1\nstactor.stactor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := startLocalMonitor(s, "", "j1")
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, mode %v; want 0600", file, err, fi.Mode())
	}
	url, _, token := localRun(s, "j1")
	if url != m.url || len(token) < 32 {
		t.Fatalf("localRun = %q, token of %d characters; want %q and a token", url, len(token), m.url)
	}
	if nc, err := nats.Connect(url, nats.NoReconnect()); err == nil {
		nc.Close()
		t.Fatal("connected without the token")
	}
	nc, err := nats.Connect(url, nats.Token(token))
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	nc.Close()
}
