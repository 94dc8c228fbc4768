package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stactor/stactor/engine"
)

// The slow-sink scenario of read_limit.adaptive (actors/jobmaster,
// adaptive.go): a streaming job reads 20 000 rows/s (its
// read_limit.rows_per_second) into a sink that flushes in prepareCommit
// what it buffered, at 10 µs a row (2 µs a row to write). Checkpoints
// come every second and time out after 2 s. Mid-job the sink slows down
// 20× (its external system does: the factor ramps up over a few seconds),
// stays so, then recovers at once. At 20× one second's rows take 4 s to
// flush: without adaptive, checkpoints time out; with it, the sources
// slow down first and speed up again when the sink recovers.
//
// At full speed a checkpoint's flush takes about 10% of the timeout, half
// the controller's lowShare, so that a loaded or -race machine, whose
// sleeps overrun, still sees the sink as recovered: at 20 µs a row it sat
// at lowShare, and under load the controller rightly held a limit just
// below the job's instead of lifting it.
type slowSinkPhases struct {
	warm, fast, ramp, slow, recover, lift, after time.Duration
}

// recover is the least time after the recovery before the rate is
// measured again, lift the most: the rate is measured once the limit is
// lifted (the controller raises at most 4× per checkpoint and waits for
// a fresh checkpoint between raises, which a loaded machine slows).
var slowSinkTimeline = slowSinkPhases{warm: 2 * time.Second, fast: 6 * time.Second, ramp: 6 * time.Second, slow: 8 * time.Second,
	recover: 6 * time.Second, lift: 30 * time.Second, after: 6 * time.Second}

// slowSinkFactor is the sink's slow-down at its slowest, in percent.
const slowSinkFactor = 2000

const slowSinkTimeout = 2 * time.Second

type slowSinkResult struct {
	durations     []time.Duration // completed checkpoints, trigger to completion
	failed        int64           // checkpoints aborted
	before, after float64         // sink rows/s in the fast phase and after the recovery
	lowest        float64         // the lowest adaptive limit seen (0: never limited)
	endLimit      float64         // the limit at the end
	log           []string        // the JobMaster's read_limit.adaptive lines
}

func runSlowSink(t testing.TB, adaptive bool) slowSinkResult {
	logs := &syncWriter{w: &strings.Builder{}}
	e, store := startWith(t, 4096, func(c *engine.Config) {
		c.Checkpoint.TolerableFailures = 1000
		c.Log = zerolog.New(logs).Level(zerolog.InfoLevel)
	})
	id := fmt.Sprintf("slowsink-%v-%d", adaptive, time.Now().UnixNano())
	slow := slowdown(id)
	defer slow.Store(100)
	if err := submitErr(e, id, fmt.Sprintf(`
env { job.mode = STREAMING, checkpoint.interval = 1000, checkpoint.timeout = %d,
      read_limit.rows_per_second = 20000, read_limit.adaptive = %v }
source { EngineTestSource { rows = 1000000000000, parallelism = 1 } }
sink { EngineTestSink { key = %q, count_only = true, write_us_per_row = 2, flush_us_per_row = 10 } }`,
		slowSinkTimeout.Milliseconds(), adaptive, id)); err != nil {
		t.Fatal(err)
	}
	var res slowSinkResult
	// The counters move once a metrics interval: a sample is the rows
	// and when they last changed, so that a rate is over whole reports.
	var lastRows int64
	var changed time.Time
	sample := func() (int64, time.Time) {
		m := getJobMetrics(t, e, id)
		var rows int64
		for _, v := range m.Vertices {
			if v.Type == "sink" {
				rows += v.RowsIn
			}
		}
		if rows != lastRows {
			lastRows, changed = rows, time.Now()
		}
		for _, p := range m.Pipelines {
			if l := p.ReadLimitRowsPerSecond; l > 0 && (res.lowest == 0 || l < res.lowest) {
				res.lowest = l
			}
			res.endLimit = p.ReadLimitRowsPerSecond
			res.failed = p.CheckpointsFailed
		}
		return lastRows, changed
	}
	watch := func(d time.Duration, each func(elapsed time.Duration)) {
		start := time.Now()
		for el := time.Duration(0); el < d; el = time.Since(start) {
			if each != nil {
				each(el)
			}
			sample()
			time.Sleep(100 * time.Millisecond)
		}
	}
	rate := func(d time.Duration) float64 {
		r0, t0 := sample()
		watch(d, nil)
		r1, t1 := sample()
		return float64(r1-r0) / t1.Sub(t0).Seconds()
	}
	ph := slowSinkTimeline
	watch(ph.warm, nil)
	res.before = rate(ph.fast)
	watch(ph.ramp, func(el time.Duration) { slow.Store(100 + int64((slowSinkFactor-100)*el/ph.ramp)) })
	slow.Store(slowSinkFactor)
	watch(ph.slow, nil)
	slow.Store(100)
	watch(ph.recover, nil)
	for deadline := time.Now().Add(ph.lift); res.endLimit != 0 && time.Now().Before(deadline); {
		watch(time.Second, nil)
	}
	res.after = rate(ph.after)
	e.Cancel(id)
	if _, err := e.Wait(id, time.Minute); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // a checkpoint may still be completing
	cps, err := store.List(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range cps {
		res.durations = append(res.durations, time.Duration(cp.CompleteUnixMs-cp.TriggerUnixMs)*time.Millisecond)
	}
	slices.Sort(res.durations)
	logs.mu.Lock()
	text := logs.w.String()
	logs.mu.Unlock()
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "read_limit.adaptive") {
			res.log = append(res.log, l)
		}
	}
	return res
}

func (r slowSinkResult) longest() time.Duration {
	if len(r.durations) == 0 {
		return 0
	}
	return r.durations[len(r.durations)-1]
}

func (r slowSinkResult) String() string {
	return fmt.Sprintf("%d checkpoints completed (longest %s), %d aborted; %.0f rows/s before, %.0f after the recovery; lowest limit %.0f rows/s, at the end %.0f",
		len(r.durations), r.longest(), r.failed, r.before, r.after, r.lowest, r.endLimit)
}

// With read_limit.adaptive, a sink slowed 20× keeps every checkpoint
// within checkpoint.timeout where the same job without it times out, and
// the rate comes back after the sink recovers.
func TestAdaptiveReadLimitKeepsCheckpointsInTime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two jobs of 34 s or more")
	}
	without := runSlowSink(t, false)
	t.Logf("without read_limit.adaptive: %s", without)
	if without.failed == 0 && without.longest() < slowSinkTimeout {
		t.Fatalf("without read_limit.adaptive no checkpoint timed out: the scenario tests nothing (%s)", without)
	}
	with := runSlowSink(t, true)
	t.Logf("with read_limit.adaptive: %s", with)
	if with.failed > 0 || with.longest() >= slowSinkTimeout {
		t.Errorf("with read_limit.adaptive checkpoints still timed out: %s", with)
	}
	if with.lowest == 0 || with.lowest > 15000 {
		t.Errorf("the sources were not slowed down: %s", with)
	}
	if with.endLimit != 0 {
		t.Errorf("the limit was not lifted after the sink recovered: %s", with)
	}
	for _, l := range with.log {
		t.Log(l)
	}
	if logged := strings.Join(with.log, "\n"); !strings.Contains(logged, "new rate") || !strings.Contains(logged, "limit lifted") {
		t.Errorf("the limit's changes were not logged")
	}
	if with.after < 0.9*with.before {
		t.Errorf("after the recovery %.0f rows/s, below 90%% of %.0f before the slowdown", with.after, with.before)
	}
}

// BenchmarkAdaptiveReadLimit is the scenario's figures, without and with
// read_limit.adaptive (benchmarks/RESULTS.md).
//
//	go test -run '^$' -bench AdaptiveReadLimit -benchtime 1x ./engine/
func BenchmarkAdaptiveReadLimit(b *testing.B) {
	for _, adaptive := range []bool{false, true} {
		b.Run(fmt.Sprintf("adaptive-%v", adaptive), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r := runSlowSink(b, adaptive)
				b.Logf("%s", r)
				b.ReportMetric(float64(len(r.durations)), "checkpoints")
				b.ReportMetric(float64(r.failed), "aborted")
				b.ReportMetric(float64(r.longest().Milliseconds()), "longest-ms")
				b.ReportMetric(r.before, "rows/s-before")
				b.ReportMetric(r.after, "rows/s-after")
				b.ReportMetric(r.lowest, "lowest-limit")
			}
		})
	}
}
