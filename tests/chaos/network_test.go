package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// serviceIP is where Consul, NATS and PostgreSQL listen: an address on the
// test namespace's loopback, reached by every node over its own link, so
// it stays up whichever link is cut.
const serviceIP = "10.77.0.1"

// network is the nodes' links: node slot i lives in network namespace
// chaos-<i> as 10.77.<i>.2, joined to the test's namespace (10.77.<i>.1)
// by the veth pair ch<i> (here) / cn<i> (there), its default route
// through it. The test's namespace routes between the links.
type network struct {
	t *testing.T
}

// newNetwork prepares the test's network namespace: a private /run/netns
// (named namespaces live in files there; a tmpfs of the private mount
// namespace keeps them from leaking to the machine's), serviceIP on
// loopback, forwarding on.
func newNetwork(t *testing.T) *network {
	t.Helper()
	mustf(t, os.MkdirAll("/run/netns", 0o755), "mkdir /run/netns")
	mustf(t, unix.Mount("tmpfs", "/run/netns", "tmpfs", 0, "size=1m"), "mount a tmpfs on /run/netns")
	nw := &network{t: t}
	nw.ip("addr", "add", serviceIP+"/32", "dev", "lo")
	mustf(t, os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1"), 0o644), "ip_forward")
	return nw
}

// ip runs ip(8) with args, failing the test on error.
func (nw *network) ip(args ...string) {
	nw.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		nw.t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func nsName(slot int) string { return fmt.Sprintf("chaos-%d", slot) }

// hostIP is node slot's address.
func hostIP(slot int) string { return fmt.Sprintf("10.77.%d.2", slot) }

// add makes slot's namespace and link.
func (nw *network) add(slot int) {
	nw.t.Helper()
	ns, here, there := nsName(slot), fmt.Sprintf("ch%d", slot), fmt.Sprintf("cn%d", slot)
	nw.ip("netns", "add", ns)
	nw.ip("link", "add", here, "type", "veth", "peer", "name", there)
	nw.ip("link", "set", there, "netns", ns)
	nw.ip("addr", "add", fmt.Sprintf("10.77.%d.1/24", slot), "dev", here)
	nw.ip("link", "set", here, "up")
	nw.ip("-n", ns, "addr", "add", hostIP(slot)+"/24", "dev", there)
	nw.ip("-n", ns, "link", "set", there, "up")
	nw.ip("-n", ns, "link", "set", "lo", "up")
	nw.ip("-n", ns, "route", "add", "default", "via", fmt.Sprintf("10.77.%d.1", slot))
}

// cut takes slot's link down: nothing gets in or out. The node's side
// keeps its carrier-less link, so its packets vanish (its connections
// hang until they time out); ours has no route to it.
func (nw *network) cut(slot int) { nw.ip("link", "set", fmt.Sprintf("ch%d", slot), "down") }

// heal brings slot's link up again (its route comes back with it).
func (nw *network) heal(slot int) { nw.ip("link", "set", fmt.Sprintf("ch%d", slot), "up") }

// command runs name with args in slot's namespace (ip netns exec execs
// it: the pid is the program's).
func command(slot int, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", nsName(slot), name}, args...)...)
}
