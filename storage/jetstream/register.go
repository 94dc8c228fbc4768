package jetstream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// A register is everything about a pipeline that must change atomically:
// the counters fencing rests on and the set of committed checkpoints. It is
// one KV value (key "<job>.pipeline-<p>"), and every change to it is a
// compare-and-set on the revision it was read at (kv.Create for the first,
// kv.Update after), so changes from any number of processes are applied one
// at a time, in the order of the bucket's stream: NextAttempt, the commit
// step of Complete and Retain's removal are linearizable, and a Complete
// whose attempt was fenced between its read and its write fails its
// compare-and-set, reads again and sees the fence.
//
// Encoded in a frame (frame.go) as varints: version 2, attempt,
// ckptAttempt, id, term, len(completed), then completed as ascending
// deltas — about two bytes per kept checkpoint. Version 1 had no term.
type register struct {
	attempt     int64   // last attempt NextAttempt handed out; -1 before the first
	term        uint64  // highest leader term that started an attempt
	ckptAttempt int64   // highest attempt of a committed checkpoint; -1 before the first
	id          int64   // highest checkpoint id handed out, committed or written under
	completed   []int64 // the committed checkpoints (their metadata counts), ascending
}

func newRegister() *register { return &register{attempt: -1, ckptAttempt: -1} }

const registerVersion = 2

func (r *register) encode() []byte {
	b := []byte{registerVersion}
	b = binary.AppendVarint(b, r.attempt)
	b = binary.AppendVarint(b, r.ckptAttempt)
	b = binary.AppendUvarint(b, uint64(r.id))
	b = binary.AppendUvarint(b, r.term)
	b = binary.AppendUvarint(b, uint64(len(r.completed)))
	var prev int64
	for _, id := range r.completed {
		b = binary.AppendUvarint(b, uint64(id-prev))
		prev = id
	}
	return frame(b)
}

func decodeRegister(v []byte) (*register, error) {
	b, err := unframe(v)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || (b[0] != 1 && b[0] != registerVersion) {
		return nil, corrupt("unknown register version")
	}
	version := b[0]
	b = b[1:]
	bad := corrupt("undecodable register")
	varint := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			err = bad
			return 0
		}
		b = b[n:]
		return v
	}
	uvarint := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			err = bad
			return 0
		}
		b = b[n:]
		return v
	}
	r := &register{attempt: varint(), ckptAttempt: varint(), id: int64(uvarint())}
	if version >= 2 {
		r.term = uvarint()
	}
	n := uvarint()
	if err != nil || n > uint64(len(b)) || r.attempt < -1 || r.ckptAttempt < -1 || r.id < 0 {
		return nil, bad
	}
	var prev int64
	for i := uint64(0); i < n; i++ {
		d := uvarint()
		id := prev + int64(d)
		if err != nil || (i > 0 && d == 0) || id < prev {
			return nil, bad
		}
		r.completed = append(r.completed, id)
		prev = id
	}
	if len(b) != 0 {
		return nil, bad
	}
	return r, nil
}

// fenceWrite is WriteState's fence: a replaced attempt may not write.
func (r *register) fenceWrite(attempt int) error {
	if int64(attempt) < r.attempt {
		return fmt.Errorf("%w (attempt %d)", storage.ErrFenced, r.attempt)
	}
	return nil
}

// fenceComplete is Complete's: neither a replaced attempt nor one older
// than a committed checkpoint may complete.
func (r *register) fenceComplete(attempt int32) error {
	if err := r.fenceWrite(int(attempt)); err != nil {
		return err
	}
	if int64(attempt) < r.ckptAttempt {
		return fmt.Errorf("%w: a checkpoint of attempt %d is stored", storage.ErrFenced, r.ckptAttempt)
	}
	return nil
}

func (r *register) has(id int64) bool {
	_, ok := slices.BinarySearch(r.completed, id)
	return ok
}

func (r *register) addCompleted(id int64) {
	if i, ok := slices.BinarySearch(r.completed, id); !ok {
		r.completed = slices.Insert(r.completed, i, id)
	}
}

// readRegister returns the pipeline's register and its revision; a new
// register and revision 0 when there is none. A register that does not
// decode is an error wrapping ErrCorrupt: guessing could repeat an attempt
// or an id, so an operator has to look.
func (s *Store) readRegister(ctx context.Context, key string) (*register, uint64, error) {
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return newRegister(), 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	r, err := decodeRegister(e.Value())
	if err != nil {
		return nil, 0, fmt.Errorf("register %s: %w", key, err)
	}
	return r, e.Revision(), nil
}

// errUnchanged, from an update's fn, says the register needs no write
// (though one is created if it does not exist yet).
var errUnchanged = errors.New("unchanged")

// update changes the register with fn and stores the result by
// compare-and-set on the revision it read; when another writer got in
// between it reads again and calls fn again. An error from fn aborts (and
// is returned as it is); so does ctx. It returns the register as last read
// and changed.
func (s *Store) update(ctx context.Context, key string, fn func(*register) error) (*register, error) {
	for {
		r, rev, err := s.readRegister(ctx, key)
		if err != nil {
			return nil, err
		}
		if err := fn(r); errors.Is(err, errUnchanged) {
			if rev != 0 {
				return r, nil
			}
		} else if err != nil {
			return r, err
		}
		if rev == 0 {
			_, err = s.kv.Create(ctx, key, r.encode())
		} else {
			_, err = s.kv.Update(ctx, key, r.encode(), rev)
		}
		switch {
		case err == nil:
			return r, nil
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// lost the race: read the winner's value and decide again
		default:
			return nil, unacknowledged(err)
		}
	}
}

// NextAttempt implements storage.Storage. The new attempt is also above
// every attempt a committed checkpoint carries.
func (s *Store) NextAttempt(jobID string, p int, term uint64) (int, error) {
	fail := func(err error) (int, error) {
		return 0, fmt.Errorf("next attempt of job %s pipeline %d: %w", jobID, p, err)
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
	unlock, err := s.lock(ctx, job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	r, err := s.update(ctx, registerKey(job, p), func(r *register) error {
		if term < r.term {
			return fmt.Errorf("%w: term %d started an attempt, this leader's term is %d", storage.ErrFenced, r.term, term)
		}
		r.term = term
		next := max(r.attempt, r.ckptAttempt) + 1
		if next > names.MaxInt32 {
			return fmt.Errorf("%w: attempts exhausted", storage.ErrInvalid)
		}
		r.attempt = next
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return int(r.attempt), nil
}

// NextCheckpointID implements storage.Storage. Every id is its own
// compare-and-set of the register, so ids are unique and increasing across
// every process, and never skip: checkpoints come seconds apart, a round
// trip to JetStream is well under a millisecond.
func (s *Store) NextCheckpointID(callCtx context.Context, jobID string, p int) (int64, error) {
	fail := func(err error) (int64, error) {
		return 0, fmt.Errorf("next checkpoint id of job %s pipeline %d: %w", jobID, p, err)
	}
	job, err := tokenNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	ctx, cancel := s.op(callCtx)
	defer cancel()
	unlock, err := s.lock(ctx, job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	r, err := s.update(ctx, registerKey(job, p), func(r *register) error {
		if r.id+1 < r.id {
			return fmt.Errorf("%w: checkpoint ids exhausted", storage.ErrInvalid)
		}
		r.id++
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return r.id, nil
}
