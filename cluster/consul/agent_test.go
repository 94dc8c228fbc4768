package consul_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"
)

// The one Consul agent (-dev) every test of the package shares; each test
// uses a cluster name of its own.
var (
	client  *api.Client
	skipWhy string // set when the tests cannot run
)

const consulVersion = "v1.14.11"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("STACTOR_SKIP_CONSUL") == "1" {
		skipWhy = "STACTOR_SKIP_CONSUL=1: Consul tests skipped"
		return m.Run()
	}
	bin, err := consulBinary()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cluster/consul tests need a Consul %s agent and could not build one: %v\n"+
			"(build it with `go tool task consul:build`, point STACTOR_CONSUL_BIN at one, or set STACTOR_SKIP_CONSUL=1)\n", consulVersion, err)
		return 1
	}
	stop, err := startAgent(bin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cluster/consul tests: %v\n", err)
		return 1
	}
	defer stop()
	return m.Run()
}

// need skips t when there is no agent.
func need(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
}

// consulBinary returns STACTOR_CONSUL_BIN, or <repo>/bin/consul if it is
// the pinned version, or builds it there with the tools module.
func consulBinary() (string, error) {
	if bin := os.Getenv("STACTOR_CONSUL_BIN"); bin != "" {
		return bin, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(root, "bin", "consul")
	if out, err := exec.Command(bin, "version").Output(); err == nil && strings.Contains(string(out), "Consul "+consulVersion) {
		return bin, nil
	}
	// Build next to the target and rename, so that concurrent test binaries
	// never run a half-written file.
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	start := time.Now()
	fmt.Fprintf(os.Stderr, "building Consul %s into %s (a few minutes the first time)...\n", consulVersion, bin)
	cmd := exec.Command("go", "build", "-o", tmp, "github.com/hashicorp/consul")
	cmd.Dir = filepath.Join(root, "tools")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("go build in %s: %w\n%s", cmd.Dir, err, out.String())
	}
	fmt.Fprintf(os.Stderr, "built Consul in %s\n", time.Since(start).Round(time.Second))
	return bin, os.Rename(tmp, bin)
}

// repoRoot is the directory of the main module's go.mod, above the test's
// working directory.
func repoRoot() (string, error) {
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

// startAgent runs `consul agent -dev` on free loopback ports, sets client,
// and waits until the agent has a leader and its node is registered.
func startAgent(bin string) (stop func(), err error) {
	dir, err := os.MkdirTemp("", "stactor-consul-")
	if err != nil {
		return nil, err
	}
	ports := make([]int, 4) // http, server, serf lan, serf wan
	for i := range ports {
		if ports[i], err = freePort(i >= 2); err != nil {
			return nil, err
		}
	}
	const node = "stactor-test"
	logf, err := os.Create(filepath.Join(dir, "consul.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "agent", "-dev",
		"-node", node,
		"-bind", "127.0.0.1", "-client", "127.0.0.1",
		"-http-port", strconv.Itoa(ports[0]),
		"-server-port", strconv.Itoa(ports[1]),
		"-serf-lan-port", strconv.Itoa(ports[2]),
		"-serf-wan-port", strconv.Itoa(ports[3]),
		"-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1",
		"-data-dir", filepath.Join(dir, "data"),
		"-log-level", "warn",
	)
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = agentProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start consul: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logf.Close()
		_ = os.RemoveAll(dir)
	}
	cfg := api.DefaultConfig()
	cfg.Address = "127.0.0.1:" + strconv.Itoa(ports[0])
	if client, err = api.NewClient(cfg); err != nil {
		stop()
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if ready(node) {
			return stop, nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logf.Name())
			stop()
			return nil, fmt.Errorf("consul agent exited:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			stop()
			return nil, fmt.Errorf("consul agent not ready after 30s:\n%s", log)
		}
	}
}

// ready reports whether the agent has a leader and its node's serfHealth
// passes (sessions need both).
func ready(node string) bool {
	leader, err := client.Status().Leader()
	if err != nil || leader == "" {
		return false
	}
	checks, _, err := client.Health().Node(node, nil)
	if err != nil {
		return false
	}
	for _, c := range checks {
		if c.CheckID == "serfHealth" && c.Status == api.HealthPassing {
			return true
		}
	}
	return false
}

// freePort returns a loopback port the OS says is free for TCP (and UDP).
func freePort(udp bool) (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !udp {
			return port, nil
		}
		u, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			_ = u.Close()
			return port, nil
		}
	}
	return 0, errors.New("no free port")
}

// checkFor polls fn until it returns nil or total has passed, then fails
// with fn's last error.
func checkFor(t *testing.T, total time.Duration, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(total)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v", total, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newCluster returns a cluster name no other test uses.
func newCluster(t *testing.T) string {
	return strings.NewReplacer("/", "-", "_", "-").Replace(strings.ToLower(t.Name())) + "-" + strconv.FormatInt(time.Now().UnixNano()%1e6, 36)
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
