package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The workloads' job files. Workload 1 (and 3, with checkpoints): generate
// rows of (id bigint, name string, score double), add score2 = score * 2,
// keep even ids, discard. Workload 2: a CSV file of (id, name, score,
// city) → id, UPPER(name), score where score >= 50 → JSON lines.

// w1Query is workload 1's query; workload 2's job is ceiling.CSVJob, which
// the ceiling package's test runs against its loop.
const w1Query = "SELECT id, name, score, score * 2 AS score2 FROM fake WHERE id % 2 = 0"

// stactorGenerate is workload 1 (checkpointMs 0) or 3 for stactor: row.num
// is per source subtask, so rows are split over the parallelism.
func stactorGenerate(rows int64, parallelism int, checkpointMs int) string {
	cp := ""
	if checkpointMs > 0 {
		cp = fmt.Sprintf(", checkpoint.interval = %d", checkpointMs)
	}
	return fmt.Sprintf(`env { job.mode = "BATCH", parallelism = %d%s }
source {
  FakeSource {
    plugin_output = "fake"
    row.num = %d
    schema = { fields { id = bigint, name = string, score = double } }
  }
}
transform {
  Sql {
    plugin_input = "fake"
    plugin_output = "out"
    query = %q
  }
}
sink {
  Console { plugin_input = "out", log.print.data = false }
}
`, parallelism, cp, rows/int64(parallelism), w1Query)
}

// benthosGenerate is workload 1 for Benthos: one generate input per core
// (a broker of copies, as stactor has a source subtask per core), the
// same fields, one mapping that adds score2 and deletes odd ids, and the
// drop output; pipeline threads = cores.
func benthosGenerate(rows int64, parallelism int) string {
	return fmt.Sprintf(`input:
  broker:
    copies: %d
    inputs:
      - generate:
          count: %d
          interval: ""
          batch_size: 1024
          mapping: |
            root.id = random_int(min: 0, max: 9223372036854775806)
            root.name = nanoid(5)
            root.score = random_int(min: 0, max: 1000000) / 10000
pipeline:
  threads: %d
  processors:
    - mapping: |
        root = if this.id %% 2 == 0 { this.merge({"score2": this.score * 2}) } else { deleted() }
output:
  drop: {}
logger:
  level: WARN
metrics:
  none: {}
`, parallelism, rows/int64(parallelism), parallelism)
}

// benthosCSV is workload 2 for Benthos: the file input with the csv
// scanner (header row → field names), one mapping that converts, filters
// and upper-cases, and the file output writing JSON lines.
func benthosCSV(in, out string, parallelism int) string {
	return fmt.Sprintf(`input:
  file:
    paths: [ %q ]
    scanner:
      csv: {}
pipeline:
  threads: %d
  processors:
    - mapping: |
        let score = this.score.number()
        root = if $score >= 50 { {"id": this.id.number(), "name": this.name.uppercase(), "score": $score} } else { deleted() }
output:
  file:
    path: %q
    codec: lines
logger:
  level: WARN
metrics:
  none: {}
`, in, parallelism, out)
}

func writeFile(dir, name, text string) (string, error) {
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, []byte(text), 0o644)
}
