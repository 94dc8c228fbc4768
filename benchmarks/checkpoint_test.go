package benchmarks

import (
	"fmt"
	"testing"
	"time"

	"github.com/stactor/stactor/benchmarks/internal/inproc"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
)

// BenchmarkCheckpointCPU is the CPU one checkpoint of workload 1's job
// costs (FakeSource → Sql → Console, parallelism 2, read at 10 rows/s so
// that almost nothing else runs): the process's CPU over 10 s with a
// checkpoint every 100 ms, less the same without, per checkpoint taken.
//
//	go test -run '^$' -bench CheckpointCPU -benchtime 1x ./benchmarks/
func BenchmarkCheckpointCPU(b *testing.B) {
	run := func(b *testing.B, interval int) (time.Duration, int64) {
		e := inproc.Start(b)
		id := fmt.Sprintf("ckcpu-%d", interval)
		m, err := engine.JobFromText(id, id+".conf", []byte(fmt.Sprintf(`env { job.mode = "STREAMING", parallelism = 2, checkpoint.interval = %d, read_limit.rows_per_second = 10 }
source { FakeSource { plugin_output = "fake", row.num = 100000000, schema = { fields { id = bigint, name = string, score = double } } } }
transform { Sql { plugin_input = "fake", plugin_output = "out", query = %q } }
sink { Console { plugin_input = "out", log.print.data = false } }`, interval, queryW1)), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Submit(m); err != nil {
			b.Fatal(err)
		}
		time.Sleep(time.Second)
		n0 := checkpointsDone(b, e, id)
		cpu0 := cpuTime()
		time.Sleep(10 * time.Second)
		cpu := cpuTime() - cpu0
		n := checkpointsDone(b, e, id) - n0
		e.Cancel(id)
		if _, err := e.Wait(id, time.Minute); err != nil {
			b.Fatal(err)
		}
		return cpu, n
	}
	for i := 0; i < b.N; i++ {
		idle, _ := run(b, 3600_000)
		busy, n := run(b, 100)
		if n == 0 {
			b.Fatal("no checkpoint completed")
		}
		b.ReportMetric(float64(n), "checkpoints")
		b.ReportMetric(float64((busy-idle).Microseconds())/float64(n)/1000, "cpu-ms/checkpoint")
	}
}

func checkpointsDone(b *testing.B, e *engine.Engine, id string) int64 {
	res, err := e.System.Root.RequestFuture(e.Coordinator, &messages.GetJobMetrics{JobId: id}, 5*time.Second).Result()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, p := range res.(*messages.JobMetrics).Pipelines {
		n += p.CheckpointsCompleted
	}
	return n
}
