// Package cluster runs stactor as a cluster, the way a user does: a Consul
// agent (-dev), a NATS server with JetStream, and `stactor node` processes,
// driven by the CLI (submit, list, status, savepoint, restore, members). It
// SIGKILLs a worker and the leader while jobs run and checks the committed
// output row by row: every id exactly once (DESIGN §6, §8).
//
// One Consul agent and one NATS server serve every test; each test runs its
// own nodes under a cluster name of its own, so tests do not see each other.
// The Consul agent is the tools module's (bin/consul, built there when
// missing, or STACTOR_CONSUL_BIN); the tests skip when it cannot be built,
// or when STACTOR_SKIP_CONSUL=1.
package cluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/stactor/stactor/cluster/consul/consultest"
)

// Shared by every test.
var (
	binary     string // the stactor binary
	consulAddr string // the Consul agent's HTTP address
	natsURL    string // the NATS server (JetStream on)
	skipWhy    string // set when the tests cannot run
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := consultest.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests/cluster:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "stactor-cluster-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests/cluster:", err)
		return 1
	}
	defer os.RemoveAll(dir)

	binary = filepath.Join(dir, "stactor")
	build := exec.Command("go", "build", "-o", binary, "./cmd/stactor")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "tests/cluster: building stactor:", err)
		return 1
	}

	if os.Getenv("STACTOR_SKIP_CONSUL") == "1" {
		skipWhy = "STACTOR_SKIP_CONSUL=1: cluster tests skipped"
		return m.Run()
	}
	consul, err := consultest.Binary(root, os.Stderr)
	if err != nil {
		skipWhy = fmt.Sprintf("no Consul %s agent (build it with `go tool task consul:build` or set STACTOR_CONSUL_BIN): %v", consultest.Version, err)
		fmt.Fprintln(os.Stderr, "tests/cluster:", skipWhy)
		return m.Run()
	}
	agent, err := consultest.Start(consul, consultest.WithNode("stactor-cluster-test"), consultest.WithDir(filepath.Join(dir, "consul")))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests/cluster:", err)
		return 1
	}
	defer agent.Stop()
	consulAddr = agent.Addr

	ns, err := startNATS(filepath.Join(dir, "nats"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests/cluster:", err)
		return 1
	}
	defer ns.Shutdown()
	natsURL = ns.ClientURL()
	return m.Run()
}

// need skips t when the cluster cannot run.
func need(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
}

// startNATS runs a NATS server with JetStream in this process, on a free
// loopback port, storing in dir. The nodes are separate processes, so to
// them it is as external as any server.
func startNATS(dir string) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true})
	if err != nil {
		return nil, fmt.Errorf("nats-server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("nats-server not ready after 10s")
	}
	return s, nil
}

// tail is the last lines of s, for failure messages.
func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

// readFile is a file's content, or "" if it cannot be read.
func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}
