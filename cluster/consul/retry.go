package consul

import (
	"context"
	"time"
)

// backoff doubles from 100ms to 5s between retries of a failed request.
type backoff struct{ d time.Duration }

func (b *backoff) next() time.Duration {
	b.d = min(max(2*b.d, 100*time.Millisecond), 5*time.Second)
	return b.d
}

func (b *backoff) reset() { b.d = 0 }

// sleep waits d or until ctx ends; it reports whether ctx is still alive.
// Used to pace retries only, never to wait for an event.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// nextIndex applies Consul's rules for blocking-query indexes: start over if
// the index went backwards, and never wait on 0.
func nextIndex(prev, got uint64) uint64 {
	switch {
	case got < prev:
		return 0
	case got == 0:
		return 1
	default:
		return got
	}
}
