package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot finds the main module's root (the directory of the go.mod
// that declares github.com/stactor/stactor) from the working directory up.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/stactor/stactor\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the stactor module (no go.mod of github.com/stactor/stactor above %s)", dir)
		}
		dir = parent
	}
}

// BuildStactor builds ./cmd/stactor of the module at root into dir.
func BuildStactor(root, dir string) (string, error) {
	out := filepath.Join(dir, "stactor")
	return out, goBuild(root, out, "./cmd/stactor")
}

// BuildBenthos builds Benthos from benchmarks/peers, the separate module
// that has it as a tool, so the main module does not depend on it.
func BuildBenthos(root, dir string) (string, error) {
	out := filepath.Join(dir, "benthos")
	return out, goBuild(filepath.Join(root, "benchmarks", "peers"), out, "github.com/redpanda-data/benthos/v4/cmd/benthos")
}

func goBuild(dir, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s (in %s): %w\n%s", pkg, dir, err, b)
	}
	return nil
}
