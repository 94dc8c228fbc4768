package natsserver

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// Whatever a client sends, the server neither panics nor hangs: it
// answers or disconnects that client, and serves the next one.
func FuzzServer(f *testing.F) {
	for _, seed := range []string{
		"CONNECT {\"verbose\":false,\"headers\":true,\"no_responders\":true}\r\nSUB a.* q 1\r\nSUB _INBOX.> 2\r\nPUB a.b _INBOX.x 2\r\nhi\r\nPING\r\n",
		"HPUB a.b r 12 14\r\nNATS/1.0\r\n\r\nhi\r\nUNSUB 1 3\r\n",
		"sub > 1\r\npub x 3\r\nabc\r\nunsub 1\r\npub y -1\r\n",
		"PUB a 99999999999999999999\r\n",
		"CONNECT {\"echo\":false}\r\nSUB a 1\r\nPUB a 0\r\n\r\nHPUB a 8 4\r\n",
		"\r\n\r\nPING\nPONG\r\nINFO {}\r\n",
	} {
		f.Add([]byte(seed))
	}
	s, err := Listen("127.0.0.1")
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	watcher, err := nats.Connect(s.URL())
	if err != nil {
		f.Fatal(err)
	}
	defer watcher.Close()
	if _, err := watcher.Subscribe(">", func(*nats.Msg) {}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "nats://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		read := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, c)
			read <- err
		}()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		_, _ = c.Write(in)
		_ = c.(*net.TCPConn).CloseWrite()
		if err := <-read; err != nil && !isReset(err) {
			t.Fatalf("the server did not end the connection after the client's end: %v", err)
		}
		waitFor(t, func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return len(s.clients) == 1
		})
		if err := watcher.FlushTimeout(5 * time.Second); err != nil {
			t.Fatalf("another client after this one: %v", err)
		}
	})
}
