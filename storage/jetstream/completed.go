package jetstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

func checkCheckpoint(cp *messages.CompletedCheckpoint) (job string, err error) {
	if cp == nil {
		return "", fmt.Errorf("%w: nil checkpoint", storage.ErrInvalid)
	}
	if job, err = tokenNames.EscapeJob(cp.JobId); err != nil {
		return "", err
	}
	if cp.Pipeline < 0 || cp.Id < 0 || cp.Attempt < 0 {
		return "", fmt.Errorf("%w: negative pipeline, id or attempt", storage.ErrInvalid)
	}
	return job, nil
}

// Complete implements storage.Storage in three steps:
//
//  1. read the register and check the fence (a fenced caller writes nothing);
//  2. check that the referenced states are stored, then write the metadata
//     object (marker first) — it does not count yet;
//  3. add the id to the register's committed set by compare-and-set, checking
//     the fence again against the revision it writes over.
//
// Step 3 is the commit point. A NextAttempt (from any process) that lands
// between 1 and 3 makes the compare-and-set fail; the re-read sees the new
// attempt, Complete returns ErrFenced and takes its object away again (and
// should it crash first, the object never counts and Retain removes it).
func (s *Store) Complete(callCtx context.Context, cp *messages.CompletedCheckpoint) error {
	job, err := checkCheckpoint(cp)
	if err != nil {
		return fmt.Errorf("complete checkpoint: %w", err)
	}
	p := int(cp.Pipeline)
	fail := func(err error) error {
		return fmt.Errorf("complete checkpoint %d of job %s pipeline %d attempt %d: %w", cp.Id, cp.JobId, p, cp.Attempt, err)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(cp)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := s.op(callCtx)
	defer cancel()
	unlock, err := s.lock(ctx, job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()

	key := registerKey(job, p)
	r, _, err := s.readRegister(ctx, key)
	if err != nil {
		return fail(err)
	}
	if err := r.fenceComplete(cp.Attempt); err != nil {
		return fail(err)
	}
	if err := s.checkStates(ctx, job, cp); err != nil {
		return fail(err)
	}
	marker, name := completedMarker(job, p, cp.Id), completedObject(job, p, cp.Id)
	if err := s.putMarker(ctx, marker); err != nil {
		return fail(err)
	}
	if err := s.putObject(ctx, name, frame(b)); err != nil {
		return fail(err)
	}
	if s.testHookBeforeCommit != nil {
		s.testHookBeforeCommit()
	}
	r, err = s.update(ctx, key, func(r *register) error {
		if err := r.fenceComplete(cp.Attempt); err != nil {
			return err
		}
		r.addCompleted(cp.Id)
		r.ckptAttempt = max(r.ckptAttempt, int64(cp.Attempt))
		r.id = max(r.id, cp.Id)
		return nil
	})
	if errors.Is(err, storage.ErrFenced) && !r.has(cp.Id) {
		// Best effort: an object the register does not list never counts.
		if s.deleteObject(ctx, name) == nil {
			_ = s.deleteMarker(ctx, marker, 0)
		}
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// checkStates checks that every state cp references is a stored state of
// its pipeline, a few at a time.
func (s *Store) checkStates(ctx context.Context, job string, cp *messages.CompletedCheckpoint) error {
	var refs []*messages.TaskStateRef
	var hs []names.Handle
	for _, t := range cp.Tasks {
		if t.GetHandle() == "" {
			continue
		}
		h, err := tokenNames.ParseHandle(t.Handle)
		if err != nil {
			return err
		}
		if h.Pipeline != int(cp.Pipeline) {
			return fmt.Errorf("%w: state %s belongs to another pipeline", storage.ErrInvalid, t.Handle)
		}
		refs, hs = append(refs, t), append(hs, h)
	}
	errs := make([]error, len(hs))
	sem := make(chan struct{}, 16) // requests in flight
	var wg sync.WaitGroup
	for i, h := range hs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, _, err := s.objectInfo(ctx, stateObject(job, h))
			if errors.Is(err, errGone) {
				err = storage.ErrNotFound
			}
			if err != nil {
				t := refs[i]
				errs[i] = fmt.Errorf("state %s of chain %d subtask %d: %w", t.Handle, t.Chain, t.Subtask, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readCompleted reads committed checkpoint id of (job, p). An object that
// decodes but names another checkpoint is corrupt too (it was copied).
func (s *Store) readCompleted(ctx context.Context, jobID, job string, p int, id int64) (*messages.CompletedCheckpoint, error) {
	b, err := s.readObject(ctx, completedObject(job, p, id))
	if err != nil {
		return nil, err
	}
	payload, err := unframe(b)
	if err != nil {
		return nil, err
	}
	cp := &messages.CompletedCheckpoint{}
	if err := proto.Unmarshal(payload, cp); err != nil {
		return nil, corrupt("undecodable: %v", err)
	}
	if cp.JobId != jobID || int(cp.Pipeline) != p || cp.Id != id {
		return nil, corrupt("it holds checkpoint %d of job %s pipeline %d", cp.Id, cp.JobId, cp.Pipeline)
	}
	return cp, nil
}

// broken is a committed checkpoint that does not read back intact.
type broken struct {
	id     int64
	reason string
}

// readOrBroken reads a committed checkpoint the register listed. One that
// does not read back is broken if the register still lists it, and gone
// (nil, nil, nil) if Retain dropped it meanwhile — its object may have been
// half deleted under the read.
func (s *Store) readOrBroken(ctx context.Context, jobID, job string, p int, id int64) (*messages.CompletedCheckpoint, *broken, error) {
	cp, err := s.readCompleted(ctx, jobID, job, p, id)
	if err == nil {
		return cp, nil, nil
	}
	reason, isCorrupt := corruptReason(err)
	if !isCorrupt && !errors.Is(err, errGone) {
		return nil, nil, err
	}
	now, _, err := s.readRegister(ctx, registerKey(job, p))
	if err != nil {
		return nil, nil, err
	}
	switch {
	case !now.has(id):
		return nil, nil, nil
	case isCorrupt:
		return nil, &broken{id, reason}, nil
	default:
		return nil, &broken{id, "its metadata object is missing"}, nil
	}
}

// LastCompleted implements storage.Storage: the register's highest
// committed id (Retain drops old ids, never the newest; a corrupt or
// deleted metadata object leaves its id listed).
func (s *Store) LastCompleted(jobID string, p int) (int64, error) {
	job, err := tokenNames.EscapeJob(jobID)
	if err == nil {
		err = names.CheckPipeline(p)
	}
	if err != nil {
		return 0, fmt.Errorf("last completed checkpoint of job %s pipeline %d: %w", jobID, p, err)
	}
	ctx, cancel := s.op(context.Background())
	defer cancel()
	r, _, err := s.readRegister(ctx, registerKey(job, p))
	if err != nil {
		return 0, fmt.Errorf("last completed checkpoint of job %s pipeline %d: %w", jobID, p, err)
	}
	if len(r.completed) == 0 {
		return -1, nil
	}
	return r.completed[len(r.completed)-1], nil
}

// Latest implements storage.Storage. It reads newest first and stops at the
// first intact checkpoint; it takes no lock (Retain never drops the newest
// intact one, and removes an id from the register before its object).
func (s *Store) Latest(jobID string, p int) (*messages.CompletedCheckpoint, []string, error) {
	fail := func(err error) (*messages.CompletedCheckpoint, []string, error) {
		return nil, nil, fmt.Errorf("latest checkpoint of job %s pipeline %d: %w", jobID, p, err)
	}
	job, err := tokenNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	ctx, cancel := s.op(context.Background())
	defer cancel()
	r, _, err := s.readRegister(ctx, registerKey(job, p))
	if err != nil {
		return fail(err)
	}
	var bad []*broken
	warn := func(using string) []string {
		var ws []string
		for _, b := range bad {
			ws = append(ws, fmt.Sprintf("checkpoint %d of job %s pipeline %d is corrupt (%s); %s", b.id, jobID, p, b.reason, using))
		}
		return ws
	}
	for _, id := range slices.Backward(r.completed) {
		cp, b, err := s.readOrBroken(ctx, jobID, job, p, id)
		switch {
		case err != nil:
			return fail(err)
		case cp != nil:
			return cp, warn(fmt.Sprintf("using checkpoint %d", cp.Id)), nil
		case b != nil:
			bad = append(bad, b)
		}
	}
	return nil, warn("no intact checkpoint is left"), nil
}

// readIntact reads a pipeline's committed checkpoints that read back
// intact, ascending, and those that do not.
func (s *Store) readIntact(ctx context.Context, jobID, job string, p int, r *register) ([]*messages.CompletedCheckpoint, []*broken, error) {
	var ok []*messages.CompletedCheckpoint
	var bad []*broken
	for _, id := range r.completed {
		cp, b, err := s.readOrBroken(ctx, jobID, job, p, id)
		switch {
		case err != nil:
			return nil, nil, err
		case cp != nil:
			ok = append(ok, cp)
		case b != nil:
			bad = append(bad, b)
		}
	}
	return ok, bad, nil
}

// pipelines lists the pipelines of a job that have a register.
func (s *Store) pipelines(ctx context.Context, job string) ([]int, error) {
	keys, err := s.listKeys(ctx, job+".*")
	if err != nil {
		return nil, err
	}
	var ps []int
	for k := range keys {
		if p, ok := names.ParsePipeline(strings.TrimPrefix(k, job+".")); ok {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps, nil
}

// List implements storage.Storage. Each pipeline's checkpoints come in id
// order; across pipelines they are merged by completion time.
func (s *Store) List(jobID string) ([]*messages.CompletedCheckpoint, error) {
	fail := func(err error) ([]*messages.CompletedCheckpoint, error) {
		return nil, fmt.Errorf("list checkpoints of job %s: %w", jobID, err)
	}
	job, err := tokenNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := s.op(context.Background())
	defer cancel()
	ps, err := s.pipelines(ctx, job)
	if err != nil {
		return fail(err)
	}
	var per [][]*messages.CompletedCheckpoint
	for _, p := range ps {
		r, _, err := s.readRegister(ctx, registerKey(job, p))
		if err != nil {
			return fail(err)
		}
		cps, _, err := s.readIntact(ctx, jobID, job, p, r)
		if err != nil {
			return fail(err)
		}
		if len(cps) > 0 {
			per = append(per, cps)
		}
	}
	var out []*messages.CompletedCheckpoint
	for {
		best := -1
		for i, cps := range per {
			if len(cps) > 0 && (best < 0 || cps[0].CompleteUnixMs < per[best][0].CompleteUnixMs) {
				best = i
			}
		}
		if best < 0 {
			return out, nil
		}
		out = append(out, per[best][0])
		per[best] = per[best][1:]
	}
}
