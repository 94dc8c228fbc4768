package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/tests/internal/output"
)

// undoJob writes rows ids into four CSV files under dir/in and a job that
// copies them, throttled, into dir/out with LocalFile's exactly-once sink.
func undoJob(t *testing.T, dir string, rows int) (job, out string) {
	t.Helper()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := output.WriteInput(in, rows, 4); err != nil {
		t.Fatal(err)
	}
	job = writeJob(t, dir, fmt.Sprintf(`
env { job.mode = "BATCH", checkpoint.interval = 200, read_limit.rows_per_second = 4000 }
source { LocalFile { path = %q, file_format_type = csv, parallelism = 2, schema = { fields { id = bigint, name = string } } } }
sink { LocalFile { path = %q, file_format_type = csv, parallelism = 2 } }
`, in, out))
	return job, out
}

// committedIDs is the ids committed under out, sorted.
func committedIDs(t *testing.T, out string) []int {
	t.Helper()
	ids, err := output.IDs(out)
	if err != nil {
		t.Fatal(err)
	}
	sort.Ints(ids)
	return ids
}

func checkExact(t *testing.T, ids []int, n int) {
	t.Helper()
	if len(ids) != n {
		t.Fatalf("%d rows committed, want %d", len(ids), n)
	}
	for i, id := range ids {
		if id != i {
			t.Fatalf("row %d has id %d (lost or repeated rows)", i, id)
		}
	}
}

// killAfterCommits runs the job as jobID and SIGKILLs it once at least
// three checkpoints committed files.
func killAfterCommits(t *testing.T, home, job, out, jobID string) {
	t.Helper()
	cmd := stactor(t, home, "run", "--nats", "none", "--job-id", jobID, job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		m, _ := filepath.Glob(filepath.Join(out, "T_"+jobID+"_1_*_*"))
		ckpts := map[string]bool{}
		for _, f := range m {
			parts := strings.Split(filepath.Base(f), "_")
			ckpts[parts[4]] = true
		}
		if len(ckpts) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no three checkpoints committed: %v", m)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

// A restore that must fall back past completed checkpoints — the newest
// one's file corrupt, or every checkpoint of the job deleted — over a
// LocalFile sink: the sink takes back the files those checkpoints
// committed (their names carry the checkpoint), so the restore runs
// without --accept-duplicates and the output holds every row once.
func TestRestorePastLostCheckpointsUndoesLocalFileCommits(t *testing.T) {
	for _, how := range []string{"corrupt", "deleted"} {
		t.Run(how, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			job, out := undoJob(t, dir, 20000)
			id := "undo-" + how
			killAfterCommits(t, home, job, out, id)
			p1 := filepath.Join(home, "checkpoints", id, "pipeline-1")
			if how == "corrupt" {
				m, _ := filepath.Glob(filepath.Join(p1, "completed", "*.ckpt"))
				sort.Strings(m)
				if len(m) < 2 {
					t.Fatalf("checkpoints %v", m)
				}
				b, err := os.ReadFile(m[len(m)-1])
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)/2] ^= 0xff
				if err := os.WriteFile(m[len(m)-1], b, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := os.RemoveAll(p1); err != nil {
				t.Fatal(err)
			}
			r := run(t, home, "run", "--nats", "none", "--restore", id, "-c", job)
			if r.code != 0 {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "the sinks take back what checkpoints") {
				t.Fatalf("no word of the undo:\n%s", r.stderr)
			}
			checkExact(t, committedIDs(t, out), 20000)
		})
	}
}
