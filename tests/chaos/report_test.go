package chaos

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// table is the run's result in Markdown: faults by kind with the time the
// committed output took to move again after each (from the injection:
// how long the fault was held is part of it), then rows checked, lost and
// duplicated by sink, and the jobs that did not finish, with the cause.
func (h *harness) table(seed int64, took time.Duration) string {
	var b strings.Builder
	load := readFile("/proc/loadavg")
	if f := strings.Fields(load); len(f) > 2 {
		load = strings.Join(f[:3], " ")
	}
	fmt.Fprintf(&b, "\nchaos run: seed %d, %d faults in %s, %d CPUs, load average %s\n\n", seed, len(h.records), took.Round(time.Second), runtime.NumCPU(), load)
	fmt.Fprintln(&b, "| fault | injected | recovered | recovery p50 | p99 | max | pipeline restores | jobs FAILED after it |")
	fmt.Fprintln(&b, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var all []time.Duration
	total, recovered, failedAfter, allRestores := 0, 0, 0, 0
	for _, k := range kinds {
		var ds []time.Duration
		n, failed, restores := 0, 0, 0
		for _, r := range h.records {
			if r.f.kind != k {
				continue
			}
			n++
			failed += len(r.failed)
			restores += r.restores
			if r.recovered && r.err == nil {
				ds = append(ds, r.took)
			}
		}
		if n == 0 {
			continue
		}
		all = append(all, ds...)
		total, recovered, failedAfter, allRestores = total+n, recovered+len(ds), failedAfter+failed, allRestores+restores
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %d | %d |\n", k, n, len(ds), pct(ds, 50), pct(ds, 99), pct(ds, 100), restores, failed)
	}
	fmt.Fprintf(&b, "| **all** | **%d** | **%d** | **%s** | **%s** | **%s** | **%d** | **%d** |\n\n", total, recovered, pct(all, 50), pct(all, 99), pct(all, 100), allRestores, failedAfter)

	fmt.Fprintln(&b, "| sink | jobs | FINISHED | FAILED | other | rows checked | lost | duplicated | not committed by FAILED jobs |")
	fmt.Fprintln(&b, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, sink := range []string{sinkLocalFile, sinkJdbc} {
		var jobs, fin, failed, other, rows, lost, dup, stopped int
		for _, j := range h.jobs {
			if j.sink != sink {
				continue
			}
			jobs++
			rows += j.rows
			dup += j.dup
			switch j.state {
			case "FINISHED":
				fin++
				lost += j.lost
			case "FAILED":
				failed++
				stopped += j.lost
			default:
				other++
			}
		}
		fmt.Fprintf(&b, "| %s (exactly-once) | %d | %d | %d | %d | %d | %d | %d | %d |\n", sink, jobs, fin, failed, other, rows, lost, dup, stopped)
	}
	fmt.Fprintln(&b, "\nEvery committed row is read back. Lost: ids missing from a job that FINISHED. A job that FAILED stopped part way, with the cause below: its output is checked for duplicates, and its missing ids are counted apart.")
	for _, j := range h.jobs {
		if j.state != "FINISHED" {
			fmt.Fprintf(&b, "- %s (%s) %s, %d of %d ids committed, %d duplicated: %s\n", j.id, j.sink, j.state, j.rows-j.lost, j.rows, j.dup, j.cause)
		}
	}
	return b.String()
}

// pct is the p-th percentile of ds (nearest rank), "-" when there are none.
func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s) + 99) / 100
	i = min(max(i, 1), len(s))
	return s[i-1].Round(100 * time.Millisecond).String()
}
