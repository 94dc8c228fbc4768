package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A job is resolved once, with the submitting client's variables (DESIGN
// §2): every node process has its own value of ROWS in its environment
// and the client another, and every subtask, on whichever node, reads the
// client's value.
func TestEverySubtaskUsesTheClientsVariables(t *testing.T) {
	c := newCluster(t)
	c.env = map[string][]string{"n1": {"ROWS=5"}, "n2": {"ROWS=6"}, "n3": {"ROWS=7"}}
	c.start(3)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	file := filepath.Join(dir, "vars.conf")
	conf := fmt.Sprintf(`
env { job.mode = "BATCH", checkpoint.interval = 300 }
source { FakeSource { plugin_output = "f", row.num = ${ROWS}, parallelism = 3, schema = { fields { id = bigint } } } }
sink {
  LocalFile { plugin_input = "f", path = %q, file_format_type = "csv", parallelism = 3 }
  Console { plugin_input = "f", parallelism = 3 }
}`, out)
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	const rows = 700
	t.Setenv("ROWS", fmt.Sprint(rows)) // the client's environment
	r := c.cli(2*time.Minute, "submit", "-c", file, "--job-id", "vars")
	if r.code != 0 {
		t.Fatalf("stactor submit: exit %d\n%s\n%s", r.code, r.stdout, tail(r.stderr, 20))
	}
	lines := 0
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.Contains(p, "/.") {
			return err
		}
		data, err := os.ReadFile(p)
		lines += strings.Count(string(data), "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines != 3*rows {
		t.Fatalf("committed %d rows, want %d (3 subtasks × the client's ROWS=%d)", lines, 3*rows, rows)
	}
	nodes := 0
	for _, id := range c.ids() {
		n := c.printed(id)
		t.Logf("node %s printed %d rows", id, n)
		if n%rows != 0 {
			t.Fatalf("node %s printed %d rows: a subtask there read a row.num other than the client's %d", id, n, rows)
		}
		if n > 0 {
			nodes++
		}
	}
	if nodes < 2 {
		t.Fatalf("the subtasks ran on %d node(s); the test needs them spread", nodes)
	}
}
