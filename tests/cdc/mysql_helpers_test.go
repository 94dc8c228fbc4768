package cdc

import (
	"context"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer collects the output of the runs of a job.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// run is one `stactor run` of a job: the first with --job-id, later ones
// restoring it.
type run struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has ended
	err    error         // Wait's, once exited is closed
}

// awaitCaughtUp polls check every 500 ms for up to within and returns its
// last answer; the run ending meanwhile fails t with the tail of out.
func (r *run) awaitCaughtUp(t *testing.T, within time.Duration, out *lockedBuffer, check func() (bool, string)) (bool, string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, why := check()
		if ok || time.Now().After(deadline) {
			return ok, why
		}
		select {
		case <-r.exited:
			t.Fatalf("the last run ended (%v)\n%s", r.err, tail(out.String()))
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func startRun(t *testing.T, home, job, jobID string, restore bool, out *lockedBuffer) *run {
	t.Helper()
	args := []string{"run", "--log-level", "info", "-c", job}
	if restore {
		args = append(args, "--restore", jobID)
	} else {
		args = append(args, "--job-id", jobID)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+home)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &run{cmd: cmd, exited: make(chan struct{})}
	go func() { r.err = cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() { r.kill() })
	return r
}

// kill SIGKILLs the run and waits for it.
func (r *run) kill() {
	_ = r.cmd.Process.Signal(syscall.SIGKILL) // an error when it has ended
	<-r.exited
}

// killPlan is when killLoop SIGKILLs a job's runs.
type killPlan struct {
	kills int
	// Each run is killed min plus up to spread after its start.
	min, spread time.Duration
	// state, when set, tells whether the snapshot is in the output; the
	// later half of the kills wait for it (up to 10 minutes), so that
	// kills land in the snapshot and in the stream.
	state outputState
	// after, when set, runs after kill i.
	after func(i int)
}

// killLoop runs a streaming job and SIGKILLs it as p says, restoring it
// each time; it returns the run that is left going. A run that ends by
// itself fails the test.
func killLoop(ctx context.Context, t *testing.T, home, job, jobID string, p killPlan, out *lockedBuffer) *run {
	t.Helper()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for i := 0; ; i++ {
		r := startRun(t, home, job, jobID, i > 0, out)
		if i == p.kills {
			return r
		}
		if p.state != nil && i >= p.kills-p.kills/2 {
			waitSnapshot(ctx, t, r, p.state, out)
		}
		wait := p.min + time.Duration(rng.Int63n(int64(p.spread)))
		select {
		case <-r.exited:
			t.Fatalf("run %d ended by itself (%v)\n%s", i, r.err, tail(out.String()))
		case <-time.After(wait):
		}
		r.kill()
		if p.after != nil {
			p.after(i)
		}
	}
}

// waitSnapshot waits while run r goes on until state says the snapshot
// is in the output.
func waitSnapshot(ctx context.Context, t *testing.T, r *run, state outputState, out *lockedBuffer) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Minute); ; {
		_, ok, err := state(ctx)
		if err != nil {
			t.Fatalf("reading the output: %v", err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the snapshot did not reach the output in 10 minutes\n%s", tail(out.String()))
		}
		select {
		case <-r.exited:
			t.Fatalf("a run ended by itself (%v)\n%s", r.err, tail(out.String()))
		case <-time.After(time.Second):
		}
	}
}

// outputState is how many rows the output holds and whether the
// snapshot is in it; an output not readable yet (a replay of a partial
// history) holds -1 rows.
type outputState func(ctx context.Context) (rows int, snapshotDone bool, err error)

// snapshotIn is out's outputState: the snapshot is in it when every row
// of the snapshot still in the source (sourceIDs: the ids below the
// snapshot's row count, as text) is. Until the snapshot is done the rows
// of a chunk not yet read (or not yet committed) are missing. Ids below
// that count are never inserted again, so a row in the source when it is
// read after the output was in the source, and so in the output, before.
func snapshotIn(out output, sourceIDs func(context.Context) ([]string, error)) outputState {
	return func(ctx context.Context) (int, bool, error) {
		got, err := out(ctx)
		if err != nil {
			return -1, false, nil
		}
		ids, err := sourceIDs(ctx)
		if err != nil {
			return 0, false, err
		}
		have := make(map[string]bool, len(got))
		for _, r := range got {
			id, _, _ := strings.Cut(r, "|")
			have[id] = true
		}
		for _, id := range ids {
			if !have[id] {
				return len(got), false, nil
			}
		}
		return len(got), true, nil
	}
}

// matches reads out and compares it with want: whether they are equal,
// else what differs (or why out cannot be read).
func matches(ctx context.Context, out output, want []string) (bool, string) {
	got, err := out(ctx)
	if err != nil {
		return false, err.Error()
	}
	if equal(got, want) {
		return true, ""
	}
	return false, diff(got, want) + " " + firstMismatch(got, want)
}

// logKill records when kill i came, how many rows the output held then
// and whether the snapshot was in it.
func logKill(ctx context.Context, t *testing.T, i int, started time.Time, state outputState) {
	t.Helper()
	at := time.Since(started).Round(100 * time.Millisecond)
	n, done, err := state(ctx)
	switch {
	case err != nil:
		t.Logf("kill %d at %v: %v", i+1, at, err)
	case n < 0:
		t.Logf("kill %d at %v: the output cannot be read yet", i+1, at)
	case done:
		t.Logf("kill %d at %v, after the snapshot: the output holds %d rows", i+1, at, n)
	default:
		t.Logf("kill %d at %v, in the snapshot: the output holds %d rows", i+1, at, n)
	}
}
