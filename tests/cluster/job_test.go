package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/tests/internal/output"
)

// job is a test job's files: ids 0..rows-1 in input, committed into out.
type job struct {
	file string
	out  string
	rows int
}

// newJob writes the input (four CSV files, so the source's two readers
// have splits to share) and the job file: LocalFile source (parallelism 2)
// → Filter (3) → LocalFile sink (3), exactly-once, with a Console sink
// fused with the Filter that sleeps 1 ms a row and prints it. The slowed
// chain lags the source, so the redistributing edge between them — across
// nodes, over NATS — holds data in flight that checkpoints record as
// channel state; the printed rows tell on which node the chain ran. env
// adds lines to the job's env block.
func newJob(t *testing.T, dir string, rows int, env ...string) job {
	t.Helper()
	return newJobOf(t, dir, jobShape{mode: "BATCH", rows: rows, rate: 2500}, env...)
}

// jobShape is what newJobOf varies: the job's mode, its ids, its read
// rate per source subtask and the number of input files (0: four).
type jobShape struct {
	mode              string
	rows, rate, files int
}

// newJobOf is newJob's job in another shape.
func newJobOf(t *testing.T, dir string, shape jobShape, env ...string) job {
	t.Helper()
	rows := shape.rows
	in := filepath.Join(dir, "in")
	files := shape.files
	if files == 0 {
		files = 4
	}
	if err := output.WriteInput(in, rows, files); err != nil {
		t.Fatal(err)
	}
	j := job{file: filepath.Join(dir, "job.conf"), out: filepath.Join(dir, "out"), rows: rows}
	conf := fmt.Sprintf(`
env {
  job.mode = %q
  checkpoint.interval = 300
  job.retry.times = 3
  job.retry.interval.seconds = 1
  read_limit.rows_per_second = %d
  %s
}
source {
  LocalFile {
    path = %q
    file_format_type = "csv"
    schema = { fields { id = bigint, name = string } }
    parallelism = 2
    plugin_output = "in"
  }
}
transform {
  Filter {
    plugin_input = "in"
    plugin_output = "mid"
    include_fields = [id, name]
    parallelism = 3
  }
}
sink {
  LocalFile {
    plugin_input = "mid"
    path = %q
    file_format_type = "csv"
    parallelism = 3
  }
  Console {
    plugin_input = "mid"
    log.print.delay.ms = 1
    parallelism = 3
  }
}
`, shape.mode, shape.rate, strings.Join(env, "\n  "), in, j.out)
	if err := os.WriteFile(j.file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return j
}

// committed reads every committed output file and returns the ids in it.
func (j job) committed(t *testing.T) []int {
	t.Helper()
	ids, err := output.IDs(j.out)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkExactlyOnce fails the test unless every id 0..rows-1 is committed
// exactly once.
func (j job) checkExactlyOnce(t *testing.T) {
	t.Helper()
	lost, dup := j.check(t)
	if len(lost) > 0 || len(dup) > 0 {
		t.Fatalf("committed output of %d ids: %d lost (first %v), %d repeated (first %v)", j.rows, len(lost), head(lost), len(dup), head(dup))
	}
}

// checkAtMostOnce fails the test if an id is committed twice (a job
// stopped part way has lost none: the rest is still to come).
func (j job) checkAtMostOnce(t *testing.T) int {
	t.Helper()
	lost, dup := j.check(t)
	if len(dup) > 0 {
		t.Fatalf("committed output: %d ids repeated (first %v)", len(dup), head(dup))
	}
	return j.rows - len(lost)
}

func (j job) check(t *testing.T) (lost, dup []int) {
	t.Helper()
	seen := make([]int, j.rows)
	for _, id := range j.committed(t) {
		if id < 0 || id >= j.rows {
			t.Fatalf("unexpected id %d in the committed output", id)
		}
		seen[id]++
	}
	for id, n := range seen {
		if n == 0 {
			lost = append(lost, id)
		}
		if n > 1 {
			dup = append(dup, id)
		}
	}
	return lost, dup
}

func head(xs []int) []int {
	if len(xs) > 10 {
		return xs[:10]
	}
	return xs
}
