package consul

import (
	"time"

	"github.com/rs/zerolog"
)

// Defaults. The service TTL and the session's lock delay bound how fast a
// dead node is noticed and a dead leader replaced: roughly TTL + LockDelay.
const (
	DefaultTTL             = 5 * time.Second
	DefaultDeregisterAfter = time.Minute
	DefaultSessionTTL      = 10 * time.Second
	DefaultLockDelay       = time.Second
)

// Option tunes Register or Campaign. Each option says which of the two reads
// it; the other ignores it.
type Option func(*options)

type options struct {
	ttl             time.Duration
	deregisterAfter time.Duration
	sessionTTL      time.Duration
	lockDelay       time.Duration
	address         string
	log             zerolog.Logger
}

func newOptions(opts []Option) options {
	o := options{
		ttl:             DefaultTTL,
		deregisterAfter: DefaultDeregisterAfter,
		sessionTTL:      DefaultSessionTTL,
		lockDelay:       DefaultLockDelay,
		log:             zerolog.Nop(),
	}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithTTL sets the TTL of the node's service check (Register; default 5s).
// The heartbeat passes it every ttl/3, so a process that stops for longer
// than about ttl turns critical.
func WithTTL(d time.Duration) Option { return func(o *options) { o.ttl = d } }

// WithDeregisterAfter sets how long a critical node stays registered before
// Consul removes it (Register; default 1m, Consul's minimum).
func WithDeregisterAfter(d time.Duration) Option {
	return func(o *options) { o.deregisterAfter = d }
}

// WithSessionTTL sets the leader session's TTL (Campaign; default 10s,
// Consul's minimum). Consul may take up to twice this to expire a session
// that is not renewed; the service check is what makes failover fast.
func WithSessionTTL(d time.Duration) Option { return func(o *options) { o.sessionTTL = d } }

// WithLockDelay sets the lock delay of the leader session (Campaign; default
// 1s): after the session is invalidated, nobody can take the lock for this
// long, so the old leader has time to notice. Consul's own default is 15s.
func WithLockDelay(d time.Duration) Option { return func(o *options) { o.lockDelay = d } }

// WithAddress sets the address written in the leader key next to the node ID
// (Campaign), so that CurrentLeader can tell followers where the leader is.
func WithAddress(addr string) Option { return func(o *options) { o.address = addr } }

// WithLogger sets where background goroutines report errors they retry
// (Register, Campaign; default: nowhere).
func WithLogger(l zerolog.Logger) Option { return func(o *options) { o.log = l } }
