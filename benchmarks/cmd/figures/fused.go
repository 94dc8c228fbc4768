package main

import (
	"fmt"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

// fused measures FakeSource → Console(log.print.data = false), one fused
// chain per subtask, at parallelism 1 and 2.
func fused(e *env) (string, error) {
	t := &harness.Table{Header: []string{"parallelism", "rows per run", "rows/s (wall, median)", "rows per CPU-s", "peak RSS", "wall per run (s)"}}
	for _, par := range []int{1, 2} {
		rows := e.o.fusedRows / int64(par) * int64(par)
		job, err := e.job(fmt.Sprintf("fused-%d.conf", par), fmt.Sprintf(`env { job.mode = "BATCH", parallelism = %d }
source { FakeSource { plugin_output = "fake", row.num = %d, %s } }
sink { Console { plugin_input = "fake", log.print.data = false } }
`, par, rows/int64(par), fakeSchema))
		if err != nil {
			return "", err
		}
		var rates, cpuRates []float64
		var peak int64
		walls := ""
		for i := 0; i < e.o.fusedRuns; i++ {
			res, err := e.runStactor(job, harness.Spec{Timeout: 5 * time.Minute})
			if err != nil {
				return "", err
			}
			if err := finished(res, rows); err != nil {
				return "", err
			}
			fmt.Printf("  parallelism %d: %s rows in %.2fs wall, %.2fs CPU, %s peak\n", par, harness.Count(rows), res.Wall.Seconds(), res.CPU().Seconds(), harness.MB(res.MaxRSS))
			rates = append(rates, float64(rows)/res.Wall.Seconds())
			cpuRates = append(cpuRates, float64(rows)/res.CPU().Seconds())
			peak = max(peak, res.MaxRSS)
			if walls != "" {
				walls += ", "
			}
			walls += fmt.Sprintf("%.2f", res.Wall.Seconds())
		}
		t.Add(fmt.Sprint(par), harness.Count(rows), harness.Rate(harness.Median(rates)), harness.Rate(harness.Median(cpuRates)), harness.MB(peak), walls)
	}
	return "FakeSource (id bigint, name string, score double) → Console with log.print.data = false; rows/s over the process's wall time.\n\n" + t.String(), nil
}
