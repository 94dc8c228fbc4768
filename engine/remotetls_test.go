//go:build !race

// Two actor systems in one process (see cluster_test.go for why not under
// -race).

package engine_test

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/internal/testpki"
)

type echo struct{}

func (echo) Receive(ctx actor.Context) {
	if s, ok := ctx.Message().(*actor.PID); ok { // any proto message will do
		ctx.Respond(s)
	}
}

// Nodes whose remote has the cluster's CA and a certificate it signed talk
// to each other; a node without a certificate, or with one of another CA,
// is refused.
func TestTwoNodesRemoteTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testpki.New(t, dir, "cluster")
	other := testpki.New(t, dir, "other")
	system := func(rt engine.RemoteTLS) *actor.ActorSystem {
		t.Helper()
		cfg := engine.DefaultConfig()
		cfg.Remote, cfg.RemoteTLS = "127.0.0.1:0", rt
		sys, err := engine.NewSystem(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sys.Shutdown)
		return sys
	}
	certA, keyA := ca.Issue(t, "a")
	certB, keyB := ca.Issue(t, "b")
	certX, keyX := other.Issue(t, "x")
	a := system(engine.RemoteTLS{CA: ca.File, Cert: certA, Key: keyA})
	pid, err := a.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return echo{} }), "echo")
	if err != nil {
		t.Fatal(err)
	}
	ask := func(from *actor.ActorSystem) error {
		remotePID := actor.NewPID(a.Address(), pid.Id)
		_, err := from.Root.RequestFuture(remotePID, actor.NewPID("x", "y"), 3*time.Second).Result()
		return err
	}
	if err := ask(system(engine.RemoteTLS{CA: ca.File, Cert: certB, Key: keyB})); err != nil {
		t.Fatalf("a node with the cluster's certificate: %v", err)
	}
	if err := ask(system(engine.RemoteTLS{})); err == nil {
		t.Fatal("a node without TLS reached a TLS node")
	}
	if err := ask(system(engine.RemoteTLS{CA: other.File, Cert: certX, Key: keyX})); err == nil {
		t.Fatal("a node with another CA's certificate reached the cluster")
	}
	cfg := engine.DefaultConfig()
	cfg.Remote, cfg.RemoteTLS = "127.0.0.1:0", engine.RemoteTLS{Cert: certA}
	if _, err := engine.NewSystem(cfg); err == nil {
		t.Fatal("remote TLS without a CA and key was taken")
	}
}
