package cli

import (
	"net"
	"strings"
	"testing"
	"time"
)

// freeAddr is a loopback address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestNoConsul: the cluster commands say that Consul cannot be reached,
// naming the address, instead of retrying silently until their timeout
// (30 s for list and status).
func TestNoConsul(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	for _, args := range [][]string{{"list"}, {"status", "123"}, {"members"}, {"cancel", "123"}} {
		r := run(t, home, append(args, "--consul", addr)...)
		if r.code == 0 {
			t.Fatalf("%v without Consul exited 0:\n%s%s", args, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "cannot reach the Consul agent at "+addr) || !strings.Contains(r.stderr, "--consul") {
			t.Fatalf("%v without Consul: want an error naming %s, got:\n%s", args, addr, r.stderr)
		}
		// Not a speed assertion: the old behaviour was a silent retry
		// until the command's 30 s timeout.
		if r.took > 20*time.Second {
			t.Fatalf("%v without Consul took %s", args, r.took)
		}
	}
}
