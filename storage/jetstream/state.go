package jetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// WriteState implements storage.Storage. It reads the register for the
// fence but writes it only when id is above every id it knows (a state
// written under an id NextCheckpointID did not hand out), so the subtasks of
// a pipeline write in parallel without contending. The fence is checked
// before the write, not with it: a state only counts once a Complete, which
// is fenced atomically, references it.
func (s *Store) WriteState(jobID string, p, attempt int, id int64, name string, data []byte) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("write state %q of job %s pipeline %d checkpoint %d attempt %d: %w", name, jobID, p, id, attempt, err)
	}
	job, err := tokenNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	if attempt < 0 || attempt > names.MaxInt32 || id < 0 {
		return fail(fmt.Errorf("%w: negative attempt or checkpoint id", storage.ErrInvalid))
	}
	esc, err := tokenNames.Escape(name)
	if err != nil {
		return fail(fmt.Errorf("state name: %w", err))
	}
	h := names.Handle{Pipeline: p, ID: id, Attempt: attempt, Name: esc}
	ctx, cancel := s.op(context.Background())
	defer cancel()

	key := registerKey(job, p)
	r, rev, err := s.readRegister(ctx, key)
	if err != nil {
		return fail(err)
	}
	if err := r.fenceWrite(attempt); err != nil {
		return fail(err)
	}
	if rev == 0 || id > r.id {
		// Also creates the register of a pipeline seen first here, so that
		// Jobs lists its job.
		_, err := s.update(ctx, key, func(r *register) error {
			if err := r.fenceWrite(attempt); err != nil {
				return err
			}
			if r.id >= id {
				return errUnchanged // another subtask got there first
			}
			r.id = id
			return nil
		})
		if err != nil {
			return fail(err)
		}
	}
	if err := s.putMarker(ctx, stateMarker(job, h)); err != nil {
		return fail(err)
	}
	if err := s.putObject(ctx, stateObject(job, h), data); err != nil {
		return fail(err)
	}
	return h.String(), nil
}

// ReadState implements storage.Storage.
func (s *Store) ReadState(jobID string, hs string) ([]byte, error) {
	fail := func(err error) ([]byte, error) {
		return nil, fmt.Errorf("read state %s of job %s: %w", hs, jobID, err)
	}
	job, err := tokenNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	h, err := tokenNames.ParseHandle(hs)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := s.op(context.Background())
	defer cancel()
	data, err := s.readObject(ctx, stateObject(job, h))
	if errors.Is(err, errGone) {
		return fail(storage.ErrNotFound)
	}
	if err != nil {
		return fail(err)
	}
	return data, nil
}
