package engine_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/state"
)

// BenchmarkCheckpointLatency reports checkpoint durations (trigger to
// complete) p50 and p99 with a fast sink and with a sink slowed to 50 ms a
// batch behind a redistributing edge with full channels (DESIGN §5: the
// duration must not grow with the sink's slowness).
//
//	go test -run '^$' -bench CheckpointLatency -benchtime 1x ./engine/
func BenchmarkCheckpointLatency(b *testing.B) {
	for _, delay := range []int{0, 50} {
		b.Run(fmt.Sprintf("sink-delay-%dms", delay), func(b *testing.B) {
			var all []time.Duration
			for i := 0; i < b.N; i++ {
				e, store := startWith(b, 64, nil)
				id := fmt.Sprintf("bench-latency-%d-%d", delay, i)
				if err := submitErr(e, id, fmt.Sprintf(`
env { job.mode = STREAMING, checkpoint.interval = 100 }
source { EngineTestSource { rows = 1000000000, parallelism = 1 } }
sink { EngineTestSink { key = %q, delay_ms = %d, parallelism = 2 } }`, id, delay)); err != nil {
					b.Fatal(err)
				}
				time.Sleep(3 * time.Second)
				e.Cancel(id)
				e.Wait(id, time.Minute)
				time.Sleep(300 * time.Millisecond) // a checkpoint may still be completing
				cps, _ := store.List(id)
				for _, cp := range cps {
					all = append(all, time.Duration(cp.CompleteUnixMs-cp.TriggerUnixMs)*time.Millisecond)
				}
			}
			sort.Slice(all, func(a, c int) bool { return all[a] < all[c] })
			if len(all) == 0 {
				b.Fatal("no checkpoint completed")
			}
			b.ReportMetric(float64(all[len(all)/2].Milliseconds()), "p50-ms")
			b.ReportMetric(float64(all[min(len(all)-1, len(all)*99/100)].Milliseconds()), "p99-ms")
			b.ReportMetric(float64(len(all)), "checkpoints")
		})
	}
}

// BenchmarkCheckpointCost compares rows/s of one job without checkpoints
// (an interval longer than the run) and with checkpoint.interval = 1000.
//
//	go test -run '^$' -bench CheckpointCost -benchtime 3x ./engine/
func BenchmarkCheckpointCost(b *testing.B) {
	for _, interval := range []int{3600000, 1000} {
		name := "no-checkpoints"
		if interval == 1000 {
			name = "interval-1000ms"
		}
		b.Run(name, func(b *testing.B) {
			var rows int64
			var took time.Duration
			for i := 0; i < b.N; i++ {
				e, _ := startWith(b, 4096, nil)
				id := fmt.Sprintf("bench-cost-%d-%d", interval, i)
				start := time.Now()
				if err := submitErr(e, id, fmt.Sprintf(`
env { checkpoint.interval = %d }
source { EngineTestSource { rows = 10000000, parallelism = 2 } }
sink { EngineTestSink { key = %q, parallelism = 2, count_only = true } }`, interval, id)); err != nil {
					b.Fatal(err)
				}
				st, err := e.Wait(id, 5*time.Minute)
				if err != nil || st.State != state.JobFinished {
					b.Fatalf("%v %+v", err, st)
				}
				took += time.Since(start)
				rows += st.WriteRows
			}
			b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
		})
	}
}

func submitErr(e *engine.Engine, id, job string) error {
	return e.Submit(submitMsg(id, job))
}
