package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/ceiling"
	"github.com/stactor/stactor/benchmarks/internal/harness"
)

// bench runs the workloads.
type bench struct {
	o                options
	tmp              string
	stactor, benthos string
	seq              int
	// csv is workload 2's input file, which the ceiling's loop reads too
	// (empty until workload 2 has run).
	csv     string
	csvKept int64 // its rows with score >= 50
}

// measurement is one tool's runs of one workload.
type measurement struct {
	tool    string
	rows    int64
	results []harness.Result
	// err says why the tool did not run or a run failed; the runs before
	// a failure are kept.
	err   string
	extra []string // per-run notes (checkpoints taken)
}

func (m *measurement) ok() bool { return m.err == "" && len(m.results) > 0 }

// rate is the median of rows over wall time.
func (m *measurement) rate() float64 {
	xs := make([]float64, len(m.results))
	for i, r := range m.results {
		xs[i] = float64(m.rows) / r.Wall.Seconds()
	}
	return harness.Median(xs)
}

// cpuRate is the median of rows over CPU time.
func (m *measurement) cpuRate() float64 {
	xs := make([]float64, len(m.results))
	for i, r := range m.results {
		xs[i] = float64(m.rows) / r.CPU().Seconds()
	}
	return harness.Median(xs)
}

// peakAnon is the largest anonymous resident memory sampled in the runs.
func (m *measurement) peakAnon() int64 {
	var p int64
	for _, r := range m.results {
		p = max(p, r.PeakAnon())
	}
	return p
}

// peak is the largest peak resident memory of the runs.
func (m *measurement) peak() int64 {
	var p int64
	for _, r := range m.results {
		p = max(p, r.MaxRSS)
	}
	return p
}

func (m *measurement) walls() string {
	var s []string
	for _, r := range m.results {
		s = append(s, fmt.Sprintf("%.2f", r.Wall.Seconds()))
	}
	return strings.Join(s, ", ")
}

// report is one workload's figures.
type report struct {
	id, title string
	stactor   *measurement
	benthos   *measurement // nil: Benthos has no such workload
	baseline  *measurement // workload 3: the same job without checkpoints
	note      string
}

func (b *bench) dir(name string) string {
	b.seq++
	d := filepath.Join(b.tmp, fmt.Sprintf("%s-%d", name, b.seq))
	if err := os.MkdirAll(d, 0o755); err != nil {
		panic(err) // the temp dir was just made: nothing sensible to go on with
	}
	return d
}

// check runs stactor run --check on a job file: whether the connectors
// it uses exist in this build.
func (b *bench) check(job string) error {
	res, err := harness.Run(harness.Spec{Path: b.stactor, Args: []string{"run", "--check", job},
		Env: []string{"STACTOR_HOME=" + b.dir("check-home")}, Timeout: 30 * time.Second})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%s", strings.TrimPrefix(res.LastLines(1), "Error: "))
	}
	return nil
}

// runStactor runs a job once; verify checks the run's output.
func (b *bench) runStactor(m *measurement, job string, args []string, verify func(harness.Result, string) error) {
	home := b.dir("home")
	defer os.RemoveAll(home)
	res, err := harness.Run(harness.Spec{Path: b.stactor, Args: append(append([]string{"run"}, args...), job),
		Env: []string{"STACTOR_HOME=" + home}, Timeout: b.o.timeout, SampleEvery: sampleEvery})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("stactor %s:\n%s", res.Describe(), res.LastLines(5))
	}
	if err == nil && verify != nil {
		err = verify(res, home)
	}
	if err != nil {
		m.err = err.Error()
		return
	}
	m.results = append(m.results, res)
	fmt.Printf("  stactor  %s rows in %6.2fs wall, %6.2fs CPU, %s peak (%s anonymous)\n", harness.Count(m.rows), res.Wall.Seconds(), res.CPU().Seconds(), harness.MB(res.MaxRSS), harness.MB(res.PeakAnon()))
}

func (b *bench) runBenthos(m *measurement, cfg string, verify func(harness.Result) error) {
	res, err := harness.Run(harness.Spec{Path: b.benthos, Args: []string{"-c", cfg}, Timeout: b.o.timeout, SampleEvery: sampleEvery})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("benthos %s:\n%s", res.Describe(), res.LastLines(5))
	}
	if err == nil && verify != nil {
		err = verify(res)
	}
	if err != nil {
		m.err = err.Error()
		return
	}
	m.results = append(m.results, res)
	fmt.Printf("  benthos  %s rows in %6.2fs wall, %6.2fs CPU, %s peak (%s anonymous)\n", harness.Count(m.rows), res.Wall.Seconds(), res.CPU().Seconds(), harness.MB(res.MaxRSS), harness.MB(res.PeakAnon()))
}

// sampleEvery is how often a run's memory is read for its peak anonymous
// RSS (peak RSS itself comes from rusage).
const sampleEvery = 10 * time.Millisecond

// readAll checks stactor read every row.
func readAll(rows int64) func(harness.Result, string) error {
	return func(res harness.Result, _ string) error {
		st := harness.Statistics(res.Output)
		if st == nil {
			return fmt.Errorf("no Job Statistic Information in the output:\n%s", res.LastLines(5))
		}
		if st["Read Count"] != rows || st["Failed Count"] != 0 {
			return fmt.Errorf("read %d rows (want %d), %d failed", st["Read Count"], rows, st["Failed Count"])
		}
		return nil
	}
}

func (b *bench) workload1() *report {
	o := b.o
	r := &report{id: "1", title: "generate → computed column + filter → discard",
		stactor: &measurement{tool: "stactor", rows: o.rows / int64(o.parallelism) * int64(o.parallelism)},
		benthos: &measurement{tool: "Benthos", rows: o.benthosRows / int64(o.parallelism) * int64(o.parallelism)}}
	fmt.Printf("workload 1: %s\n", r.title)
	dir := b.dir("w1")
	job, _ := writeFile(dir, "w1.conf", stactorGenerate(r.stactor.rows, o.parallelism, 0))
	cfg, _ := writeFile(dir, "w1.yaml", benthosGenerate(r.benthos.rows, o.parallelism))
	stOK := b.check(job)
	if stOK != nil {
		r.stactor.err = "not run: " + stOK.Error()
		fmt.Println("  stactor not run:", stOK)
	}
	for i := 0; i < o.runs; i++ {
		if r.stactor.err == "" {
			b.runStactor(r.stactor, job, nil, readAll(r.stactor.rows))
		}
		if r.benthos.err == "" {
			b.runBenthos(r.benthos, cfg, nil)
		}
	}
	return r
}

func (b *bench) workload3() *report {
	o := b.o
	rows := o.checkpointRows / int64(o.parallelism) * int64(o.parallelism)
	r := &report{id: "3", title: "as 1, with a checkpoint every second",
		stactor:  &measurement{tool: "stactor", rows: rows},
		baseline: &measurement{tool: "stactor, no checkpoint during the run", rows: rows},
		note:     "Benthos has no checkpoints: no Benthos figure."}
	fmt.Printf("workload 3: %s, and the same rows without\n", r.title)
	dir := b.dir("w3")
	job, _ := writeFile(dir, "w3.conf", stactorGenerate(rows, o.parallelism, 1000))
	// The baseline's interval is longer than any run: its only checkpoint
	// is the final one, as in the checkpointed job.
	base, _ := writeFile(dir, "w3-base.conf", stactorGenerate(rows, o.parallelism, 24*3600*1000))
	if err := b.check(job); err != nil {
		r.stactor.err = "not run: " + err.Error()
		fmt.Println("  stactor not run:", err)
		return r
	}
	for i := 0; i < o.runs && r.stactor.err == "" && r.baseline.err == ""; i++ {
		for _, m := range []*measurement{r.baseline, r.stactor} {
			id := fmt.Sprintf("w3-%d-%d", i, len(m.extra))
			file := job
			if m == r.baseline {
				file = base
			}
			b.runStactor(m, file, []string{"--job-id", id}, func(res harness.Result, home string) error {
				if err := readAll(m.rows)(res, home); err != nil {
					return err
				}
				n, err := b.checkpoints(home, id)
				if err != nil {
					return err
				}
				m.extra = append(m.extra, fmt.Sprintf("%d", n))
				return nil
			})
		}
	}
	return r
}

// checkpoints is the id of a job's last checkpoint (the final one
// included): how many it completed, since ids count up from 1.
func (b *bench) checkpoints(home, job string) (int, error) {
	res, err := harness.Run(harness.Spec{Path: b.stactor, Args: []string{"checkpoints", job},
		Env: []string{"STACTOR_HOME=" + home}, Timeout: 30 * time.Second})
	if err != nil || res.ExitCode != 0 {
		return 0, fmt.Errorf("stactor checkpoints %s: %v %s", job, err, res.LastLines(3))
	}
	last := 0
	sc := bufio.NewScanner(bytes.NewReader(res.Output))
	for sc.Scan() {
		var id int
		if _, err := fmt.Sscan(sc.Text(), &id); err == nil && id > last {
			last = id
		}
	}
	return last, nil
}

func (b *bench) workload2() *report {
	o := b.o
	r := &report{id: "2", title: "CSV file → projection, filter, UPPER → JSON lines file",
		stactor: &measurement{tool: "stactor", rows: o.csvRows},
		benthos: &measurement{tool: "Benthos", rows: o.benthosCSVRows}}
	fmt.Printf("workload 2: %s\n", r.title)
	dir := b.dir("w2")
	stIn, btIn := filepath.Join(dir, "stactor.csv"), filepath.Join(dir, "benthos.csv")
	stKept, err := ceiling.WriteCSV(stIn, o.csvRows)
	if err != nil {
		r.stactor.err = err.Error()
		return r
	}
	btKept, err := ceiling.WriteCSV(btIn, o.benthosCSVRows)
	if err != nil {
		r.benthos.err = err.Error()
		return r
	}
	b.csv, b.csvKept = stIn, stKept
	stOut := filepath.Join(dir, "stactor-out")
	btOut := filepath.Join(dir, "benthos-out.jsonl")
	job, _ := writeFile(dir, "w2.conf", ceiling.CSVJob(stIn, stOut, o.parallelism))
	cfg, _ := writeFile(dir, "w2.yaml", benthosCSV(btIn, btOut, o.parallelism))
	if err := b.check(job); err != nil {
		r.stactor.err = "not run: " + err.Error()
		fmt.Println("  stactor not run:", err)
	}
	for i := 0; i < o.runs; i++ {
		if r.stactor.err == "" {
			os.RemoveAll(stOut)
			b.runStactor(r.stactor, job, nil, func(res harness.Result, home string) error {
				if err := readAll(o.csvRows)(res, home); err != nil {
					return err
				}
				return expectLines(stOut, stKept)
			})
		}
		if r.benthos.err == "" {
			os.Remove(btOut)
			b.runBenthos(r.benthos, cfg, func(harness.Result) error { return expectLines(btOut, btKept) })
		}
	}
	os.RemoveAll(stOut)
	os.Remove(btOut)
	return r
}

// expectLines counts the lines of the files at path (a file, or a folder
// walked without its hidden entries such as staging).
func expectLines(path string, want int64) error {
	var n int64
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != path && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		buf := make([]byte, 1<<20)
		for {
			k, err := f.Read(buf)
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			if err != nil {
				break
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("counting output lines: %w", err)
	}
	if n != want {
		return fmt.Errorf("output has %d lines, want %d", n, want)
	}
	return nil
}

// ceilingResult is the bare loops' runs: workload 1's (rates) and
// workload 2's (csvRates).
type ceilingResult struct {
	rows, csvRows    int64
	workers          int
	rates, cpuRates  []float64
	csvRates, csvCPU []float64
	csvErr           string
}

func (c *ceilingResult) rate() float64       { return harness.Median(c.rates) }
func (c *ceilingResult) cpuRate() float64    { return harness.Median(c.cpuRates) }
func (c *ceilingResult) csvRate() float64    { return harness.Median(c.csvRates) }
func (c *ceilingResult) csvCPURate() float64 { return harness.Median(c.csvCPU) }
func (c *ceilingResult) csvOK() bool         { return c.csvErr == "" && len(c.csvRates) > 0 }

func (b *bench) ceiling() *ceilingResult {
	c := &ceilingResult{rows: b.o.rows / int64(b.o.parallelism) * int64(b.o.parallelism), workers: b.o.parallelism, csvRows: b.o.csvRows}
	fmt.Println("ceiling: workload 1 as a hand-written Go loop")
	for i := 0; i < b.o.runs; i++ {
		cpu0 := cpuTime()
		d, kept := ceiling.Run(c.rows, c.workers)
		cpu := cpuTime() - cpu0
		c.rates = append(c.rates, float64(c.rows)/d.Seconds())
		c.cpuRates = append(c.cpuRates, float64(c.rows)/cpu.Seconds())
		fmt.Printf("  %s rows in %.3fs wall, %.3fs CPU (%d kept)\n", harness.Count(c.rows), d.Seconds(), cpu.Seconds(), kept)
	}
	fmt.Println("ceiling: workload 2 as a hand-written Go loop (CSV file → JSON lines files)")
	if err := b.csvCeiling(c); err != nil {
		c.csvErr = err.Error()
		fmt.Println("  failed:", err)
	}
	return c
}

// csvCeiling runs workload 2's loop over workload 2's input (written
// here when workload 2 did not run), checking the lines it keeps.
func (b *bench) csvCeiling(c *ceilingResult) error {
	in, want := b.csv, b.csvKept
	if in == "" {
		in = filepath.Join(b.dir("ceiling-csv"), "in.csv")
		var err error
		if want, err = ceiling.WriteCSV(in, c.csvRows); err != nil {
			return err
		}
	}
	for i := 0; i < b.o.runs; i++ {
		out := b.dir("ceiling-out")
		cpu0 := cpuTime()
		res, err := ceiling.CSVToJSON(in, out, c.workers)
		cpu := cpuTime() - cpu0
		if err == nil && res.Rows != c.csvRows {
			err = fmt.Errorf("the loop read %d rows, want %d", res.Rows, c.csvRows)
		}
		if err == nil {
			err = expectLines(out, want)
		}
		os.RemoveAll(out)
		if err != nil {
			return err
		}
		c.csvRates = append(c.csvRates, float64(res.Rows)/res.Wall.Seconds())
		c.csvCPU = append(c.csvCPU, float64(res.Rows)/cpu.Seconds())
		fmt.Printf("  %s rows in %.3fs wall, %.3fs CPU (%d kept)\n", harness.Count(res.Rows), res.Wall.Seconds(), cpu.Seconds(), res.Kept)
	}
	return nil
}

// cpuTime is this process's user + system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
