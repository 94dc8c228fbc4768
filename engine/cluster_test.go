//go:build !race

// protoactor's remote.Start sets gRPC's global logger on every start, which
// the race detector reports when two systems start in one process; these
// tests run in the suite's non-race pass (go tool task test:nonrace).

package engine_test

import (
	"fmt"
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
