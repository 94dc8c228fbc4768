package coordinator_test

import (
	"os"
	"testing"
	"time"

	"github.com/stactor/stactor/actors/coordinator"
	"github.com/stactor/stactor/actors/resource"
	_ "github.com/stactor/stactor/connectors/all"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage/localfile"
)

// registry holds one job as running under an earlier leader.
type registry struct{}

func (registry) Save(*messages.JobSpec, *messages.JobStatus) error { return nil }
func (registry) Jobs() ([]*messages.JobStatus, error) {
	return []*messages.JobStatus{{JobId: "taken-over", State: state.JobRunning}}, nil
}

// startEngine starts an engine with local checkpoint storage, one worker
// of 8 slots and reg as its job registry.
func startEngine(t *testing.T, reg coordinator.Registry) *engine.Engine {
	t.Helper()
	cfg := engine.DefaultConfig()
	// Not t.TempDir: actors may still be writing a checkpoint when the
	// actor system has been told to shut down, and its cleanup fails on a
	// folder that is not empty.
	dir, err := os.MkdirTemp("", "stactor-resume-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { time.Sleep(100 * time.Millisecond); _ = os.RemoveAll(dir) })
	if cfg.Store, err = localfile.New(dir); err != nil {
		t.Fatal(err)
	}
	e, err := engine.StartWith(cfg, resource.Options{Strategy: resources.SlotRatio}, reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	e.AddWorker(resources.Worker{ID: "local", Address: e.System.Address(), FixedSlots: 8})
	return e
}

// A cancel that reaches a new leader before it resumed the job is held and
// applied when the job is resumed, not dropped.
func TestCancelBeforeResumeIsApplied(t *testing.T) {
	e := startEngine(t, registry{})
	e.Cancel("taken-over")
	m, err := engine.JobFromText("taken-over", "t.conf", []byte(`
env { job.mode = "STREAMING", checkpoint.interval = 100 }
source { FakeSource { row.num = 1000000, split.read-interval = 50, schema = { fields { id = "bigint" } } } }
sink { Console { log.print.data = false } }`), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Restore = true
	if err := e.Submit(m); err != nil {
		t.Fatal(err)
	}
	st, err := e.Wait("taken-over", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != state.JobCanceled {
		t.Fatalf("state %s (%s), want CANCELED", st.State, st.Error)
	}
}
