package consul

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/consul/api"
	"github.com/rs/zerolog"
)

// LeaderKey is the KV key whose lock makes a node the cluster's leader.
func LeaderKey(cluster string) string { return "stactor/" + cluster + "/leader" }

// leaderSessionName names the session with which nodeID campaigns.
func leaderSessionName(cluster, nodeID string) string {
	return ServiceName(cluster) + " leader " + nodeID
}

// leaderValue is what the leader writes in its key.
type leaderValue struct {
	Node    string `json:"node"`
	Address string `json:"address,omitempty"`
}

// Leader is the won leadership of a cluster. Its methods may be called from
// any goroutine.
//
// Leadership ends — and Lost is closed — when the session is invalidated
// (the node's check turned critical, the node was deregistered, the session
// expired unrenewed), when the key is found held by someone else or deleted,
// on Resign, or when the ctx given to Campaign ends. After Lost the leader
// must stop acting as one at once: anything it still writes carries an old
// Term and is refused by fenced stores.
type Leader struct {
	client   *api.Client
	key      string
	nodeID   string
	term     uint64
	sess     *session
	log      zerolog.Logger
	lost     chan struct{}
	lostOnce sync.Once
	watched  chan struct{} // closed when watch has returned
	unhook   func() bool   // stops the ctx.AfterFunc that resigns

	resignOnce sync.Once
	resignErr  error // set inside resignOnce
}

// Campaign waits until the node nodeID holds the cluster's leader lock and
// returns its Leader. It creates a session tied to the node's own service
// check checkID (Registration.CheckID) and to the agent's serfHealth, with a
// short TTL (WithSessionTTL, default 10s), a short lock delay (WithLockDelay,
// default 1s) and behavior release, then acquires stactor/<cluster>/leader
// with the value {node, address} (WithAddress), following the key with
// blocking queries while someone else holds it.
//
// Called by a node's bootstrap, usually in a loop: Campaign, lead until
// Lost, Resign, Campaign again. It blocks the calling goroutine. ctx bounds
// the campaign and, once won, the leadership: when ctx ends, the leader
// resigns. Errors: ctx's error if ctx ended first; ErrSessionInvalidated if
// the node's check turned critical while waiting; otherwise a wrapped
// Consul error (for example, the check is critical or unknown, so no
// session can be created) — wait and campaign again.
func Campaign(ctx context.Context, client *api.Client, cluster, nodeID, checkID string, opts ...Option) (*Leader, error) {
	o := newOptions(opts)
	value, err := json.Marshal(leaderValue{Node: nodeID, Address: o.address})
	if err != nil {
		return nil, err
	}
	s, err := newSession(ctx, client, leaderSessionName(cluster, nodeID), checkID, o, o.log)
	if err != nil {
		return nil, err
	}
	c := &campaign{
		ctx:    ctx,
		client: client,
		key:    LeaderKey(cluster),
		value:  value,
		s:      s,
		retry:  min(max(o.lockDelay/5, 50*time.Millisecond), time.Second),
		log:    o.log,
	}
	term, index, err := c.run()
	if err != nil {
		s.stop()
		// Best effort: the session would expire by itself.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = client.Session().Destroy(s.id, (&api.WriteOptions{}).WithContext(dctx))
		return nil, err
	}
	return newLeader(ctx, client, c.key, nodeID, term, index, s, o.log), nil
}

// campaign is one Campaign call's state, owned by its goroutine. Every
// request runs on the session's context, so it ends when ctx ends or the
// session is found invalidated.
type campaign struct {
	ctx    context.Context
	client *api.Client
	key    string
	value  []byte
	s      *session
	retry  time.Duration // pace of acquire attempts while a lock delay runs
	log    zerolog.Logger
	b      backoff
}

// run acquires the lock and returns the term and the index to watch from.
func (c *campaign) run() (term, index uint64, err error) {
	kv := c.client.KV()
	for {
		ok, _, err := kv.Acquire(&api.KVPair{Key: c.key, Value: c.value, Session: c.s.id}, (&api.WriteOptions{}).WithContext(c.s.ctx))
		if err != nil {
			if err := c.pause(err); err != nil {
				return 0, 0, err
			}
			continue
		}
		pair, meta, err := kv.Get(c.key, (&api.QueryOptions{}).WithContext(c.s.ctx))
		if err != nil {
			if err := c.pause(err); err != nil {
				return 0, 0, err
			}
			continue
		}
		c.b.reset()
		switch {
		case ok && pair != nil && pair.Session == c.s.id:
			return pair.ModifyIndex, meta.LastIndex, nil
		case pair == nil || pair.Session == "":
			// Free, yet refused: the lock delay of the last holder's
			// invalidated session is running. Nothing to block on.
			if !sleep(c.s.ctx, c.retry) {
				return 0, 0, c.why()
			}
		default:
			if err := c.waitFree(meta.LastIndex); err != nil {
				return 0, 0, err
			}
		}
	}
}

// waitFree follows the key with blocking queries until nobody holds it.
func (c *campaign) waitFree(index uint64) error {
	for {
		pair, meta, err := c.client.KV().Get(c.key, (&api.QueryOptions{WaitIndex: index, WaitTime: watchWait}).WithContext(c.s.ctx))
		if err != nil {
			if err := c.pause(err); err != nil {
				return err
			}
			continue
		}
		c.b.reset()
		if pair == nil || pair.Session == "" {
			return nil
		}
		index = nextIndex(index, meta.LastIndex)
	}
}

// pause handles a failed request: it returns why the campaign must end, or
// nil after a backoff if the request is worth retrying.
func (c *campaign) pause(err error) error {
	if c.s.ctx.Err() != nil {
		return c.why()
	}
	c.log.Warn().Err(err).Str("key", c.key).Msg("consul: campaign request failed; retrying")
	if !sleep(c.s.ctx, c.b.next()) {
		return c.why()
	}
	return nil
}

// why says why the session's context ended: the campaign's ctx, or the
// session was invalidated.
func (c *campaign) why() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("consul: campaign for %s: %w", c.key, ErrSessionInvalidated)
}

func newLeader(ctx context.Context, client *api.Client, key, nodeID string, term, index uint64, s *session, log zerolog.Logger) *Leader {
	l := &Leader{
		client:  client,
		key:     key,
		nodeID:  nodeID,
		term:    term,
		sess:    s,
		log:     log,
		lost:    make(chan struct{}),
		watched: make(chan struct{}),
	}
	go l.watch(index)
	// Resigning on ctx's end needs a context of its own.
	l.unhook = context.AfterFunc(ctx, func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = l.Resign(rctx)
	})
	return l
}

// watch follows the leader key with blocking queries and ends the
// leadership when the key is no longer held by this session, or when the
// session is gone. It is the only goroutine that closes lost besides Resign.
func (l *Leader) watch(index uint64) {
	defer close(l.watched)
	defer l.markLost()
	var b backoff
	for {
		pair, meta, err := l.client.KV().Get(l.key, (&api.QueryOptions{WaitIndex: index, WaitTime: watchWait}).WithContext(l.sess.ctx))
		if l.sess.ctx.Err() != nil {
			return // session gone, or resigned
		}
		if err != nil {
			l.log.Warn().Err(err).Str("key", l.key).Msg("consul: watching the leader key failed; retrying")
			if !sleep(l.sess.ctx, b.next()) {
				return
			}
			continue
		}
		b.reset()
		if pair == nil || pair.Session != l.sess.id {
			return
		}
		index = nextIndex(index, meta.LastIndex)
	}
}

func (l *Leader) markLost() { l.lostOnce.Do(func() { close(l.lost) }) }

// Term is the fencing token of this leadership: the ModifyIndex of the
// leader key when this node acquired it. A later leader always has a larger
// term.
func (l *Leader) Term() uint64 { return l.term }

// NodeID returns the leading node's ID.
func (l *Leader) NodeID() string { return l.nodeID }

// Lost is closed when the leadership ends, whatever the reason.
func (l *Leader) Lost() <-chan struct{} { return l.lost }

// Resign gives the leadership up: it stops watching and renewing, releases
// the lock (an explicit release has no lock delay, so a standby takes over
// at once) and destroys the session. Lost is closed. Call it also after
// Lost, to free the session. Safe to call more than once and from any
// goroutine; later calls wait for the first and return its result. ctx
// bounds the requests; on error the session expires by itself within
// twice its TTL.
func (l *Leader) Resign(ctx context.Context) error {
	l.resignOnce.Do(func() {
		if l.unhook != nil {
			l.unhook()
		}
		l.sess.stop()
		<-l.watched
		l.markLost()
		wo := (&api.WriteOptions{}).WithContext(ctx)
		_, _, errRelease := l.client.KV().Release(&api.KVPair{Key: l.key, Session: l.sess.id}, wo)
		_, errDestroy := l.client.Session().Destroy(l.sess.id, wo)
		if err := errors.Join(errRelease, errDestroy); err != nil {
			l.resignErr = fmt.Errorf("consul: resign %s: %w", l.key, err)
		}
	})
	return l.resignErr
}

// CurrentLeader returns who holds the cluster's leader lock: the node ID and
// address it wrote, and its term. ErrNoLeader means nobody holds it right
// now (an election may be under way); other errors mean Consul could not be
// asked or the key holds something unexpected.
func CurrentLeader(ctx context.Context, client *api.Client, cluster string) (nodeID, address string, term uint64, err error) {
	key := LeaderKey(cluster)
	pair, _, err := client.KV().Get(key, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return "", "", 0, fmt.Errorf("consul: read %s: %w", key, err)
	}
	if pair == nil || pair.Session == "" {
		return "", "", 0, ErrNoLeader
	}
	var v leaderValue
	if err := json.Unmarshal(pair.Value, &v); err != nil {
		return "", "", 0, fmt.Errorf("consul: read %s: %w", key, err)
	}
	return v.Node, v.Address, pair.ModifyIndex, nil
}
