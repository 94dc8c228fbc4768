// Package stactorbin builds the stactor binary for a test that runs it
// (the end-to-end tests under tests/, connectors/conformance's RunCrash),
// the way a user gets it: `go build ./cmd/stactor` from the module root.
// It sits in the module's internal/ so that connector packages' tests can
// use it too.
package stactorbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RepoRoot is the module's root directory.
func RepoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("cannot find the module root (go env GOMOD: %q, %v)", gomod, err)
	}
	return filepath.Dir(gomod), nil
}

// Build builds stactor into a new temporary directory; cleanup removes it.
func Build() (path string, cleanup func(), err error) {
	root, err := RepoRoot()
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "stactor-bin-")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(tmp, "stactor")
	build := exec.Command("go", "build", "-o", path, "./cmd/stactor")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("go build ./cmd/stactor: %v\n%s", err, out)
	}
	return path, func() { os.RemoveAll(tmp) }, nil
}

// EnvBinary names a stactor binary to test instead of building one (a
// release build, or the one a parent test process built and handed to
// the child it re-executes).
const EnvBinary = "STACTOR_TEST_BINARY"

// Main is a TestMain body: it builds the binary into *bin (or takes the
// one EnvBinary names), runs the tests, and removes it. It returns the
// exit code.
func Main(run func() int, bin *string) int {
	if given := os.Getenv(EnvBinary); given != "" {
		if _, err := os.Stat(given); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", EnvBinary, err)
			return 1
		}
		*bin = given
		return run()
	}
	path, cleanup, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	*bin = path
	return run()
}
