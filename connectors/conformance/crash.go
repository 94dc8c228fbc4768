package conformance

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/internal/stactorbin"
)

// KillsEnv raises the number of SIGKILLs RunCrash makes (the soak runs).
const KillsEnv = "STACTOR_CONFORMANCE_KILLS"

// Crash is an exactly-once case run through the real stactor binary: the
// job is started, killed with SIGKILL at random moments and restored from
// its latest checkpoint each time, then let finish; Verify then checks
// what the sink committed (every row exactly once).
type Crash struct {
	// Job returns the job file's text. dir is the case's new temporary
	// directory: Job writes the job's input there and points the sink at
	// it. The job should run for a few seconds (read_limit) with frequent
	// checkpoints, so that kills land mid-job.
	Job func(dir string) (string, error)
	// Verify checks the committed output once the job has finished.
	Verify func(dir string) error
	// Kills is the number of SIGKILLs (3 when 0, so the suite stays
	// fast); KillsEnv overrides it.
	Kills int
	// MinDelay and MaxDelay bound the time from a start to its kill
	// (300 ms and 1.5 s when 0).
	MinDelay, MaxDelay time.Duration
	// Timeout bounds the final, unkilled run (3 minutes when 0).
	Timeout time.Duration
}

// RunCrash runs c. It builds the binary (go's build cache makes repeated
// builds cheap); Go must be installed, as for any test.
func RunCrash(t *testing.T, c Crash) {
	t.Helper()
	bin, cleanup, err := buildOnce()
	if err != nil {
		t.Fatalf("building stactor: %v", err)
	}
	t.Cleanup(cleanup)
	runCrash(realT{t}, bin, c)
}

var build struct {
	sync.Mutex
	path  string
	users int
	clean func()
}

// buildOnce builds the binary for the tests that run at the same time
// and removes it when the last of them is done.
func buildOnce() (string, func(), error) {
	build.Lock()
	defer build.Unlock()
	if build.users == 0 {
		path, clean, err := stactorbin.Build()
		if err != nil {
			return "", nil, err
		}
		build.path, build.clean = path, clean
	}
	build.users++
	return build.path, func() {
		build.Lock()
		defer build.Unlock()
		if build.users--; build.users == 0 {
			build.clean()
		}
	}, nil
}

func runCrash(t tb, bin string, c Crash) {
	t.Helper()
	kills := c.Kills
	if kills == 0 {
		kills = 3
	}
	if v, err := strconv.Atoi(os.Getenv(KillsEnv)); err == nil && v > 0 {
		kills = v
	}
	if c.MinDelay == 0 {
		c.MinDelay = 300 * time.Millisecond
	}
	if c.MaxDelay <= c.MinDelay {
		c.MaxDelay = c.MinDelay + 1200*time.Millisecond
	}
	if c.Timeout == 0 {
		c.Timeout = 3 * time.Minute
	}
	dir := t.TempDir()
	text, err := c.Job(dir)
	if err != nil {
		t.Fatalf("writing the job: %v", err)
	}
	job := filepath.Join(dir, "job.conf")
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	log := &lockedLog{}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	killed := 0
	for i := 0; ; i++ {
		args := []string{"run", "-c", job, "--job-id", "conformance"}
		if i > 0 {
			args = []string{"run", "-c", job, "--restore", "conformance"}
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(dir, "home"))
		fmt.Fprintf(log, "--- run %d: stactor %s\n", i, strings.Join(args, " "))
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting stactor: %v", err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		limit := c.Timeout
		if killed < kills {
			limit = c.MinDelay + time.Duration(rng.Int63n(int64(c.MaxDelay-c.MinDelay)))
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d failed: %v\n%s", i, err, lastLines(log.String(), 40))
			}
			t.Logf("finished after %d kills", killed)
			if killed < kills {
				t.Logf("the job finished before all %d kills: make it longer (read_limit) for a stronger test", kills)
			}
			if err := c.Verify(dir); err != nil {
				t.Fatalf("after %d kills and restores: %v\n%s", killed, err, lastLines(log.String(), 40))
			}
			return
		case <-time.After(limit):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			if killed >= kills {
				t.Fatalf("the final run did not finish within %v\n%s", c.Timeout, lastLines(log.String(), 40))
			}
			killed++
		}
	}
}

// lockedLog keeps the runs' output; exec copies stdout and stderr from
// two goroutines.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ExactlyOnce tells whether ids hold each of 0..n-1 exactly once.
func ExactlyOnce(ids []int64, n int) error {
	seen := make([]int, n)
	var out []int64
	for _, id := range ids {
		if id < 0 || id >= int64(n) {
			out = append(out, id)
			continue
		}
		seen[id]++
	}
	var lost, dup []int
	for id, k := range seen {
		if k == 0 {
			lost = append(lost, id)
		} else if k > 1 {
			dup = append(dup, id)
		}
	}
	if len(lost)+len(dup)+len(out) == 0 {
		return nil
	}
	first := func(xs []int) []int { return xs[:min(len(xs), 10)] }
	return fmt.Errorf("%d rows committed for ids 0..%d: %d lost (first %v), %d repeated (first %v), %d unknown ids (%v)",
		len(ids), n-1, len(lost), first(lost), len(dup), first(dup), len(out), out[:min(len(out), 10)])
}
