package node

import (
	"net"
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
