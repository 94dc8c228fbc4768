// Package inproc runs jobs on an engine inside the test process, as
// `stactor run` does in its own: the in-process benchmarks and the
// ceiling's comparison with stactor's output use it. Only tests and
// benchmarks import it.
package inproc

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage/localfile"
)

// Start starts an engine with default settings and checkpoints in a
// temporary directory; it stops when tb's test ends.
func Start(tb testing.TB) *engine.Engine {
	tb.Helper()
	cfg := engine.DefaultConfig()
	store, err := localfile.New(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Store = store
	e, err := engine.Start(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Stop)
	return e
}

var seq atomic.Int64

// Run submits a job to e under a new id and waits up to ten minutes for
// it to finish; it returns the rows written. A job that does not end
// FINISHED fails tb.
func Run(tb testing.TB, e *engine.Engine, job string) int64 {
	tb.Helper()
	id := "inproc-" + strconv.FormatInt(seq.Add(1), 10)
	m, err := engine.JobFromText(id, id+".conf", []byte(job), nil)
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Submit(m); err != nil {
		tb.Fatalf("submit: %v", err)
	}
	st, err := e.Wait(id, 10*time.Minute)
	if err != nil {
		tb.Fatalf("wait: %v", err)
	}
	if st.State != state.JobFinished {
		tb.Fatalf("job %s: %s", st.State, st.Error)
	}
	return st.WriteRows
}
