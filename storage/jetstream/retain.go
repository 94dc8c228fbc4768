package jetstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// Retain implements storage.Storage.
//
// It first drops the checkpoints that go from the register's committed set
// (one compare-and-set: from then on they do not count), then deletes, by
// the pipeline's markers, their metadata objects and every state blob that
// no kept checkpoint references and that belongs to a dropped checkpoint or
// to an id below the oldest kept one; each object before its marker, so
// what a crash leaves behind is found by the next Retain. Corrupt
// checkpoints are never kept, but one newer than the oldest kept checkpoint
// stays listed (and warned about by Latest) until newer checkpoints push it
// out, for someone to look at.
func (s *Store) Retain(callCtx context.Context, jobID string, p int, n int, keep func(*messages.CompletedCheckpoint) bool) error {
	fail := func(err error) error {
		return fmt.Errorf("retain checkpoints of job %s pipeline %d: %w", jobID, p, err)
	}
	job, err := tokenNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	if n < 1 {
		return fail(fmt.Errorf("%w: keep %d checkpoints (at least the latest must stay)", storage.ErrInvalid, n))
	}
	ctx, cancel := s.op(callCtx)
	defer cancel()
	unlock, err := s.lock(ctx, job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()

	key := registerKey(job, p)
	var (
		oldest     int64
		dropped    map[int64]bool
		committed  []int64         // after the drop
		referenced map[string]bool // state objects kept checkpoints use
	)
	for {
		r, rev, err := s.readRegister(ctx, key)
		if err != nil {
			return fail(err)
		}
		if rev == 0 {
			return nil // nothing stored: do not create the pipeline
		}
		cps, bad, err := s.readIntact(ctx, jobID, job, p, r)
		if err != nil {
			return fail(err)
		}
		if len(cps) == 0 {
			return nil // nothing to measure "older" against
		}
		oldest = cps[len(cps)-1].Id
		committed = committed[:0]
		referenced = map[string]bool{}
		for i, c := range slices.Backward(cps) {
			if len(cps)-i > n && (keep == nil || !keep(c)) {
				continue
			}
			committed = append(committed, c.Id)
			oldest = min(oldest, c.Id)
			for _, t := range c.Tasks {
				if h, err := tokenNames.ParseHandle(t.GetHandle()); err == nil && h.Pipeline == p {
					referenced[stateObject(job, h)] = true
				}
			}
		}
		for _, b := range bad {
			if b.id >= oldest {
				committed = append(committed, b.id)
			}
		}
		slices.Sort(committed)
		dropped = map[int64]bool{}
		for _, id := range r.completed {
			if _, ok := slices.BinarySearch(committed, id); !ok {
				dropped[id] = true
			}
		}
		if len(dropped) == 0 {
			break
		}
		r.completed = committed
		_, err = s.kv.Update(ctx, key, r.encode(), rev)
		if err == nil {
			break
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) || ctx.Err() != nil {
			return fail(err)
		}
		// the register changed under us (another process): decide again
	}

	markers, err := s.listKeys(ctx, markersOf(job, p))
	if err != nil {
		return fail(err)
	}
	type victim struct {
		marker string
		rev    uint64
		object string
	}
	var metas, states []victim
	for k, rev := range markers {
		m, ok := parseMarker(p, strings.TrimPrefix(k, key+"."))
		switch {
		case !ok:
		case m.state:
			name := stateObject(job, m.h)
			if !referenced[name] && (dropped[m.h.ID] || m.h.ID < oldest) {
				states = append(states, victim{k, rev, name})
			}
		default:
			_, isCommitted := slices.BinarySearch(committed, m.completed)
			// One above the oldest kept and not committed may be a Complete
			// in flight.
			if !isCommitted && (dropped[m.completed] || m.completed < oldest) {
				metas = append(metas, victim{k, rev, completedObject(job, p, m.completed)})
			}
		}
	}
	for _, v := range append(metas, states...) {
		if err := s.deleteObject(ctx, v.object); err != nil {
			return fail(fmt.Errorf("delete %s: %w", v.object, err))
		}
		if err := s.deleteMarker(ctx, v.marker, v.rev); err != nil {
			return fail(fmt.Errorf("delete marker %s: %w", v.marker, err))
		}
	}
	return nil
}
