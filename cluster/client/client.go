// Package client is how the CLI talks to a cluster: it finds the leader
// through Consul and sends the leader's CoordinatorService protobuf
// messages over protoactor remote. A request that fails because the leader
// changed is sent again to the new leader.
//
// A cluster without a leader for a while (a failover) is waited for, but a
// Consul agent that cannot be reached is not: after ConsulGrace of failed
// lookups (connection refused, no answer) a request ends with
// ErrConsulUnreachable, so `stactor list` on a machine without the agent
// says so within seconds instead of retrying silently until its timeout.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/hashicorp/consul/api"

	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
)

// Client is a connection to a cluster.
type Client struct {
	sys     *actor.ActorSystem
	rt      engine.RemoteTLS
	mu      sync.Mutex     // guards rem
	rem     *remote.Remote // started by the first request (startRemote)
	consul  *api.Client
	address string // the Consul agent's, for errors
	cluster string
	// ConsulGrace is how long lookups may fail to reach Consul before a
	// request gives up with ErrConsulUnreachable; each lookup is bounded by
	// it too.
	ConsulGrace time.Duration
}

// ErrConsulUnreachable: the Consul agent did not answer for ConsulGrace
// (not running, a wrong --consul address, a firewall).
var ErrConsulUnreachable = errors.New("cannot reach the Consul agent")

// DefaultConsulGrace is a new Client's ConsulGrace.
const DefaultConsulGrace = 3 * time.Second

// DialWith prepares a client of cluster whose Consul agent s reaches (its
// address, ACL token and TLS files), talking to the nodes over remote with
// rt (the cluster's CA and a certificate it signed, when the nodes want
// TLS).
func DialWith(s consul.ClientSettings, rt engine.RemoteTLS, cluster string) (*Client, error) {
	c, err := consul.NewClient(s)
	if err != nil {
		return nil, err
	}
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	addr := s.Address
	if addr == "" {
		addr = api.DefaultConfig().Address
	}
	return &Client{sys: sys, rt: rt, consul: c, address: addr, cluster: cluster, ConsulGrace: DefaultConsulGrace}, nil
}

// Close releases the client.
func (c *Client) Close() {
	c.mu.Lock()
	if c.rem != nil {
		c.rem.Shutdown(false)
	}
	c.mu.Unlock()
	c.sys.Shutdown()
}

// startRemote starts the client's remote, once, on the local address from
// which this machine reaches the leader at leader: remote answers a request
// by dialling the address of its sender, so a client that listened on
// loopback would never hear from a leader on another machine (or in another
// network namespace).
func (c *Client) startRemote(leader string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rem != nil {
		return nil
	}
	rc, err := engine.RemoteConfig(replyHost(leader), 0, c.rt)
	if err != nil {
		return err
	}
	r := remote.NewRemote(c.sys, rc)
	if err := engine.StartRemote(r); err != nil {
		return err
	}
	c.rem = r
	return nil
}

// replyHost is the local IP address that packets to addr (host:port) leave
// from, as the kernel's routes choose it (a UDP "connection" sends
// nothing); loopback when addr is on this machine or cannot be routed to.
func replyHost(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "127.0.0.1"
	}
	conn, err := net.Dial("udp", net.JoinHostPort(host, "9"))
	if err != nil {
		return "127.0.0.1"
	}
	defer conn.Close()
	ua, ok := conn.LocalAddr().(*net.UDPAddr)
	if !ok || ua.IP.IsUnspecified() {
		return "127.0.0.1"
	}
	return ua.IP.String()
}

// Consul is the client's Consul API client.
func (c *Client) Consul() *api.Client { return c.consul }

// Leader is the current leader's node id and address. A Consul agent that
// does not answer within ConsulGrace is ErrConsulUnreachable.
func (c *Client) Leader(ctx context.Context) (string, string, error) {
	lctx, cancel := context.WithTimeout(ctx, c.ConsulGrace)
	defer cancel()
	id, addr, _, err := consul.CurrentLeader(lctx, c.consul, c.cluster)
	if err != nil {
		if isUnreachable(err) && ctx.Err() == nil {
			return "", "", c.unreachable(err)
		}
		return "", "", fmt.Errorf("finding the leader of cluster %q: %w", c.cluster, err)
	}
	return id, addr, nil
}

// unreachable wraps a failed Consul call as ErrConsulUnreachable.
func (c *Client) unreachable(err error) error {
	return fmt.Errorf("%w at %s (cluster %q): %v; is the agent running? Give its address with --consul or consul.address", ErrConsulUnreachable, c.address, c.cluster, err)
}

// Request sends msg to the leader's coordinator and waits up to timeout for
// the answer; when the leader is unreachable or changes meanwhile, it asks
// the new leader, until ctx ends.
func (c *Client) Request(ctx context.Context, msg any, timeout time.Duration) (any, error) {
	var last error
	var consulDown time.Time // since when Consul has not answered
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
			case <-time.After(500 * time.Millisecond):
			}
		}
		_, addr, err := c.Leader(ctx)
		if errors.Is(err, ErrConsulUnreachable) {
			if consulDown.IsZero() {
				consulDown = time.Now()
			}
			if time.Since(consulDown) >= c.ConsulGrace {
				return nil, err
			}
		} else {
			consulDown = time.Time{}
		}
		if err != nil {
			last = err
			continue
		}
		if err := c.startRemote(addr); err != nil {
			return nil, err
		}
		res, err := c.sys.Root.RequestFuture(actor.NewPID(addr, "coordinator"), msg, timeout).Result()
		if err != nil {
			last = fmt.Errorf("leader at %s: %w", addr, err)
			continue
		}
		if _, dead := res.(*actor.DeadLetterResponse); dead {
			last = fmt.Errorf("leader at %s has no coordinator (yet)", addr)
			continue
		}
		return res, nil
	}
}

// Submit submits a job and waits until the leader has resolved it
// (bounded by ctx); it returns the reply — the warnings resolving it found
// and each pipeline's delivery guarantee — or why the job was refused
// (with the reply's warnings, when there is one).
func (c *Client) Submit(ctx context.Context, m *messages.SubmitJob) (*messages.SubmitJobReply, error) {
	res, err := c.Request(ctx, m, engine.SubmitTimeout(0))
	if err != nil {
		return &messages.SubmitJobReply{}, err
	}
	r, ok := res.(*messages.SubmitJobReply)
	if !ok {
		return &messages.SubmitJobReply{}, fmt.Errorf("the leader answered %T to a submit", res)
	}
	if r.Error != "" {
		return r, fmt.Errorf("%s", r.Error)
	}
	return r, nil
}

// Status asks the leader for a job's status. The leader answers from the
// job registry for a job it does not run itself: one that ended under an
// earlier leader, or one it has not resumed yet.
func (c *Client) Status(ctx context.Context, id string) (*messages.JobStatus, error) {
	res, err := c.Request(ctx, &messages.GetJobStatus{JobId: id}, 5*time.Second)
	if err != nil {
		return nil, err
	}
	st, ok := res.(*messages.JobStatus)
	if !ok {
		return nil, fmt.Errorf("unexpected answer %T", res)
	}
	return st, nil
}

// List lists the jobs: the leader's, and the registry's it does not run
// (ended under an earlier leader, or not resumed yet), oldest first.
func (c *Client) List(ctx context.Context) ([]*messages.JobStatus, error) {
	res, err := c.Request(ctx, &messages.ListJobs{}, 10*time.Second)
	if err != nil {
		return nil, err
	}
	l, ok := res.(*messages.JobList)
	if !ok {
		return nil, fmt.Errorf("unexpected answer %T", res)
	}
	return l.Jobs, nil
}

// Send sends a one-way message (cancel, savepoint) to the leader.
func (c *Client) Send(ctx context.Context, msg any) error {
	_, addr, err := c.Leader(ctx)
	if err != nil {
		return err
	}
	if err := c.startRemote(addr); err != nil {
		return err
	}
	c.sys.Root.Send(actor.NewPID(addr, "coordinator"), msg)
	return nil
}

// Members lists the cluster's nodes as Consul sees them.
func (c *Client) Members(ctx context.Context) ([]consul.Member, error) {
	mctx, cancel := context.WithTimeout(ctx, c.ConsulGrace)
	defer cancel()
	ms, err := consul.Members(mctx, c.consul, c.cluster)
	if err != nil && isUnreachable(err) && ctx.Err() == nil {
		return nil, c.unreachable(err)
	}
	return ms, err
}

// isUnreachable tells a Consul call that got no HTTP answer (refused,
// timed out, TLS failed: the HTTP client's *url.Error) from one the agent
// answered with an error (an ACL refusal, say), which is reported as is.
func isUnreachable(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue)
}
