package node

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestDataDirKeepsTheNodeID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b") // created on the first start
	first, err := resolveID("", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !validID(first) {
		t.Fatalf("generated id %q", first)
	}
	b, err := os.ReadFile(filepath.Join(dir, "node-id"))
	if err != nil || strings.TrimSpace(string(b)) != first {
		t.Fatalf("node-id file holds %q (%v), want %q", b, err, first)
	}
	again, err := resolveID("", dir)
	if err != nil || again != first {
		t.Fatalf("second start: %q (%v), want %q", again, err, first)
	}
	// --node-id wins and leaves the file alone.
	if id, err := resolveID("n7", dir); err != nil || id != "n7" {
		t.Fatalf("with --node-id: %q (%v)", id, err)
	}
	if again, _ := resolveID("", dir); again != first {
		t.Fatalf("after a start with --node-id: %q, want %q", again, first)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the data dir holds more than node-id: %v", entries)
	}
}

func TestDataDirConcurrentFirstStarts(t *testing.T) {
	dir := t.TempDir()
	ids := make([]string, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = resolveID("", dir)
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("start %d: %q (%v); start 0: %q", i, ids[i], errs[i], ids[0])
		}
	}
}

func TestDataDirErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "node-id"), []byte("  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := resolveID("", dir)
	if err == nil || !strings.Contains(err.Error(), "node-id") || !strings.Contains(err.Error(), "delete the file") {
		t.Fatalf("empty node-id file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node-id"), []byte("a/b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := resolveID("", dir); err == nil {
		t.Fatal("a node id with '/' was taken")
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = resolveID("", filepath.Join(file, "sub"))
	if err == nil || !strings.Contains(err.Error(), "cannot create") {
		t.Fatalf("data dir under a file: %v", err)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		_, err = resolveID("n1", ro)
		if err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Fatalf("read-only data dir: %v", err)
		}
	}
}

func TestWithoutDataDir(t *testing.T) {
	id, err := resolveID("", "")
	if err != nil || !strings.HasSuffix(id, "-"+strconv.Itoa(os.Getpid())) {
		t.Fatalf("default id %q (%v), want host-pid", id, err)
	}
}

// validID accepts what the regexp it stands for accepts.
func TestValidIDAsItsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	long := strings.Repeat("a", 127)
	for _, id := range []string{"", "n", "n7", "host-1a2b3c4d", "a.b_c-d", ".a", "_a", "-a", "a b", "a/b", "a\n",
		"é", "aé", "a*", "a>", "1" + long, "1" + long + "x", "Z" + strings.Repeat(".", 127), strings.Repeat("-", 128)} {
		if got, want := validID(id), re.MatchString(id); got != want {
			t.Errorf("validID(%q) = %v, the regexp says %v", id, got, want)
		}
	}
}
