package consul_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

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
	if !reflect.DeepEqual(consul.WithoutPlanRef(got), rec) {
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

// TestJobRegistryLargePlan stores a plan several times larger than a
// Consul value may be: written once in parts, read back whole by GetJob
// and Plan (not by ListJobs), not rewritten by a state change, replaced
// by a new plan with the old parts gone, refused when a part was changed,
// and deleted with the record. A record written with its plan inline (an
// older stactor) still reads.
func TestJobRegistryLargePlan(t *testing.T) {
	need(t)
	t.Parallel()
	ctx := testCtx(t, 60*time.Second)
	cluster := newCluster(t)
	jobs := consul.NewJobRegistry(client, cluster)
	kv := client.KV()
	planKeys := func() []string {
		t.Helper()
		keys, _, err := kv.Keys("stactor/"+cluster+"/plans/", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	plan := make([]byte, 1300<<10) // random: deflate cannot shrink it under 512 KB
	rand.Read(plan)
	rec := consul.JobRecord{ID: "big", State: "RUNNING", Resolved: plan, SubmitTime: time.Now().UTC().Truncate(time.Millisecond)}
	idx, err := jobs.PutJob(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(planKeys()); n != 6 {
		t.Fatalf("%d parts stored, want 6 of 256 KB", n)
	}
	got, err := jobs.GetJob(ctx, "big")
	if err != nil || !bytes.Equal(got.Resolved, plan) {
		t.Fatalf("get: %v, %d bytes of plan, want %d", err, len(got.Resolved), len(plan))
	}
	recs, err := jobs.ListJobs(ctx)
	if err != nil || len(recs) != 1 || recs[0].Resolved != nil {
		t.Fatalf("list: %v, %+v", err, recs)
	}
	if p, err := jobs.Plan(ctx, recs[0]); err != nil || !bytes.Equal(p, plan) {
		t.Fatalf("plan of a listed record: %v, %d bytes", err, len(p))
	}

	// A state change writes the record, not the plan again.
	part0, _, err := kv.Get(planKeys()[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.Index, rec.State = idx, "FAILING"
	if idx, err = jobs.PutJob(ctx, rec); err != nil {
		t.Fatal(err)
	}
	again, _, err := kv.Get(part0.Key, nil)
	if err != nil || again == nil || again.ModifyIndex != part0.ModifyIndex {
		t.Fatalf("a state change rewrote the plan: %v, %+v", err, again)
	}

	// A new plan replaces the old one's parts.
	small := []byte("a new, smaller plan")
	rec.Index, rec.Resolved = idx, small
	if idx, err = jobs.PutJob(ctx, rec); err != nil {
		t.Fatal(err)
	}
	keys := planKeys()
	if len(keys) != 1 {
		t.Fatalf("after a new plan, stored parts %v, want the new plan's one", keys)
	}
	if got, err := jobs.GetJob(ctx, "big"); err != nil || !bytes.Equal(got.Resolved, small) {
		t.Fatalf("get after the new plan: %v, %q", err, got.Resolved)
	}

	// A changed part is an error naming the job, not a wrong plan.
	if _, err := kv.Put(&api.KVPair{Key: keys[0], Value: []byte("a new, smaller plaN")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.GetJob(ctx, "big"); err == nil || !strings.Contains(err.Error(), "job big") {
		t.Fatalf("get with a changed part: %v, want an error naming the job", err)
	}

	if err := jobs.DeleteJob(ctx, "big", idx); err != nil {
		t.Fatal(err)
	}
	if keys := planKeys(); len(keys) != 0 {
		t.Fatalf("after delete, plan parts left: %v", keys)
	}

	// A record of an older stactor, the plan inline.
	old := `{"id":"old","state":"RUNNING","term":3,"resolved":"` + "b2xkIHBsYW4=" + `"}`
	if _, err := kv.Put(&api.KVPair{Key: "stactor/" + cluster + "/jobs/old", Value: []byte(old)}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := jobs.GetJob(ctx, "old"); err != nil || string(got.Resolved) != "old plan" || got.Term != 3 {
		t.Fatalf("an inline record: %v, %+v", err, got)
	}
}
