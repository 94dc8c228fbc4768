// Package crash kills `stactor run` with SIGKILL at random moments and
// restores it, again and again, and checks the committed output row by
// row: every id exactly once (DESIGN §5, issue "checkpoints").
//
// STACTOR_CRASH_KILLS sets how many kills a test makes (default 20; the
// soak task raises it), STACTOR_CRASH_ROWS the number of rows.
package crash

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/tests/internal/committed"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var binary string

func TestMain(m *testing.M) {
	os.Exit(stactorbin.Main(m.Run, &binary))
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// writeIDs writes a CSV of ids 0..n-1 with a name column.
func writeIDs(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,name-%d\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readCommitted reads every committed output file (not staging) and
// returns the ids in it.
func readCommitted(t *testing.T, dir string) []int {
	t.Helper()
	var ids []int
	if err := committed.IDs(dir, func(_ string, id int64) error { ids = append(ids, int(id)); return nil }); err != nil {
		t.Fatal(err)
	}
	return ids
}

func checkExactlyOnce(t *testing.T, ids []int, n int) {
	t.Helper()
	seen := make([]int, n)
	for _, id := range ids {
		if id < 0 || id >= n {
			t.Fatalf("unexpected id %d", id)
		}
		seen[id]++
	}
	var lost, dup []int
	for id, c := range seen {
		if c == 0 {
			lost = append(lost, id)
		}
		if c > 1 {
			dup = append(dup, id)
		}
	}
	if len(lost) > 0 || len(dup) > 0 {
		t.Fatalf("%d rows committed for %d ids: %d lost (first %v), %d repeated (first %v)", len(ids), n, len(lost), head(lost), len(dup), head(dup))
	}
}

func head(xs []int) []int {
	if len(xs) > 10 {
		return xs[:10]
	}
	return xs
}

// run is one crash-and-restore scenario.
type run struct {
	t        *testing.T
	home     string
	job      string
	jobID    string
	stderr   strings.Builder
	restores int
	// restores from checkpoints that held channel state
	withChannelState int
}

// start runs stactor with the job; restore continues jobID.
func (r *run) start(restore bool, jobFile string) *exec.Cmd {
	args := []string{"run", "--log-level", "info", "-c", jobFile}
	if restore {
		args = append(args, "--restore", r.jobID)
	} else {
		args = append(args, "--job-id", r.jobID)
	}
	cmd := exec.Command(binary, args...)
	// Small batches: the slowed chain finishes a batch (and so reaches a
	// barrier) within about 100 ms.
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+r.home, "STACTOR_BATCH_SIZE=100")
	cmd.Stdout = nil
	cmd.Stderr = &r.stderr
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	return cmd
}

// killAndRestore runs the job, SIGKILLs it kills times at random moments,
// restoring each time (jobFiles[i] is used for the i-th run, the last one
// repeated), then lets it finish.
func (r *run) killAndRestore(kills int, jobFiles []string, minDelay, maxDelay time.Duration) {
	t := r.t
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	finished := false
	for i := 0; i <= kills || !finished; i++ {
		file := jobFiles[min(i, len(jobFiles)-1)]
		cmd := r.start(i > 0, file)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if i < kills {
			delay := minDelay + time.Duration(rng.Int63n(int64(maxDelay-minDelay)))
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("run %d failed before it was killed: %v\n%s", i, err, tail(r.stderr.String()))
				}
				finished = true
			case <-time.After(delay):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-done
				continue
			}
		} else {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("final run failed: %v\n%s", err, tail(r.stderr.String()))
				}
				finished = true
			case <-time.After(5 * time.Minute):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				t.Fatalf("final run did not finish\n%s", tail(r.stderr.String()))
			}
		}
		if finished {
			// A finished job's checkpoints say so; restoring it again must
			// not change the output.
			break
		}
	}
	r.countRestores()
}

func (r *run) countRestores() {
	for _, line := range strings.Split(r.stderr.String(), "\n") {
		if !strings.Contains(line, "restoring pipeline from checkpoint") {
			continue
		}
		var rec struct {
			ChannelBatches int64 `json:"channel_batches"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil {
			r.restores++
			if rec.ChannelBatches > 0 {
				r.withChannelState++
			}
		}
	}
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

func writeJob(t *testing.T, path, in, out, mode string, srcPar, midPar, sinkPar, rate int) {
	t.Helper()
	job := fmt.Sprintf(`
env {
  job.mode = %q
  checkpoint.interval = 200
  job.retry.times = 0
  read_limit.rows_per_second = %d
}
source {
  LocalFile {
    path = %q
    file_format_type = "csv"
    schema = { fields { id = bigint, name = string } }
    parallelism = %d
    plugin_output = "in"
  }
}
transform {
  Filter {
    plugin_input = "in"
    plugin_output = "mid"
    include_fields = [id, name]
    parallelism = %d
  }
}
sink {
  LocalFile {
    plugin_input = "mid"
    path = %q
    file_format_type = "csv"
    parallelism = %d
  }
  # Fused with the Filter (same parallelism), a Console that sleeps 1 ms a
  # row slows that chain below the source's pace: the redistributing edge
  # fills up, and checkpoints record its in-flight batches.
  Console {
    plugin_input = "mid"
    log.print.data = false
    log.print.delay.ms = 1
    parallelism = %d
  }
}
`, mode, rate, in, srcPar, midPar, out, sinkPar, sinkPar)
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rate is a read limit per source subtask, above what the slowed chain
// takes (3 subtasks at about 1000 rows/s each), so the channel stays full.
func rate(n, kills int) int {
	return 2500
}

func TestCrashRestoreExactlyOnce(t *testing.T) {
	kills := envInt("STACTOR_CRASH_KILLS", 20)
	n := envInt("STACTOR_CRASH_ROWS", 30000)
	dir := t.TempDir()
	inDir := filepath.Join(dir, "in")
	os.MkdirAll(inDir, 0o755)
	// several input files, so the source's parallelism has splits to share
	for f := 0; f < 4; f++ {
		var b strings.Builder
		for i := f; i < n; i += 4 {
			fmt.Fprintf(&b, "%d,name-%d\n", i, i)
		}
		os.WriteFile(filepath.Join(inDir, fmt.Sprintf("part-%d.csv", f)), []byte(b.String()), 0o644)
	}
	out := filepath.Join(dir, "out")
	job := filepath.Join(dir, "job.conf")
	// the transform's parallelism differs from the source's: a
	// redistributing edge whose in-flight batches become channel state
	writeJob(t, job, inDir, out, "BATCH", 2, 3, 3, rate(n, kills))
	r := &run{t: t, home: filepath.Join(dir, "home"), jobID: "crash"}
	r.killAndRestore(kills, []string{job}, 150*time.Millisecond, 900*time.Millisecond)
	checkExactlyOnce(t, readCommitted(t, out), n)
	t.Logf("%d kills, %d restores from a checkpoint, %d of them with channel state", kills, r.restores, r.withChannelState)
	if r.withChannelState == 0 {
		t.Fatalf("no restore held channel state; the test did not exercise it")
	}
}

func TestCrashRestoreChangingParallelism(t *testing.T) {
	kills := envInt("STACTOR_CRASH_KILLS", 20)
	n := envInt("STACTOR_CRASH_ROWS", 20000)
	dir := t.TempDir()
	inDir := filepath.Join(dir, "in")
	os.MkdirAll(inDir, 0o755)
	for f := 0; f < 6; f++ {
		var b strings.Builder
		for i := f; i < n; i += 6 {
			fmt.Fprintf(&b, "%d,name-%d\n", i, i)
		}
		os.WriteFile(filepath.Join(inDir, fmt.Sprintf("part-%d.csv", f)), []byte(b.String()), 0o644)
	}
	out := filepath.Join(dir, "out")
	var jobs []string
	for i, par := range []int{4, 2, 3} {
		job := filepath.Join(dir, fmt.Sprintf("job-%d.conf", i))
		writeJob(t, job, inDir, out, "BATCH", 2, par, par, rate(n, kills/2))
		jobs = append(jobs, job)
	}
	r := &run{t: t, home: filepath.Join(dir, "home"), jobID: "rescale"}
	// 4 → 2 → 3, then 3 for the remaining kills
	r.killAndRestore(max(kills/2, 3), jobs, 200*time.Millisecond, 900*time.Millisecond)
	checkExactlyOnce(t, readCommitted(t, out), n)
	t.Logf("%d restores, %d with channel state", r.restores, r.withChannelState)
}

// A STREAMING job whose readers finish far apart: one reads a small file
// and is done early, the other keeps going. Checkpoints must keep
// completing with a finished reader in the pipeline, and SIGKILLs and
// restores must leave every id committed exactly once.
func TestCrashStreamingWithEarlyFinishedReader(t *testing.T) {
	kills := max(envInt("STACTOR_CRASH_KILLS", 20)/2, 3)
	n := envInt("STACTOR_CRASH_ROWS", 20000)
	dir := t.TempDir()
	inDir := filepath.Join(dir, "in")
	os.MkdirAll(inDir, 0o755)
	// part-0 (reader 0) holds 50 ids, part-1 (reader 1) the rest
	var small, big strings.Builder
	for i := 0; i < n; i++ {
		if i < 50 {
			fmt.Fprintf(&small, "%d,name-%d\n", i, i)
		} else {
			fmt.Fprintf(&big, "%d,name-%d\n", i, i)
		}
	}
	os.WriteFile(filepath.Join(inDir, "part-0.csv"), []byte(small.String()), 0o644)
	os.WriteFile(filepath.Join(inDir, "part-1.csv"), []byte(big.String()), 0o644)
	out := filepath.Join(dir, "out")
	job := filepath.Join(dir, "job.conf")
	writeJob(t, job, inDir, out, "STREAMING", 2, 3, 3, rate(n, kills))
	r := &run{t: t, home: filepath.Join(dir, "home"), jobID: "stream"}
	r.killAndRestore(kills, []string{job}, 600*time.Millisecond, 1200*time.Millisecond)
	checkExactlyOnce(t, readCommitted(t, out), n)
	t.Logf("%d restores, %d with channel state", r.restores, r.withChannelState)
	// Reader 0 is done within the first poll; restores from checkpoints
	// taken after that show checkpoints kept completing without it.
	if r.restores < max(1, kills/3) {
		t.Fatalf("only %d of %d restores found a checkpoint: checkpoints stopped completing once a reader finished", r.restores, kills)
	}
}
