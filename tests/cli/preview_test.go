package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRestorePreview: after SIGKILL, `stactor restore ID --preview` says,
// running nothing, which checkpoint a restore starts from, its age, the
// splits left, the commits pending and — given a changed file — the
// parallelism changes; the restore then starts from that checkpoint.
func TestRestorePreview(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	text := `env { job.mode = "BATCH", parallelism = 2, checkpoint.interval = 100, read_limit.rows_per_second = 200 }
source { FakeSource { row.num = 1000, split.num = 3, schema = { fields { id = bigint } } } }
sink { LocalFile { path = "` + out + `", file_format_type = "csv" } }
`
	job := writeJob(t, dir, text)
	cmd := stactor(t, dir, "run", "--job-id", "pv1", job)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitCheckpoint(t, dir, "pv1")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	r := run(t, dir, "restore", "pv1", "--preview")
	if r.code != 0 {
		t.Fatalf("restore --preview: exit %d\n%s", r.code, r.stderr)
	}
	head := regexp.MustCompile(`(?m)^pipeline 1: checkpoint (\d+) \(attempt 0\), completed [0-9-]+ [0-9:]+, \d+s ago$`).FindStringSubmatch(r.stdout)
	if head == nil {
		t.Fatalf("no checkpoint named in:\n%s", r.stdout)
	}
	splits := regexp.MustCompile(`(?m)^  Source\[0\]-FakeSource: (\d+) splits in progress \[[^\]]+\], (\d+) not started`).FindStringSubmatch(r.stdout)
	if splits == nil {
		t.Fatalf("no splits in:\n%s", r.stdout)
	}
	if n, _ := strconv.Atoi(splits[1]); n == 0 || n > 6 {
		t.Fatalf("%s splits in progress, want 1 to 6 (2 readers x 3 splits):\n%s", splits[1], r.stdout)
	}
	// The checkpoint's own infos (one a writer) at least, and any older
	// ones not committed when it was taken.
	if !regexp.MustCompile(`(?m)^  Sink\[0\]-LocalFile: \d+ commit infos of checkpoints [0-9, ]*\b`+head[1]+`, committed \(again, idempotently\)`).MatchString(r.stdout) ||
		!strings.Contains(r.stdout, "parallelism unchanged") {
		t.Fatalf("no pending commits of checkpoint %s, or a parallelism change, in:\n%s", head[1], r.stdout)
	}
	// The same preview with the parallelism changed in the file.
	changed := filepath.Join(dir, "changed.conf")
	writeFile(t, changed, strings.Replace(text, "parallelism = 2", "parallelism = 3", 1))
	r = run(t, dir, "restore", "pv1", "--preview", "-c", changed)
	for _, want := range []string{"Source[0]-FakeSource: parallelism 2 -> 3", "Sink[0]-LocalFile: parallelism 2 -> 3", "pipeline 1: checkpoint " + head[1] + " "} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("restore --preview -c changed.conf: exit %d, no %q in:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	// Nothing ran: the restore starts from the previewed checkpoint.
	r = run(t, dir, "run", "--restore", "pv1", "--log-level", "info")
	if r.code != 0 || !strings.Contains(r.stderr, "restoring pipeline from checkpoint") || !regexp.MustCompile(`"checkpoint":`+head[1]+`\b`).MatchString(r.stderr) {
		t.Fatalf("restore: exit %d, not from checkpoint %s:\n%s", r.code, head[1], r.stderr)
	}
	if r := run(t, dir, "restore", "nope", "--preview"); r.code != 2 || !strings.Contains(r.stderr, "no job nope") {
		t.Fatalf("preview of an unknown job: exit %d\n%s", r.code, r.stderr)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
