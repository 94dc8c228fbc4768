package main

import (
	"fmt"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

// taps measures what taps cost a job no one taps (issue 15's target: at
// most 2 % of workload 1's throughput): workload 1 of cmd/peers run by
// the binary as `stactor run` does by default, serving an embedded NATS
// server with a tap point on every vertex of every subtask and the
// JobMaster publishing metrics snapshots, against `--nats none` (no
// server, no taps, no snapshots). The runs alternate, so that the
// machine's load falls on both alike; rows per CPU-second is the steadier
// figure on a busy machine.
func taps(e *env) (string, error) {
	rows := e.o.tapsRows / 2 * 2
	job, err := e.job("taps-w1.conf", fmt.Sprintf(`env { job.mode = "BATCH", parallelism = 2 }
source { FakeSource { plugin_output = "fake", row.num = %d, %s } }
transform { Sql { plugin_input = "fake", plugin_output = "out", query = "SELECT id, name, score, score * 2 AS score2 FROM fake WHERE id %% 2 = 0" } }
sink { Console { plugin_input = "out", log.print.data = false } }
`, rows/2, fakeSchema))
	if err != nil {
		return "", err
	}
	type side struct {
		name, note  string
		flags       []string
		rates, cpus []float64
		walls       string
		peak        int64
	}
	sides := []*side{
		{name: "taps available, no listener", note: "default: embedded NATS server, tap points, metrics snapshots"},
		{name: "no taps", note: "--nats none", flags: []string{"--nats", "none"}},
	}
	for i := 0; i < e.o.tapsRuns; i++ {
		for k := range sides {
			s := sides[(i+k)%len(sides)] // alternate which goes first
			res, err := e.runStactor(job, harness.Spec{Timeout: 5 * time.Minute}, s.flags...)
			if err != nil {
				return "", err
			}
			if res.ExitCode != 0 {
				return "", fmt.Errorf("stactor %s:\n%s", res.Describe(), res.LastLines(5))
			}
			if st := harness.Statistics(res.Output); st["Read Count"] != rows {
				return "", fmt.Errorf("%s: read %d rows, want %d", s.name, st["Read Count"], rows)
			}
			fmt.Printf("  %s: %s rows in %.2fs wall, %.2fs CPU\n", s.name, harness.Count(rows), res.Wall.Seconds(), res.CPU().Seconds())
			s.rates = append(s.rates, float64(rows)/res.Wall.Seconds())
			s.cpus = append(s.cpus, float64(rows)/res.CPU().Seconds())
			s.peak = max(s.peak, res.MaxRSS)
			if s.walls != "" {
				s.walls += ", "
			}
			s.walls += fmt.Sprintf("%.2f", res.Wall.Seconds())
		}
	}
	t := &harness.Table{Header: []string{"run", "how", "rows per run", "rows/s (wall, median)", "rows per CPU-s (median)", "peak RSS", "wall per run (s)"}}
	for _, s := range sides {
		t.Add(s.name, s.note, harness.Count(rows), harness.Rate(harness.Median(s.rates)), harness.Rate(harness.Median(s.cpus)), harness.MB(s.peak), s.walls)
	}
	on, off := sides[0], sides[1]
	wall := 100 * (1 - harness.Median(on.rates)/harness.Median(off.rates))
	cpu := 100 * (1 - harness.Median(on.cpus)/harness.Median(off.cpus))
	verdict := func(loss float64) string {
		if loss <= 2 {
			return "yes"
		}
		return "**no**"
	}
	return fmt.Sprintf(`Workload 1 (FakeSource, parallelism 2 → Sql computed column + filter → Console without printing), %d runs each, alternating.

%s
| target | figure | met |
| --- | --- | --- |
| taps available and no listener lose ≤ 2 %% of the rows/s (wall) | %.1f %% | %s |
| the same in rows per CPU-second | %.1f %% | %s |
`, e.o.tapsRuns, t.String(), wall, verdict(wall), cpu, verdict(cpu)), nil
}
