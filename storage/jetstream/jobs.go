package jetstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
)

// SaveJob implements storage.Storage. The spec goes to the object store (a
// job file has no size limit; a KV value has the server's max_payload),
// announced by the job's key in the meta bucket, which Jobs lists.
func (s *Store) SaveJob(spec *messages.JobSpec) error {
	if spec == nil {
		return fmt.Errorf("save job: %w: nil spec", storage.ErrInvalid)
	}
	job, err := tokenNames.EscapeJob(spec.JobId)
	if err != nil {
		return fmt.Errorf("save job: %w", err)
	}
	fail := func(err error) error { return fmt.Errorf("save job %s: %w", spec.JobId, err) }
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(spec)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := s.op(context.Background())
	defer cancel()
	if err := s.putMarker(ctx, jobKey(job)); err != nil {
		return fail(err)
	}
	if err := s.putObject(ctx, jobObject(job), frame(b)); err != nil {
		return fail(err)
	}
	return nil
}

// LoadJob implements storage.Storage.
func (s *Store) LoadJob(jobID string) (*messages.JobSpec, error) {
	job, err := tokenNames.EscapeJob(jobID)
	if err != nil {
		return nil, fmt.Errorf("load job: %w", err)
	}
	fail := func(err error) (*messages.JobSpec, error) { return nil, fmt.Errorf("load job %s: %w", jobID, err) }
	ctx, cancel := s.op(context.Background())
	defer cancel()
	b, err := s.readObject(ctx, jobObject(job))
	if errors.Is(err, errGone) {
		return fail(storage.ErrNotFound)
	}
	if err != nil {
		return fail(err)
	}
	payload, err := unframe(b)
	if err != nil {
		return fail(err)
	}
	spec := &messages.JobSpec{}
	if err := proto.Unmarshal(payload, spec); err != nil {
		return fail(corrupt("undecodable: %v", err))
	}
	if spec.JobId != jobID {
		return fail(corrupt("it holds job %q", spec.JobId))
	}
	return spec, nil
}

// Jobs implements storage.Storage: the jobs with a spec or a pipeline
// register (every pipeline with anything stored has one).
func (s *Store) Jobs() ([]string, error) {
	ctx, cancel := s.op(context.Background())
	defer cancel()
	keys, err := s.listKeys(ctx, "*.*")
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var jobs []string
	for k := range keys {
		e, _, _ := strings.Cut(k, ".")
		if job, ok := tokenNames.Unescape(e); ok {
			jobs = append(jobs, job)
		}
	}
	slices.Sort(jobs)
	return slices.Compact(jobs), nil
}
