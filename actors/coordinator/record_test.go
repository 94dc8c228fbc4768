package coordinator_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

// flakyRegistry refuses its first failures writes, as Consul does while it
// is down, and records the states it then keeps.
type flakyRegistry struct {
	mu       sync.Mutex
	failures int
	refused  int
	saved    []string
}

func (r *flakyRegistry) Save(_ *messages.JobSpec, st *messages.JobStatus) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refused < r.failures {
		r.refused++
		return errors.New("consul: put job: EOF")
	}
	r.saved = append(r.saved, st.State)
	return nil
}

func (r *flakyRegistry) state() (refused int, saved []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused, append([]string(nil), r.saved...)
}

// A submit is answered only once the job is recorded in the registry: with
// the registry refusing writes for a while, the submitter waits and the
// write is tried again, so that a job its submitter was told runs is one
// the next leader finds and resumes (a chaos run lost one that was
// answered while Consul was down, then the leader changed).
func TestSubmitIsAnsweredOnceTheJobIsRecorded(t *testing.T) {
	reg := &flakyRegistry{failures: 3}
	e := startEngine(t, reg)
	m, err := engine.JobFromText("recorded", "t.conf", []byte(`
env { job.mode = "BATCH", read_limit.rows_per_second = 1000 }
source { FakeSource { row.num = 5000, schema = { fields { id = "bigint" } } } }
sink { Console { log.print.data = false } }`), nil)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := e.Submit(m); err != nil {
		t.Fatal(err)
	}
	refused, saved := reg.state()
	if refused != 3 || len(saved) == 0 || saved[0] != state.JobRunning {
		t.Fatalf("when the submit was answered, the registry had refused %d writes and kept %v; want 3 refused, then RUNNING", refused, saved)
	}
	t.Logf("answered %s after the submit, the registry having refused 3 writes", time.Since(began).Round(time.Millisecond))
	if st, err := e.Wait("recorded", 20*time.Second); err != nil || st.State != state.JobFinished {
		t.Fatalf("the job: %v, %v", st, err)
	}
}
