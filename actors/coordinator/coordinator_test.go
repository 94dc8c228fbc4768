package coordinator

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/jobmaster"
	"github.com/stactor/stactor/messages"
)

// history is a registry that holds jobs of earlier leaders.
type history struct{ jobs []*messages.JobStatus }

func (h *history) Save(*messages.JobSpec, *messages.JobStatus) error { return nil }
func (h *history) Jobs() ([]*messages.JobStatus, error)              { return h.jobs, nil }

// A new leader answers for jobs it does not run from the registry: history
// with its counts, and jobs it has not resumed yet.
func TestAnswersFromRegistryHistory(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	reg := &history{jobs: []*messages.JobStatus{
		{JobId: "old", State: "FINISHED", ReadRows: 42, WriteRows: 42, EndUnixMs: 1},
		{JobId: "resuming", State: "RUNNING"},
	}}
	pid := sys.Root.Spawn(actor.PropsFromProducer(New(nil, nil, jobmaster.Options{}, reg, zerolog.Nop())))
	ask := func(m any) any {
		t.Helper()
		res, err := sys.Root.RequestFuture(pid, m, 5*time.Second).Result()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	l := ask(&messages.ListJobs{}).(*messages.JobList)
	if len(l.Jobs) != 2 || l.Jobs[0].JobId != "old" || l.Jobs[0].WriteRows != 42 || l.Jobs[1].JobId != "resuming" {
		t.Fatalf("ListJobs = %v", l.Jobs)
	}
	if st := ask(&messages.GetJobStatus{JobId: "old"}).(*messages.JobStatus); st.State != "FINISHED" || st.ReadRows != 42 {
		t.Fatalf("GetJobStatus(old) = %v", st)
	}
	if st := ask(&messages.WaitJob{JobId: "old"}).(*messages.JobStatus); st.State != "FINISHED" {
		t.Fatalf("WaitJob(old) = %v", st)
	}
	if st := ask(&messages.WaitJob{JobId: "resuming"}).(*messages.JobStatus); st.State != "UNKNOWN" {
		t.Fatalf("WaitJob(resuming) = %v, want UNKNOWN (ask again)", st)
	}
	if st := ask(&messages.GetJobStatus{JobId: "nope"}).(*messages.JobStatus); st.State != "UNKNOWN" {
		t.Fatalf("GetJobStatus(nope) = %v", st)
	}
}
