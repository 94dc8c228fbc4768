package checkpoint

import "time"

// Config are a pipeline's checkpoint settings (env's, over the engine's).
type Config struct {
	Interval          time.Duration
	Timeout           time.Duration
	MinPause          time.Duration
	MaxRetained       int
	TolerableFailures int
	// CommitBackoff is the first wait before retrying a failed commit; it
	// doubles up to CommitBackoffMax.
	CommitBackoff    time.Duration
	CommitBackoffMax time.Duration
	// CommitTimeout bounds the wait for another node to commit its part
	// of a checkpoint (CommitOnNode); a timeout is retried as a failure.
	CommitTimeout time.Duration
	// NodeGoneAfter is how long the node that wrote a commit info must be
	// missing from the cluster's workers before its part is committed
	// here instead (it left for good); until then it is retried there, so
	// a node that misses a health check, or a leader that has not heard
	// from every worker yet, does not count as gone.
	NodeGoneAfter time.Duration
}

// DefaultConfig are the engine defaults (SeaTunnel's seatunnel.yaml:
// interval 10 s, timeout 60 s, max-retained 3).
func DefaultConfig() Config {
	return Config{Interval: 10 * time.Second, Timeout: 60 * time.Second, MaxRetained: 3, TolerableFailures: 3,
		CommitBackoff: 100 * time.Millisecond, CommitBackoffMax: 30 * time.Second, CommitTimeout: 30 * time.Second,
		NodeGoneAfter: 20 * time.Second}
}

// The checkpoint types.
const (
	TypeCheckpoint = "CHECKPOINT"
	TypeSavepoint  = "SAVEPOINT"
	TypeFinal      = "FINAL"
)
