package consul_test

import (
	"context"
	"testing"
	"time"

	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/cluster/consul/consultest"
	"github.com/stactor/stactor/internal/testpki"
)

// Watch over HTTPS sees every node join (a blocking health query wakes on
// each change).
func TestWatchOverTLS(t *testing.T) {
	need(t)
	bin, err := consulBinary()
	if err != nil {
		t.Fatal(err)
	}
	pki := testpki.New(t, t.TempDir(), "consul")
	cert, key := pki.Issue(t, "agent")
	agent, err := consultest.Start(bin, consultest.WithNode("tlsw"), consultest.WithTLS(pki.File, cert, key))
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Stop()
	cs := consul.ClientSettings{Address: agent.Addr, CAFile: pki.File, CertFile: cert, KeyFile: key}
	c1, err := consul.NewClient(cs)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := consul.NewClient(cs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	ch := consul.Watch(ctx, c1, "w")
	for i, id := range []string{"a", "b"} {
		reg, err := consul.Register(ctx, c2, consul.Node{ID: id, Cluster: "w", Address: "127.0.0.1:1", Roles: []string{"worker"}})
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Deregister(context.Background())

		deadline := time.After(15 * time.Second)
		for {
			select {
			case ms := <-ch:
				if len(ms) == i+1 {
					goto next
				}
			case <-deadline:
				t.Fatalf("no update with %d members", i+1)
			}
		}
	next:
	}
}
