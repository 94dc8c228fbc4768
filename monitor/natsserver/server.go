package natsserver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nuid"
)

const (
	// MaxPayload is the largest message a client may publish (nats-server's
	// default, which nats.go reads from the server's INFO).
	MaxPayload = 1 << 20
	// MaxPending is how many bytes of messages may wait for one client
	// before it is disconnected as a slow consumer.
	MaxPending = 8 << 20
	// WriteDeadline is how long a write to a client may block before the
	// client is disconnected (nats-server's default).
	WriteDeadline = 10 * time.Second
	// maxControlLine is the longest protocol line but a CONNECT's.
	maxControlLine = 4096
	// maxConnectLine is the longest CONNECT line (it carries the
	// client's name and options), and the room a client's lines are read
	// in.
	maxConnectLine = 16 << 10
)

// Server serves core NATS on a loopback listener and to in-process
// connections. Safe for concurrent use.
type Server struct {
	ln            net.Listener
	id            string
	token         string        // WithToken's; "" for none
	maxPending    int           // MaxPending, or a test's
	writeDeadline time.Duration // WriteDeadline, or a test's

	mu      sync.Mutex           // protects the fields below, and every client's opts and subs
	clients map[*client]struct{} // from connecting until the client's writer stops
	subs    map[*subscription]struct{}
	nextID  uint64
	closed  bool

	wg sync.WaitGroup // the accept loop and every client's two goroutines
}

// Option configures a Server.
type Option func(*Server)

// WithToken requires every client to send token as its CONNECT's
// auth_token before anything else (nats.Token; the NATS CLI's --token),
// as nats-server's authorization token does: a client without it is told
// "Authorization Violation" and disconnected. A local run puts its token
// in STACTOR_HOME/run/JOB.nats, readable by its user only, so that the
// rows its taps publish are not open to every user of the machine.
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// withLimits sets MaxPending and WriteDeadline (a test's).
func withLimits(maxPending int, writeDeadline time.Duration) Option {
	return func(s *Server) { s.maxPending, s.writeDeadline = maxPending, writeDeadline }
}

// Listen serves on host (127.0.0.1 for loopback) at an OS-assigned port.
func Listen(host string, opts ...Option) (*Server, error) {
	s := &Server{
		id: nuid.Next(), maxPending: MaxPending, writeDeadline: WriteDeadline,
		clients: map[*client]struct{}{}, subs: map[*subscription]struct{}{},
	}
	for _, o := range opts {
		o(s)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("NATS server: %w", err)
	}
	s.ln = ln
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// URL is where clients connect (nats://host:port).
func (s *Server) URL() string { return "nats://" + s.ln.Addr().String() }

// InProcessConn is a new connection to the server through a pipe, for a
// client in this process (nats.InProcessServer); net.ErrClosed after
// Close.
func (s *Server) InProcessConn() (net.Conn, error) {
	ours, theirs := net.Pipe()
	if !s.serve(ours) {
		return nil, fmt.Errorf("NATS server: %w", net.ErrClosed)
	}
	return theirs, nil
}

// Close stops listening, disconnects every client and waits for their
// goroutines to end. Safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return
	}
	s.closed = true
	for c := range s.clients {
		c.conn.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Wait()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // closed
		}
		if !s.serve(conn) {
			conn.Close()
			return
		}
	}
}

// serve starts a client's reader and writer on conn, false when the
// server is closed.
func (s *Server) serve(conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.nextID++
	c := newClient(s, conn, s.nextID)
	s.clients[c] = struct{}{}
	s.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
	return true
}

// info is the INFO line a client is greeted with.
func (s *Server) info(c *client) []byte {
	host, port, _ := net.SplitHostPort(s.ln.Addr().String())
	ip := "127.0.0.1"
	if a, ok := c.conn.RemoteAddr().(*net.TCPAddr); ok {
		ip = a.IP.String()
	}
	auth := ""
	if s.token != "" {
		auth = `,"auth_required":true`
	}
	b := []byte(`INFO {"server_id":"` + s.id + `","server_name":"stactor","proto":1,"host":"` + host +
		`","port":` + port + `,"headers":true` + auth + `,"max_payload":` + strconv.Itoa(MaxPayload) +
		`,"client_id":` + strconv.FormatUint(c.id, 10) + `,"client_ip":"` + ip + "\"}\r\n")
	return b
}

// drop forgets c's subscriptions: its reader has stopped.
func (s *Server) drop(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range c.subs {
		delete(s.subs, sub)
	}
	clear(c.subs)
}

// forget forgets c: its writer has stopped, the last of its goroutines
// to touch the connection. Until then Close closes the connection, which
// ends a write blocked on a client that does not read.
func (s *Server) forget(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clients, c)
}

// subscribe adds c's subscription sid, unless c has one of that sid.
func (s *Server) subscribe(c *client, subject, queue, sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := c.subs[sid]; dup {
		return
	}
	sub := &subscription{c: c, subject: subject, queue: queue, sid: sid}
	c.subs[sid] = sub
	s.subs[sub] = struct{}{}
}

// unsubscribe removes c's subscription sid now (max 0) or once it has
// delivered max messages in all.
func (s *Server) unsubscribe(c *client, sid string, max uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := c.subs[sid]
	if sub == nil {
		return
	}
	if max > 0 && sub.delivered < max {
		sub.max = max
		return
	}
	s.remove(sub)
}

// remove forgets sub; s.mu is held.
func (s *Server) remove(sub *subscription) {
	delete(sub.c.subs, sub.sid)
	delete(s.subs, sub)
}

// publish routes a message from c to every matching subscription but
// those of queue groups, which get it once a group, at one member chosen
// at random. A request nobody subscribes to is answered with a 503
// status to a requester that asked for that (no_responders).
func (s *Server) publish(from *client, subject, reply string, hdr, payload []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delivered := 0
	var groups map[string][]*subscription
	for sub := range s.subs {
		if !matches(sub.subject, subject) || sub.c == from && !from.opts.echo {
			continue
		}
		if sub.queue != "" {
			if groups == nil {
				groups = map[string][]*subscription{}
			}
			groups[sub.queue] = append(groups[sub.queue], sub)
			continue
		}
		s.deliver(sub, subject, reply, hdr, payload)
		delivered++
	}
	for _, members := range groups {
		s.deliver(members[rand.IntN(len(members))], subject, reply, hdr, payload)
		delivered++
	}
	if delivered > 0 || reply == "" || !from.opts.noResponders || !from.opts.headers {
		return
	}
	for _, sub := range from.subs {
		if matches(sub.subject, reply) {
			// The status message nats-server answers with.
			s.deliver(sub, reply, "", []byte("NATS/1.0 503\r\nNats-Subject: "+subject+"\r\n\r\n"), nil)
			return
		}
	}
}

// deliver hands a message to sub's client; s.mu is held.
func (s *Server) deliver(sub *subscription, subject, reply string, hdr, payload []byte) {
	sub.delivered++
	sub.c.sendMsg(sub.sid, subject, reply, hdr, payload)
	if sub.max > 0 && sub.delivered >= sub.max {
		s.remove(sub)
	}
}

// subscription is a client's SUB; its fields but c are guarded by
// Server.mu.
type subscription struct {
	c              *client
	subject, queue string
	sid            string
	delivered, max uint64
}
