package jobmaster

import (
	"strings"
	"testing"
	"time"
)

// loop is a controller for a pipeline of one source subtask with a 10 s
// checkpoint.timeout; at is a clock the steps advance by a second.
type loop struct {
	*adaptive
	at time.Time
}

func newLoop(jobRowsPerSecond int64) *loop {
	return &loop{adaptive: newAdaptive(10*time.Second, jobRowsPerSecond, 1), at: time.Unix(1000, 0)}
}

// run steps n times with the sources reading rate rows/s and the busiest
// sink subtask busy for busy of the time; it returns the last change's why.
func (l *loop) run(n int, rate, busy float64) string {
	why := ""
	for i := 0; i < n; i++ {
		l.at = l.at.Add(time.Second)
		if w := l.step(observation{now: l.at, rate: rate, busy: busy}); w != "" {
			why = w
		}
	}
	return why
}

// checkpoint completes one that took took.
func (l *loop) checkpoint(took time.Duration) {
	l.triggered(l.at)
	l.completed(l.at.UnixNano(), took)
}

func TestAdaptiveCutsSlowCheckpointsToTarget(t *testing.T) {
	l := newLoop(0)
	l.run(3, 1000, 0.5)
	l.checkpoint(2 * time.Second) // 20% of the timeout: fine
	if l.run(3, 1000, 0.5); l.limit != 0 {
		t.Fatalf("limited at %.0f after a checkpoint of 20%% of the timeout", l.limit)
	}
	l.checkpoint(7 * time.Second) // 70%: cut to targetShare of it
	why := l.run(1, 1000, 0.5)
	want := 1000 * targetShare / 0.7
	if l.limit < want-1 || l.limit > want+1 || !strings.Contains(why, "70%") {
		t.Fatalf("limit %.0f (%s), want %.0f: the rate that would take %.0f%% of the timeout", l.limit, why, want, 100*targetShare)
	}
	// The same evidence does not cut again.
	if l.run(5, want, 0.5*want/1000); l.limit > want+1 || l.limit < want-1 {
		t.Fatalf("cut again on the same checkpoint: %.0f", l.limit)
	}
}

func TestAdaptiveTimeoutCutsAtMostByMaxCut(t *testing.T) {
	l := newLoop(0)
	l.run(3, 1000, 1)
	l.triggered(l.at)
	l.aborted(true)
	l.run(1, 1000, 1)
	if want := 1000 * targetShare; l.limit < want-1 || l.limit > want+1 {
		t.Fatalf("after a timeout: %.0f rows/s, want %.0f", l.limit, want)
	}
	// A checkpoint in flight for longer than the timeout's half is slow
	// already; a wildly long one cuts by maxCut at most from the rate the
	// last outcome was measured at.
	l.triggered(l.at)
	l.at = l.at.Add(60 * time.Second)
	l.run(1, 350, 0.35)
	if want := l.ref.rate / maxCut; l.limit < want-1 || l.limit > want+1 {
		t.Fatalf("a checkpoint in flight for a minute: %.0f rows/s, want %.0f", l.limit, want)
	}
}

// A sink whose capacity falls (busier at the same rate) slows the sources
// before any checkpoint is slow.
func TestAdaptiveFollowsTheSinksCapacity(t *testing.T) {
	l := newLoop(0)
	l.run(5, 1000, 0.1)
	l.checkpoint(3 * time.Second) // 30%
	l.run(10, 1000, 0.5)          // the sink now needs 5× the time per row
	if l.limit == 0 || l.limit > 700 {
		t.Fatalf("the sink's capacity fell 5×: limit %.0f", l.limit)
	}
}

func TestAdaptiveRaisesAndLifts(t *testing.T) {
	l := newLoop(0)
	l.run(3, 1000, 1)
	l.checkpoint(8 * time.Second)
	l.run(1, 1000, 1)
	cut := l.limit
	// Fast checkpoints at the new rate: raised, by maxRaise at most, once
	// per checkpoint.
	l.run(3, cut, 0.3)
	l.checkpoint(100 * time.Millisecond)
	l.run(1, cut, 0.3)
	if l.limit != cut*maxRaise {
		t.Fatalf("raised from %.0f to %.0f, want ×%g", cut, l.limit, maxRaise)
	}
	if l.run(3, cut, 0.3); l.limit != 0 {
		t.Fatalf("the sources read %.0f of a limit of %.0f: not lifted", cut, l.limit)
	}
}

func TestAdaptiveLiftsAtTheJobsLimit(t *testing.T) {
	l := newLoop(1500)
	l.run(3, 1000, 1)
	l.checkpoint(8 * time.Second)
	l.run(3, 1000, 1)
	l.run(3, l.limit, 0.3)
	l.checkpoint(100 * time.Millisecond)
	why := l.run(1, l.limit, 0.3)
	if l.limit != 0 || !strings.Contains(why, "read_limit.rows_per_second") {
		t.Fatalf("limit %.0f (%s), want lifted: a raise past the job's own limit", l.limit, why)
	}
}
