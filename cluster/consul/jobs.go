package consul

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/stactor/stactor/messages"
)

// JobRecord is a job as the leader persists it, so that a new leader can
// take over (DESIGN.md §6): enough to plan the job again and resume each
// pipeline from its latest checkpoint. It is stored as JSON.
type JobRecord struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	File string `json:"file,omitempty"`
	// Resolved is the job's resolved plan (messages.ResolvedJob, protobuf):
	// what a new leader resumes the job from (DESIGN §2). It is stored
	// apart from the record (see JobRegistry), so GetJob returns it and
	// ListJobs does not: Plan reads a listed record's.
	Resolved   []byte            `json:"-"`
	Vars       map[string]string `json:"vars,omitempty"`
	State      string            `json:"state"`
	SubmitTime time.Time         `json:"submit_time,omitzero"`
	// EndTime is set when the job ended (FINISHED, FAILED, CANCELED); a
	// record with an EndTime is history, and ExpireHistory removes it.
	EndTime   time.Time        `json:"end_time,omitzero"`
	Pipelines []PipelineRecord `json:"pipelines,omitempty"`
	Error     string           `json:"error,omitempty"`
	// Row and byte counts as of the record's write (the final ones once the
	// job ended), so history shows them under any later leader.
	ReadRows   int64 `json:"read_rows,omitempty"`
	WriteRows  int64 `json:"write_rows,omitempty"`
	FailedRows int64 `json:"failed_rows,omitempty"`
	ReadBytes  int64 `json:"read_bytes,omitempty"`
	WriteBytes int64 `json:"write_bytes,omitempty"`
	// Term is the term (Leader.Term) of the leader that wrote the record.
	Term uint64 `json:"term"`

	// Index is the record's ModifyIndex in Consul: set by GetJob and
	// ListJobs, returned by PutJob, and checked by PutJob and DeleteJob.
	// 0 means "a record that does not exist yet". Not stored.
	Index uint64 `json:"-"`

	// plan is where the stored record says its Resolved is.
	plan planRef
}

// storedRecord is a JobRecord as its key holds it: the plan by reference,
// or inline in a record written before plans were stored apart.
type storedRecord struct {
	JobRecord
	Plan   *planRef `json:"plan,omitempty"`
	Inline []byte   `json:"resolved,omitempty"`
}

// planRef names a stored plan: its SHA-256 (hex), its size and the number
// of parts it is stored in.
type planRef struct {
	Sum   string `json:"sum"`
	Size  int    `json:"size"`
	Parts int    `json:"parts"`
}

// PipelineRecord is one pipeline of a JobRecord.
type PipelineRecord struct {
	ID               int32  `json:"id"`
	State            string `json:"state"`
	Attempt          int32  `json:"attempt"`
	LatestCheckpoint int64  `json:"latest_checkpoint,omitempty"`
}

// Ended reports whether the job is history.
func (r JobRecord) Ended() bool { return !r.EndTime.IsZero() }

// Status is the job's status as its record has it.
func (r JobRecord) Status() *messages.JobStatus {
	st := &messages.JobStatus{JobId: r.ID, Name: r.Name, State: r.State, Error: r.Error, StartUnixMs: r.SubmitTime.UnixMilli(),
		ReadRows: r.ReadRows, WriteRows: r.WriteRows, FailedRows: r.FailedRows, ReadBytes: r.ReadBytes, WriteBytes: r.WriteBytes}
	if r.Ended() {
		st.EndUnixMs = r.EndTime.UnixMilli()
	}
	for _, p := range r.Pipelines {
		st.Pipelines = append(st.Pipelines, &messages.PipelineStatus{Id: p.ID, State: p.State, Attempt: p.Attempt})
	}
	return st
}

// JobRegistry is the cluster's job registry and job history in Consul KV,
// one key per job under stactor/<cluster>/jobs/. Every write is a
// check-and-set on the index the writer read, so a leader that was replaced
// (and so read before its successor wrote) gets ErrConflict instead of
// overwriting; a new leader should rewrite each running job with its own
// Term when it takes over, which also fences a predecessor that has not
// written yet.
//
// A resolved plan can outgrow a Consul value (512 KB by default): a
// LocalFile source's listing of tens of thousands of files, a CDC source
// of a thousand tables. So the plan is stored apart, under
// stactor/<cluster>/plans/<job>/<sha256>/<part>, in parts of planPart
// bytes, and the record names it by its sum. The parts are written before
// the record that names them (the last part first, so a part 0 means the
// whole plan is there, should a write be cut short), a plan already
// stored is not written again (every state change rewrites the record,
// not the plan), a record that names another plan has the job's older
// plans deleted after it, and deleting the record deletes its plans.
//
// It holds no state of its own: safe for use from any goroutine. Each call
// is bounded by its ctx.
type JobRegistry struct {
	client *api.Client
	prefix string
	plans  string
}

// NewJobRegistry returns the job registry of cluster.
func NewJobRegistry(client *api.Client, cluster string) *JobRegistry {
	return &JobRegistry{client: client, prefix: "stactor/" + cluster + "/jobs/", plans: "stactor/" + cluster + "/plans/"}
}

func (j *JobRegistry) key(id string) string { return j.prefix + id }

// planPart is the size of a stored plan's parts, well under Consul's
// default 512 KB limit of a value.
const planPart = 256 << 10

// maxPlan bounds a plan's size (and so its parts).
const maxPlan = 64 << 20

func (j *JobRegistry) planDir(id string) string { return j.plans + id + "/" }

func (j *JobRegistry) partKey(id string, ref planRef, n int) string {
	return fmt.Sprintf("%s%s/%d", j.planDir(id), ref.Sum, n)
}

// putPlan stores plan for job id unless it is stored already; wrote says
// it was not.
func (j *JobRegistry) putPlan(ctx context.Context, id string, plan []byte) (ref planRef, wrote bool, err error) {
	if len(plan) > maxPlan {
		return planRef{}, false, fmt.Errorf("consul: put job %s: its resolved plan is %d bytes, more than the %d a job may have", id, len(plan), maxPlan)
	}
	sum := sha256.Sum256(plan)
	ref = planRef{Sum: hex.EncodeToString(sum[:]), Size: len(plan), Parts: (len(plan) + planPart - 1) / planPart}
	kv := j.client.KV()
	have, _, err := kv.Get(j.partKey(id, ref, 0), (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return planRef{}, false, fmt.Errorf("consul: put job %s: its plan: %w", id, err)
	}
	if have != nil {
		return ref, false, nil
	}
	wo := (&api.WriteOptions{}).WithContext(ctx)
	for n := ref.Parts - 1; n >= 0; n-- {
		part := plan[n*planPart : min((n+1)*planPart, len(plan))]
		if _, err := kv.Put(&api.KVPair{Key: j.partKey(id, ref, n), Value: part}, wo); err != nil {
			return planRef{}, false, fmt.Errorf("consul: put job %s: part %d of its plan: %w", id, n, err)
		}
	}
	return ref, true, nil
}

// Plan is the resolved plan of rec (as GetJob or ListJobs returned it):
// rec.Resolved if set, else read from where the record says it is.
func (j *JobRegistry) Plan(ctx context.Context, rec JobRecord) ([]byte, error) {
	if rec.Resolved != nil || rec.plan.Parts == 0 {
		return rec.Resolved, nil
	}
	var buf bytes.Buffer
	for n := range rec.plan.Parts {
		p, _, err := j.client.KV().Get(j.partKey(rec.ID, rec.plan, n), (&api.QueryOptions{}).WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("consul: job %s: part %d of its plan: %w", rec.ID, n, err)
		}
		if p == nil {
			return nil, fmt.Errorf("consul: job %s: part %d of its plan %s is missing", rec.ID, n, rec.plan.Sum)
		}
		buf.Write(p.Value)
	}
	sum := sha256.Sum256(buf.Bytes())
	if buf.Len() != rec.plan.Size || hex.EncodeToString(sum[:]) != rec.plan.Sum {
		return nil, fmt.Errorf("consul: job %s: its stored plan is not the one its record names (%d bytes, want %d; sum %x, want %s)",
			rec.ID, buf.Len(), rec.plan.Size, sum, rec.plan.Sum)
	}
	return buf.Bytes(), nil
}

// dropOtherPlans deletes the plans of job id but keep (all of them when
// keep is empty).
func (j *JobRegistry) dropOtherPlans(ctx context.Context, id, keep string) error {
	kv := j.client.KV()
	dirs, _, err := kv.Keys(j.planDir(id), "/", (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if keep != "" && d == j.planDir(id)+keep+"/" {
			continue
		}
		if _, err := kv.DeleteTree(d, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			return err
		}
	}
	return nil
}

// PutJob writes rec if its Index is still the stored record's ModifyIndex
// (rec.Index 0: only if no record with that ID exists) and returns the
// record's new index. ErrConflict means the stored record changed since it
// was read (or already exists); other errors mean the write did not happen
// or its outcome is unknown (re-read to tell).
func (j *JobRegistry) PutJob(ctx context.Context, rec JobRecord) (uint64, error) {
	if rec.ID == "" || strings.Contains(rec.ID, "/") {
		return 0, fmt.Errorf("consul: put job: bad job ID %q", rec.ID)
	}
	stored := storedRecord{JobRecord: rec}
	newPlan := false
	if len(rec.Resolved) > 0 {
		ref, wrote, err := j.putPlan(ctx, rec.ID, rec.Resolved)
		if err != nil {
			return 0, err
		}
		stored.Plan, newPlan = &ref, wrote
	}
	value, err := json.Marshal(stored)
	if err != nil {
		return 0, fmt.Errorf("consul: put job %s: %w", rec.ID, err)
	}
	// A transaction rather than KV.CAS: it returns the new ModifyIndex, so
	// the writer can write again without reading first.
	ops := api.TxnOps{{KV: &api.KVTxnOp{Verb: api.KVCAS, Key: j.key(rec.ID), Value: value, Index: rec.Index}}}
	ok, resp, _, err := j.client.Txn().Txn(ops, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("consul: put job %s: %w", rec.ID, err)
	}
	if !ok {
		return 0, fmt.Errorf("consul: put job %s at index %d: %w", rec.ID, rec.Index, txnError(resp))
	}
	if len(resp.Results) != 1 || resp.Results[0].KV == nil {
		return 0, fmt.Errorf("consul: put job %s: unexpected transaction result", rec.ID)
	}
	if newPlan {
		// The job's older plans are no record's now. Left behind on an
		// error, they go with the job's record.
		_ = j.dropOtherPlans(ctx, rec.ID, stored.Plan.Sum)
	}
	return resp.Results[0].KV.ModifyIndex, nil
}

// txnError turns a rolled-back transaction's errors into ErrConflict when
// they are check-and-set failures, or into one error otherwise.
func txnError(resp *api.TxnResponse) error {
	if resp == nil || len(resp.Errors) == 0 {
		return errors.New("transaction rolled back")
	}
	var errs []error
	for _, e := range resp.Errors {
		if strings.Contains(e.What, "index is stale") {
			return ErrConflict
		}
		errs = append(errs, errors.New(e.What))
	}
	return errors.Join(errs...)
}

// GetJob returns the record of job id with its Index. ErrNotFound means
// there is none.
func (j *JobRegistry) GetJob(ctx context.Context, id string) (JobRecord, error) {
	pair, _, err := j.client.KV().Get(j.key(id), (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return JobRecord{}, fmt.Errorf("consul: get job %s: %w", id, err)
	}
	if pair == nil {
		return JobRecord{}, fmt.Errorf("consul: get job %s: %w", id, ErrNotFound)
	}
	rec, err := decodeJob(pair)
	if err != nil {
		return JobRecord{}, err
	}
	if rec.Resolved, err = j.Plan(ctx, rec); err != nil {
		return JobRecord{}, err
	}
	return rec, nil
}

// ListJobs returns every record, running and ended, in submit order (then
// by ID), each with its Index, without its plan (Plan reads it).
func (j *JobRegistry) ListJobs(ctx context.Context) ([]JobRecord, error) {
	pairs, _, err := j.client.KV().List(j.prefix, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("consul: list jobs: %w", err)
	}
	recs := make([]JobRecord, 0, len(pairs))
	for _, p := range pairs {
		rec, err := decodeJob(p)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	sort.Slice(recs, func(a, b int) bool {
		if !recs[a].SubmitTime.Equal(recs[b].SubmitTime) {
			return recs[a].SubmitTime.Before(recs[b].SubmitTime)
		}
		return recs[a].ID < recs[b].ID
	})
	return recs, nil
}

func decodeJob(p *api.KVPair) (JobRecord, error) {
	var st storedRecord
	if err := json.Unmarshal(p.Value, &st); err != nil {
		return JobRecord{}, fmt.Errorf("consul: job record %s: %w", p.Key, err)
	}
	rec := st.JobRecord
	rec.Index = p.ModifyIndex
	if st.Plan != nil {
		rec.plan = *st.Plan
	} else {
		rec.Resolved = st.Inline
	}
	return rec, nil
}

// DeleteJob deletes job id if its ModifyIndex is still index (index 0:
// whatever it is). Deleting a job that does not exist succeeds.
// ErrConflict means the record changed since it was read.
func (j *JobRegistry) DeleteJob(ctx context.Context, id string, index uint64) error {
	wo := (&api.WriteOptions{}).WithContext(ctx)
	if index == 0 {
		if _, err := j.client.KV().Delete(j.key(id), wo); err != nil {
			return fmt.Errorf("consul: delete job %s: %w", id, err)
		}
	} else {
		ok, _, err := j.client.KV().DeleteCAS(&api.KVPair{Key: j.key(id), ModifyIndex: index}, wo)
		if err != nil {
			return fmt.Errorf("consul: delete job %s: %w", id, err)
		}
		if !ok {
			return fmt.Errorf("consul: delete job %s at index %d: %w", id, index, ErrConflict)
		}
	}
	if err := j.dropOtherPlans(ctx, id, ""); err != nil {
		return fmt.Errorf("consul: delete job %s: its plans: %w", id, err)
	}
	return nil
}

// ExpireHistory deletes the records of jobs that ended more than olderThan
// ago (the engine's history-job-expire-minutes) and returns how many it
// deleted. Each delete is a check-and-set on the index it listed, so a
// record rewritten meanwhile is kept. Called by the leader, periodically.
func (j *JobRegistry) ExpireHistory(ctx context.Context, olderThan time.Duration) (int, error) {
	recs, err := j.ListJobs(ctx)
	if err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-olderThan)
	n := 0
	for _, r := range recs {
		if !r.Ended() || r.EndTime.After(cutoff) {
			continue
		}
		switch err := j.DeleteJob(ctx, r.ID, r.Index); {
		case errors.Is(err, ErrConflict):
		case err != nil:
			return n, err
		default:
			n++
		}
	}
	return n, nil
}
