package consul_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stactor/stactor/cluster/consul"
)

func TestJobRegistryCheckAndSet(t *testing.T) {
	need(t)
	t.Parallel()
	ctx := testCtx(t, 30*time.Second)
	jobs := consul.NewJobRegistry(client, newCluster(t))

	rec := consul.JobRecord{
		ID: "j1", Name: "demo", File: "demo.conf", Resolved: []byte("resolved plan"),
		Vars: map[string]string{"n": "1"}, State: "RUNNING",
		SubmitTime: time.Now().UTC().Truncate(time.Millisecond),
		Pipelines:  []consul.PipelineRecord{{ID: 1, State: "RUNNING", Attempt: 2, LatestCheckpoint: 7}},
		Term:       10,
	}
	idx, err := jobs.PutJob(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.PutJob(ctx, rec); !errors.Is(err, consul.ErrConflict) {
		t.Fatalf("second create: %v, want ErrConflict", err)
	}
	got, err := jobs.GetJob(ctx, "j1")
	if err != nil {
		t.Fatal(err)
	}
	rec.Index = idx
	if !reflect.DeepEqual(got, rec) {
		t.Fatalf("get:\n got %+v\nwant %+v", got, rec)
	}

	// The new leader (term 11) rewrites the job; the old one (term 10)
	// still holds the index it read and must not overwrite it.
	stale := got
	got.Pipelines = append([]consul.PipelineRecord(nil), got.Pipelines...)
	got.Term, got.Pipelines[0].Attempt = 11, 3
	newIdx, err := jobs.PutJob(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	if newIdx <= idx {
		t.Fatalf("new index %d not above %d", newIdx, idx)
	}
	stale.State = "FAILED"
	if _, err := jobs.PutJob(ctx, stale); !errors.Is(err, consul.ErrConflict) {
		t.Fatalf("stale write: %v, want ErrConflict", err)
	}
	if err := jobs.DeleteJob(ctx, "j1", stale.Index); !errors.Is(err, consul.ErrConflict) {
		t.Fatalf("stale delete: %v, want ErrConflict", err)
	}
	cur, err := jobs.GetJob(ctx, "j1")
	if err != nil {
		t.Fatal(err)
	}
	if cur.Term != 11 || cur.State != "RUNNING" || cur.Index != newIdx {
		t.Fatalf("after the stale writes: %+v", cur)
	}

	if err := jobs.DeleteJob(ctx, "j1", cur.Index); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.GetJob(ctx, "j1"); !errors.Is(err, consul.ErrNotFound) {
		t.Fatalf("get after delete: %v, want ErrNotFound", err)
	}
	if _, err := jobs.PutJob(ctx, consul.JobRecord{ID: "a/b"}); err == nil {
		t.Fatal("a job ID with a slash was stored")
	}
}

func TestJobRegistryListAndExpireHistory(t *testing.T) {
	need(t)
	t.Parallel()
	ctx := testCtx(t, 30*time.Second)
	jobs := consul.NewJobRegistry(client, newCluster(t))
	now := time.Now()
	for _, r := range []consul.JobRecord{
		{ID: "old", State: "FINISHED", SubmitTime: now.Add(-3 * time.Hour), EndTime: now.Add(-2 * time.Hour)},
		{ID: "recent", State: "FAILED", SubmitTime: now.Add(-2 * time.Hour), EndTime: now.Add(-time.Minute)},
		{ID: "running", State: "RUNNING", SubmitTime: now.Add(-4 * time.Hour)},
	} {
		if _, err := jobs.PutJob(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []string {
		t.Helper()
		recs, err := jobs.ListJobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range recs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	if got, want := ids(), []string{"running", "old", "recent"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("list: %v, want %v (submit order)", got, want)
	}
	n, err := jobs.ExpireHistory(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(), []string{"running", "recent"}; n != 1 || !reflect.DeepEqual(got, want) {
		t.Fatalf("after expiry: deleted %d, left %v; want 1, %v", n, got, want)
	}
}
