//go:build !race

// protoactor's remote.Start sets gRPC's global logger on every start, which
// the race detector reports when two systems start in one process; these
// tests run in the suite's non-race pass (go tool task test:nonrace).

package engine_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage/localfile"
)

func startNATS(t *testing.T) *nats.Conn {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(srv.Shutdown)
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// clusterConfig is the engine config of a node that shares the process
// with others: remote on a free port, channels over nc, checkpoints in a
// folder of the test.
func clusterConfig(t *testing.T, nc *nats.Conn) engine.Config {
	t.Helper()
	store, err := localfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	cfg.Task.BatchSize = 16
	cfg.Task.NATS = nc
	cfg.Task.Prefix = fmt.Sprintf("t%d", time.Now().UnixNano())
	cfg.Store = store
	cfg.Remote = "127.0.0.1:0"
	return cfg
}

// startTwoNodes starts the master's engine (config a, worker "a") and a
// worker-only node (config b, worker "b"), each worker with slots slots;
// both stop when the test ends.
func startTwoNodes(t *testing.T, a, b engine.Config, slots int) (*engine.Engine, *engine.Worker) {
	t.Helper()
	master, err := engine.Start(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(master.Stop)
	w, err := engine.StartWorker(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !w.System.IsStopped() {
			w.Stop()
		}
	})
	master.RemoveWorker("local")
	master.AddWorker(resources.Worker{ID: "a", Address: master.System.Address(), FixedSlots: slots})
	master.AddWorker(resources.Worker{ID: "b", Address: w.System.Address(), FixedSlots: slots})
	return master, w
}

// Two nodes in one process: the master's engine and a worker-only actor
// system, talking over protoactor remote, with channels between them over
// NATS. Subtasks are spread over both workers, so the redistributing edge
// crosses nodes; a failure mid-way is restored from a checkpoint and the
// committed output holds every row once.
func TestTwoNodesOverRemoteAndNATS(t *testing.T) {
	nc := startNATS(t)
	cfg := clusterConfig(t, nc)
	master, _ := startTwoNodes(t, cfg, cfg, 3)

	submit(t, master, "two-nodes", `
env { checkpoint.interval = 40, job.retry.times = 2, job.retry.interval.seconds = 0, read_limit.rows_per_second = 3000 }
source { EngineTestSource { rows = 1500, parallelism = 2, fail_at = 900, fail_once = "two-nodes" } }
sink { EngineTestSink { key = "two-nodes", parallelism = 3 } }`)
	st := wait(t, master, "two-nodes")
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if st.Pipelines[0].Attempt < 1 {
		t.Fatal("the pipeline was not restored")
	}
	_, committed := got.get("two-nodes")
	checkExactlyOnce(t, "committed", committed, 3000)
	if stats := nc.Stats(); stats.OutMsgs == 0 || stats.InMsgs == 0 {
		t.Fatalf("no channel crossed the nodes over NATS: %+v", stats)
	}
}

// Losing a worker fails its pipelines over onto the workers left.
func TestWorkerLostFailsOverToRemainingWorker(t *testing.T) {
	nc := startNATS(t)
	cfg := clusterConfig(t, nc)
	cfg.CancelTimeout = 500 * time.Millisecond
	master, w := startTwoNodes(t, cfg, cfg, 10)
	submit(t, master, "lost", `
env { checkpoint.interval = 40, job.retry.times = 3, job.retry.interval.seconds = 0, read_limit.rows_per_second = 2000 }
source { EngineTestSource { rows = 2000, parallelism = 2 } }
sink { EngineTestSink { key = "lost", parallelism = 3 } }`)
	time.Sleep(500 * time.Millisecond)
	w.Stop() // the worker's process dies
	master.RemoveWorker("b")
	st := wait(t, master, "lost")
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	_, committed := got.get("lost")
	checkExactlyOnce(t, "committed", committed, 4000)
}

// A subtask deployed to a worker whose address is dead (it died between
// the grant and the deploy, and nothing has told the ResourceManager) fails
// its pipeline over once protoactor gives the deploy up as undeliverable,
// instead of leaving the pipeline waiting for a reply that never comes.
func TestDeployToADeadWorkerFailsOver(t *testing.T) {
	nc := startNATS(t)
	cfg := clusterConfig(t, nc)
	master, err := engine.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(master.Stop)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens there now
	master.RemoveWorker("local")
	master.AddWorker(resources.Worker{ID: "a", Address: master.System.Address(), FixedSlots: 1})
	master.AddWorker(resources.Worker{ID: "dead", Address: dead, FixedSlots: 1})
	submit(t, master, "deploy-dead", `
env { job.retry.times = 3, job.retry.interval.seconds = 0 }
source { EngineTestSource { rows = 500, parallelism = 2 } }
sink { EngineTestSink { key = "deploy-dead", parallelism = 2 } }`)
	// protoactor answers a request to an unreachable address after its
	// connect retries (5 × 2 s).
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := master.Status("deploy-dead")
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Pipelines) > 0 && st.Pipelines[0].Attempt >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s (%s), pipeline %v 30 s after deploying onto a dead worker: it waits for a reply that never comes", st.State, st.Error, st.Pipelines)
		}
		time.Sleep(50 * time.Millisecond)
	}
	master.RemoveWorker("dead")
	master.AddWorker(resources.Worker{ID: "a", Address: master.System.Address(), FixedSlots: 2})
	st := wait(t, master, "deploy-dead")
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	_, committed := got.get("deploy-dead")
	checkExactlyOnce(t, "committed", committed, 1000)
}
