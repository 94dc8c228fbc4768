package consul

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/consul/api"
	"github.com/rs/zerolog"
)

// Registration is a node registered with its local Consul agent, kept
// healthy by a heartbeat goroutine. Its methods may be called from any
// goroutine.
type Registration struct {
	client *api.Client
	svcMu  sync.Mutex // guards node and svc (UpdateTags replaces them)
	node   Node
	svc    *api.AgentServiceRegistration
	ttl    time.Duration
	log    zerolog.Logger

	stopOnce sync.Once
	stop     chan struct{} // closed to end the heartbeat
	done     chan struct{} // closed when the heartbeat has returned
	deregMu  sync.Mutex    // serializes Deregister
	dereged  bool          // guarded by deregMu
}

// Register registers node with the agent behind client as an instance of
// stactor-<cluster>, with a passing TTL check (WithTTL, default 5s) that
// Consul deregisters after it has been critical for a minute
// (WithDeregisterAfter). A goroutine then passes the check every ttl/3 until
// Deregister, StopHeartbeat or ctx's end. When the process stops (crash,
// SIGSTOP, a long GC pause) the check turns critical within about ttl.
// A leader session an earlier process of the node left is destroyed
// (releasePredecessor).
//
// Called once per node by the node's bootstrap. ctx bounds the registration
// request and the heartbeat's life; cancelling it stops the heartbeat but
// leaves the service registered (it turns critical): call Deregister for a
// clean leave. An error means the node is not registered (bad Node fields,
// agent unreachable, ACL refused).
func Register(ctx context.Context, client *api.Client, node Node, opts ...Option) (*Registration, error) {
	o := newOptions(opts)
	svc, err := node.service(o)
	if err != nil {
		return nil, err
	}
	if err := client.Agent().ServiceRegisterOpts(svc, api.ServiceRegisterOpts{}.WithContext(ctx)); err != nil {
		return nil, fmt.Errorf("consul: register node %s: %w", node.ID, err)
	}
	releasePredecessor(ctx, client, node, o.log)
	r := &Registration{
		client: client,
		node:   node,
		svc:    svc,
		ttl:    o.ttl,
		log:    o.log,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go r.heartbeat(ctx)
	return r, nil
}

// releasePredecessor destroys the leader sessions of node that exist
// before it campaigned: an earlier process's. A node restarted within its
// check's TTL passes the same check again before it ever turns critical,
// so the dead process's session, tied to that check, would hold the
// leader lock with nobody leading until its own TTL ran out unrenewed
// (Consul waits up to twice the TTL): about 20 s with the 10 s default,
// where a node that stays dead a little longer is replaced within the
// check TTL and the lock delay. A node ID is one process (it is the
// Consul service ID), so such a session is never a live one's; a paused
// process holding it loses the leadership as it would on its check's TTL.
// Failing to list or destroy is logged, not an error: the session then
// expires as it would have.
func releasePredecessor(ctx context.Context, client *api.Client, node Node, log zerolog.Logger) {
	name := leaderSessionName(node.Cluster, node.ID)
	sessions, _, err := client.Session().List((&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		log.Warn().Err(err).Str("node", node.ID).Msg("consul: listing sessions for an earlier process's leader session failed")
		return
	}
	for _, s := range sessions {
		if s.Name != name {
			continue
		}
		if _, err := client.Session().Destroy(s.ID, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			log.Warn().Err(err).Str("node", node.ID).Str("session", s.ID).Msg("consul: destroying the leader session an earlier process left failed")
			continue
		}
		log.Info().Str("node", node.ID).Str("session", s.ID).Msg("consul: destroyed the leader session an earlier process of this node left")
	}
}

// Node returns the registered node.
func (r *Registration) Node() Node {
	r.svcMu.Lock()
	defer r.svcMu.Unlock()
	return r.node
}

// UpdateTags registers the node again with tags in place of its tags
// (SeaTunnel's /update-tags); the leader's membership watch hands the
// worker's new tags to the ResourceManager. Tags Consul's metadata cannot
// hold are an error wrapping ErrBadTags, and change nothing.
func (r *Registration) UpdateTags(ctx context.Context, tags map[string]string) error {
	r.svcMu.Lock()
	defer r.svcMu.Unlock()
	n := r.node
	n.Tags = tags
	o := newOptions(nil)
	o.ttl = r.ttl
	svc, err := n.service(o)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadTags, err)
	}
	svc.Check = r.svc.Check
	if err := r.client.Agent().ServiceRegisterOpts(svc, api.ServiceRegisterOpts{}.WithContext(ctx)); err != nil {
		return fmt.Errorf("consul: register node %s with new tags: %w", n.ID, err)
	}
	r.node, r.svc = n, svc
	return nil
}

// ErrBadTags: tags a node's Consul registration cannot carry.
var ErrBadTags = errors.New("bad tags")

// CheckID returns the ID of the node's TTL check, for Campaign.
func (r *Registration) CheckID() string { return CheckID(r.node.ID) }

// heartbeat passes the TTL check every ttl/3. It is the only goroutine that
// writes the check's status. If the agent no longer knows the check (it was
// restarted, or reaped the service after a long pause) it registers the
// service again: a node that runs is a member.
func (r *Registration) heartbeat(ctx context.Context) {
	defer close(r.done)
	tick := time.NewTicker(r.ttl / 3)
	defer tick.Stop()
	for {
		err := r.client.Agent().UpdateTTLOpts(r.CheckID(), "ok", api.HealthPassing, (&api.QueryOptions{}).WithContext(ctx))
		if err != nil && ctx.Err() == nil {
			r.log.Warn().Err(err).Str("node", r.node.ID).Msg("consul: heartbeat failed; registering again")
			r.svcMu.Lock()
			svc := r.svc
			r.svcMu.Unlock()
			if err := r.client.Agent().ServiceRegisterOpts(svc, api.ServiceRegisterOpts{}.WithContext(ctx)); err != nil && ctx.Err() == nil {
				r.log.Warn().Err(err).Str("node", r.node.ID).Msg("consul: register again failed")
			}
		}
		select {
		case <-tick.C:
		case <-r.stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// StopHeartbeat stops passing the check and waits for the heartbeat to end,
// leaving the service registered: it turns critical within about ttl, as a
// crashed or paused process's would, and any leader session tied to it is
// invalidated. For fault injection in tests, and for a process that wants
// the cluster to fail it over rather than see a clean leave.
func (r *Registration) StopHeartbeat() {
	r.stopOnce.Do(func() { close(r.stop) })
	<-r.done
}

// Deregister stops the heartbeat, waits for it, and removes the service
// (and its check, which invalidates any session tied to it) from the agent.
// ctx bounds the request. A node the agent no longer knows counts as
// deregistered; calling it again after it succeeded does nothing.
// An error means the agent may still list the node; it will turn critical
// and be reaped after the deregister-after period.
func (r *Registration) Deregister(ctx context.Context) error {
	r.StopHeartbeat()
	r.deregMu.Lock()
	defer r.deregMu.Unlock()
	if r.dereged {
		return nil
	}
	err := r.client.Agent().ServiceDeregisterOpts(r.node.ID, (&api.QueryOptions{}).WithContext(ctx))
	var status api.StatusError
	if errors.As(err, &status) && status.Code == http.StatusNotFound {
		err = nil // already reaped by the agent, after being critical too long
	}
	if err != nil {
		return fmt.Errorf("consul: deregister node %s: %w", r.node.ID, err)
	}
	r.dereged = true
	return nil
}
