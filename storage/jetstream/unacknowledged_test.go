package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// A write that timed out says why it may have (nats-server does not answer
// one it could not store); other errors pass unchanged.
func TestUnacknowledgedExplainsATimedOutWrite(t *testing.T) {
	for _, err := range []error{nats.ErrTimeout, fmt.Errorf("put: %w", context.DeadlineExceeded)} {
		got := unacknowledged(err)
		if !errors.Is(got, err) || !strings.Contains(got.Error(), "JetStream did not acknowledge the write") || !strings.Contains(got.Error(), "full disk") {
			t.Errorf("unacknowledged(%v) = %v", err, got)
		}
	}
	other := errors.New("nats: connection closed")
	if got := unacknowledged(other); got != other {
		t.Errorf("unacknowledged(%v) = %v, want it unchanged", other, got)
	}
	if unacknowledged(nil) != nil {
		t.Error("unacknowledged(nil) is not nil")
	}
}
