package engine_test

// Failures SeaTunnel's users reported against its engine (Zeta), each
// reproduced here and named after its issue in apache/seatunnel. They run
// on the embedded engine; the cluster's (leader change, a worker lost) are
// in tests/cluster, and the ones a user meets through the binary in
// tests/cli.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/localfile"
)

// SeaTunnel #9368: a BATCH job whose checkpoint timed out (checkpoint.timeout
// 10 s, shorter than a stalled subtask's work) had its pipeline turn
// CANCELING while one of its tasks never left CANCELING: the job showed
// RUNNING at 0 rows/s for good. Here a transform subtask stalls in one
// batch for far longer than checkpoint.timeout and ignores the cancel
// meanwhile: the checkpoint is aborted past tolerable failures, the
// pipeline is cancelled (the stalled subtask given up after the cancel
// timeout) and restored, and the job finishes, exactly once.
func TestSeaTunnel9368CheckpointTimeoutDoesNotLeaveTheJobRunning(t *testing.T) {
	var logs strings.Builder
	e := start(t, 16, func(c *engine.Config) {
		c.Checkpoint.TolerableFailures = 0
		c.CancelTimeout = 300 * time.Millisecond
		c.Log = zerolog.New(&syncWriter{w: &logs})
	})
	began := time.Now()
	submit(t, e, "st9368", `
env { job.mode = BATCH, checkpoint.interval = 50, checkpoint.timeout = 300, job.retry.times = 2, job.retry.interval.seconds = 0, read_limit.rows_per_second = 4000 }
source { EngineTestSource { rows = 1000, parallelism = 1 } }
transform { EngineTestTransform { stall_once_ms = 4000, fail_once = "st9368", parallelism = 2 } }
sink { EngineTestSink { key = "st9368", parallelism = 2 } }`)
	st, err := e.Wait("st9368", 40*time.Second)
	if err != nil {
		t.Fatalf("the job hung after a checkpoint timeout: %v", err)
	}
	checkFinishedRestored(t, st)
	_, committed := got.get("st9368")
	checkExactlyOnce(t, "committed", committed, 1000)
	if l := logs.String(); !strings.Contains(l, "timed out after 300ms") || !strings.Contains(l, "did not stop") {
		t.Fatalf("the pipeline was not restored for the timeout and the stalled subtask:\n%s", l)
	}
	t.Logf("finished in %s, attempt %d", time.Since(began).Round(time.Millisecond), st.Pipelines[0].Attempt)
}

// flakyStore fails NextCheckpointID once, at its n-th call, and records the
// ids it handed out before.
type flakyStore struct {
	storage.Storage
	mu     sync.Mutex // guards the fields below
	calls  int
	failAt int
	before int64 // the last id handed out before the failure
}

func (s *flakyStore) NextCheckpointID(ctx context.Context, job string, p int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.calls == s.failAt {
		return 0, errors.New("injected: the checkpoint id could not be stored")
	}
	id, err := s.Storage.NextCheckpointID(ctx, job, p)
	if s.calls < s.failAt {
		s.before = id
	}
	return id, err
}

// SeaTunnel #10442: a checkpoint whose trigger failed (dispatching the
// barrier timed out) left the coordinator's pending count raised for good:
// the job stayed RUNNING with no error and never took a checkpoint again.
// Here a trigger fails twice over, in the checkpoint storage (the next id
// cannot be stored) and in the enumerator's snapshot: each time the
// pipeline fails over, and checkpoints complete again after it; the job
// finishes exactly once.
func TestSeaTunnel10442CheckpointsRunAgainAfterATriggerFails(t *testing.T) {
	for _, c := range []struct{ name, source string }{
		{"storage", `EngineTestSource { rows = 1500, parallelism = 2 }`},
		{"enumerator", `EngineTestSource { rows = 1500, parallelism = 2, snapshot_fail_once = "st10442" }`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			base, err := localfile.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			flaky := &flakyStore{Storage: base, failAt: 4}
			if c.name != "storage" {
				flaky.failAt = -1
			}
			e := start(t, 16, func(cfg *engine.Config) { cfg.Store = flaky })
			id := "st10442-" + c.name
			submit(t, e, id, fmt.Sprintf(`
env { job.mode = BATCH, checkpoint.interval = 50, job.retry.times = 2, job.retry.interval.seconds = 0, read_limit.rows_per_second = 2000 }
source { %s }
sink { EngineTestSink { key = %q, parallelism = 2 } }`, c.source, id))
			st := wait(t, e, id)
			checkFinishedRestored(t, st)
			cps, err := base.List(id)
			if err != nil {
				t.Fatal(err)
			}
			// Checkpoints of the restored attempt completed: more than the
			// final one alone.
			after := 0
			for _, cp := range cps {
				if cp.Attempt >= 1 && cp.Id > flaky.before {
					after++
				}
			}
			if after < 2 {
				t.Fatalf("%d checkpoints completed after the failed trigger: %v", after, cps)
			}
			_, committed := got.get(id)
			checkExactlyOnce(t, "committed", committed, 3000)
		})
	}
}

// SeaTunnel #6881: a job cancelled before its JobMaster had finished
// initialising stayed CANCELING for good. Here a job is cancelled while
// it resolves, while it waits in the pending queue for slots
// (job-schedule-strategy WAIT) and right after it is submitted: each ends
// CANCELED at once.
func TestSeaTunnel6881CancelBeforeTheJobRuns(t *testing.T) {
	for _, c := range []struct {
		name, job string
		until     string // the state to cancel in ("" right away)
	}{
		{"resolving", "source { EngineTestPanicSource { rows = 10, resolve_ms = 60000 } }\nsink { EngineTestSink { key = \"st6881\" } }", state.JobInitializing},
		{"pending", "env { tag_filter { zone = \"b\" } }\nsource { EngineTestSource { rows = 10 } }\nsink { EngineTestSink { key = \"st6881\" } }", state.JobPending},
		{"submitted", "source { EngineTestSource { rows = 100000, unbounded = true } }\nsink { EngineTestSink { key = \"st6881\", count_only = true } }", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := startWaiting(t, 16, 8)
			id := "st6881-" + c.name
			go func() { _ = e.Submit(submitMsg(id, c.job)) }()
			waitState(t, e, id, c.until)
			e.Cancel(id)
			st, err := e.Wait(id, 10*time.Second)
			if err != nil {
				s, _ := e.Status(id)
				t.Fatalf("the cancelled job did not end: %v (state %v)", err, s)
			}
			if st.State != state.JobCanceled {
				t.Fatalf("state %s (%s), want CANCELED", st.State, st.Error)
			}
		})
	}
}

// waitState waits until job id is known (not UNKNOWN: the submit may not
// have reached the coordinator yet) in state want ("" any state).
func waitState(t *testing.T, e *engine.Engine, id, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err := e.Status(id)
		if err == nil && st != nil && st.State != "" && st.State != "UNKNOWN" && (want == "" || st.State == want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s never reached state %q: %v %v", id, want, st, err)
		}
	}
}

// SeaTunnel #9995 (and #7369, #5558, #10115 before it): a cancelled job
// stayed CANCELING because one of its tasks did not stop. Here the sink's
// writer is blocked in a write that ignores the cancel (it sleeps for a
// minute): the subtask is given up after the cancel timeout and the job
// ends CANCELED, the writer's late return changing nothing.
func TestSeaTunnel9995CancelEndsWithASubtaskBlockedInWrite(t *testing.T) {
	e := start(t, 16, func(c *engine.Config) { c.CancelTimeout = 500 * time.Millisecond })
	submit(t, e, "st9995", `
env { job.mode = STREAMING, checkpoint.interval = 100 }
source { EngineTestSource { rows = 1000000, unbounded = true } }
transform { EngineTestTransform { parallelism = 2 } }
sink { EngineTestSink { key = "st9995", delay_ms = 60000, parallelism = 2 } }`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if st, err := e.Status("st9995"); err == nil && st.State == state.JobRunning && st.ReadRows > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not start")
		}
	}
	time.Sleep(200 * time.Millisecond) // the sink is in its minute-long write
	began := time.Now()
	e.Cancel("st9995")
	st, err := e.Wait("st9995", 10*time.Second)
	if err != nil {
		s, _ := e.Status("st9995")
		t.Fatalf("the job stayed %v after cancel: %v", s.GetState(), err)
	}
	if st.State != state.JobCanceled {
		t.Fatalf("state %s (%s), want CANCELED", st.State, st.Error)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("cancel took %s", took)
	}
}

// SeaTunnel #7735: after a failover the job's row counts were doubled. Here
// a source fails once half way through and the pipeline is restored from
// its checkpoint: the committed rows are exact, and so are the job's read
// and write counts (the restored checkpoint's, plus what the new attempt
// read after it), not the rows read twice.
func TestSeaTunnel7735FailoverDoesNotDoubleRowCounts(t *testing.T) {
	e := start(t, 16)
	// The failure must land after rows the last checkpoint does not
	// cover, or the attempt after it replays nothing and the counts prove
	// nothing; on a loaded machine a checkpoint can complete just before
	// it, so the job is run again (a new key, failing once again) up to
	// three times for a failover that replays.
	run := time.Now().UnixNano() // fail_once keys are the process's: new ones for -count
	for try := 1; ; try++ {
		key := fmt.Sprintf("st7735-%d-%d", run, try)
		submit(t, e, key, fmt.Sprintf(`
env { checkpoint.interval = 30, job.retry.times = 2, job.retry.interval.seconds = 0, read_limit.rows_per_second = 4000 }
source { EngineTestSource { rows = 1000, parallelism = 2, fail_at = 600, fail_once = %q } }
transform { EngineTestTransform { parallelism = 3 } }
sink { EngineTestSink { key = %q, parallelism = 3 } }`, key, key))
		st := wait(t, e, key)
		checkFinishedRestored(t, st)
		written, committed := got.get(key)
		checkExactlyOnce(t, "committed", committed, 2000)
		if len(written) <= 2000 {
			if try < 3 {
				t.Logf("run %d: %d rows written: the failover replayed nothing; running it again", try, len(written))
				continue
			}
			t.Fatalf("%d rows written in each of %d runs: the failover replayed nothing, so the counts prove nothing", len(written), try)
		}
		if st.ReadRows != 2000 || st.WriteRows != 2000 {
			t.Fatalf("after the failover the job counts %d rows read and %d written, want 2000 each (%d were written in all attempts)", st.ReadRows, st.WriteRows, len(written))
		}
		return
	}
}

// checkFinishedRestored asserts the job finished after its pipeline was
// restored at least once.
func checkFinishedRestored(t *testing.T, st *messages.JobStatus) {
	t.Helper()
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if st.Pipelines[0].Attempt < 1 {
		t.Fatalf("the pipeline was not restored (attempt %d)", st.Pipelines[0].Attempt)
	}
}
