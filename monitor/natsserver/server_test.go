package natsserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func start(t *testing.T) *Server {
	t.Helper()
	return startLimits(t, MaxPending, WriteDeadline)
}

func startLimits(t *testing.T, maxPending int, writeDeadline time.Duration) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1", withLimits(maxPending, writeDeadline))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func connect(t *testing.T, s *Server, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.URL(), append([]nats.Option{nats.Timeout(5 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func next(t *testing.T, sub *nats.Subscription) *nats.Msg {
	t.Helper()
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("%s: %v", sub.Subject, err)
	}
	return m
}

// none fails if sub has a message (after a round trip of its connection).
func none(t *testing.T, nc *nats.Conn, sub *nats.Subscription) {
	t.Helper()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if m, err := sub.NextMsg(50 * time.Millisecond); err == nil {
		t.Errorf("%s got %s %q, want nothing", sub.Subject, m.Subject, m.Data)
	}
}

// A local run's own client (in process) and a tap's (over TCP) talk
// through the server: literal and wildcard subscriptions, request and
// reply.
func TestInProcessAndTCPClients(t *testing.T) {
	s := start(t)
	own := connect(t, s, nats.InProcessServer(s))
	tap := connect(t, s)

	if _, err := own.Subscribe("stactor.x.control.job", func(m *nats.Msg) { _ = m.Respond(append([]byte("ack:"), m.Data...)) }); err != nil {
		t.Fatal(err)
	}
	lit, _ := tap.SubscribeSync("stactor.x.metrics.job")
	star, _ := tap.SubscribeSync("stactor.*.metrics.job")
	gt, _ := tap.SubscribeSync("stactor.x.>")
	other, _ := tap.SubscribeSync("stactor.y.>")
	if err := tap.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := own.Publish("stactor.x.metrics.job", []byte("snap")); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []*nats.Subscription{lit, star, gt} {
		if m := next(t, sub); m.Subject != "stactor.x.metrics.job" || string(m.Data) != "snap" {
			t.Errorf("%s got %s %q", sub.Subject, m.Subject, m.Data)
		}
	}
	none(t, tap, other)

	r, err := tap.Request("stactor.x.control.job", []byte("hi"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Data) != "ack:hi" {
		t.Errorf("reply %q, want ack:hi", r.Data)
	}
	// The reply went to the requester's inbox only.
	if m := next(t, gt); m.Subject != "stactor.x.control.job" || m.Reply == "" {
		t.Errorf("stactor.x.> got %s reply %q, want the request with its reply subject", m.Subject, m.Reply)
	}
	none(t, tap, gt)
}

// A request nobody subscribes to fails at once with nats.ErrNoResponders,
// as against nats-server (nats.go asks for that when the server takes
// headers).
func TestNoResponders(t *testing.T) {
	s := start(t)
	nc := connect(t, s)
	start := time.Now()
	_, err := nc.Request("nobody", []byte("x"), 5*time.Second)
	if !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("request to nobody: %v, want ErrNoResponders", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("no responders took %s, want at once", d)
	}
}

func TestHeaders(t *testing.T) {
	s := start(t)
	pub := connect(t, s)
	sub := connect(t, s)
	ss, _ := sub.SubscribeSync("h")
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg("h")
	m.Header.Set("K", "v1")
	m.Header.Add("K", "v2")
	m.Data = []byte("body")
	if err := pub.PublishMsg(m); err != nil {
		t.Fatal(err)
	}
	got := next(t, ss)
	if string(got.Data) != "body" || strings.Join(got.Header.Values("K"), ",") != "v1,v2" {
		t.Errorf("got %q with headers %v, want body with K: v1, v2", got.Data, got.Header)
	}

	// A client that did not say it takes headers gets the payload alone.
	raw := dial(t, s, `CONNECT {"verbose":false}`, "SUB h 7")
	if err := pub.PublishMsg(m); err != nil {
		t.Fatal(err)
	}
	raw.expect(t, "MSG h 7 4", "body")
}

func TestQueueGroups(t *testing.T) {
	s := start(t)
	nc := connect(t, s)
	a, _ := nc.QueueSubscribeSync("work.*", "g")
	b, _ := nc.QueueSubscribeSync("work.*", "g")
	plain, _ := nc.SubscribeSync("work.*")
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := range n {
		if err := nc.Publish(fmt.Sprintf("work.%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		pa, _, _ := a.Pending()
		pb, _, _ := b.Pending()
		pp, _, _ := plain.Pending()
		return pa+pb == n && pp == n
	})
	pa, _, _ := a.Pending()
	pb, _, _ := b.Pending()
	if pa == 0 || pb == 0 {
		t.Errorf("queue members got %d and %d of %d: want the group's messages spread over both", pa, pb, n)
	}
}

func TestAutoUnsubscribeAndNoEcho(t *testing.T) {
	s := start(t)
	nc := connect(t, s)
	sub, _ := nc.SubscribeSync("n")
	if err := sub.AutoUnsubscribe(3); err != nil {
		t.Fatal(err)
	}
	quiet := connect(t, s, nats.NoEcho())
	own, _ := quiet.SubscribeSync("n")
	if err := quiet.Flush(); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := quiet.Publish("n", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := quiet.Flush(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		next(t, sub)
	}
	if _, err := sub.NextMsg(100 * time.Millisecond); err == nil {
		t.Error("a fourth message after AutoUnsubscribe(3)")
	}
	none(t, quiet, own)
	s.mu.Lock()
	left := len(s.subs)
	s.mu.Unlock()
	if left != 1 {
		t.Errorf("%d subscriptions left on the server, want 1 (the no-echo client's)", left)
	}
}

// A client that stops reading is disconnected once MaxPending bytes
// wait for it (or once a write to it has blocked for WriteDeadline); the
// publisher and the other subscribers go on.
func TestSlowConsumerIsDisconnected(t *testing.T) {
	t.Run("pending", func(t *testing.T) { slowConsumer(t, 256<<10, time.Hour) })
	t.Run("write deadline", func(t *testing.T) { slowConsumer(t, 1<<30, 200*time.Millisecond) })
}

func slowConsumer(t *testing.T, maxPending int, writeDeadline time.Duration) {
	s := startLimits(t, maxPending, writeDeadline)
	stuck := dial(t, s, `CONNECT {"verbose":false}`, "SUB big 1")
	nc := connect(t, s)
	fine, _ := nc.SubscribeSync("big")
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 64<<10)
	const n = 400 // 25 MiB: more than the socket buffers and MaxPending
	for i := range n {
		if err := nc.Publish("big", payload); err != nil {
			t.Fatal(err)
		}
		if _, err := fine.NextMsg(5 * time.Second); err != nil {
			t.Fatalf("message %d to the reading subscriber: %v", i, err)
		}
	}
	waitFor(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.clients) == 1
	})
	// What reached the stuck client before its disconnection ends in EOF
	// or a reset, not in more data forever.
	_ = stuck.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, stuck.r); err != nil && !isReset(err) {
		t.Errorf("the slow consumer's connection: %v, want it closed by the server", err)
	}
}

// A client that sends PINGs and never reads the PONGs is a slow consumer
// too: what waits for it is bounded however it fills.
func TestPingFloodIsBounded(t *testing.T) {
	s := startLimits(t, 64<<10, time.Hour)
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ping := []byte(strings.Repeat("PING\r\n", 4096))
	deadline := time.Now().Add(10 * time.Second)
	for {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := c.Write(ping); err != nil {
			break // disconnected
		}
		if time.Now().After(deadline) {
			t.Fatal("a client sending PINGs and not reading is still connected after 10 s")
		}
	}
	waitFor(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.clients) == 0
	})
}

// Close ends a client whose writer is blocked on a connection nobody
// reads, after its reader has already stopped, at once rather than after
// the write deadline.
func TestCloseEndsABlockedWriter(t *testing.T) {
	const writeDeadline = 30 * time.Second
	s, err := Listen("127.0.0.1", withLimits(1<<30, writeDeadline))
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	payload := strings.Repeat("x", 64<<10)
	var b strings.Builder
	b.WriteString("CONNECT {\"verbose\":false}\r\nSUB > 1\r\n")
	for range 512 { // 32 MiB to itself: more than the sockets hold
		b.WriteString(fmt.Sprintf("PUB a %d\r\n%s\r\n", len(payload), payload))
	}
	go func() {
		_, _ = c.Write([]byte(b.String()))
		_ = c.(*net.TCPConn).CloseWrite() // the reader stops; the writer is stuck
	}()
	subs := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.subs)
	}
	waitFor(t, func() bool { return subs() == 1 })
	waitFor(t, func() bool { return subs() == 0 }) // the reader has stopped
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s with a client's writer blocked, want at once (the write deadline is %s)", d, writeDeadline)
	}
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && strings.Contains(oe.Err.Error(), "reset")
}

// Protocol mistakes are answered as nats-server answers them: -ERR with
// the reason, then the connection is closed; a bad subject is refused
// without closing.
func TestProtocolErrors(t *testing.T) {
	s := start(t)
	for _, c := range []struct {
		name  string
		send  []string
		want  []string
		close bool
	}{
		{"unknown operation", []string{"HELLO"}, []string{"-ERR 'Unknown Protocol Operation'"}, true},
		{"payload too large", []string{fmt.Sprintf("PUB a %d", MaxPayload+1)}, []string{"-ERR 'Maximum Payload Violation'"}, true},
		{"control line too long", []string{"SUB " + strings.Repeat("a", maxControlLine) + " 1"}, []string{"-ERR 'maximum control line exceeded'"}, true},
		{"CONNECT not JSON", []string{"CONNECT {"}, []string{"-ERR 'Protocol Violation: CONNECT is not JSON'"}, true},
		{"PUB without size", []string{"PUB a"}, []string{"-ERR 'Protocol Violation: PUB subject [reply] size'"}, true},
		{"PUB longer than its size", []string{"PUB a 1", "xyz"}, []string{"-ERR 'Protocol Violation: the message is longer than its size'"}, true},
		{"HPUB without NATS/1.0", []string{`CONNECT {"headers":true}`, "HPUB a 2 2", "ab"}, []string{"+OK", "-ERR 'Protocol Violation: headers do not start with NATS/1.0'"}, true},
		{"HPUB without headers", []string{"HPUB a 12 14", "NATS/1.0\r\n\r\nhi"}, []string{"-ERR 'Protocol Violation: HPUB from a client that did not ask for headers'"}, true},
		{"no_responders without headers", []string{`CONNECT {"no_responders":true}`}, []string{"-ERR 'no responders requires headers support'"}, true},
		{"signed size", []string{"PUB a +2", "hi"}, []string{"-ERR 'Protocol Violation: bad message size'"}, true},
		{"bad subject", []string{`CONNECT {"verbose":false}`, "SUB a..b 1", "PING"}, []string{"-ERR 'Invalid Subject'", "PONG"}, false},
		{"wildcard publish, pedantic", []string{`CONNECT {"verbose":false}`, "SUB a.> 1", "PUB a.* 1", "x", "PING"}, []string{"-ERR 'Invalid Publish Subject'", "MSG a.* 1 1", "x", "PONG"}, false},
		{"wildcard publish", []string{`CONNECT {"verbose":false,"pedantic":false}`, "SUB a.> 1", "PUB a.* 1", "x", "PUB a..b 1", "y", "PING"}, []string{"MSG a.* 1 1", "x", "PONG"}, false},
		{"headers and plain messages", []string{`CONNECT {"verbose":false,"headers":true}`, "SUB a 1", "PUB a 2", "hi", "HPUB a 12 14", "NATS/1.0\r\n\r\nhi", "PING"},
			[]string{"MSG a 1 2", "hi", "HMSG a 1 12 14", "NATS/1.0", "", "hi", "PONG"}, false},
		{"only spaces and tabs separate", []string{`CONNECT {"verbose":false}`, "SUB a\u00a0b\tq 1", "PUB a\u00a0b 1", "x", "PING"}, []string{"MSG a\u00a0b 1 1", "x", "PONG"}, false},
		{"verbose", []string{`CONNECT {"verbose":true}`, "SUB a 1", "PUB a 2", "hi", "UNSUB 1", "ping"},
			[]string{"+OK", "+OK", "+OK", "MSG a 1 2", "hi", "+OK", "PONG"}, false},
		{"verbose until CONNECT", []string{"SUB a 1", "PUB a 1", "x", "PING"}, []string{"+OK", "+OK", "MSG a 1 1", "x", "PONG"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := dial(t, s)
			cl.send(t, c.send...)
			cl.expect(t, c.want...)
			if c.close {
				cl.closed(t)
			}
		})
	}
}

func TestClose(t *testing.T) {
	s, err := Listen("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(s.URL(), nats.NoReconnect())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	closed := make(chan struct{})
	nc.SetClosedHandler(func(*nats.Conn) { close(closed) })
	s.Close()
	s.Close()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("a client still connected 5 s after Close")
	}
	if _, err := nats.Connect(s.URL(), nats.Timeout(time.Second)); err == nil {
		t.Error("connected after Close")
	}
	if _, err := s.InProcessConn(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("InProcessConn after Close: %v, want net.ErrClosed", err)
	}
}

// rawClient speaks the protocol by hand.
type rawClient struct {
	c net.Conn
	r *bufio.Reader
}

// dial connects, reads the INFO and sends lines, then PING, and reads
// until the PONG.
func dial(t *testing.T, s *Server, lines ...string) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := &rawClient{c: c, r: bufio.NewReader(c)}
	rc.expectPrefix(t, `INFO {"server_id":`)
	if len(lines) > 0 {
		rc.send(t, append(lines, "PING")...)
		rc.expect(t, "PONG")
	}
	return rc
}

func (rc *rawClient) send(t *testing.T, lines ...string) {
	t.Helper()
	if _, err := rc.c.Write([]byte(strings.Join(lines, "\r\n") + "\r\n")); err != nil {
		t.Fatal(err)
	}
}

func (rc *rawClient) line(t *testing.T) string {
	t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	l, err := rc.r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading: %v (after %q)", err, l)
	}
	return strings.TrimSuffix(l, "\r\n")
}

func (rc *rawClient) expect(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if l := rc.line(t); l != w {
			t.Fatalf("got %q, want %q", l, w)
		}
	}
}

func (rc *rawClient) expectPrefix(t *testing.T, prefix string) {
	t.Helper()
	if l := rc.line(t); !strings.HasPrefix(l, prefix) {
		t.Fatalf("got %q, want %s…", l, prefix)
	}
}

// closed fails unless the server closes the connection with nothing more.
func (rc *rawClient) closed(t *testing.T) {
	t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, err := io.ReadAll(rc.r)
	if err != nil && !isReset(err) || len(rest) > 0 {
		t.Fatalf("after the error: %q, %v; want the connection closed", rest, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// With a token, only a client that CONNECTs with it is served: through
// nats.go, over TCP and in process.
func TestToken(t *testing.T) {
	s, err := Listen("127.0.0.1", WithToken("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, opts := range [][]nats.Option{nil, {nats.Token("wrong")}, {nats.InProcessServer(s)}} {
		nc, err := nats.Connect(s.URL(), append(opts, nats.Timeout(5*time.Second), nats.NoReconnect())...)
		if err == nil {
			nc.Close()
			t.Errorf("connected without the token (%d options)", len(opts))
		} else if !strings.Contains(strings.ToLower(err.Error()), "authorization violation") {
			t.Errorf("without the token: %v, want an authorization violation", err)
		}
	}
	own := connect(t, s, nats.Token("s3cret"), nats.InProcessServer(s))
	tap := connect(t, s, nats.Token("s3cret"))
	sub, _ := tap.SubscribeSync("stactor.x.metrics.job")
	if err := tap.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := own.Publish("stactor.x.metrics.job", []byte("snap")); err != nil {
		t.Fatal(err)
	}
	if m := next(t, sub); string(m.Data) != "snap" {
		t.Errorf("got %q", m.Data)
	}
}
