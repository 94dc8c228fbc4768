package consul

import (
	"context"
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
	// what a new leader resumes the job from (DESIGN §2).
	Resolved   []byte            `json:"resolved,omitempty"`
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
// It holds no state of its own: safe for use from any goroutine. Each call
// is one Consul request bounded by its ctx.
type JobRegistry struct {
	client *api.Client
	prefix string
}

// NewJobRegistry returns the job registry of cluster.
func NewJobRegistry(client *api.Client, cluster string) *JobRegistry {
	return &JobRegistry{client: client, prefix: "stactor/" + cluster + "/jobs/"}
}

func (j *JobRegistry) key(id string) string { return j.prefix + id }

// PutJob writes rec if its Index is still the stored record's ModifyIndex
// (rec.Index 0: only if no record with that ID exists) and returns the
// record's new index. ErrConflict means the stored record changed since it
// was read (or already exists); other errors mean the write did not happen
// or its outcome is unknown (re-read to tell).
func (j *JobRegistry) PutJob(ctx context.Context, rec JobRecord) (uint64, error) {
	if rec.ID == "" || strings.Contains(rec.ID, "/") {
		return 0, fmt.Errorf("consul: put job: bad job ID %q", rec.ID)
	}
	value, err := json.Marshal(rec)
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
	return decodeJob(pair)
}

// ListJobs returns every record, running and ended, in submit order (then
// by ID), each with its Index.
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
	var rec JobRecord
	if err := json.Unmarshal(p.Value, &rec); err != nil {
		return JobRecord{}, fmt.Errorf("consul: job record %s: %w", p.Key, err)
	}
	rec.Index = p.ModifyIndex
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
		return nil
	}
	ok, _, err := j.client.KV().DeleteCAS(&api.KVPair{Key: j.key(id), ModifyIndex: index}, wo)
	if err != nil {
		return fmt.Errorf("consul: delete job %s: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("consul: delete job %s at index %d: %w", id, index, ErrConflict)
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
