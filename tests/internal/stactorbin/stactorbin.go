// Package stactorbin is the end-to-end tests' name for the module's
// internal/stactorbin (which connectors/conformance shares): it builds the
// stactor binary once per test package run.
package stactorbin

import bin "github.com/stactor/stactor/internal/stactorbin"

// RepoRoot is the module's root directory.
func RepoRoot() (string, error) { return bin.RepoRoot() }

// Build builds stactor into a new temporary directory; cleanup removes it.
func Build() (path string, cleanup func(), err error) { return bin.Build() }

// Main is a TestMain body: it builds the binary into *bin, runs the
// tests, and removes it. It returns the exit code.
func Main(run func() int, binary *string) int { return bin.Main(run, binary) }

// EnvBinary names a stactor binary to test instead of building one.
const EnvBinary = bin.EnvBinary
