// Command figures takes single figures of the stactor binary, each into
// its own section of benchmarks/RESULTS.md:
//
//	startup    a 32-row quick-start job (FakeSource → Console), process
//	           start to exit, median of -startup-runs (and hyperfine's
//	           figure when hyperfine is installed)
//	ratelimit  read_limit.rows_per_second = 5 on a 100-row job: wall time
//	flow       a FakeSource of 100 M rows into a Console slowed to a crawl
//	           across a rebalance edge (1 → 4 and 4 → 1), run for -flow-for
//	           then interrupted: peak RSS; and the same job without the
//	           slow sink, to completion: time and peak RSS
//	fused      FakeSource → Console(log.print.data = false): rows/s at
//	           parallelism 1 and 2
//	taps       workload 1 of cmd/peers with taps available and no
//	           listener (an embedded NATS server, a tap point per vertex)
//	           against --nats none, interleaved
//	channel    a cross-node channel (natschan) against raw NATS on the
//	           same embedded server, -channel-rounds rounds: the median
//	           of the rounds' ratios of bytes/s
//	all        all of them
//
// Usage: go run ./benchmarks/cmd/figures [flags] NAME...; the bench:*
// tasks run them.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

type options struct {
	startupRuns   int
	flowFor       time.Duration
	flowRows      int64
	flowFastRows  int64
	flowDelayMs   int
	fusedRows     int64
	fusedRuns     int
	tapsRows      int64
	tapsRuns      int
	channelRounds int
	channelTime   string
	results       string
	write         bool
	stactorBin    string
}

// figure is one subcommand.
type figure struct {
	name    string
	run     func(*env) (string, error) // returns the section's Markdown
	noBuild bool                       // needs no stactor binary
}

var figures = []figure{
	{"startup", startup, false},
	{"ratelimit", ratelimit, false},
	{"flow", flow, false},
	{"fused", fused, false},
	{"taps", taps, false},
	{"channel", channel, true},
}

// env is what a figure runs with.
type env struct {
	o       options
	tmp     string
	stactor string
	machine harness.Machine
	seq     int
}

func main() {
	var o options
	flag.IntVar(&o.startupRuns, "startup-runs", 20, "startup: measured runs (after 2 warm-up runs)")
	flag.DurationVar(&o.flowFor, "flow-for", 60*time.Second, "flow: how long the slow job runs before it is interrupted")
	flag.Int64Var(&o.flowRows, "flow-rows", 100_000_000, "flow: FakeSource rows of the slow job")
	flag.Int64Var(&o.flowFastRows, "flow-fast-rows", 100_000_000, "flow: FakeSource rows of the job without the slow sink")
	flag.IntVar(&o.flowDelayMs, "flow-delay-ms", 1, "flow: Console's log.print.delay.ms (a sleep per row) in the slow job")
	flag.Int64Var(&o.fusedRows, "fused-rows", 40_000_000, "fused: rows per run")
	flag.IntVar(&o.fusedRuns, "fused-runs", 3, "fused: runs per parallelism")
	flag.Int64Var(&o.tapsRows, "taps-rows", 40_000_000, "taps: rows per run")
	flag.IntVar(&o.tapsRuns, "taps-runs", 7, "taps: runs with and without taps each")
	flag.IntVar(&o.channelRounds, "channel-rounds", 16, "channel: rounds of the channel's and raw NATS's benchmarks")
	flag.StringVar(&o.channelTime, "channel-benchtime", "1s", "channel: -test.benchtime of each benchmark in a round")
	flag.StringVar(&o.results, "results", "", "RESULTS.md to write (default: benchmarks/RESULTS.md of the module)")
	flag.BoolVar(&o.write, "write", true, "write the sections into RESULTS.md")
	flag.StringVar(&o.stactorBin, "stactor", "", "a stactor binary to measure instead of building ./cmd/stactor")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: figures [flags] startup|ratelimit|flow|fused|taps|channel|all ...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(o, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "figures:", err)
		os.Exit(1)
	}
}

func run(o options, names []string) error {
	var todo []figure
	for _, n := range names {
		found := false
		for _, f := range figures {
			if n == f.name || n == "all" {
				todo = append(todo, f)
				found = true
			}
		}
		if !found {
			return fmt.Errorf("unknown figure %q (startup, ratelimit, flow, fused, taps, channel, all)", n)
		}
	}
	if len(todo) == 0 {
		flag.Usage()
		return fmt.Errorf("no figure named")
	}
	root, err := harness.ModuleRoot()
	if err != nil {
		return err
	}
	if o.results == "" {
		o.results = filepath.Join(root, "benchmarks", "RESULTS.md")
	}
	tmp, err := os.MkdirTemp("", "stactor-bench-figures-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	e := &env{o: o, tmp: tmp, machine: harness.ReadMachine()}
	fmt.Print(e.machine.Markdown())
	e.stactor = o.stactorBin
	build := false
	for _, f := range todo {
		build = build || !f.noBuild
	}
	if e.stactor == "" && build {
		if e.stactor, err = harness.BuildStactor(root, tmp); err != nil {
			return err
		}
	}
	for _, f := range todo {
		fmt.Printf("== %s\n", f.name)
		body, err := f.run(e)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		text := fmt.Sprintf("Command: `%s` (from the module root; written by benchmarks/cmd/figures)\n\n%s\n%s", e.command(f.name), e.machine.Markdown(), body)
		fmt.Println(text)
		if o.write {
			if err := harness.WriteSection(o.results, f.name, text); err != nil {
				return err
			}
		}
	}
	if o.write {
		fmt.Println("wrote", o.results)
	}
	return nil
}

// command is how to take one figure again with the flags this run had.
func (e *env) command(name string) string {
	var flags []string
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "write" && f.Name != "results" {
			flags = append(flags, "-"+f.Name+"="+f.Value.String())
		}
	})
	if len(flags) == 0 {
		return "go tool task bench:" + name
	}
	return "go run ./benchmarks/cmd/figures " + strings.Join(append(flags, name), " ")
}

// job writes a job file and returns its path.
func (e *env) job(name, text string) (string, error) {
	p := filepath.Join(e.tmp, name)
	return p, os.WriteFile(p, []byte(text), 0o644)
}

// home is a fresh STACTOR_HOME.
func (e *env) home() string {
	e.seq++
	d := filepath.Join(e.tmp, fmt.Sprintf("home-%d", e.seq))
	os.MkdirAll(d, 0o755)
	return d
}

// runStactor runs `stactor run [flags] job` with a fresh STACTOR_HOME.
func (e *env) runStactor(job string, s harness.Spec, flags ...string) (harness.Result, error) {
	home := e.home()
	defer os.RemoveAll(home)
	s.Path = e.stactor
	s.Args = append(append([]string{"run"}, flags...), job)
	s.Env = append(s.Env, "STACTOR_HOME="+home)
	if s.Timeout == 0 {
		s.Timeout = 5 * time.Minute
	}
	return harness.Run(s)
}

// finished checks a run ended with exit code 0 and read rows rows.
func finished(res harness.Result, rows int64) error {
	if res.ExitCode != 0 {
		return fmt.Errorf("stactor %s:\n%s", res.Describe(), res.LastLines(5))
	}
	st := harness.Statistics(res.Output)
	if st["Read Count"] != rows || st["Write Count"] != rows {
		return fmt.Errorf("read %d and wrote %d rows, want %d", st["Read Count"], st["Write Count"], rows)
	}
	return nil
}

const fakeSchema = `schema = { fields { id = bigint, name = string, score = double } }`
