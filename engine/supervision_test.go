package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/stactor/stactor/state"
)

// EngineTestPanicSource and EngineTestPanicSink are EngineTestSource and
// EngineTestSink that panic at the stage panic_in names — once per
// panic_once key, or every time without one — and EngineTestPanicSource can
// take resolve_ms to resolve (DESIGN §3: a panic in connector code at any
// stage fails over or fails only that job's pipeline, with the cause).
func init() {
	srcOpts := append([]config.Option{
		{Key: "panic_in", Type: config.TypeEnum, Enum: []string{"none", "resolve", "create", "enumerator", "reader"}, Default: "none"},
		{Key: "panic_once", Type: config.TypeString},
		{Key: "resolve_ms", Type: config.TypeInt},
	}, testSourceOptions...)
	connectors.RegisterSource(connectors.SourceFactory{
		Name:    "EngineTestPanicSource",
		Options: srcOpts,
		Resolve: func(ctx context.Context, cfg *config.PluginConfig, _ connectors.JobContext) ([]byte, error) {
			if d := time.Duration(cfg.Int("resolve_ms")) * time.Millisecond; d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			maybePanic(cfg, "resolve")
			return []byte("resolved"), nil
		},
		Create: func(cfg *config.PluginConfig, res []byte, job connectors.JobContext) (connectors.Source, error) {
			if string(res) != "resolved" {
				return nil, fmt.Errorf("created from %q, not from what Resolve returned", res)
			}
			maybePanic(cfg, "create")
			return &panicSource{Source: newTestSource(cfg, job), cfg: cfg}, nil
		},
	})
	sinkOpts := append([]config.Option{
		{Key: "panic_in", Type: config.TypeEnum, Enum: []string{"none", "savemode", "writer", "prepare", "commit"}, Default: "none"},
		{Key: "panic_once", Type: config.TypeString},
	}, testSinkOptions...)
	connectors.RegisterSink(connectors.SinkFactory{
		Name:    "EngineTestPanicSink",
		Options: sinkOpts,
		Create: func(cfg *config.PluginConfig, _ []*row.Schema, _ []byte, _ connectors.JobContext) (connectors.Sink, error) {
			return &panicSink{SinkWithCommitter: newTestSink(cfg), cfg: cfg}, nil
		},
	})
}

var panicked sync.Map // panic_once keys that have panicked

func maybePanic(cfg *config.PluginConfig, stage string) {
	if cfg.String("panic_in") != stage {
		return
	}
	if key := cfg.String("panic_once"); key != "" {
		if _, done := panicked.LoadOrStore(key, true); done {
			return
		}
	}
	panic("test connector panics in " + stage)
}

type panicSource struct {
	connectors.Source
	cfg *config.PluginConfig
}

func (s *panicSource) CreateEnumerator(ctx connectors.EnumeratorContext, st []byte) (connectors.SplitEnumerator, error) {
	e, err := s.Source.CreateEnumerator(ctx, st)
	return &panicEnum{SplitEnumerator: e, cfg: s.cfg}, err
}

func (s *panicSource) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	r, err := s.Source.CreateReader(ctx)
	return &panicReader{Reader: r, cfg: s.cfg}, err
}

type panicEnum struct {
	connectors.SplitEnumerator
	cfg *config.PluginConfig
}

func (e *panicEnum) Open(ctx context.Context) error {
	maybePanic(e.cfg, "enumerator")
	return e.SplitEnumerator.Open(ctx)
}

type panicReader struct {
	connectors.Reader
	cfg   *config.PluginConfig
	polls int
}

func (r *panicReader) PollNext(out connectors.Collector) error {
	if r.polls++; r.polls == 3 {
		maybePanic(r.cfg, "reader")
	}
	return r.Reader.PollNext(out)
}

type panicSink struct {
	connectors.SinkWithCommitter
	cfg *config.PluginConfig
}

func (s *panicSink) HandleSaveMode(context.Context) error {
	maybePanic(s.cfg, "savemode")
	return nil
}

func (s *panicSink) CreateWriter(ctx context.Context, task connectors.TaskInfo, st [][]byte) (connectors.Writer, error) {
	maybePanic(s.cfg, "writer")
	w, err := s.SinkWithCommitter.CreateWriter(ctx, task, st)
	return &panicWriter{Writer: w, cfg: s.cfg}, err
}

func (s *panicSink) CreateCommitter() (connectors.Committer, error) {
	c, err := s.SinkWithCommitter.CreateCommitter()
	return &panicCommitter{Committer: c, cfg: s.cfg}, err
}

type panicWriter struct {
	connectors.Writer
	cfg *config.PluginConfig
}

func (w *panicWriter) PrepareCommit(id int64) ([]byte, error) {
	maybePanic(w.cfg, "prepare")
	return w.Writer.PrepareCommit(id)
}

type panicCommitter struct {
	connectors.Committer
	cfg *config.PluginConfig
}

func (c *panicCommitter) Commit(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	maybePanic(c.cfg, "commit")
	return c.Committer.Commit(ctx, cc, infos)
}

// A job whose connector panics at any stage fails over (a panic once) and
// finishes with exact output, or (every time) fails or is refused with the
// cause; a job running beside it on the same engine finishes with exact
// output either way, and the coordinator keeps answering.
func TestConnectorPanicsAtEveryStage(t *testing.T) {
	e := start(t, 64)
	cases := []struct {
		source, sink string // panic_in
		once         bool
		want         string // the job's end state, or "refused"
	}{
		{source: "resolve", want: "refused"},
		{source: "create", want: "refused"},
		{sink: "savemode", want: state.JobFailed},
		{source: "enumerator", once: true, want: state.JobFinished},
		{source: "enumerator", want: state.JobFailed},
		{source: "reader", once: true, want: state.JobFinished},
		{sink: "writer", once: true, want: state.JobFinished},
		{sink: "prepare", once: true, want: state.JobFinished},
		{sink: "commit", once: true, want: state.JobFinished},
		{sink: "commit", want: state.JobRunning}, // retried with backoff, forever
	}
	for i, c := range cases {
		name := fmt.Sprintf("%s%s-once=%v", c.source, c.sink, c.once)
		t.Run(name, func(t *testing.T) {
			key := fmt.Sprintf("panic-%d-%d", i, time.Now().UnixNano())
			// The bystander: a job that runs while the other panics.
			by := key + "-by"
			submit(t, e, by, fmt.Sprintf(`
env { checkpoint.interval = 50, read_limit.rows_per_second = 4000 }
source { EngineTestSource { rows = 1000, parallelism = 2 } }
sink { EngineTestSink { key = "%s" } }`, by))

			once := ""
			if c.once {
				once = fmt.Sprintf(`panic_once = "%s"`, key)
			}
			srcPanic, sinkPanic := "none", "none"
			if c.source != "" {
				srcPanic = c.source
			}
			if c.sink != "" {
				sinkPanic = c.sink
			}
			job := fmt.Sprintf(`
env { checkpoint.interval = 50, job.retry.times = 2, job.retry.interval.seconds = 0 }
source { EngineTestPanicSource { rows = 500, parallelism = 2, panic_in = %s, %s } }
sink { EngineTestPanicSink { key = "%s", panic_in = %s, %s } }`, srcPanic, once, key, sinkPanic, once)
			err := e.Submit(submitMsg(key, job))
			switch {
			case c.want == "refused":
				if err == nil || !strings.Contains(err.Error(), "test connector panics in "+c.source) {
					t.Fatalf("submit: %v, want a refusal naming the panic", err)
				}
			case err != nil:
				t.Fatalf("submit: %v", err)
			case c.want == state.JobRunning:
				// Commits keep failing: the job stays up, retrying, and is
				// cancelled.
				time.Sleep(500 * time.Millisecond)
				st, err := e.Status(key)
				if err != nil || st.State != state.JobRunning {
					t.Fatalf("status %v %v, want RUNNING while the commit is retried", st, err)
				}
				e.Cancel(key)
				if st := wait(t, e, key); st.State != state.JobCanceled {
					t.Fatalf("state %s, want CANCELED", st.State)
				}
			default:
				st := wait(t, e, key)
				if st.State != c.want {
					t.Fatalf("state %s (%s), want %s", st.State, st.Error, c.want)
				}
				if c.want == state.JobFailed && !strings.Contains(st.Error, "test connector panics in ") {
					t.Fatalf("the cause %q does not name the panic", st.Error)
				}
				if c.want == state.JobFinished {
					_, committed := got.get(key)
					checkExactlyOnce(t, "the panicking job", committed, 1000)
				}
			}
			if st := wait(t, e, by); st.State != state.JobFinished {
				t.Fatalf("the job beside it: %s (%s)", st.State, st.Error)
			}
			_, committed := got.get(by)
			checkExactlyOnce(t, "the job beside it", committed, 2000)
		})
	}
}

// A job whose source takes long to resolve holds up neither the status of
// other jobs, nor the listing, nor another job's submission; its own
// status is INITIALIZING meanwhile, and a cancel ends the resolving.
func TestSlowResolveBlocksNothing(t *testing.T) {
	e := start(t, 64)
	slow := make(chan error, 1)
	go func() {
		slow <- e.Submit(submitMsg("slow-resolve", `
source { EngineTestPanicSource { rows = 10, resolve_ms = 60000 } }
sink { EngineTestSink { key = "slow-resolve" } }`))
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := e.Status("slow-resolve")
		if err == nil && st.State == state.JobInitializing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status of the resolving job: %v %v", st, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	began := time.Now()
	submit(t, e, "quick", `
source { EngineTestSource { rows = 100 } }
sink { EngineTestSink { key = "quick" } }`)
	if st := wait(t, e, "quick"); st.State != state.JobFinished {
		t.Fatalf("quick: %s (%s)", st.State, st.Error)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Fatalf("another job took %s beside a resolving one", took)
	}
	e.Cancel("slow-resolve")
	select {
	case err := <-slow:
		if err != nil {
			t.Fatalf("submit of a job cancelled while resolving: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not end the resolving")
	}
	if st := wait(t, e, "slow-resolve"); st.State != state.JobCanceled {
		t.Fatalf("state %s, want CANCELED", st.State)
	}
}
