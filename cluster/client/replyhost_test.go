package client

import (
	"net"
	"testing"
)

// The client listens where the leader can reach it: loopback for a leader
// on loopback, and for a leader at one of this machine's other addresses,
// that address (packets to it leave from it) — not loopback, which a node
// on another machine or in another network namespace cannot dial back.
func TestReplyHost(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:7000":     "127.0.0.1",
		"not a host:port":    "127.0.0.1",
		"no-such-host.:7000": "127.0.0.1",
	} {
		if got := replyHost(addr); got != want {
			t.Errorf("replyHost(%q) = %q, want %q", addr, got, want)
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		found = true
		ip := ipn.IP.String()
		if got := replyHost(net.JoinHostPort(ip, "7000")); got != ip {
			t.Errorf("replyHost(%s:7000) = %q, want %s itself", ip, got, ip)
		}
	}
	if !found {
		t.Skip("no non-loopback IPv4 address on this machine to check against")
	}
}
