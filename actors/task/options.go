package task

import (
	"time"

	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/monitor/tap"
)

// Options are the engine settings a subtask runs with.
type Options struct {
	// BatchSize is the number of rows per batch a reader is asked for.
	BatchSize int
	// CreditWindow is how many batches a sender may have unacknowledged on
	// one channel.
	CreditWindow int64
	// MetricsInterval is how often the subtask reports its counters.
	MetricsInterval time.Duration
	// IdlePoll is the pause before polling again a reader that had nothing.
	IdlePoll time.Duration
	// NATS carries channels to subtasks on other nodes (DESIGN §4, §8);
	// nil in one process, where every channel is actor messages.
	NATS *nats.Conn
	// Prefix is the NATS subject prefix.
	Prefix string
	// Node is the id of the node the subtask runs on (the
	// ResourceManager's worker id). The TaskExecutionService sets it from
	// DeployTask; its sinks stamp it, with the service's pid, on their
	// commit infos so that a commit can run where they wrote (DESIGN §8).
	Node string
	// Taps, when set, lets `stactor tap` watch the rows leaving the
	// subtask's vertices (DESIGN §9): nil means no taps at all.
	Taps *tap.Hub
}

// DefaultOptions are the defaults of the engine config.
func DefaultOptions() Options {
	return Options{BatchSize: 4096, CreditWindow: 8, MetricsInterval: time.Second, IdlePoll: 5 * time.Millisecond}
}
