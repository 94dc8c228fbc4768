package natsserver

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// client is one connection: readLoop parses what the client sends and
// acts on it, writeLoop writes what is queued for it (out), so that a
// publisher never waits for another client's socket.
type client struct {
	srv  *Server
	conn net.Conn
	id   uint64

	connected bool // a CONNECT was taken; the reader's
	// opts is written by the reader (CONNECT) under srv.mu, read by
	// publishers under it and by the reader itself without.
	opts connectOptions
	subs map[string]*subscription // by sid; guarded by srv.mu

	mu      sync.Mutex // protects the fields below
	out     []byte     // queued for the writer
	closing bool       // write what is queued, then close
	closed  bool       // nothing more is queued or written
	kick    chan struct{}
}

// connectOptions are what a client's CONNECT says of it.
type connectOptions struct {
	verbose      bool
	pedantic     bool // is told of a publish subject that is not a literal
	echo         bool // deliver its own publishes to its subscriptions
	headers      bool // takes HMSG
	noResponders bool // wants a 503 status for a request nobody takes
}

func newClient(s *Server, conn net.Conn, id uint64) *client {
	return &client{
		srv: s, conn: conn, id: id,
		opts: connectOptions{verbose: true, pedantic: true, echo: true}, // until CONNECT, as nats-server has it
		subs: map[string]*subscription{},
		kick: make(chan struct{}, 1),
	}
}

// errProtocol is a client's protocol violation: it is told (-ERR) and
// disconnected.
type errProtocol string

func (e errProtocol) Error() string { return string(e) }

// readLoop reads and acts on the client's protocol until it disconnects
// or violates it.
func (c *client) readLoop() {
	defer c.srv.wg.Done()
	c.queue(c.srv.info(c))
	r := bufio.NewReaderSize(c.conn, maxConnectLine)
	var payload []byte // reused for every message's payload
	for {
		line, err := readLine(r)
		if err == nil {
			payload, err = c.handle(r, line, payload)
		}
		if err != nil {
			var pe errProtocol
			if errors.As(err, &pe) {
				c.queue([]byte("-ERR '" + string(pe) + "'\r\n"))
			}
			c.srv.drop(c)
			c.finish()
			// Whatever else the client sends is read and ignored until
			// the writer, having written the -ERR, closes the connection:
			// on an in-process pipe a client blocked sending would never
			// read it.
			_, _ = io.Copy(io.Discard, c.conn)
			return
		}
	}
}

// readLine is the next protocol line without its line end.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, errProtocol("maximum control line exceeded")
	}
	if err != nil {
		return nil, err
	}
	line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
	if len(line) > maxControlLine && !hasOp(line, "CONNECT") {
		return nil, errProtocol("maximum control line exceeded")
	}
	return line, nil
}

// hasOp reports whether line starts with op in any case, followed by
// white space or its end.
func hasOp(line []byte, op string) bool {
	return len(line) >= len(op) && strings.EqualFold(string(line[:len(op)]), op) &&
		(len(line) == len(op) || line[len(op)] == ' ' || line[len(op)] == '\t')
}

// handle acts on one protocol line (reading the payload that follows a
// PUB or HPUB into payload's room) and returns the payload buffer.
func (c *client) handle(r *bufio.Reader, line, payload []byte) ([]byte, error) {
	op, rest := bytes.TrimLeft(line, " \t"), []byte(nil)
	if i := bytes.IndexAny(op, " \t"); i >= 0 {
		op, rest = op[:i], op[i+1:]
	}
	verb := strings.ToUpper(string(op))
	if c.srv.token != "" && !c.connected && verb != "CONNECT" {
		return payload, errProtocol("Authorization Violation")
	}
	switch verb {
	case "PING":
		c.queue([]byte("PONG\r\n"))
	case "PONG":
	case "CONNECT":
		return payload, c.connect(rest)
	case "PUB", "HPUB":
		hdrs := verb == "HPUB"
		if hdrs && !c.opts.headers {
			return payload, errProtocol("Protocol Violation: HPUB from a client that did not ask for headers")
		}
		args := fields(rest)
		subject, reply, hsize, size, err := pubArgs(args, hdrs)
		if err != nil {
			return payload, err
		}
		if size > MaxPayload {
			return payload, errProtocol("Maximum Payload Violation")
		}
		if cap(payload) < size+2 {
			payload = make([]byte, size+2)
		}
		payload = payload[:size+2]
		if _, err := io.ReadFull(r, payload); err != nil {
			return payload, err
		}
		if !bytes.HasSuffix(payload, []byte("\r\n")) {
			return payload, errProtocol("Protocol Violation: the message is longer than its size")
		}
		msg := payload[:size]
		var hdr []byte
		if hsize > 0 {
			if hdr = msg[:hsize]; !bytes.HasPrefix(hdr, []byte("NATS/1.0")) {
				return payload, errProtocol("Protocol Violation: headers do not start with NATS/1.0")
			}
		}
		// As nats-server: a pedantic client (every client until its
		// CONNECT says otherwise; nats.go's does) is told of a subject
		// that is not a literal, and the message goes on all the same:
		// wildcards are delivered literally (to the subscriptions they
		// match as tokens), and a subject with an empty token reaches no
		// one.
		if !validSubject(subject, false) && c.opts.pedantic {
			c.queue([]byte("-ERR 'Invalid Publish Subject'\r\n"))
		}
		c.ok()
		if !hasEmptyToken(subject) {
			c.srv.publish(c, subject, reply, hdr, msg[hsize:])
		}
	case "SUB":
		args := fields(rest)
		if len(args) != 2 && len(args) != 3 {
			return payload, errProtocol("Protocol Violation: SUB subject [queue] sid")
		}
		subject, queue, sid := args[0], "", args[len(args)-1]
		if len(args) == 3 {
			queue = args[1]
		}
		if !validSubject(subject, true) {
			c.queue([]byte("-ERR 'Invalid Subject'\r\n"))
			return payload, nil
		}
		c.srv.subscribe(c, subject, queue, sid)
		c.ok()
	case "UNSUB":
		args := fields(rest)
		var max uint64
		var err error
		if len(args) == 2 {
			max, err = strconv.ParseUint(args[1], 10, 64)
		}
		if len(args) < 1 || len(args) > 2 || err != nil {
			return payload, errProtocol("Protocol Violation: UNSUB sid [max]")
		}
		c.srv.unsubscribe(c, args[0], max)
		c.ok()
	case "INFO", "":
		// A client's INFO is for a route, which this server has none of;
		// an empty line is nothing.
	default:
		return payload, errProtocol("Unknown Protocol Operation")
	}
	return payload, nil
}

// fields are a line's arguments: what lies between spaces and tabs (not
// other white space, which nats-server takes as part of a subject).
func fields(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexAny(b, " \t")
		if i < 0 {
			return append(out, string(b))
		}
		if i > 0 {
			out = append(out, string(b[:i]))
		}
		b = b[i+1:]
	}
	return out
}

// parseSize reads a message size: decimal digits only (no sign), as
// nats-server reads it; past MaxPayload it stops counting.
func parseSize(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		if n <= MaxPayload {
			n = n*10 + int(s[i]-'0')
		}
	}
	return n, true
}

// pubArgs reads PUB's subject [reply] size or HPUB's subject [reply]
// header-size total-size.
func pubArgs(args []string, hdrs bool) (subject, reply string, hsize, size int, err error) {
	n := 2
	if hdrs {
		n = 3
	}
	if len(args) != n && len(args) != n+1 {
		if hdrs {
			return "", "", 0, 0, errProtocol("Protocol Violation: HPUB subject [reply] header-size size")
		}
		return "", "", 0, 0, errProtocol("Protocol Violation: PUB subject [reply] size")
	}
	subject = args[0]
	if len(args) == n+1 {
		reply = args[1]
	}
	tsize, ok := parseSize(args[len(args)-1])
	if ok && hdrs {
		hsize, ok = parseSize(args[len(args)-2])
	}
	if !ok || hsize > tsize {
		return "", "", 0, 0, errProtocol("Protocol Violation: bad message size")
	}
	return subject, reply, hsize, tsize, nil
}

// connect takes a CONNECT's options.
func (c *client) connect(arg []byte) error {
	// What a CONNECT leaves out keeps its value (verbose, pedantic and
	// echo are on until a CONNECT turns them off), as nats-server has it;
	// nats.go says every one.
	var o struct {
		Verbose      *bool  `json:"verbose"`
		Pedantic     *bool  `json:"pedantic"`
		Echo         *bool  `json:"echo"`
		Headers      *bool  `json:"headers"`
		NoResponders *bool  `json:"no_responders"`
		Token        string `json:"auth_token"`
	}
	if err := json.Unmarshal(arg, &o); err != nil {
		return errProtocol("Protocol Violation: CONNECT is not JSON")
	}
	if c.srv.token != "" && subtle.ConstantTimeCompare([]byte(o.Token), []byte(c.srv.token)) != 1 {
		return errProtocol("Authorization Violation")
	}
	c.connected = true
	c.srv.mu.Lock()
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&c.opts.verbose, o.Verbose)
	set(&c.opts.pedantic, o.Pedantic)
	set(&c.opts.echo, o.Echo)
	set(&c.opts.headers, o.Headers)
	set(&c.opts.noResponders, o.NoResponders)
	mismatch := c.opts.noResponders && !c.opts.headers
	c.srv.mu.Unlock()
	if mismatch {
		return errProtocol("no responders requires headers support")
	}
	c.ok()
	return nil
}

// ok acknowledges an operation to a verbose client; the reader's.
func (c *client) ok() {
	if c.opts.verbose {
		c.queue([]byte("+OK\r\n"))
	}
}

// sendMsg queues a message for subscription sid: MSG, or HMSG when it
// has headers and the client takes them (one that does not gets the
// payload alone, as nats-server sends it). A client with more than
// MaxPending bytes waiting is a slow consumer and is disconnected.
// Server.mu is held.
func (c *client) sendMsg(sid, subject, reply string, hdr, payload []byte) {
	if !c.opts.headers {
		hdr = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.closing {
		return
	}
	if len(c.out)+len(subject)+len(reply)+len(hdr)+len(payload) > c.srv.maxPending {
		c.slow()
		return
	}
	b := c.out
	if hdr != nil {
		b = append(b, "HMSG "...)
	} else {
		b = append(b, "MSG "...)
	}
	b = append(append(append(b, subject...), ' '), sid...)
	if reply != "" {
		b = append(append(b, ' '), reply...)
	}
	if hdr != nil {
		b = strconv.AppendInt(append(b, ' '), int64(len(hdr)), 10)
	}
	b = strconv.AppendInt(append(b, ' '), int64(len(hdr)+len(payload)), 10)
	b = append(append(append(append(b, "\r\n"...), hdr...), payload...), "\r\n"...)
	c.out = b
	c.wake()
}

// queue queues protocol bytes for the client. A client with more than
// MaxPending bytes waiting (one that sends PINGs and never reads the
// PONGs) is disconnected as a slow consumer, as for messages.
func (c *client) queue(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.closing {
		return
	}
	if len(c.out)+len(b) > c.srv.maxPending {
		c.slow()
		return
	}
	c.out = append(c.out, b...)
	c.wake()
}

// slow disconnects a slow consumer at once, dropping what is queued; the
// reader ends on the closed connection and drops the client. c.mu is
// held.
func (c *client) slow() {
	c.closed, c.out = true, nil
	c.conn.Close()
	c.wake()
}

// finish lets the writer write what is queued and then close the
// connection; the reader has stopped. c.mu is not held.
func (c *client) finish() {
	c.mu.Lock()
	c.closing = true
	c.wake()
	c.mu.Unlock()
}

// wake tells the writer there is work; c.mu is held.
func (c *client) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// writeLoop writes what is queued until the connection fails, the client
// is disconnected, or the reader has stopped and everything is written.
func (c *client) writeLoop() {
	defer c.srv.wg.Done()
	defer c.srv.forget(c)
	defer c.conn.Close()
	var buf []byte
	for range c.kick {
		c.mu.Lock()
		buf, c.out = c.out, buf[:0]
		closing, closed := c.closing, c.closed
		c.mu.Unlock()
		if closed {
			return
		}
		if len(buf) > 0 {
			_ = c.conn.SetWriteDeadline(time.Now().Add(c.srv.writeDeadline))
			if _, err := c.conn.Write(buf); err != nil {
				c.mu.Lock()
				c.closed, c.out = true, nil
				c.mu.Unlock()
				return // closing the connection ends the reader
			}
		}
		if cap(buf) > 1<<20 {
			buf = nil // a burst's room is not kept
		}
		if closing {
			c.mu.Lock()
			done := len(c.out) == 0
			c.closed = done
			c.mu.Unlock()
			if done {
				return
			}
		}
	}
}
