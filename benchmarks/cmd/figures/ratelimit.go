package main

import (
	"fmt"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

// ratelimit runs 100 rows at read_limit.rows_per_second = 5.
func ratelimit(e *env) (string, error) {
	job, err := e.job("ratelimit.conf", `env { job.mode = "BATCH", parallelism = 1, read_limit.rows_per_second = 5 }
source { FakeSource { plugin_output = "fake", row.num = 100, `+fakeSchema+` } }
sink { Console { plugin_input = "fake", log.print.data = false } }
`)
	if err != nil {
		return "", err
	}
	res, err := e.runStactor(job, harness.Spec{Timeout: 2 * time.Minute})
	if err != nil {
		return "", err
	}
	if err := finished(res, 100); err != nil {
		return "", err
	}
	t := &harness.Table{Header: []string{"job", "expected", "wall time", "rows/s", "peak RSS"}}
	t.Add("FakeSource row.num = 100 → Console, read_limit.rows_per_second = 5", "about 20 s",
		fmt.Sprintf("%.2f s", res.Wall.Seconds()), fmt.Sprintf("%.2f", 100/res.Wall.Seconds()), harness.MB(res.MaxRSS))
	return t.String(), nil
}
