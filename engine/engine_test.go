package engine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/localfile"
)

// start starts an engine with checkpoints in a temp dir; opts change its
// config.
func start(t *testing.T, batchSize int, opts ...func(*engine.Config)) *engine.Engine {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Task.BatchSize = batchSize
	store, err := localfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = store
	for _, o := range opts {
		o(&cfg)
	}
	e, err := engine.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

func submitMsg(id, job string) *messages.SubmitJob {
	m, err := engine.JobFromText(id, id+".conf", []byte(job), nil)
	if err != nil {
		panic(fmt.Sprintf("test job %s: %v", id, err))
	}
	return m
}

func submit(t *testing.T, e *engine.Engine, id, job string) {
	t.Helper()
	if err := e.Submit(submitMsg(id, job)); err != nil {
		t.Fatalf("submit: %v", err)
	}
}

func wait(t *testing.T, e *engine.Engine, id string) *messages.JobStatus {
	t.Helper()
	st, err := e.Wait(id, 60*time.Second)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	return st
}

// checkExactlyOnce asserts ids are exactly 0..n-1, each once.
func checkExactlyOnce(t *testing.T, what string, ids []int64, n int) {
	t.Helper()
	if len(ids) != n {
		t.Fatalf("%s: %d rows, want %d", what, len(ids), n)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("%s: row %d has id %d (lost or repeated rows)", what, i, id)
		}
	}
}

func TestBatchJobThroughRebalance(t *testing.T) {
	for _, c := range []struct {
		name                  string
		srcPar, sinkPar, rows int
	}{
		{"fused", 4, 4, 1000},
		{"one-to-four", 1, 4, 10000},
		{"four-to-one", 4, 1, 2500},
		{"three-to-two", 3, 2, 777},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := start(t, 64)
			key := "rebalance-" + c.name
			submit(t, e, key, fmt.Sprintf(`
env { job.mode = BATCH }
source { EngineTestSource { rows = %d, parallelism = %d } }
sink { EngineTestSink { key = %q, parallelism = %d } }`, c.rows, c.srcPar, key, c.sinkPar))
			st := wait(t, e, key)
			if st.State != state.JobFinished {
				t.Fatalf("state %s: %s", st.State, st.Error)
			}
			n := c.rows * c.srcPar
			if st.ReadRows != int64(n) || st.WriteRows != int64(n) {
				t.Fatalf("read %d write %d, want %d", st.ReadRows, st.WriteRows, n)
			}
			written, committed := got.get(key)
			checkExactlyOnce(t, "written", written, n)
			checkExactlyOnce(t, "committed", committed, n)
		})
	}
}

func TestFailingSubtaskFailsJob(t *testing.T) {
	for _, c := range []struct{ name, src, sink, want string }{
		{"sink error", "rows = 500", "fail_at = 100", "test sink fails at row 100"},
		{"source error", "rows = 500, fail_at = 42", "", "test source fails at row 42"},
		{"source panic", "rows = 500, panic_at = 7", "", "panic: test source panics at row 7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := start(t, 16)
			key := "fail-" + strings.ReplaceAll(c.name, " ", "-")
			submit(t, e, key, fmt.Sprintf(`
env { job.retry.times = 0 }
source { EngineTestSource { %s, parallelism = 2 } }
sink { EngineTestSink { key = %q, %s } }`, c.src, key, c.sink))
			st := wait(t, e, key)
			if st.State != state.JobFailed {
				t.Fatalf("state %s, want FAILED", st.State)
			}
			if !strings.Contains(st.Error, c.want) {
				t.Fatalf("cause %q does not contain %q", st.Error, c.want)
			}
			if _, committed := got.get(key); len(committed) != 0 {
				t.Fatalf("a failed job committed %d rows", len(committed))
			}
		})
	}
}

func TestCancelStreamingJob(t *testing.T) {
	e := start(t, 16)
	submit(t, e, "stream", `
env { job.mode = STREAMING }
source { EngineTestSource { rows = 100, unbounded = true, parallelism = 2 } }
sink { EngineTestSink { key = "stream", parallelism = 3 } }`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := e.Status("stream")
		if err == nil && st.WriteRows == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("streaming job did not write its rows: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.Cancel("stream")
	st := wait(t, e, "stream")
	if st.State != state.JobCanceled {
		t.Fatalf("state %s, want CANCELED (%s)", st.State, st.Error)
	}
}

// A slow sink behind a redistributing edge must slow the source: what has
// been read but not written stays within the credit windows.
func TestSlowSinkBoundsInFlightRows(t *testing.T) {
	e := start(t, 100)
	submit(t, e, "slow", `
source { EngineTestSource { rows = 100000000, parallelism = 1 } }
sink { EngineTestSink { key = "slow", delay_ms = 20, parallelism = 4 } }`)
	time.Sleep(1500 * time.Millisecond)
	st, err := e.Status("slow")
	if err != nil {
		t.Fatal(err)
	}
	written, _ := got.get("slow")
	e.Cancel("slow")
	// Reported reads lag behind (metrics come every second), writes are
	// counted as they happen: in flight are at most 4 channels × 8 credits
	// × 100 rows, plus the batches being written.
	inFlight := st.ReadRows - int64(len(written))
	if inFlight > 4*8*100+4*100 {
		t.Fatalf("read %d, written %d: %d rows in flight, flow control does not hold", st.ReadRows, len(written), inFlight)
	}
	if len(written) == 0 {
		t.Fatal("nothing written")
	}
	if st := wait(t, e, "slow"); st.State != state.JobCanceled {
		t.Fatalf("state %s", st.State)
	}
}

func TestBadJobIsRefused(t *testing.T) {
	e := start(t, 16)
	m, err := engine.JobFromText("bad", "bad.conf", []byte("source { Nope {} }\nsink { EngineTestSink { key = x } }"), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = e.Submit(m)
	if err == nil || !strings.Contains(err.Error(), `unknown source plugin "Nope"`) || !strings.Contains(err.Error(), "bad.conf:1:") {
		t.Fatalf("got %v", err)
	}
}

// A source that fails once, mid-way, with checkpoints every 30 ms and a
// redistributing edge: the pipeline is restored from its latest checkpoint
// and the committed output holds every row exactly once.
func TestFailoverRestoresFromCheckpoint(t *testing.T) {
	for _, how := range []string{"fail_at", "panic_at"} {
		t.Run(how, func(t *testing.T) {
			e := start(t, 16)
			key := "failover-" + how
			submit(t, e, key, fmt.Sprintf(`
env { checkpoint.interval = 30, job.retry.times = 2, job.retry.interval.seconds = 0, read_limit.rows_per_second = 4000 }
source { EngineTestSource { rows = 1000, parallelism = 2, %s = 600, fail_once = %q } }
sink { EngineTestSink { key = %q, parallelism = 3 } }`, how, key, key))
			st := wait(t, e, key)
			if st.State != state.JobFinished {
				t.Fatalf("state %s: %s", st.State, st.Error)
			}
			if st.Pipelines[0].Attempt < 1 {
				t.Fatalf("the pipeline was not restored (attempt %d)", st.Pipelines[0].Attempt)
			}
			_, committed := got.get(key)
			checkExactlyOnce(t, "committed", committed, 2000)
		})
	}
}

func TestFailurePastRetriesFailsJob(t *testing.T) {
	e := start(t, 16)
	submit(t, e, "retries", `
env { checkpoint.interval = 30, job.retry.times = 1, job.retry.interval.seconds = 0 }
source { EngineTestSource { rows = 100, fail_at = 50 } }
sink { EngineTestSink { key = "retries" } }`)
	st := wait(t, e, "retries")
	if st.State != state.JobFailed || !strings.Contains(st.Error, "test source fails at row 50") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if st.Pipelines[0].Attempt != 1 {
		t.Fatalf("attempt %d, want 1 (one retry)", st.Pipelines[0].Attempt)
	}
}

// A savepoint or a cancel while a failed pipeline waits out
// job.retry.interval.seconds ends the job then, not after the retries.
func TestStopDuringRetryBackoff(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(*engine.Engine, string)
		want string
	}{
		{"savepoint", (*engine.Engine).Savepoint, state.JobSavepointDone},
		{"cancel", (*engine.Engine).Cancel, state.JobCanceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The failed attempt's checkpoint coordinator may still be
			// finishing a write when the job has ended: its folder is
			// removed without failing the test on it.
			dir, err := os.MkdirTemp("", "backoff")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			e := start(t, 16, func(cfg *engine.Config) {
				if cfg.Store, err = localfile.New(dir); err != nil {
					t.Fatal(err)
				}
			})
			id := "backoff-" + c.name
			submit(t, e, id, `
env { checkpoint.interval = 30, job.retry.times = 3, job.retry.interval.seconds = 3600, read_limit.rows_per_second = 100 }
source { EngineTestSource { rows = 100, fail_at = 50 } }
sink { EngineTestSink { key = "backoff" } }`)
			ran := false
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				st, err := e.Status(id)
				if err == nil && len(st.Pipelines) == 1 {
					ps := st.Pipelines[0].State
					ran = ran || ps == state.PipelineRunning
					if ran && ps == state.PipelineCreated {
						break // failed once, backing off for an hour
					}
				}
				if time.Now().After(deadline) {
					t.Fatal("the pipeline never failed")
				}
			}
			c.stop(e, id)
			st, err := e.Wait(id, 20*time.Second)
			if err != nil {
				t.Fatalf("still running during the back-off: %v", err)
			}
			if st.State != c.want {
				t.Fatalf("state %s (%s), want %s", st.State, st.Error, c.want)
			}
		})
	}
}

func TestSavepointStopsAndRestoreContinues(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Task.BatchSize = 10
	store, err := localfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = store
	job := `
env { checkpoint.interval = 50, read_limit.rows_per_second = 2000 }
source { EngineTestSource { rows = 3000, parallelism = 2 } }
sink { EngineTestSink { key = "savepoint", parallelism = 3 } }`
	e, err := engine.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	submit(t, e, "sp", job)
	time.Sleep(200 * time.Millisecond)
	e.Savepoint("sp")
	st := wait(t, e, "sp")
	e.Stop()
	if st.State != state.JobSavepointDone {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	_, first := got.get("savepoint")
	if len(first) == 0 || len(first) >= 6000 {
		t.Fatalf("the savepoint committed %d rows; want some, not all", len(first))
	}
	e2, err := engine.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Stop()
	m := submitMsg("sp", job)
	m.Restore = true
	if err := e2.Submit(m); err != nil {
		t.Fatal(err)
	}
	st = wait(t, e2, "sp")
	if st.State != state.JobFinished {
		t.Fatalf("restored: state %s: %s", st.State, st.Error)
	}
	_, all := got.get("savepoint")
	checkExactlyOnce(t, "committed", all, 6000)
}

// A savepoint of a source that always has rows: its chain is fused with
// the sink (no credits to wait for), so a poll is queued again after every
// poll. Stop-reading is on the high level (DESIGN §3) and overtakes that
// poll; were it on the data level it would wait behind polls forever and
// the savepoint would never end.
func TestSavepointStopsASourceThatAlwaysHasRows(t *testing.T) {
	e := start(t, 100)
	submit(t, e, "busy", `
env { job.mode = STREAMING, checkpoint.interval = 60000 }
source { EngineTestSource { rows = 1000000000000, parallelism = 1 } }
sink { EngineTestSink { key = "busy", count_only = true, parallelism = 1 } }`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _ := e.Status("busy")
		if st != nil && st.State == state.JobRunning && st.ReadRows > 10000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job did not start reading: %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.Savepoint("busy")
	st, err := e.Wait("busy", 15*time.Second)
	if err != nil {
		t.Fatalf("the savepoint did not stop the source: %v", err)
	}
	if st.State != state.JobSavepointDone {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
}

// A transform that panics on its k-th row once: the job completes with
// exact output, restored from a checkpoint.
func TestTransformPanicOnceRecovers(t *testing.T) {
	e := start(t, 20)
	submit(t, e, "tpanic", `
env { checkpoint.interval = 25, job.retry.times = 3, job.retry.interval.seconds = 0, read_limit.rows_per_second = 5000 }
source { EngineTestSource { rows = 1500, parallelism = 2 } }
transform { EngineTestTransform { panic_at = 700, fail_once = "tpanic", parallelism = 3 } }
sink { EngineTestSink { key = "tpanic", parallelism = 3 } }`)
	st := wait(t, e, "tpanic")
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if st.Pipelines[0].Attempt < 1 {
		t.Fatal("no restart happened")
	}
	_, committed := got.get("tpanic")
	checkExactlyOnce(t, "committed", committed, 3000)
}

// checkpoints lists a job's completed checkpoints from the store.
func checkpoints(t *testing.T, store *localfile.Store, job string) []*messages.CompletedCheckpoint {
	t.Helper()
	cps, err := store.List(job)
	if err != nil {
		t.Fatal(err)
	}
	return cps
}

func startWith(t testing.TB, batchSize int, tune func(*engine.Config)) (*engine.Engine, *localfile.Store) {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Task.BatchSize = batchSize
	store, err := localfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = store
	cfg.Checkpoint.MaxRetained = 1000
	if tune != nil {
		tune(&cfg)
	}
	e, err := engine.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e, store
}

// min-pause spaces checkpoints out: in the same window, fewer complete.
func TestMinPauseReducesCheckpoints(t *testing.T) {
	count := func(minPause int) int {
		e, store := startWith(t, 10, nil)
		id := fmt.Sprintf("minpause-%d", minPause)
		submit(t, e, id, fmt.Sprintf(`
env { job.mode = STREAMING, checkpoint.interval = 20, min-pause = %d }
source { EngineTestSource { rows = 10, unbounded = true } }
sink { EngineTestSink { key = %q } }`, minPause, id))
		time.Sleep(2 * time.Second)
		e.Cancel(id)
		wait(t, e, id)
		return len(checkpoints(t, store, id))
	}
	without, with := count(0), count(400)
	if with == 0 || with*2 > without {
		t.Fatalf("checkpoints in 2 s: %d with min-pause 400 ms, %d without; want clearly fewer", with, without)
	}
}

// A checkpoint that cannot complete in checkpoint.timeout is aborted and
// counted, then the pipeline fails over past the tolerable failures; it
// never hangs.
func TestCheckpointTimeoutAbortsAndCounts(t *testing.T) {
	e, store := startWith(t, 10, func(c *engine.Config) { c.Checkpoint.TolerableFailures = 1 })
	// A transform that takes 400 ms a batch holds each barrier longer than
	// the 100 ms timeout.
	submit(t, e, "timeout", `
env { job.mode = STREAMING, checkpoint.interval = 50, checkpoint.timeout = 100, job.retry.times = 0 }
source { EngineTestSource { rows = 100000, unbounded = true, parallelism = 1 } }
transform { EngineTestTransform { delay_ms = 400, parallelism = 2 } }
sink { EngineTestSink { key = "timeout", parallelism = 2 } }`)
	st, err := e.Wait("timeout", 20*time.Second)
	if err != nil {
		t.Fatalf("the job hung: %v", err)
	}
	if st.State != state.JobFailed || !strings.Contains(st.Error, "timed out") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	_ = store
}

// Checkpoint completion time depends on how much is queued, not on how
// slowly the sink processes (DESIGN §5).
func TestCheckpointLatencyUnderBackpressure(t *testing.T) {
	durations := func(delay int) []time.Duration {
		e, store := startWith(t, 50, nil)
		id := fmt.Sprintf("latency-%d", delay)
		submit(t, e, id, fmt.Sprintf(`
env { job.mode = STREAMING, checkpoint.interval = 100 }
source { EngineTestSource { rows = 100000000, parallelism = 1 } }
sink { EngineTestSink { key = %q, delay_ms = %d, parallelism = 2 } }`, id, delay))
		time.Sleep(2500 * time.Millisecond)
		e.Cancel(id)
		wait(t, e, id)
		var out []time.Duration
		for _, cp := range checkpoints(t, store, id) {
			out = append(out, time.Duration(cp.CompleteUnixMs-cp.TriggerUnixMs)*time.Millisecond)
		}
		sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
		return out
	}
	slow := durations(100)
	if len(slow) < 3 {
		t.Fatalf("only %d checkpoints completed under backpressure", len(slow))
	}
	p50 := slow[len(slow)/2]
	// Aligned, a barrier would wait behind 8 credits × 100 ms per channel;
	// unaligned, it waits for about one batch being written.
	if p50 > 400*time.Millisecond {
		t.Fatalf("checkpoint p50 %s under a sink taking 100 ms a batch (all: %v)", p50, slow)
	}
}

// A corrupt latest checkpoint: restore uses the previous one and says so.
// checkpointedJob runs job "id" until it has completed three checkpoints,
// cancels it and returns its checkpoints (every one, none retired).
func checkpointedJob(t *testing.T, dir, id string) (engine.Config, string, []*messages.CompletedCheckpoint) {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Task.BatchSize = 10
	store, err := localfile.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = store
	cfg.Checkpoint.MaxRetained = 100
	job := fmt.Sprintf(`
env { checkpoint.interval = 30, read_limit.rows_per_second = 2000 }
source { EngineTestSource { rows = 5000, parallelism = 2 } }
sink { EngineTestSink { key = %q, parallelism = 2 } }`, id)
	e, err := engine.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	submit(t, e, id, job)
	for deadline := time.Now().Add(20 * time.Second); len(checkpoints(t, store, id)) < 3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoints completed")
		}
	}
	e.Cancel(id)
	wait(t, e, id)
	e.Stop()
	settle(t, filepath.Join(dir, id))
	cps := checkpoints(t, store, id)
	if len(cps) < 2 {
		t.Fatalf("%d checkpoints", len(cps))
	}
	return cfg, job, cps
}

// settle waits until nothing under dir has changed for half a second: a
// stopped engine may still rewrite a checkpoint's metadata with its commit
// time (engine.Stop does not wait for that write), which would undo what a
// test then does to the files.
func settle(t *testing.T, dir string) {
	t.Helper()
	snapshot := func() string {
		var b strings.Builder
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
			}
			return nil
		})
		return b.String()
	}
	last, since := snapshot(), time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Since(since) < 500*time.Millisecond; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s kept changing after the engine stopped", dir)
		}
		if cur := snapshot(); cur != last {
			last, since = cur, time.Now()
		}
	}
}

// restoreIn restores job id in a new engine on dir and returns its end.
func restoreIn(t *testing.T, cfg engine.Config, dir, id, job string, logs *strings.Builder) *messages.JobStatus {
	t.Helper()
	cfg.Log = zerolog.New(&syncWriter{w: logs})
	var err error
	if cfg.Store, err = localfile.New(dir); err != nil { // a new process
		t.Fatal(err)
	}
	e, err := engine.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	m := submitMsg(id, job)
	m.Restore = true
	if err := e.Submit(m); err != nil {
		t.Fatal(err)
	}
	return wait(t, e, id)
}

// A corrupt newest checkpoint had been committed before it broke: falling
// back to the one before would commit its rows again. The restore is
// refused, naming the checkpoint; with AcceptDuplicates it falls back,
// saying what it costs.
func TestRestorePastCorruptCheckpointIsRefused(t *testing.T) {
	dir := t.TempDir()
	cfg, job, cps := checkpointedJob(t, dir, "corrupt")
	newest := filepath.Join(dir, "corrupt", "pipeline-1", "completed", fmt.Sprintf("%020d.ckpt", cps[len(cps)-1].Id))
	data, _ := os.ReadFile(newest)
	data[len(data)/2] ^= 0xff
	os.WriteFile(newest, data, 0o644)
	_, committed := got.get("corrupt")

	var logs strings.Builder
	st := restoreIn(t, cfg, dir, "corrupt", job, &logs)
	if st.State != state.JobFailed || !strings.Contains(st.Error, fmt.Sprintf("checkpoint %d of job corrupt pipeline 1 completed", cps[len(cps)-1].Id)) ||
		!strings.Contains(st.Error, "checksum") || !strings.Contains(st.Error, "--accept-duplicates") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if _, after := got.get("corrupt"); len(after) != len(committed) {
		t.Fatalf("a refused restore committed %d rows", len(after)-len(committed))
	}

	cfg.AcceptDuplicates = true
	logs.Reset()
	if st := restoreIn(t, cfg, dir, "corrupt", job, &logs); st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	want := fmt.Sprintf("restoring from checkpoint %d would write again", cps[len(cps)-2].Id)
	if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "accepted") {
		t.Fatalf("no warning %q in:\n%s", want, logs.String())
	}
}

// A job whose checkpoints were deleted after they committed output is not
// restored afresh over that output.
func TestRestoreWithoutCheckpointsOverCommittedOutputIsRefused(t *testing.T) {
	dir := t.TempDir()
	cfg, job, _ := checkpointedJob(t, dir, "deleted")
	// The stopped engine may still be rewriting a checkpoint's metadata
	// with its commit time (engine.Stop does not wait for that write).
	var err error
	for try := 0; try < 50; try++ {
		if err = os.RemoveAll(filepath.Join(dir, "deleted", "pipeline-1")); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	st := restoreIn(t, cfg, dir, "deleted", job, &logs)
	if st.State != state.JobFailed || !strings.Contains(st.Error, "its metadata is gone") || !strings.Contains(st.Error, "restoring from the start") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// The watchdog fails over a pipeline where no row moves and every
// checkpoint fails.
func TestNoProgressWatchdog(t *testing.T) {
	e, _ := startWith(t, 10, func(c *engine.Config) {
		c.Checkpoint.TolerableFailures = 1000
		c.NoProgressTimeout = 800 * time.Millisecond
		c.CancelTimeout = 300 * time.Millisecond
	})
	submit(t, e, "stuck", `
env { job.mode = STREAMING, checkpoint.interval = 50, checkpoint.timeout = 100, job.retry.times = 0 }
source { EngineTestSource { rows = 1000, parallelism = 1 } }
transform { EngineTestTransform { delay_ms = 100000, parallelism = 2 } }
sink { EngineTestSink { key = "stuck", parallelism = 2 } }`)
	st, err := e.Wait("stuck", 30*time.Second)
	if err != nil {
		t.Fatalf("the job hung: %v", err)
	}
	if st.State != state.JobFailed || !strings.Contains(st.Error, "no progress") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
}

// The local worker's slots are cut from its memory: a job with more
// subtasks than there are slots is refused at once, saying what the
// worker offers, and one that fits runs.
func TestParallelismBoundedBySlots(t *testing.T) {
	e := start(t, 16, func(c *engine.Config) { c.LocalMemoryMB, c.SlotMemoryMB = 1000, 100 })
	submit(t, e, "wide", `
env { parallelism = 20 }
source { EngineTestSource { rows = 10 } }
sink { EngineTestSink { key = "wide" } }`)
	st := wait(t, e, "wide")
	if st.State != state.JobFailed || !strings.Contains(st.Error, "20 slots wanted") || !strings.Contains(st.Error, "offer 10 in all") ||
		!strings.Contains(st.Error, "100 MiB of memory") || !strings.Contains(st.Error, "lower the parallelism") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	submit(t, e, "fits", `
env { parallelism = 5 }
source { EngineTestSource { rows = 10 } }
transform { EngineTestTransform { parallelism = 5 } }
sink { EngineTestSink { key = "fits" } }`)
	if st := wait(t, e, "fits"); st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	_, committed := got.get("fits")
	checkExactlyOnce(t, "committed", committed, 50)
}

// A job whose tag_filter matches no worker is refused its slots
// (job-schedule-strategy REJECT) and fails with the cause.
func TestTagFilterWithoutMatchingWorkerFails(t *testing.T) {
	e := start(t, 16)
	submit(t, e, "tags", `
env { tag_filter { zone = "nowhere" } }
source { EngineTestSource { rows = 10 } }
sink { EngineTestSink { key = "tags" } }`)
	st := wait(t, e, "tags")
	if st.State != state.JobFailed || !strings.Contains(st.Error, "no slots") || !strings.Contains(st.Error, "zone:nowhere") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
}

// startWaiting starts an engine with job-schedule-strategy WAIT and one
// worker of slots slots, tagged zone=a.
func startWaiting(t *testing.T, batchSize, slots int) *engine.Engine {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Task.BatchSize = batchSize
	store, err := localfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = store
	e, err := engine.StartWith(cfg, resource.Options{Strategy: resources.SlotRatio, Wait: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	e.AddWorker(resources.Worker{ID: "a", Address: e.System.Address(), FixedSlots: slots, Tags: map[string]string{"zone": "a"}})
	return e
}

// With job-schedule-strategy WAIT a job whose tag_filter matches no worker
// is PENDING (not failed, not RUNNING) until a matching worker joins, then
// runs to the end.
func TestWaitStrategyJobPendingUntilWorkerJoins(t *testing.T) {
	e := startWaiting(t, 16, 4)
	submit(t, e, "pending", `
env { tag_filter { zone = "b" } }
source { EngineTestSource { rows = 100 } }
sink { EngineTestSink { key = "pending" } }`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := e.Status("pending")
		if err != nil {
			t.Fatal(err)
		}
		if st.State == state.JobPending {
			break
		}
		if state.JobEnded(st.State) || time.Now().After(deadline) {
			t.Fatalf("state %s (%s), want PENDING", st.State, st.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.AddWorker(resources.Worker{ID: "b", Address: e.System.Address(), FixedSlots: 4, Tags: map[string]string{"zone": "b"}})
	st := wait(t, e, "pending")
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	_, committed := got.get("pending")
	checkExactlyOnce(t, "committed", committed, 100)
}

// A replaced leader (an older term) starts nothing, and its job ends —
// FAILED, saying why — instead of hanging as RUNNING.
func TestReplacedLeaderStartsNothing(t *testing.T) {
	var store *localfile.Store
	e := start(t, 16, func(c *engine.Config) {
		c.Term = 5
		s, err := localfile.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		store = s
		c.Store = s
	})
	if _, err := store.NextAttempt("fenced", 1, 9); err != nil { // the newer leader's attempt
		t.Fatal(err)
	}
	submit(t, e, "fenced", `
source { EngineTestSource { rows = 10 } }
sink { EngineTestSink { key = "fenced" } }`)
	st := wait(t, e, "fenced")
	if st.State != state.JobFailed || !strings.Contains(st.Error, "fenced") || !strings.Contains(st.Error, "term 9") {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if _, committed := got.get("fenced"); len(committed) != 0 {
		t.Fatalf("a replaced leader committed %d rows", len(committed))
	}
}

// attemptFailStore fails NextAttempt with err the first fails times.
type attemptFailStore struct {
	*localfile.Store
	mu    sync.Mutex
	fails int
	err   error
	calls int
}

func (s *attemptFailStore) NextAttempt(jobID string, p int, term uint64) (int, error) {
	s.mu.Lock()
	s.calls++
	failing := s.calls <= s.fails
	s.mu.Unlock()
	if failing {
		return 0, fmt.Errorf("next attempt of job %s pipeline %d: %w", jobID, p, s.err)
	}
	return s.Store.NextAttempt(jobID, p, term)
}

// A checkpoint storage that fails while a pipeline starts (a NATS server
// restarting) costs a retry, not the job; one that says its data is
// corrupt fails the job at once, as retrying would read it again.
func TestPipelineStartRetriesAStorageFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		state string
		calls int
	}{
		{"transient", errors.New("nats: timeout"), state.JobFinished, 3},
		{"corrupt", fmt.Errorf("attempt: %w", storage.ErrCorrupt), state.JobFailed, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var store *attemptFailStore
			e := start(t, 16, func(c *engine.Config) {
				s, err := localfile.New(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				store = &attemptFailStore{Store: s, fails: 2, err: tc.err}
				c.Store = store
			})
			key := "start-" + tc.name
			submit(t, e, key, `
env { job.retry.times = 3, job.retry.interval.seconds = 0 }
source { EngineTestSource { rows = 50 } }
sink { EngineTestSink { key = "`+key+`" } }`)
			st := wait(t, e, key)
			if st.State != tc.state {
				t.Fatalf("state %s (%s), want %s", st.State, st.Error, tc.state)
			}
			store.mu.Lock()
			calls := store.calls
			store.mu.Unlock()
			if calls != tc.calls {
				t.Fatalf("NextAttempt called %d times, want %d", calls, tc.calls)
			}
			if tc.state == state.JobFinished {
				_, committed := got.get(key)
				checkExactlyOnce(t, "committed", committed, 50)
			} else if !strings.Contains(st.Error, "corrupt") {
				t.Fatalf("the job's error %q does not say the storage is corrupt", st.Error)
			}
		})
	}
}

// hangingStore's NextAttempt does not answer until release is closed, as a
// JetStream store whose server stopped answering.
type hangingStore struct {
	*localfile.Store
	release chan struct{}
}

func (s *hangingStore) NextAttempt(jobID string, p int, term uint64) (int, error) {
	<-s.release
	return s.Store.NextAttempt(jobID, p, term)
}

// While the checkpoint storage does not answer a pipeline's start, the
// JobMaster still answers status requests and takes a cancel, which ends
// the job once the store answers.
func TestJobMasterAnswersWhileTheStoreHangs(t *testing.T) {
	store := &hangingStore{release: make(chan struct{})}
	e := start(t, 16, func(c *engine.Config) {
		s, err := localfile.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		store.Store = s
		c.Store = store
	})
	submit(t, e, "hang", `
source { EngineTestSource { rows = 50 } }
sink { EngineTestSink { key = "hang" } }`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := e.Status("hang")
		if err != nil {
			t.Fatalf("status while the store hangs: %v", err)
		}
		if len(st.Pipelines) > 0 && st.Pipelines[0].State == state.PipelineCreated {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pipeline is %v, want CREATED while its start waits for the store", st.Pipelines)
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.Cancel("hang")
	for {
		st, err := e.Status("hang")
		if err != nil {
			t.Fatalf("status after the cancel while the store hangs: %v", err)
		}
		if st.State == state.JobCanceling {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job is %s after a cancel, want CANCELING while the store hangs", st.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(store.release)
	st, err := e.Wait("hang", 5*time.Second)
	if err != nil {
		t.Fatalf("the job did not end after the store answered: %v", err)
	}
	if st.State != state.JobCanceled {
		t.Fatalf("state %s (%s), want CANCELED", st.State, st.Error)
	}
}

// slowStateStore's WriteState waits until gate is closed, as a JetStream
// store that is slow to take a blob, and fails the first write when
// failFirst is set.
type slowStateStore struct {
	*localfile.Store
	gate      chan struct{}
	failFirst bool
	waiting   atomic.Int32 // writes waiting at the gate
	failed    atomic.Bool
	written   atomic.Int32
	calls     sync.WaitGroup
}

func (s *slowStateStore) WriteState(jobID string, p, attempt int, id int64, name string, data []byte) (string, error) {
	s.calls.Add(1)
	defer s.calls.Done()
	s.waiting.Add(1)
	<-s.gate
	s.waiting.Add(-1)
	if s.failFirst && s.failed.CompareAndSwap(false, true) {
		return "", errors.New("the store is full")
	}
	s.written.Add(1)
	return s.Store.WriteState(jobID, p, attempt, id, name, data)
}

func slowStateEngine(t *testing.T, store *slowStateStore) *engine.Engine {
	return start(t, 16, func(c *engine.Config) {
		s, err := localfile.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		store.Store = s
		c.Store = store
	})
}

// A subtask whose state is too large to go in its ack goes on writing rows
// while the store takes the state, and takes a cancel meanwhile.
func TestSubtaskGoesOnWhileItsStateIsWritten(t *testing.T) {
	store := &slowStateStore{gate: make(chan struct{})}
	e := slowStateEngine(t, store)
	defer func() {
		close(store.gate)
		store.calls.Wait() // before the store's directory is removed
	}()
	submit(t, e, "slowstate", `
env { job.mode = STREAMING, checkpoint.interval = 100 }
source { EngineTestSource { rows = 100000000, unbounded = true } }
sink { EngineTestSink { key = "slowstate", delay_ms = 1, state_bytes = 20000 } }`)
	deadline := time.Now().Add(20 * time.Second)
	for store.waiting.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no state write reached the store")
		}
		time.Sleep(10 * time.Millisecond)
	}
	before, _ := got.get("slowstate")
	time.Sleep(300 * time.Millisecond)
	after, _ := got.get("slowstate")
	if len(after) <= len(before) {
		t.Fatalf("%d rows written before and %d after 300 ms of a state write waiting: the subtask waits for its state", len(before), len(after))
	}
	e.Cancel("slowstate")
	st, err := e.Wait("slowstate", 10*time.Second)
	if err != nil {
		t.Fatalf("the job did not end after a cancel while its state write waits: %v", err)
	}
	if st.State != state.JobCanceled {
		t.Fatalf("state %s (%s), want CANCELED", st.State, st.Error)
	}
}

// A state write that fails aborts its checkpoint, not the pipeline: the
// next checkpoint carries the same commits, and every row is committed
// once by the same attempt.
func TestFailedStateWriteAbortsTheCheckpoint(t *testing.T) {
	store := &slowStateStore{gate: make(chan struct{}), failFirst: true}
	close(store.gate)
	e := slowStateEngine(t, store)
	submit(t, e, "failstate", `
env { checkpoint.interval = 50 }
source { EngineTestSource { rows = 3000 } }
sink { EngineTestSink { key = "failstate", delay_ms = 1, state_bytes = 20000 } }`)
	st := wait(t, e, "failstate")
	if st.State != state.JobFinished {
		t.Fatalf("state %s (%s), want FINISHED", st.State, st.Error)
	}
	if !store.failed.Load() || store.written.Load() == 0 {
		t.Fatalf("failed write %v, writes stored %d: the test did not fail one write and store later ones", store.failed.Load(), store.written.Load())
	}
	for _, p := range st.Pipelines {
		if p.Attempt != 0 {
			t.Errorf("pipeline %d ran attempt %d: the failed write failed the pipeline over", p.Id, p.Attempt)
		}
	}
	_, committed := got.get("failstate")
	checkExactlyOnce(t, "committed", committed, 3000)
}
