// Package consultest is for tests: it gets the Consul agent the tools
// module pins (built there as a Go tool) and runs it in -dev mode on free
// loopback ports, for the tests of package consul and the cluster tests
// (tests/cluster). Nothing outside tests imports it.
package consultest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Version is the tools module's Consul (the last MPL-2.0 release).
const Version = "v1.14.11"

// Binary returns STACTOR_CONSUL_BIN, or <root>/bin/consul if it is
// Version, or builds it there from root's tools module (a few minutes the
// first time), saying so on progress.
func Binary(root string, progress io.Writer) (string, error) {
	if bin := os.Getenv("STACTOR_CONSUL_BIN"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(root, "bin", "consul")
	if out, err := exec.Command(bin, "version").Output(); err == nil && strings.Contains(string(out), "Consul "+Version) {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	// Build next to the target and rename, so that concurrent test binaries
	// never run a half-written file.
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	start := time.Now()
	fmt.Fprintf(progress, "building Consul %s into %s (a few minutes the first time)...\n", Version, bin)
	cmd := exec.Command("go", "build", "-o", tmp, "github.com/hashicorp/consul")
	cmd.Dir = filepath.Join(root, "tools")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("go build in %s: %w\n%s", cmd.Dir, err, out.String())
	}
	fmt.Fprintf(progress, "built Consul in %s\n", time.Since(start).Round(time.Second))
	return bin, os.Rename(tmp, bin)
}

// RepoRoot is the directory of the main module's go.mod, above the test's
// working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(mod), "module github.com/stactor/stactor\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no github.com/stactor/stactor go.mod above the working directory")
		}
		dir = parent
	}
}
