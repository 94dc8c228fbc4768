package main

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

// render writes the section of RESULTS.md: how it was made, the figures,
// and the targets met or missed.
func render(o options, m harness.Machine, reports []*report, ceil *ceilingResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s` (from the module root; written by benchmarks/cmd/peers)\n\n", command())
	b.WriteString(m.Markdown())
	fmt.Fprintf(&b, "- stactor: parallelism %d, default engine settings; Benthos v4.60.0: %d inputs, pipeline threads %d\n", o.parallelism, o.parallelism, o.parallelism)
	fmt.Fprintf(&b, "- %d runs per tool and workload, alternating; rows/s is rows over the process's wall time (start to exit), median of the runs; rows per CPU-second uses user + system time; peak RSS is the largest of the runs (wait4 rusage); peak anon RSS is the largest RssAnon read from /proc every 10 ms (RSS without the pages of mapped files, such as the tool's own executable); both tools are built static (CGO_ENABLED=0; with -stactor, stactor is the binary given) and run as copies of their builds (harness.Install)\n\n", o.runs)

	t := &harness.Table{Header: []string{"workload", "tool", "rows per run", "rows/s (wall)", "rows per CPU-s", "peak RSS", "peak anon RSS", "wall per run (s)", "notes"}}
	for _, r := range reports {
		for _, m := range []*measurement{r.baseline, r.stactor, r.benthos} {
			if m == nil {
				continue
			}
			note := ""
			if len(m.extra) > 0 {
				note = "checkpoints completed per run: " + strings.Join(m.extra, ", ")
			}
			if m.err != "" {
				note = oneLine(m.err)
			}
			if len(m.results) == 0 {
				t.Add(r.id+". "+r.title, m.tool, harness.Count(m.rows), "—", "—", "—", "—", "—", note)
				continue
			}
			t.Add(r.id+". "+r.title, m.tool, harness.Count(m.rows), harness.Rate(m.rate()), harness.Rate(m.cpuRate()), harness.MB(m.peak()), harness.MB(m.peakAnon()), m.walls(), note)
		}
		if r.benthos == nil {
			t.Add(r.id+". "+r.title, "Benthos", "—", "—", "—", "—", "—", "—", r.note)
		}
	}
	if ceil != nil {
		t.Add("ceiling: workload 1 as a bare Go loop", fmt.Sprintf("Go, %d goroutines", ceil.workers), harness.Count(ceil.rows), harness.Rate(ceil.rate()), harness.Rate(ceil.cpuRate()), "—", "—", "—", "in-process, no engine")
		const w2 = "ceiling: workload 2 as a bare Go loop"
		workers := fmt.Sprintf("Go, %d goroutines", ceil.workers)
		if ceil.csvOK() {
			t.Add(w2, workers, harness.Count(ceil.csvRows), harness.Rate(ceil.csvRate()), harness.Rate(ceil.csvCPURate()), "—", "—", "—", "in-process: hand-split CSV, strconv, bytes.Buffer, one output file per goroutine")
		} else {
			t.Add(w2, workers, harness.Count(ceil.csvRows), "—", "—", "—", "—", "—", oneLine(ceil.csvErr))
		}
	}
	b.WriteString(t.String())
	b.WriteString("\n")

	g := &harness.Table{Header: []string{"target", "figure", "met"}}
	byID := map[string]*report{}
	for _, r := range reports {
		byID[r.id] = r
	}
	if r := byID["1"]; r != nil {
		if r.stactor.ok() {
			g.Add("workload 1: stactor ≥ 10 M rows/s", harness.Rate(r.stactor.rate())+" (wall)", yes(r.stactor.rate() >= 10e6))
			est := r.stactor.cpuRate() * float64(min(o.parallelism, m.Cores))
			g.Add("workload 1: the same, from CPU time (rows per CPU-second × cores used: an upper bound for an idle machine)", harness.Rate(est), yes(est >= 10e6))
		} else {
			g.Add("workload 1: stactor ≥ 10 M rows/s", "not measured", "unknown")
		}
		ratioRow(g, "workload 1: stactor ≥ 20× Benthos", r, 20)
		memRow(g, "workload 1: stactor peak RSS ≤ 2× Benthos's", r, 2)
	}
	if r := byID["2"]; r != nil {
		ratioRow(g, "workload 2: stactor ≥ 5× Benthos", r, 5)
		memRow(g, "workload 2: stactor peak RSS ≤ 2× Benthos's", r, 2)
		memRow(g, "workload 2: stactor peak RSS ≤ Benthos's (issue 17)", r, 1)
	}
	if r3 := byID["3"]; r3 != nil {
		name := "workload 3: checkpoints every second cost ≤ 3 % of rows per CPU-second (against the same job and rows without, alternating)"
		if r3.stactor.ok() && r3.baseline.ok() {
			cost := 1 - r3.stactor.cpuRate()/r3.baseline.cpuRate()
			g.Add(name, fmt.Sprintf("%.1f%% (%s against %s rows per CPU-second; wall %s against %s)", 100*cost,
				harness.Rate(r3.stactor.cpuRate()), harness.Rate(r3.baseline.cpuRate()), harness.Rate(r3.stactor.rate()), harness.Rate(r3.baseline.rate())),
				yes(cost <= 0.03))
		} else {
			g.Add(name, "not measured: "+firstErr(r3), "unknown")
		}
	}
	if r := byID["1"]; ceil != nil && r != nil && r.stactor.ok() {
		g.Add("workload 1: stactor's fraction of the bare loop (no target)",
			fmt.Sprintf("%.1f%% wall (%s of %s); %.1f%% per CPU-second", 100*r.stactor.rate()/ceil.rate(), harness.Rate(r.stactor.rate()), harness.Rate(ceil.rate()), 100*r.stactor.cpuRate()/ceil.cpuRate()), "—")
	}
	if r := byID["2"]; ceil != nil && r != nil {
		name := "workload 2: stactor ≥ 25 % of the bare loop per CPU-second"
		if r.stactor.ok() && ceil.csvOK() {
			f := r.stactor.cpuRate() / ceil.csvCPURate()
			g.Add(name, fmt.Sprintf("%.1f%% per CPU-second (%s of %s); %.1f%% wall (%s of %s)", 100*f, harness.Rate(r.stactor.cpuRate()), harness.Rate(ceil.csvCPURate()),
				100*r.stactor.rate()/ceil.csvRate(), harness.Rate(r.stactor.rate()), harness.Rate(ceil.csvRate())), yes(f >= 0.25))
		} else if !ceil.csvOK() {
			g.Add(name, "not measured: the bare loop: "+oneLine(ceil.csvErr), "unknown")
		} else {
			g.Add(name, "not measured: "+firstErr(r), "unknown")
		}
	}
	b.WriteString(g.String())
	return b.String()
}

func ratioRow(g *harness.Table, name string, r *report, want float64) {
	if !r.stactor.ok() || !r.benthos.ok() {
		g.Add(name, "not measured: "+firstErr(r), "unknown")
		return
	}
	wall := r.stactor.rate() / r.benthos.rate()
	cpu := r.stactor.cpuRate() / r.benthos.cpuRate()
	g.Add(name, fmt.Sprintf("%.1f× wall (%.1f× per CPU-second)", wall, cpu), yes(wall >= want))
}

// memRow judges peak RSS against want × Benthos's; the figure gives the
// anonymous part too.
func memRow(g *harness.Table, name string, r *report, want float64) {
	if !r.stactor.ok() || !r.benthos.ok() {
		g.Add(name, "not measured: "+firstErr(r), "unknown")
		return
	}
	s, bt := r.stactor.peak(), r.benthos.peak()
	sa, ba := r.stactor.peakAnon(), r.benthos.peakAnon()
	g.Add(name, fmt.Sprintf("%s vs %s (%.2f×); anonymous %s vs %s (%.2f×)", harness.MB(s), harness.MB(bt), float64(s)/float64(bt),
		harness.MB(sa), harness.MB(ba), float64(sa)/float64(max(ba, 1))), yes(float64(s) <= want*float64(bt)))
}

func firstErr(r *report) string {
	for _, m := range []*measurement{r.stactor, r.baseline, r.benthos} {
		if m != nil && m.err != "" {
			return m.tool + " " + oneLine(m.err)
		}
	}
	return "no runs"
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// oneLine keeps a message's first line, short, and safe in a table cell.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
