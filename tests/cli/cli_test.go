// Package cli runs the stactor binary the way a user does: the quick
// start, read_limit throttling, SIGTERM taking a savepoint, --restore after
// SIGKILL, and `stactor checkpoints`.
package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var binary string

func TestMain(m *testing.M) {
	os.Exit(stactorbin.Main(m.Run, &binary))
}

type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

func stactor(t *testing.T, home string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+home)
	return cmd
}

func run(t *testing.T, home string, args ...string) result {
	t.Helper()
	cmd := stactor(t, home, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeJob(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "job.conf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var statRow = regexp.MustCompile(`(?m)^(Total Read Count|Total Write Count|Total Failed Count) +: +(\d+)$`)

func counts(t *testing.T, stdout string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range statRow.FindAllStringSubmatch(stdout, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	if len(out) != 3 {
		t.Fatalf("no Job Statistic Information block in:\n%s", stdout)
	}
	return out
}

func TestQuickStartExample(t *testing.T) {
	root := filepath.Dir(filepath.Dir(mustGetwd(t)))
	r := run(t, t.TempDir(), "run", filepath.Join(root, "configs", "examples", "fake_to_console.conf"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	c := counts(t, r.stdout)
	if c["Total Read Count"] != 16 || c["Total Write Count"] != 16 || c["Total Failed Count"] != 0 {
		t.Fatalf("counts %v", c)
	}
	if n := strings.Count(r.stdout, "SeaTunnelRow#kind=INSERT"); n != 16 {
		t.Fatalf("%d rows printed", n)
	}
	if !strings.Contains(r.stdout, "***********************************************\n           Job Statistic Information\n") {
		t.Fatalf("statistic block layout:\n%s", r.stdout)
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestParallelismCounts(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { parallelism = 4, job.mode = "BATCH" }
source { FakeSource { row.num = 1000, schema = { fields { name = string, age = int } } } }
sink { Console { log.print.data = false } }
`)
	r := run(t, dir, "run", job)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	c := counts(t, r.stdout)
	if c["Total Read Count"] != 4000 || c["Total Write Count"] != 4000 || c["Total Failed Count"] != 0 {
		t.Fatalf("counts %v", c)
	}
}

// read_limit.rows_per_second throttles each source subtask.
func TestReadLimit(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { read_limit.rows_per_second = 10 }
source { FakeSource { row.num = 20, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`)
	r := run(t, dir, "run", job)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.took < 1500*time.Millisecond || r.took > 6*time.Second {
		t.Fatalf("20 rows at 10 rows/s took %s, want about 2 s", r.took)
	}
}

// read_limit.bytes_per_second holds for a job smaller than one batch: 1,000
// rows of one bigint (9 bytes a row as the engine counts them) at 2,000 B/s
// take about 4.5 s, not one batch at once.
func TestReadLimitBytes(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { read_limit.bytes_per_second = 2000 }
source { FakeSource { row.num = 1000, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`)
	r := run(t, dir, "run", job)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if c := counts(t, r.stdout); c["Total Write Count"] != 1000 {
		t.Fatalf("counts %v", c)
	}
	if r.took < 3500*time.Millisecond {
		t.Fatalf("9,000 bytes at 2,000 B/s took %s, want about 4.5 s", r.took)
	}
}

const streamingJob = `
env { job.mode = "STREAMING", checkpoint.interval = 200, read_limit.rows_per_second = 200 }
source { FakeSource { row.num = 100000, split.num = 4, parallelism = 2, schema = { fields { id = bigint, name = string } } } }
sink { Console { log.print.data = false, parallelism = 3 } }
`

// SIGTERM takes a savepoint: SAVEPOINT_DONE, the restore command printed,
// the savepoint listed; the restored job continues from it.
func TestSigtermTakesSavepointAndRestoreContinues(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, streamingJob)
	cmd := stactor(t, dir, "run", "--job-id", "sp1", job)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "SAVEPOINT_DONE") || !strings.Contains(errb.String(), "stactor run --restore sp1\n") {
		t.Fatalf("no savepoint message:\n%s", errb.String())
	}
	first := counts(t, out.String())
	if first["Total Read Count"] == 0 || first["Total Read Count"] != first["Total Write Count"] {
		t.Fatalf("counts after the savepoint %v (a drained savepoint writes what it read)", first)
	}
	ls := run(t, dir, "checkpoints", "sp1")
	if ls.code != 0 || !strings.Contains(ls.stdout, "SAVEPOINT") {
		t.Fatalf("checkpoints:\n%s\n%s", ls.stdout, ls.stderr)
	}

	// Restore (the plan the job was resolved with: no file needed) and
	// stop again with two signals: the second cancels at once.
	cmd = stactor(t, dir, "run", "--restore", "sp1")
	out.Reset()
	errb.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130\n%s", err, errb.String())
	}
	second := counts(t, out.String())
	if second["Total Read Count"] <= first["Total Read Count"] {
		t.Fatalf("restored job counts %v do not continue from %v", second, first)
	}
}

// After SIGKILL, --restore continues from the latest checkpoint.
func TestRestoreAfterSigkill(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { job.mode = "BATCH", checkpoint.interval = 100, read_limit.rows_per_second = 500 }
source { FakeSource { row.num = 1000, split.num = 5, parallelism = 2, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`)
	cmd := stactor(t, dir, "run", "--job-id", "k1", job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	r := run(t, dir, "run", "--restore", "k1", "-c", job, "--log-level", "info")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "restoring pipeline from checkpoint") {
		t.Fatalf("did not restore from a checkpoint:\n%s", r.stderr)
	}
	c := counts(t, r.stdout)
	// Rows read up to the restored checkpoint count too: 2 × 1000 in all.
	if c["Total Read Count"] != 2000 || c["Total Write Count"] != 2000 {
		t.Fatalf("counts %v", c)
	}
}

func TestRestoreUnknownJob(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `source { FakeSource { schema = { fields { id = bigint } } } }
sink { Console {} }`)
	r := run(t, dir, "run", "--restore", "nope", "-c", job)
	if r.code == 0 || !strings.Contains(r.stderr, "--restore nope: no such job") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// With Console writing into a pipe nobody reads, the job cannot drain and
// the statistics cannot be printed: a third SIGTERM still exits at once
// (130), as the README promises, after the second cancelled the job.
func TestThirdSigtermExitsWithStdoutBlocked(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { job.mode = "STREAMING", checkpoint.interval = 200 }
source { FakeSource { row.num = 100000000, split.num = 1, schema = { fields { id = bigint, name = string } } } }
sink { Console {} }
`)
	cmd := stactor(t, dir, "run", job)
	cmd.Env = append(cmd.Env, "STACTOR_TASK_CANCEL_TIMEOUT=1s")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close() // never read: the pipe fills and Console blocks
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = pw, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	time.Sleep(2 * time.Second) // running, the pipe full
	for i := 0; i < 2; i++ {
		cmd.Process.Signal(syscall.SIGTERM)
		time.Sleep(time.Second)
	}
	time.Sleep(3 * time.Second) // the cancel gives up on the stuck Console
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Fatalf("exit %v\n%s", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("alive 10 s after the third SIGTERM\n%s", errb.String())
	}
}

// SIGQUIT exits at once with 131, not 2 (a bad job file).
func TestSigquitExitCode(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, streamingJob)
	cmd := stactor(t, dir, "run", job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGQUIT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 131 {
		t.Fatalf("exit %v, want 131", err)
	}
}
