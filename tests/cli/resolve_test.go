package cli

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A job is resolved once (DESIGN §2): a restore without the job file
// continues with the variables the job was resolved with — the -i value
// and the environment of the process that first ran it — whatever the
// restoring process has.
func TestRestoreKeepsTheResolvedVariables(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { job.mode = "STREAMING", checkpoint.interval = 200, read_limit.rows_per_second = 400 }
source { FakeSource { plugin_output = "f", row.num = ${ROWS}, split.num = 2, schema = { fields { id = bigint } } } }
sink { Console { plugin_input = "${INPUT}", log.print.data = false } }
`)
	cmd := stactor(t, dir, "run", "--job-id", "vars1", "-i", "INPUT=f", job)
	cmd.Env = append(cmd.Env, "ROWS=300")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitCheckpoint(t, dir, "vars1")
	cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if !strings.Contains(errb.String(), "SAVEPOINT_DONE") {
		t.Fatalf("no savepoint:\n%s", errb.String())
	}
	// The restoring process has another ROWS and no -i: were the job
	// resolved again, it would read 5 rows, or fail on ${INPUT}.
	cmd = stactor(t, dir, "run", "--restore", "vars1")
	cmd.Env = append(cmd.Env, "ROWS=5")
	out.Reset()
	errb.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// At 400 rows/s the job has read all it will within 3 s.
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	got := counts(t, out.String())
	if got["Total Read Count"] < 300 {
		t.Fatalf("the restored job read %d rows in all; with ROWS=300, as first resolved, it reads at least 300\n%s", got["Total Read Count"], errb.String())
	}
}

// A restore with a changed job file re-resolves it, and a table that
// changed incompatibly since the checkpoint is an error naming the table
// and the column.
func TestRestoreWithIncompatibleTableIsRefused(t *testing.T) {
	dir := t.TempDir()
	text := `
env { job.mode = "STREAMING", checkpoint.interval = 100, read_limit.rows_per_second = 100 }
source { FakeSource { row.num = 100000, schema = { fields { id = bigint, name = string } } } }
sink { Console { log.print.data = false } }
`
	job := writeJob(t, dir, text)
	cmd := stactor(t, dir, "run", "--job-id", "inc1", job)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitCheckpoint(t, dir, "inc1")
	cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if err := os.WriteFile(job, []byte(strings.Replace(text, "name = string", "name = int", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "run", "--restore", "inc1", "-c", job)
	if r.code != 2 || !strings.Contains(r.stderr, "table") || !strings.Contains(r.stderr, "column name was string, is now int") {
		t.Fatalf("exit %d, want 2 and an error naming the column:\n%s", r.code, r.stderr)
	}
}

// One process runs a job at a time (its run lock): a restore of a job that
// still runs, a second run with its --job-id and a second concurrent
// restore are refused at once with exit 2, naming the holder; the running
// one goes on and stops with a savepoint when asked.
func TestSecondRunOfAJobIsRefused(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { job.mode = "STREAMING", checkpoint.interval = 100, read_limit.rows_per_second = 500 }
source { FakeSource { row.num = 1000000, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`)
	first := stactor(t, dir, "run", "--job-id", "lock1", job)
	var errFirst bytes.Buffer
	first.Stderr = &errFirst
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	waitCheckpoint(t, dir, "lock1")
	for _, args := range [][]string{{"run", "--restore", "lock1"}, {"run", "--restore", "lock1", "-c", job}} {
		start := time.Now()
		r := run(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "job lock1: the job is running in another process (pid "+strconv.Itoa(first.Process.Pid)+")") {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "Job Statistic") {
			t.Fatalf("%v printed counts of a run that never ran:\n%s", args, r.stdout)
		}
		t.Logf("%v refused in %s", args, time.Since(start))
	}
	// A fresh run with the id of a job that exists would write its output
	// again from the start.
	if r := run(t, dir, "run", "--job-id", "lock1", job); r.code != 2 || !strings.Contains(r.stderr, "continue it with stactor run --restore lock1") {
		t.Fatalf("second --job-id run: exit %d\n%s", r.code, r.stderr)
	}
	time.Sleep(300 * time.Millisecond)
	first.Process.Signal(syscall.SIGTERM)
	if err := first.Wait(); err == nil || !strings.Contains(errFirst.String(), "SAVEPOINT_DONE") {
		t.Fatalf("the running job: %v\n%s", err, errFirst.String())
	}
	// With the first gone its lock is free: the restore runs.
	restore := stactor(t, dir, "run", "--restore", "lock1")
	var errRestore bytes.Buffer
	restore.Stderr = &errRestore
	if err := restore.Start(); err != nil {
		t.Fatal(err)
	}
	defer restore.Process.Kill()
	waitCheckpoint(t, dir, "lock1")
	time.Sleep(500 * time.Millisecond)
	restore.Process.Signal(syscall.SIGTERM)
	if err := restore.Wait(); err == nil || !strings.Contains(errRestore.String(), "SAVEPOINT_DONE") {
		t.Fatalf("the restore: %v\n%s", err, errRestore.String())
	}
}

// waitCheckpoint waits until job id has a completed checkpoint: it is
// running, past its start.
func waitCheckpoint(t *testing.T, dir, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := run(t, dir, "checkpoints", id)
		if r.code == 0 && strings.Contains(r.stdout, "CHECKPOINT") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s has no checkpoint after 30 s:\n%s\n%s", id, r.stdout, r.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
