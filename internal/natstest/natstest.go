// Package natstest starts a real NATS server (the nats-server library)
// in a test's process, as a cluster's NATS server stands in for one.
// Only tests import it: the stactor binary does not link nats-server
// (a local run serves NATS with monitor/natsserver).
package natstest

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start serves core NATS on host (127.0.0.1 for loopback) at an
// OS-assigned port: quiet, no signal handlers, no system account, and
// whatever each of opts sets (an authorization token, say). Shutdown
// stops it.
func Start(host string, opts ...func(*server.Options)) (*server.Server, error) {
	o := &server.Options{Host: host, Port: -1, NoLog: true, NoSigs: true, NoSystemAccount: true}
	for _, f := range opts {
		f(o)
	}
	s, err := server.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("NATS server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("NATS server on %s did not start", host)
	}
	return s, nil
}
