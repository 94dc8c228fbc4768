package task

import "time"

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
}

// DefaultOptions are the defaults of the engine config.
func DefaultOptions() Options {
	return Options{BatchSize: 4096, CreditWindow: 8, MetricsInterval: time.Second, IdlePoll: 5 * time.Millisecond}
}
