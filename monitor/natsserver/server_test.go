package natsserver

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// The process's own client, connected as a local run connects it, is
// refused until a client reaches the listener; then the server starts,
// the own client subscribes before the first client's bytes arrive, and
// both talk through the server.
func TestLazyStartsOnFirstClient(t *testing.T) {
	l, err := Listen("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.InProcessConn(); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("InProcessConn before any client: %v, want ErrNotStarted", err)
	}
	connected := make(chan struct{})
	own, err := nats.Connect(l.URL(), nats.InProcessServer(l), nats.RetryOnFailedConnect(true), nats.ReconnectBufSize(-1),
		nats.MaxReconnects(-1), nats.ConnectHandler(func(*nats.Conn) { close(connected) }))
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	if _, err := own.Subscribe("svc", func(m *nats.Msg) { _ = m.Respond(append([]byte("re:"), m.Data...)) }); err != nil {
		t.Fatal(err)
	}
	// Not buffered while refused: a publish fails at once.
	if err := own.Publish("metrics", []byte("x")); err == nil {
		t.Error("a publish before the server started was taken; want it refused, not buffered")
	}
	time.Sleep(100 * time.Millisecond)
	if l.Started() || own.IsConnected() {
		t.Fatalf("started %v, own client connected %v before any client connected", l.Started(), own.IsConnected())
	}
	l.OnStart(func() {
		if own.ForceReconnect() == nil {
			select {
			case <-connected:
			case <-time.After(5 * time.Second):
				t.Error("own client not connected 5 s after the server started")
			}
		}
	})

	c, err := nats.Connect(l.URL(), nats.Timeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !l.Started() || !own.IsConnected() {
		t.Fatalf("after a client connected: started %v, own client connected %v", l.Started(), own.IsConnected())
	}
	// The own client's subscription was sent on connecting: the first
	// request is answered.
	r, err := c.Request("svc", []byte("ping"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Data) != "re:ping" {
		t.Errorf("reply %q, want re:ping", r.Data)
	}
	// A second client shares the server.
	c2, err := nats.Connect(l.URL(), nats.Timeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	sub, err := c2.SubscribeSync("metrics")
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := own.Publish("metrics", []byte("snap")); err != nil {
		t.Fatal(err)
	}
	if m, err := sub.NextMsg(5 * time.Second); err != nil || string(m.Data) != "snap" {
		t.Fatalf("second client: %v %v, want snap", m, err)
	}

	l.Close()
	if _, err := c.Request("svc", []byte("ping"), 500*time.Millisecond); err == nil {
		t.Error("a request after Close was answered")
	}
	if _, err := nats.Connect(l.URL(), nats.Timeout(time.Second)); err == nil {
		t.Error("connected after Close")
	}
}

// Closing a Lazy nobody connected to starts nothing and ends its listener.
func TestLazyCloseUnstarted(t *testing.T) {
	l, err := Listen("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	l.Close()
	if l.Started() {
		t.Error("started by Close")
	}
	if _, err := nats.Connect(l.URL(), nats.Timeout(time.Second)); err == nil {
		t.Error("connected after Close")
	}
}

// A server that fails to start refuses the client with the cause, which
// nats.go returns from Connect, and tells OnError; the next client starts
// it.
func TestLazyStartFailureNamesTheCause(t *testing.T) {
	l, err := Listen("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fails := 1
	l.start = func(o *server.Options) (*server.Server, error) {
		if fails > 0 {
			fails--
			return nil, errors.New("embedded NATS server: no room for 'it'\r\nat all")
		}
		return start(o)
	}
	heard := make(chan error, 4)
	l.OnError(func(err error) { heard <- err })

	_, err = nats.Connect(l.URL(), nats.Timeout(5*time.Second), nats.NoReconnect())
	if err == nil || !strings.Contains(err.Error(), "embedded NATS server: no room for it") {
		t.Fatalf("Connect while the server fails to start: %v, want the cause", err)
	}
	select {
	case e := <-heard:
		if !strings.Contains(e.Error(), "no room") {
			t.Errorf("OnError heard %v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnError not called")
	}
	if l.Started() {
		t.Fatal("started after a failed start")
	}
	c, err := nats.Connect(l.URL(), nats.Timeout(5*time.Second))
	if err != nil {
		t.Fatalf("second client after a failed start: %v", err)
	}
	defer c.Close()
	if err := c.Flush(); err != nil || !l.Started() {
		t.Fatalf("second client: flush %v, started %v", err, l.Started())
	}
}
