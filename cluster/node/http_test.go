package node

import (
	"net"
	"strings"
	"testing"
)

func TestAdvertisedHTTPAddress(t *testing.T) {
	got := &net.TCPAddr{IP: net.IPv4zero, Port: 41234}
	for _, c := range []struct{ asked, actor, want string }{
		{"127.0.0.1:0", "127.0.0.1:5000", "127.0.0.1:41234"},
		{":8080", "10.0.0.5:5000", "10.0.0.5:41234"},
		{"0.0.0.0:8080", "10.0.0.5:5000", "10.0.0.5:41234"},
		{"[::]:8080", "10.0.0.5:5000", "10.0.0.5:41234"},
		{"node1.example:8080", "10.0.0.5:5000", "node1.example:41234"},
	} {
		adv, err := advertised(got, c.asked, c.actor)
		if err != nil || adv != c.want {
			t.Errorf("advertised(%s, actor %s) = %q (%v), want %q", c.asked, c.actor, adv, err, c.want)
		}
	}
	if _, err := advertised(got, "8080", "127.0.0.1:1"); err == nil {
		t.Error("--http 8080 (no host:port) was taken")
	}
}

// The API takes jobs: without credentials it may listen on loopback only,
// and a node asked for more refuses to start, saying what to configure.
func TestHTTPBeyondLoopbackNeedsCredentials(t *testing.T) {
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true}, {"localhost:8080", true}, {"[::1]:0", true},
		{":8080", false}, {"0.0.0.0:8080", false}, {"[::]:8080", false}, {"10.1.2.3:8080", false}, {"node1.example:8080", false},
	} {
		if got := loopback(c.addr); got != c.ok {
			t.Errorf("loopback(%s) = %v", c.addr, got)
		}
	}
	n := &Node{cfg: Config{HTTP: "0.0.0.0:0"}}
	err := n.startHTTP()
	if err == nil || !strings.Contains(err.Error(), "http.token") || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("an open API beyond loopback: %v", err)
	}
	n.cfg.HTTPTLS = HTTPTLS{Cert: "missing.pem"}
	n.cfg.HTTPAuth.Token = "t"
	if err := n.startHTTP(); err == nil || !strings.Contains(err.Error(), "http.tls.key") {
		t.Fatalf("HTTPS without a key: %v", err)
	}
}
