package cli

import (
	"bytes"
	"os"
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

// A run replaced by a restore of the same job in another process (its
// attempt fenced) stops within seconds with a message saying so, instead
// of running on beside the new one; the new one goes on.
func TestReplacedRunStops(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { job.mode = "STREAMING", checkpoint.interval = 100, read_limit.rows_per_second = 500 }
source { FakeSource { row.num = 1000000, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`)
	first := stactor(t, dir, "run", "--job-id", "fence1", job)
	var errFirst bytes.Buffer
	first.Stderr = &errFirst
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	waitCheckpoint(t, dir, "fence1")
	second := stactor(t, dir, "run", "--restore", "fence1")
	var errSecond bytes.Buffer
	second.Stderr = &errSecond
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer second.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the replaced run is still running after 15 s:\n%s", errFirst.String())
	}
	if !strings.Contains(errFirst.String(), "replaced by a newer run") {
		t.Fatalf("the replaced run did not say why it stopped:\n%s", errFirst.String())
	}
	// The new run is unaffected: still running, and it stops with a
	// savepoint when asked.
	time.Sleep(500 * time.Millisecond)
	second.Process.Signal(syscall.SIGTERM)
	if err := second.Wait(); err == nil || !strings.Contains(errSecond.String(), "SAVEPOINT_DONE") {
		t.Fatalf("the restoring run: %v\n%s", err, errSecond.String())
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
