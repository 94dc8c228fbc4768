// Package stactorbin is the end-to-end tests' name for the module's
// internal/stactorbin (which connectors/conformance shares): it builds the
// stactor binary once per test package run.
package stactorbin

import (
	"bytes"
	"context"
	"errors"
	"os/exec"

	bin "github.com/stactor/stactor/internal/stactorbin"
)

// RepoRoot is the module's root directory.
func RepoRoot() (string, error) { return bin.RepoRoot() }

// Build builds stactor into a new temporary directory; cleanup removes it.
func Build() (path string, cleanup func(), err error) { return bin.Build() }

// Main is a TestMain body: it builds the binary into *bin, runs the
// tests, and removes it. It returns the exit code.
func Main(run func() int, binary *string) int { return bin.Main(run, binary) }

// EnvBinary names a stactor binary to test instead of building one.
const EnvBinary = bin.EnvBinary

// Result is how a command ended: its output and its exit code (-1 when it
// could not start or was killed).
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs cmd, made with exec.CommandContext(ctx, ...), capturing its
// output; a command cut off by ctx says so at the end of Stderr.
func Run(ctx context.Context, cmd *exec.Cmd) Result {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		r.Code = -1
		r.Stderr += "\n" + err.Error()
	}
	if ctx.Err() != nil {
		r.Stderr += "\n(timed out: " + ctx.Err().Error() + ")"
	}
	return r
}
