package consul_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/stactor/stactor/cluster/consul/consultest"
)

// The one Consul agent (-dev) every test of the package shares; each test
// uses a cluster name of its own.
var (
	client  *api.Client
	skipWhy string // set when the tests cannot run
)

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
			"(build it with `go tool task consul:build`, point STACTOR_CONSUL_BIN at one, or set STACTOR_SKIP_CONSUL=1)\n", consultest.Version, err)
		return 1
	}
	agent, err := consultest.Start(bin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cluster/consul tests: %v\n", err)
		return 1
	}
	defer agent.Stop()
	client = agent.Client
	return m.Run()
}

// need skips t when there is no agent.
func need(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
}

// consulBinary is the repository's pinned Consul, built when missing.
func consulBinary() (string, error) {
	root, err := consultest.RepoRoot()
	if err != nil {
		return "", err
	}
	return consultest.Binary(root, os.Stderr)
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
