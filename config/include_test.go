package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
)

// An include is read only from a regular file of bounded size; a job from
// the network may not include at all, nor read the environment.
func TestIncludesAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.conf")
	if err := os.WriteFile(big, []byte("a = \""+strings.Repeat("x", config.MaxIncludeSize)+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "not a regular file"},
		{fifo, "not a regular file"},
		{big, "larger than"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := config.ParseTree(filepath.Join(dir, "job.conf"), []byte(`include "`+c.path+`"`+"\nsource {}\n"), nil)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("include %s: %v, want an error saying %q", c.path, err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("include %s hangs", c.path)
		}
	}
	t.Setenv("STACTOR_TEST_SECRET", "s3cr3t")
	if _, err := config.ParseUntrusted("job.conf", []byte(`include "/etc/hostname"`), nil); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Fatalf("an include in an untrusted job: %v", err)
	}
	root, err := config.ParseUntrusted("job.conf", []byte(`a = "${STACTOR_TEST_SECRET:none}"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := root.Get("a").Text; got != "none" {
		t.Fatalf("an untrusted job read the environment: a = %q", got)
	}
}
