// Package natsserver serves an embedded NATS server for a local
// `stactor run` that was given no --nats (DESIGN §9): its taps and
// metrics subjects then live on a server in the run's own process, on
// loopback, which `stactor tap` and `stactor top` on the same machine
// reach. Core NATS only: a local run keeps its checkpoints on disk.
package natsserver

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start serves NATS on host (127.0.0.1 for loopback) at an OS-assigned
// port; Shutdown stops it.
func Start(host string) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{Host: host, Port: -1, NoLog: true, NoSigs: true,
		// No system account: a local run needs neither its monitoring nor
		// JetStream, and it costs a few ms of CPU at start and while idle.
		NoSystemAccount: true})
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("embedded NATS server on %s did not start", host)
	}
	return s, nil
}
