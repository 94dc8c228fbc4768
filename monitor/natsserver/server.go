// Package natsserver serves an embedded NATS server for a local
// `stactor run` that was given no --nats (DESIGN §9): its taps and
// metrics subjects then live on a server in the run's own process, on
// loopback, which `stactor tap` and `stactor top` on the same machine
// reach. Core NATS only: a local run keeps its checkpoints on disk.
//
// A local run serves it lazily (Lazy): it listens on loopback at once,
// but starts the server only when the first client (a tap or top)
// connects there, and then carries each client's bytes to the server's
// in-process connections. Most runs are never tapped, and starting the
// server is the largest part of a local run's own start: its code, run
// once, is about 4 MiB of the process's resident pages (workload 2 of
// benchmarks/RESULTS.md: 51 → 47 MiB peak RSS).
//
// A server that fails to start is not silent: the client that asked for
// it is told why in the NATS protocol's own way (an INFO, then -ERR with
// the cause, which nats.go returns from Connect as "nats: …"), OnError
// hears it on the run's side, and the next client tries again.
package natsserver

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start serves NATS on host (127.0.0.1 for loopback) at an OS-assigned
// port; Shutdown stops it.
func Start(host string) (*server.Server, error) {
	return start(&server.Options{Host: host, Port: -1})
}

// start starts a server of o: quiet, no signal handlers, no system
// account (a local run needs neither its monitoring nor JetStream, and it
// costs a few ms of CPU at start and while idle).
func start(o *server.Options) (*server.Server, error) {
	o.NoLog, o.NoSigs, o.NoSystemAccount = true, true, true
	s, err := server.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("embedded NATS server on %s did not start", o.Host)
	}
	return s, nil
}

// ErrNotStarted is what Lazy.InProcessConn returns before a client has
// connected: nothing has asked for the server yet.
var ErrNotStarted = errors.New("embedded NATS server: not started (no client has connected)")

// Lazy is an embedded server started on first use: Listen listens on
// loopback, and the first connection accepted there starts the server
// (which itself listens nowhere); every accepted connection is then
// carried to one of the server's in-process connections. The process's
// own client connects with nats.InProcessServer(lazy) and
// nats.RetryOnFailedConnect: it is refused (ErrNotStarted) until the
// server runs, and OnStart tells it to try again then. Safe for
// concurrent use.
type Lazy struct {
	ln net.Listener
	wg sync.WaitGroup

	start func(*server.Options) (*server.Server, error) // start, or a test's

	mu      sync.Mutex // protects the fields below
	srv     *server.Server
	onStart func()
	onError func(error)
	conns   map[net.Conn]struct{}
	closed  bool
}

// Listen listens on host (127.0.0.1 for loopback) at an OS-assigned port.
func Listen(host string) (*Lazy, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	l := &Lazy{ln: ln, start: start, conns: map[net.Conn]struct{}{}}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// URL is where clients connect (nats://host:port).
func (l *Lazy) URL() string { return "nats://" + l.ln.Addr().String() }

// OnStart sets fn to run once the server has started, before the first
// client's bytes reach it (the process's own client reconnecting, so
// that it subscribes before the first client asks anything).
func (l *Lazy) OnStart(fn func()) {
	l.mu.Lock()
	l.onStart = fn
	l.mu.Unlock()
}

// OnError sets fn to hear every failure to start the server (each one
// refused a client, which was told the same cause); the next client tries
// again.
func (l *Lazy) OnError(fn func(error)) {
	l.mu.Lock()
	l.onError = fn
	l.mu.Unlock()
}

// InProcessConn is a new in-process connection to the server once it
// runs (nats.InProcessConnProvider), ErrNotStarted before.
func (l *Lazy) InProcessConn() (net.Conn, error) {
	l.mu.Lock()
	srv := l.srv
	l.mu.Unlock()
	if srv == nil {
		return nil, ErrNotStarted
	}
	return srv.InProcessConn()
}

// Started reports whether a client has started the server.
func (l *Lazy) Started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.srv != nil
}

func (l *Lazy) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // closed
		}
		if !l.track(c) {
			c.Close()
			return
		}
		srv, err := l.server()
		var sc net.Conn
		if err == nil {
			sc, err = srv.InProcessConn()
		}
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				l.untrack(c)
				c.Close()
				continue
			}
			l.mu.Lock()
			fn := l.onError
			l.mu.Unlock()
			if fn != nil {
				fn(err)
			}
			l.wg.Add(1)
			go l.refuse(c, err)
			continue
		}
		l.wg.Add(1)
		go l.carry(c, sc)
	}
}

// server is the server, started by the first call.
func (l *Lazy) server() (*server.Server, error) {
	l.mu.Lock()
	srv := l.srv
	l.mu.Unlock()
	if srv != nil {
		return srv, nil
	}
	srv, err := l.start(&server.Options{Host: "127.0.0.1", DontListen: true})
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		srv.Shutdown()
		return nil, net.ErrClosed
	}
	l.srv = srv
	fn := l.onStart
	l.mu.Unlock()
	if fn != nil {
		fn()
	}
	return srv, nil
}

// refuse tells a client why it gets no server, as a NATS server refuses a
// client: an INFO, so that the client sends its CONNECT, then -ERR with
// the cause, which the client returns from Connect. It waits (briefly) for
// the client to hang up, so that closing does not reset the connection
// before the client has read the cause.
func (l *Lazy) refuse(c net.Conn, cause error) {
	defer l.wg.Done()
	defer l.untrack(c)
	defer c.Close()
	msg := strings.NewReplacer("'", "", "\r", " ", "\n", " ").Replace(cause.Error())
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := fmt.Fprintf(c, "INFO {\"server_id\":\"stactor-embedded\",\"proto\":1,\"max_payload\":1048576,\"headers\":true}\r\n-ERR '%s'\r\n", msg); err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, c) // until the client closes or the deadline
}

// carry copies bytes both ways between an accepted connection and an
// in-process one until either side ends.
func (l *Lazy) carry(c, sc net.Conn) {
	defer l.wg.Done()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(sc, c)
		sc.Close()
		close(done)
	}()
	_, _ = io.Copy(c, sc)
	c.Close()
	<-done
	l.untrack(c)
}

func (l *Lazy) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.conns[c] = struct{}{}
	return true
}

func (l *Lazy) untrack(c net.Conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// Close stops listening, ends every client's connection and shuts the
// server down if it was started.
func (l *Lazy) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	for c := range l.conns {
		c.Close()
	}
	srv := l.srv
	l.mu.Unlock()
	l.ln.Close()
	if srv != nil {
		srv.Shutdown() // ends the in-process side of every carried connection
	}
	l.wg.Wait()
}
