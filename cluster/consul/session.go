package consul

import (
	"context"
	"fmt"

	"github.com/hashicorp/consul/api"
	"github.com/rs/zerolog"
)

// session is a Consul session kept alive by a renew goroutine. Its context
// ends when the session is found invalidated or when it is stopped; every
// request made on behalf of the session uses that context, so nothing waits
// on a session that is gone.
type session struct {
	id     string
	ctx    context.Context    // ends when the session is gone or stopped
	cancel context.CancelFunc // stops the renew goroutine
	gone   chan struct{}      // closed by renew when Consul no longer knows the session
	done   chan struct{}      // closed when renew has returned
}

// newSession creates a session tied to the agent's serfHealth and to the
// node's own service check, and starts renewing it every ttl/2.
func newSession(ctx context.Context, client *api.Client, name, checkID string, o options, log zerolog.Logger) (*session, error) {
	entry := &api.SessionEntry{
		Name:      name,
		TTL:       o.sessionTTL.String(),
		LockDelay: o.lockDelay,
		Behavior:  api.SessionBehaviorRelease,
		// Both kinds must be listed: naming any check replaces the default
		// serfHealth, and under one shared agent (consul agent -dev, or
		// several stactor nodes on one machine) serfHealth never fails
		// when a single stactor node dies.
		NodeChecks:    []string{"serfHealth"},
		ServiceChecks: []api.ServiceCheck{{ID: checkID}},
	}
	id, _, err := client.Session().Create(entry, (&api.WriteOptions{}).WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("consul: create session %q on check %s: %w", name, checkID, err)
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &session{id: id, ctx: sctx, cancel: cancel, gone: make(chan struct{}), done: make(chan struct{})}
	go s.renew(client, o, log)
	return s, nil
}

// renew renews the session every ttl/2 (every ttl/6 after a failed try)
// until it is stopped or Consul says the session no longer exists.
func (s *session) renew(client *api.Client, o options, log zerolog.Logger) {
	defer close(s.done)
	period := o.sessionTTL / 2
	for sleep(s.ctx, period) {
		entry, _, err := client.Session().Renew(s.id, (&api.WriteOptions{}).WithContext(s.ctx))
		switch {
		case err != nil:
			if s.ctx.Err() == nil {
				log.Warn().Err(err).Str("session", s.id).Msg("consul: renew session failed")
			}
			period = o.sessionTTL / 6
		case entry == nil:
			close(s.gone)
			s.cancel()
			return
		default:
			period = o.sessionTTL / 2
		}
	}
}

// stop ends the renew goroutine and waits for it. The session itself stays
// until destroyed or expired.
func (s *session) stop() {
	s.cancel()
	<-s.done
}

// isGone reports whether renew found the session invalidated.
func (s *session) isGone() bool {
	select {
	case <-s.gone:
		return true
	default:
		return false
	}
}
