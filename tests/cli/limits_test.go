package cli

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// runEnv is run with extra environment variables.
func runEnv(t *testing.T, home string, env []string, args ...string) result {
	t.Helper()
	cmd := stactor(t, home, args...)
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// A job's size is bounded with a clear error instead of growing the
// process: parallelism by the job-shape limit and by the slots the local
// worker offers (its memory cut into slot.memory), FakeSource's nested
// arrays by the values a row may hold.
func TestJobSizeIsBounded(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		name, job string
		env       []string
		code      int
		want      []string
	}{
		{"parallelism past the job limit", "env { parallelism = 100000 }\nsource { FakeSource { schema = { fields { id = bigint } } } }\nsink { Console {} }\n",
			nil, 2, []string{"job.conf:2:", "parallelism 100000 is more than the 1024"}},
		{"more subtasks than slots", "env { parallelism = 1000 }\nsource { FakeSource { schema = { fields { id = bigint } } } }\nsink { Console {} }\n",
			[]string{"STACTOR_MEMORY=4096", "STACTOR_SLOT_MEMORY=1024"}, 1, []string{"1000 slots wanted, one per subtask", "offer 4 in all", "1024 MiB of memory", "lower the parallelism"}},
		{"nested arrays", "source { FakeSource {\n  array.size = 4096\n  schema = { fields { a = \"array<array<array<int>>>\" } }\n} }\nsink { Console {} }\n",
			nil, 2, []string{"job.conf:2:", `"array.size"`, "more than 65536 values"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runEnv(t, home, c.env, "run", "--nats", "none", writeJob(t, dir, c.job))
			if r.code != c.code {
				t.Fatalf("exit %d, want %d:\n%s", r.code, c.code, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stderr, w) {
					t.Fatalf("no %q in:\n%s", w, r.stderr)
				}
			}
		})
	}
	// Within the slots the same job runs.
	r := runEnv(t, home, []string{"STACTOR_MEMORY=4096", "STACTOR_SLOT_MEMORY=1024"}, "run", "--nats", "none",
		writeJob(t, dir, "env { parallelism = 4 }\nsource { FakeSource { row.num = 5, schema = { fields { id = bigint } } } }\nsink { Console {} }\n"))
	if r.code != 0 || counts(t, r.stdout)["Total Write Count"] != 20 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
