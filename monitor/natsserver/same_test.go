package natsserver

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/internal/natstest"
)

// The same exchanges against nats-server and against this server give
// every subscriber the same messages (subject, reply, data, headers).
func TestSameMessagesAsNATSServer(t *testing.T) {
	ns, err := natstest.Start("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	want := exchange(t, ns.ClientURL())
	got := exchange(t, start(t).URL())
	if !slices.Equal(got, want) {
		t.Errorf("this server delivered\n  %s\nnats-server delivered\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if len(want) < 20 {
		t.Errorf("only %d deliveries: the exchange tests little", len(want))
	}
}

// exchange runs one script of subscriptions and publishes against url
// and returns what each subscription received, sorted.
func exchange(t *testing.T, url string) []string {
	t.Helper()
	a, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := nats.Connect(url, nats.NoEcho())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var subs []*nats.Subscription
	for _, c := range []*nats.Conn{a, b} {
		for _, subj := range []string{"x", "x.*", "x.>", "*.y", ">", "x.y.z", "*.*.z", "q.r"} {
			s, err := c.SubscribeSync(subj)
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, s)
		}
	}
	limited, _ := a.SubscribeSync("x.y")
	_ = limited.AutoUnsubscribe(2)
	gone, _ := b.SubscribeSync("x.y")
	subs = append(subs, limited, gone)
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	_ = gone.Unsubscribe()
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, subj := range []string{"x", "x.y", "x.y.z", "a.y", "q.r", "x.y", "z.q.z", "x.y"} {
		pub := a
		if i%2 == 1 {
			pub = b
		}
		m := nats.NewMsg(subj)
		m.Data = []byte(fmt.Sprintf("m%d", i))
		if i%3 == 0 {
			m.Reply = "r." + subj
		}
		if i%4 == 0 {
			m.Header.Set("N", fmt.Sprint(i))
		}
		if err := pub.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	// Each connection's messages are queued for it before the answer to
	// its next PING: after a round trip of each, once the other's
	// publishes are through, every delivery is pending.
	for _, c := range []*nats.Conn{a, b, a, b} {
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for i, s := range subs {
		n, _, _ := s.Pending()
		for range n {
			m, err := s.NextMsg(time.Second)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("sub %d (%s): %s reply %q %q %v", i, s.Subject, m.Subject, m.Reply, m.Data, m.Header))
		}
	}
	slices.Sort(out)
	return out
}

// Protocol mistakes get the same -ERR from both, and the same
// connection afterwards (closed or not).
func TestSameErrorsAsNATSServer(t *testing.T) {
	ns, err := natstest.Start("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	ours := start(t)
	for _, lines := range [][]string{
		// Each publish matches at most one subscription: the order of a
		// message's deliveries to several is the server's own.
		{"HELLO"},
		{fmt.Sprintf("PUB a %d", MaxPayload+1)},
		{"SUB " + strings.Repeat("a", maxControlLine) + " 1"},
		{"SUB a..b 1", "PING"},
		{`CONNECT {"verbose":true}`, "SUB a 1", "PUB a 2", "hi", "UNSUB 1", "ping"},
		{"SUB a 1", "UNSUB 1 2", "PUB a 1", "x", "PUB a 1", "y", "PUB a 1", "z", "PING"},
		{"sub a 1", "pub a 1", "x", "PING"},
		{"CONNECT {}", "SUB a.* 2", "SUB b.> 3 ", "PUB a.b r 2", "hi", "PUB b.c.d 1", "x", "PUB b 1", "y", "PING"},
		{`CONNECT {"verbose":false}`, "SUB a 1", "PUB a 1", "x", "PING"},
		{`CONNECT {"verbose":false,"echo":false}`, "SUB a 1", "PUB a 1", "x", "PING"},
		// Wildcards in a publish subject are literals to a client that is
		// not pedantic; a subject with an empty token reaches no one.
		{`CONNECT {"verbose":false}`, "SUB a.* 1", "PUB a.* 1", "x", "PUB a..b 1", "y", "PUB a. 1", "z", "PING"},
		{`CONNECT {"verbose":false,"pedantic":true}`, "SUB a.* 1", "PUB a.* 1", "x", "PING"},
		// A plain message reaches a client that takes headers as MSG.
		{`CONNECT {"verbose":false,"headers":true}`, "SUB a 1", "PUB a 2", "hi", "HPUB a 0 2", "hi", "HPUB a 12 14", "NATS/1.0\r\n\r\nhi", "PING"},
		{`CONNECT {"verbose":false}`, "HPUB a 12 14", "NATS/1.0\r\n\r\nhi", "PING"},
		{`CONNECT {"verbose":false,"no_responders":true}`, "PING"},
		{`CONNECT {"verbose":false,"headers":true,"no_responders":true}`, "SUB r.* 1", "PUB a r.1 2", "hi", "PING"},
		{`CONNECT {"verbose":false,"headers":true}`, `CONNECT {"verbose":false}`, "SUB a 1", "HPUB a 12 14", "NATS/1.0\r\n\r\nhi", "PING"},
		// Only spaces and tabs separate arguments.
		{`CONNECT {"verbose":false}`, "SUB a\u00a0b 1", "PUB a\u00a0b 1", "x", "PING"},
		{`CONNECT {"verbose":false}`, "PUB a +2", "hi", "PING"},
		{`CONNECT {"verbose":false}`, "PUB a 99999999999999999999", "PING"},
		{"CONNECT {}", "SUB a 1", "PING", "UNSUB 1", "PUB a 1", "x", "PING"},
	} {
		sameTalk(t, ns, ours, lines, true)
	}
}

// sameTalk fails unless this server answers lines as nats-server does;
// with explained, also when it only says why before closing where
// nats-server closes without a word (saysWhy).
func sameTalk(t *testing.T, ns *server.Server, ours *Server, lines []string, explained bool) {
	t.Helper()
	want := talk(t, strings.TrimPrefix(ns.ClientURL(), "nats://"), lines)
	got := talk(t, strings.TrimPrefix(ours.URL(), "nats://"), lines)
	if !slices.Equal(got, want) && !(explained && saysWhy(got, want)) {
		t.Errorf("%.200q:\n  this server: %q\n  nats-server: %q", lines, got, want)
	}
}

// saysWhy reports whether got is want but for one -ERR before the
// connection is closed where nats-server closes it without a word (a
// size that is not digits, HPUB from a client that did not ask for
// headers): this server says why.
func saysWhy(got, want []string) bool {
	n := len(want)
	return n > 0 && want[n-1] == "(closed)" && len(got) == n+1 && slices.Equal(got[:n-1], want[:n-1]) &&
		strings.HasPrefix(got[n-1], "-ERR '") && got[n] == "(closed)"
}

// With a token, both refuse every operation before a CONNECT with it.
func TestSameTokenChecksAsNATSServer(t *testing.T) {
	ns, err := natstest.Start("127.0.0.1", func(o *server.Options) { o.Authorization = "s3cret" })
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	ours, err := Listen("127.0.0.1", WithToken("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	for _, lines := range [][]string{
		{"PING"},
		{"SUB a 1", "PING"},
		{`CONNECT {"verbose":false}`, "PING"},
		{`CONNECT {"verbose":false,"auth_token":"nope"}`, "PING"},
		{`CONNECT {"verbose":false,"auth_token":"s3cret"}`, "SUB a 1", "PUB a 1", "x", "PING"},
	} {
		sameTalk(t, ns, ours, lines, false)
	}
}

// talk sends lines and returns every line the server sends back but its
// INFO, until it closes the connection, answers the last of the lines'
// PINGs, or is quiet for 300 ms.
func talk(t *testing.T, addr string, lines []string) []string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(strings.Join(lines, "\r\n") + "\r\n")); err != nil {
		t.Fatal(err)
	}
	pings := 0
	for _, l := range lines {
		if strings.EqualFold(l, "PING") {
			pings++
		}
	}
	var got []string
	r := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		l, err := r.ReadString('\n')
		if err != nil {
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				got = append(got, "(closed)")
			}
			return got
		}
		if !strings.HasPrefix(l, "INFO ") {
			got = append(got, strings.TrimSuffix(l, "\r\n"))
		}
		if l == "PONG\r\n" {
			if pings--; pings == 0 {
				return got
			}
		}
	}
}
