//go:build !race

package engine_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/state"
)

// A NATS server restart mid-job (DESIGN §6: "NATS connection, a sequence
// gap → the pipeline is restored from its latest checkpoint"): the
// channels that crossed the nodes fail, the pipeline fails over once the
// connection is back, and the job ends with every row committed once — it
// never hangs.
func TestTwoNodesSurviveNATSRestart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	startServer := func() *server.Server {
		t.Helper()
		srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true})
		if err != nil {
			t.Fatal(err)
		}
		go srv.Start()
		if !srv.ReadyForConnections(10 * time.Second) {
			t.Fatal("nats-server did not start")
		}
		return srv
	}
	srv := startServer()
	reconnected := make(chan struct{}, 16)
	nc, err := nats.Connect(srv.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { reconnected <- struct{}{} }))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	cfg := clusterConfig(t, nc)
	cfg.CancelTimeout = time.Second
	master, _ := startTwoNodes(t, cfg, cfg, 3)

	key := fmt.Sprintf("nats-restart-%d", time.Now().UnixNano()) // results are per key, and -count repeats
	submit(t, master, key, `
env { checkpoint.interval = 50, job.retry.times = 5, job.retry.interval.seconds = 1, read_limit.rows_per_second = 2000 }
source { EngineTestSource { rows = 3000, parallelism = 2 } }
sink { EngineTestSink { key = "`+key+`", parallelism = 3 } }`)
	time.Sleep(700 * time.Millisecond)
	srv.Shutdown()
	srv.WaitForShutdown()
	time.Sleep(300 * time.Millisecond)
	srv = startServer()
	defer srv.Shutdown()
	select {
	case <-reconnected:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not reconnect")
	}
	st := wait(t, master, key)
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if st.Pipelines[0].Attempt < 1 {
		t.Fatal("the pipeline was not failed over after the NATS restart")
	}
	_, committed := got.get(key)
	checkExactlyOnce(t, "committed", committed, 6000)
}
