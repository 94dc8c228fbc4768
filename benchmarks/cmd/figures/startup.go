package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

// startup times the quick-start job from process start to exit.
func startup(e *env) (string, error) {
	job, err := e.job("startup.conf", `env { job.mode = "BATCH", parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 32, `+fakeSchema+` } }
sink { Console { plugin_input = "fake" } }
`)
	if err != nil {
		return "", err
	}
	t := &harness.Table{Header: []string{"command", "measured by", "runs", "median wall", "min", "max", "median CPU (user+sys)", "peak RSS"}}
	for _, c := range []struct {
		name string
		args []string
		rows int64
	}{
		{"stactor run (the job)", []string{"run", job}, 32},
		{"stactor version (process start only, for comparison)", []string{"version"}, -1},
	} {
		var walls, cpus []time.Duration
		var peak int64
		for i := 0; i < e.o.startupRuns+2; i++ {
			home := e.home()
			res, err := harness.Run(harness.Spec{Path: e.stactor, Args: c.args, Env: []string{"STACTOR_HOME=" + home}, Timeout: time.Minute})
			os.RemoveAll(home)
			if err != nil {
				return "", err
			}
			if c.rows >= 0 {
				err = finished(res, c.rows)
			} else if res.ExitCode != 0 {
				err = fmt.Errorf("stactor %s", res.Describe())
			}
			if err != nil {
				return "", err
			}
			if i < 2 {
				continue // warm-up: the binary into the page cache
			}
			walls = append(walls, res.Wall)
			cpus = append(cpus, res.CPU())
			peak = max(peak, res.MaxRSS)
		}
		lo, hi := slices.Min(walls), slices.Max(walls)
		t.Add(c.name, "Go timing loop (fork/exec to wait4)", fmt.Sprint(len(walls)), ms(harness.MedianDuration(walls)), ms(lo), ms(hi), ms(harness.MedianDuration(cpus)), harness.MB(peak))
	}
	if row, err := hyperfine(e, job); err != nil {
		t.Add("stactor run (the job)", "hyperfine", "—", "—", "—", "—", "—", "not measured: "+err.Error())
	} else {
		t.Add(row...)
	}
	return "FakeSource row.num = 32 → Console (printing its 32 rows to a pipe), parallelism 1, a fresh STACTOR_HOME per run; 2 warm-up runs first.\n\n" + t.String(), nil
}

// hyperfine measures the same with hyperfine, when it is installed.
func hyperfine(e *env, job string) ([]string, error) {
	path, err := exec.LookPath("hyperfine")
	if err != nil {
		return nil, fmt.Errorf("hyperfine is not installed (apt-get install hyperfine)")
	}
	home := e.home()
	defer os.RemoveAll(home)
	out := filepath.Join(e.tmp, "hyperfine.json")
	res, err := harness.Run(harness.Spec{Path: path,
		Args:    []string{"--runs", fmt.Sprint(e.o.startupRuns), "--warmup", "2", "-N", "--export-json", out, e.stactor + " run " + job},
		Env:     []string{"STACTOR_HOME=" + home},
		Timeout: 2 * time.Minute})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("hyperfine %s: %s", res.Describe(), res.LastLines(3))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	var r struct {
		Results []struct {
			Median, Min, Max, User, System float64
			Times                          []float64
		}
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.Results) == 0 {
		return nil, fmt.Errorf("reading hyperfine's JSON: %v", err)
	}
	x := r.Results[0]
	sec := func(s float64) string { return ms(time.Duration(s * float64(time.Second))) }
	return []string{"stactor run (the job)", "hyperfine -N --warmup 2", fmt.Sprint(len(x.Times)), sec(x.Median), sec(x.Min), sec(x.Max), sec(x.User+x.System) + " (mean)", "—"}, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
