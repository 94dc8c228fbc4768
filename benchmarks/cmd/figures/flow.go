package main

import (
	"fmt"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/harness"
)

// flowLimit is the target: a slow sink must not make memory grow.
const flowLimit = 150 << 20

// flowGrace is how long the slow job may take to stop after SIGINT. A
// savepoint drains every channel first (DESIGN §5), so with a credit
// window of 8 batches of 4096 rows per channel and 1 ms per row it may
// need minutes; the figure here is memory, so it is killed instead.
const flowGrace = 30 * time.Second

// flow runs a rebalance edge into a slow sink (flow control must hold the
// source back, memory must stay flat) and the same jobs without the slow
// sink to completion.
func flow(e *env) (string, error) {
	slow := &harness.Table{Header: []string{"edge", "ran for", "rows read / written (last progress block; written lags, see notes)", "RSS at 10 s", "RSS at the end (last sample)", "peak RSS (rusage)", "< 150 MB", "how it stopped"}}
	fast := &harness.Table{Header: []string{"edge", "rows", "wall time", "rows/s", "peak RSS", "< 150 MB"}}
	for _, c := range []struct{ src, sink int }{{1, 4}, {4, 1}} {
		edge := fmt.Sprintf("FakeSource ×%d → Console ×%d", c.src, c.sink)
		rows := e.o.flowRows / int64(c.src) * int64(c.src)
		job, err := e.job(fmt.Sprintf("flow-slow-%d-%d.conf", c.src, c.sink), flowJob(c.src, c.sink, rows, e.o.flowDelayMs))
		if err != nil {
			return "", err
		}
		fmt.Printf("  %s, log.print.delay.ms = %d, for %s\n", edge, e.o.flowDelayMs, e.o.flowFor)
		res, err := e.runStactor(job, harness.Spec{StopAfter: e.o.flowFor, Grace: flowGrace, SampleEvery: time.Second, Timeout: e.o.flowFor + 2*time.Minute,
			Env: []string{"STACTOR_PROGRESS_INTERVAL=5s"}})
		if err != nil {
			return "", err
		}
		at10, last := rssAt(res.Samples, 10*time.Second), int64(0)
		if n := len(res.Samples); n > 0 {
			last = res.Samples[n-1].RSS
		}
		counts := "not printed"
		if r, w, ok := harness.Progress(res.Output); ok {
			counts = fmt.Sprintf("%d / %d", r, w)
		}
		how := fmt.Sprintf("SIGINT: the savepoint drained the channels, %s after %.1f s", res.Describe(), res.StopLatency.Seconds())
		if res.Killed {
			how = fmt.Sprintf("SIGINT, still draining after %s: SIGKILL", flowGrace)
		}
		fmt.Printf("    peak %s, %s\n", harness.MB(res.MaxRSS), how)
		slow.Add(edge, fmt.Sprintf("%.0f s", (res.Wall-res.StopLatency).Seconds()), counts, harness.MB(at10), harness.MB(last), harness.MB(res.MaxRSS), yes(res.MaxRSS < flowLimit), how)

		rows = e.o.flowFastRows / int64(c.src) * int64(c.src)
		job, err = e.job(fmt.Sprintf("flow-fast-%d-%d.conf", c.src, c.sink), flowJob(c.src, c.sink, rows, 0))
		if err != nil {
			return "", err
		}
		fmt.Printf("  %s, %s rows, no delay\n", edge, harness.Count(rows))
		res, err = e.runStactor(job, harness.Spec{Timeout: 10 * time.Minute})
		if err != nil {
			return "", err
		}
		if err := finished(res, rows); err != nil {
			return "", err
		}
		fmt.Printf("    %.2f s, peak %s\n", res.Wall.Seconds(), harness.MB(res.MaxRSS))
		fast.Add(edge, harness.Count(rows), fmt.Sprintf("%.2f s", res.Wall.Seconds()), harness.Rate(float64(rows)/res.Wall.Seconds()), harness.MB(res.MaxRSS), yes(res.MaxRSS < flowLimit))
	}
	return fmt.Sprintf(`Slow sink: FakeSource of %s rows (id bigint, name string, score double) across a rebalance edge into Console with log.print.data = false and log.print.delay.ms = %d (a sleep after every row, in the writer), default engine settings (batch-size 4096, channel.credits 8). The job runs for %s, then gets SIGINT (stactor takes a savepoint and stops; SIGKILL after %s more). RSS is sampled every second from /proc; the peak is wait4's rusage. A savepoint drains every channel before it checkpoints (DESIGN §5): up to 8 credits × 4 channels × 4096 rows in flight, at 1 ms per row per sink, can take minutes, so a kill after the grace is expected here.

%s
The same jobs without the delay, to completion:

%s`, harness.Count(e.o.flowRows), e.o.flowDelayMs, e.o.flowFor, flowGrace, slow.String(), fast.String()), nil
}

func flowJob(src, sink int, rows int64, delayMs int) string {
	return fmt.Sprintf(`env { job.mode = "BATCH" }
source { FakeSource { plugin_output = "fake", parallelism = %d, row.num = %d, %s } }
sink { Console { plugin_input = "fake", parallelism = %d, log.print.data = false, log.print.delay.ms = %d } }
`, src, rows/int64(src), fakeSchema, sink, delayMs)
}

// rssAt is the first sample at or after d.
func rssAt(samples []harness.Sample, d time.Duration) int64 {
	for _, s := range samples {
		if s.At >= d {
			return s.RSS
		}
	}
	return 0
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}
