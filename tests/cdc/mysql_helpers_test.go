package cdc

import (
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

// killLoop runs a streaming job and SIGKILLs it kills times at random
// moments within spread, restoring it each time; it returns the run that
// is left going. A run that ends by itself fails the test.
func killLoop(t *testing.T, home, job, jobID string, kills int, spread time.Duration, out *lockedBuffer, between func(i int)) *run {
	t.Helper()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for i := 0; ; i++ {
		r := startRun(t, home, job, jobID, i > 0, out)
		if i == kills {
			return r
		}
		wait := spread/3 + time.Duration(rng.Int63n(int64(spread)))
		select {
		case <-r.exited:
			t.Fatalf("run %d ended by itself (%v)\n%s", i, r.err, tail(out.String()))
		case <-time.After(wait):
		}
		r.kill()
		if between != nil {
			between(i)
		}
	}
}
