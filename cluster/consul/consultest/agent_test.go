package consultest

import (
	"os"
	"testing"

	"github.com/hashicorp/consul/api"
)

// With persistence the agent's KV and sessions survive a SIGKILL and a
// restart on the same address, and WithClientAddr serves the HTTP API
// beyond loopback; a -dev agent forgets everything.
func TestPersistentAgentSurvivesKill(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Binary(root, os.Stderr)
	if err != nil {
		t.Skipf("no Consul agent: %v", err)
	}
	for _, persist := range []bool{true, false} {
		opts := []Option{WithClientAddr("0.0.0.0")}
		if persist {
			opts = append(opts, WithPersistence())
		}
		a, err := Start(bin, opts...)
		if err != nil {
			t.Fatal(err)
		}
		kv := a.Client.KV()
		if _, err := kv.Put(&api.KVPair{Key: "chaos/k", Value: []byte("v")}, nil); err != nil {
			a.Stop()
			t.Fatal(err)
		}
		addr := a.Addr
		a.Kill()
		if _, _, err := kv.Get("chaos/k", nil); err == nil {
			t.Error("a killed agent still answers")
		}
		if err := a.Restart(); err != nil {
			t.Fatal(err)
		}
		pair, _, err := kv.Get("chaos/k", nil)
		a.Stop()
		switch {
		case err != nil:
			t.Fatalf("persistence %v: after the restart: %v", persist, err)
		case a.Addr != addr:
			t.Fatalf("restarted at %s, was %s", a.Addr, addr)
		case persist && (pair == nil || string(pair.Value) != "v"):
			t.Fatalf("a persistent agent lost its KV in the kill: %+v", pair)
		case !persist && pair != nil:
			t.Fatalf("a -dev agent kept its KV across a kill: %+v", pair)
		}
	}
}
