// Command peers measures stactor against Benthos (v4, built from the
// separate module benchmarks/peers) on the same workloads and machine,
// and writes the figures into benchmarks/RESULTS.md (section "peers").
//
//	go tool task bench:peers          # or: go run ./benchmarks/cmd/peers [flags]
//
// Workloads: (1) generate rows → a computed column and a filter → discard;
// (2) CSV file → projection, filter, UPPER → JSON lines file; (3) as 1
// with a checkpoint every second (stactor only: Benthos has no
// checkpoints), over -checkpoint-rows so that a run takes many
// checkpoints, alternating with the same job and rows without a
// checkpoint during the run: their rows per CPU-second give the cost of
// checkpointing. Each runs -runs times, stactor and Benthos alternating,
// as separate processes; hand-written Go loops doing workloads 1 and 2
// in this process are the ceilings (benchmarks/internal/ceiling; the loop
// of workload 2 reads workload 2's CSV file, on as many goroutines as
// stactor's parallelism).
//
// The two tools run different row counts (-rows and -benthos-rows, and
// the same for CSV) so that each run takes seconds: a rate is rows over
// the process's wall time, from start to exit. Rows per CPU-second (user
// + system) are printed too: on a shared machine they are the steadier
// figure.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

type options struct {
	rows, benthosRows       int64
	checkpointRows          int64
	csvRows, benthosCSVRows int64
	runs                    int
	parallelism             int
	workloads               string
	timeout                 time.Duration
	results                 string
	write, keep             bool
	stactorBin              string
}

func main() {
	var o options
	flag.Int64Var(&o.rows, "rows", 40_000_000, "rows per stactor run of workloads 1 and 3 (and workload 1's ceiling)")
	flag.Int64Var(&o.benthosRows, "benthos-rows", 500_000, "rows per Benthos run of workload 1")
	flag.Int64Var(&o.checkpointRows, "checkpoint-rows", 2_000_000_000, "rows per stactor run of workload 3 and its baseline: tens of seconds, so tens of checkpoints")
	flag.Int64Var(&o.csvRows, "csv-rows", 5_000_000, "rows of the CSV file stactor (and workload 2's ceiling) reads in workload 2")
	flag.Int64Var(&o.benthosCSVRows, "benthos-csv-rows", 200_000, "rows of the CSV file Benthos reads in workload 2")
	flag.IntVar(&o.runs, "runs", 3, "runs per tool and workload")
	flag.IntVar(&o.parallelism, "parallelism", runtime.NumCPU(), "stactor parallelism, Benthos inputs and pipeline threads")
	flag.StringVar(&o.workloads, "workloads", "1,2,3,ceiling", "which to run: 1, 2, 3, ceiling")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Minute, "longest one run may take before it is killed")
	flag.StringVar(&o.results, "results", "", "RESULTS.md to write (default: benchmarks/RESULTS.md of the module)")
	flag.BoolVar(&o.write, "write", true, "write the section into RESULTS.md")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (job files, CSV files)")
	flag.StringVar(&o.stactorBin, "stactor", "", "a stactor binary to measure instead of building ./cmd/stactor")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.runs < 1 || o.parallelism < 1 || o.rows < int64(o.parallelism) || o.checkpointRows < int64(o.parallelism) {
		return fmt.Errorf("-runs, -parallelism, -rows and -checkpoint-rows must be positive (rows at least the parallelism)")
	}
	root, err := harness.ModuleRoot()
	if err != nil {
		return err
	}
	if o.results == "" {
		o.results = filepath.Join(root, "benchmarks", "RESULTS.md")
	}
	tmp, err := os.MkdirTemp("", "stactor-bench-peers-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	machine := harness.ReadMachine()
	fmt.Print(machine.Markdown())

	t0 := time.Now()
	stactor := filepath.Join(tmp, "stactor")
	if o.stactorBin != "" {
		// A copy, as the builds are installed (harness.Install).
		err = harness.Install(o.stactorBin, stactor)
	} else {
		stactor, err = harness.BuildStactor(root, tmp)
	}
	if err != nil {
		return err
	}
	benthos, err := harness.BuildBenthos(root, tmp)
	if err != nil {
		return err
	}
	fmt.Printf("built stactor and benthos in %s\n", time.Since(t0).Round(time.Millisecond))

	b := &bench{o: o, tmp: tmp, stactor: stactor, benthos: benthos}
	want := map[string]bool{}
	for _, w := range strings.Split(o.workloads, ",") {
		want[strings.TrimSpace(w)] = true
	}
	var reports []*report
	if want["1"] {
		reports = append(reports, b.workload1())
	}
	if want["2"] {
		reports = append(reports, b.workload2())
	}
	if want["3"] {
		reports = append(reports, b.workload3())
	}
	var ceil *ceilingResult
	if want["ceiling"] {
		ceil = b.ceiling()
	}
	text := render(o, machine, reports, ceil)
	fmt.Println()
	fmt.Print(text)
	if o.write {
		if err := harness.WriteSection(o.results, "peers", text); err != nil {
			return err
		}
		fmt.Println("wrote", o.results)
	}
	return nil
}

// command is how this run was invoked, for RESULTS.md.
func command() string {
	args := os.Args[1:]
	if len(args) == 0 {
		return "go tool task bench:peers"
	}
	return "go run ./benchmarks/cmd/peers " + strings.Join(args, " ")
}
