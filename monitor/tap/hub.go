package tap

import (
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
)

// InterestInterval is how often a Listener repeats its Interest.
const InterestInterval = time.Second

// Options tune the subtask side of taps (engine settings tap.*).
type Options struct {
	// RowsPerSecond caps the rows one point publishes per second
	// (tap.rows-per-second); rows past it are dropped and counted.
	RowsPerSecond int
	// Queue is how many batches a point's subtask may hand its tap
	// goroutine before further batches are dropped.
	Queue int
	// MaxRowsPerMessage bounds a Message.
	MaxRowsPerMessage int
	// InterestTTL is how long an Interest keeps a point on.
	InterestTTL time.Duration
}

// DefaultOptions are the engine's defaults.
func DefaultOptions() Options {
	return Options{RowsPerSecond: 1000, Queue: 16, MaxRowsPerMessage: 256, InterestTTL: 3 * InterestInterval}
}

// Hub is a node's (or a local run's) tap service: the NATS connection
// and settings every subtask's taps share. Safe for concurrent use.
type Hub struct {
	nc     *nats.Conn
	prefix string
	opts   Options
	log    zerolog.Logger
}

// NewHub makes a hub publishing under prefix (stactor.<cluster>). Zero
// fields of opts take DefaultOptions'.
func NewHub(nc *nats.Conn, prefix string, opts Options, log zerolog.Logger) *Hub {
	d := DefaultOptions()
	if opts.RowsPerSecond <= 0 {
		opts.RowsPerSecond = d.RowsPerSecond
	}
	if opts.Queue <= 0 {
		opts.Queue = d.Queue
	}
	if opts.MaxRowsPerMessage <= 0 {
		opts.MaxRowsPerMessage = d.MaxRowsPerMessage
	}
	if opts.InterestTTL <= 0 {
		opts.InterestTTL = d.InterestTTL
	}
	return &Hub{nc: nc, prefix: prefix, opts: opts, log: log}
}

// Prefix is the hub's subject prefix.
func (h *Hub) Prefix() string { return h.prefix }

// Location identifies the subtask whose vertices a Subtask taps.
type Location struct {
	Job                        string
	Pipeline, Attempt, Subtask int32
}
