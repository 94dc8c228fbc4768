// Package chaos runs exactly-once jobs on a three-node cluster and, on a
// schedule drawn from a seed, breaks what they stand on: it SIGKILLs a
// worker, the leader, the NATS server, the Consul agent and the database
// server; SIGSTOPs a node past its health check's TTL and SIGCONTs it;
// cuts a node off the network; fills the disk under the sink's staging
// and output directory, and the one under the checkpoint storage (the
// nats-server's JetStream store); corrupts or truncates a job's latest checkpoint;
// and restarts a node with its clocks jumped. Between faults it waits for
// the committed output to move again. At the end it reads the committed
// output row by row and prints a table: faults by kind, rows checked,
// lost, duplicated, time to recover, and jobs that ended FAILED and why
// (DESIGN §5, §6; issue 18).
//
// Everything runs in network and mount namespaces of the test's own
// (tests/internal/netns): each node in a network namespace of its own,
// joined to the test's by a veth pair, so that a partition is that link
// going down; Consul, NATS and PostgreSQL listen on 10.77.0.1, an address
// of the test's namespace; the sink's output directory and the JetStream
// store are small tmpfs mounted in the test's mount namespace. The tests skip where namespaces
// cannot be made (not root).
//
// A clock jump is what a time namespace can offset: a node restarted in
// one (unshare --time) has its monotonic and boot-time clocks ahead by up
// to 30 days. That catches code that carries an absolute reading of those
// clocks to another process; Go's own monotonic readings count from the
// process's start, so to the engine's timers (checkpoint interval and
// timeout, retry back-off, heartbeats) it is a plain restart. The wall
// clock cannot be offset per process, and the engine does not decide
// anything by it across processes: checkpoint and job times in it are
// for people (diagnosis, history), and the TTLs and lock delays of
// sessions and health checks run on the Consul agent's clock.
//
// Settings (environment):
//
//	STACTOR_CHAOS_FAULTS  the schedule's faults (default 24: about 5 minutes on
//	                      2 cores; `go tool task test:chaos` runs 200)
//	STACTOR_CHAOS_SEED    the schedule's seed (default: the clock); printed
//	                      at the start, so a failing schedule replays
//	STACTOR_CHAOS_FROM    the schedule's first fault to inject (default 1):
//	                      with the seed, replays faults FROM..FAULTS of a
//	                      run on a fresh cluster (the faults before it are
//	                      drawn, not injected)
//	STACTOR_CHAOS_REPORT  a file to write the result table to (Markdown)
//	STACTOR_CHAOS_LOGS    a directory to copy the nodes' and nats-server's
//	                      logs to at the end (a stalled job's status and
//	                      last warnings are printed when it stalls)
//	STACTOR_CONSUL_BIN    the Consul v1.14.11 agent (else bin/consul, built)
//	STACTOR_NATS_BIN      a nats-server (else built from go.mod's version)
package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/tests/internal/netns"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var (
	binary  string         // the stactor binary
	servers dbtest.Servers // PostgreSQL, reachable from the nodes' namespaces
)

func TestMain(m *testing.M) {
	os.Exit(netns.Main(func() int {
		return stactorbin.Main(func() int {
			return servers.Run(m, dbtest.WithPostgres(dbtest.WithClients("10.77.0.0/16"), dbtest.WithMaxPreparedTransactions(100)))
		}, &binary)
	}))
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// natsServer is STACTOR_NATS_BIN, or the nats-server of go.mod's version
// built into dir.
func natsServer(t *testing.T, dir string) string {
	t.Helper()
	if bin := os.Getenv("STACTOR_NATS_BIN"); bin != "" {
		return bin
	}
	root, err := stactorbin.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "nats-server")
	build := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building nats-server: %v\n%s", err, out)
	}
	return bin
}

// tail is the last lines of s, for failure messages.
func tail(s string, lines int) string {
	n := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			if n++; n > lines {
				return s[i+1:]
			}
		}
	}
	return s
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func mustf(t *testing.T, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
}
