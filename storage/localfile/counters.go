package localfile

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// The counter files, in the pipeline directory, each hold one framed
// big-endian int64.
const (
	attemptFile = "attempt" // the last attempt NextAttempt handed out
	termFile    = "term"    // the highest leader term that started an attempt
	idsFile     = "ids"     // the highest checkpoint id reserved
)

// readCounter returns the counter in dir/name; ok is false when the file is
// absent. A corrupt counter is an error: guessing could repeat an attempt or
// an id, so an operator has to look.
func readCounter(dir, name string) (v int64, ok bool, err error) {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	payload, err := decodeFrame(b)
	if err == nil && len(payload) != 8 {
		err = corrupt("%d-byte counter", len(payload))
	}
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", path, err)
	}
	return int64(binary.BigEndian.Uint64(payload)), true, nil
}

// writeCounter durably replaces the counter in dir/name.
func writeCounter(dir, name string, v int64) error {
	payload := binary.BigEndian.AppendUint64(nil, uint64(v))
	if err := writeAtomic(dir, name, frameHeader(payload), payload); err != nil {
		return err
	}
	return syncDir(dir)
}

// latestAttempt is the pipeline's latest persisted attempt, -1 before the
// first. WriteState reads it without the pipeline lock: the file is only
// ever replaced whole.
func latestAttempt(dir string) (int64, error) {
	v, ok, err := readCounter(dir, attemptFile)
	if err != nil || !ok {
		return -1, err
	}
	return v, nil
}

// NextAttempt implements storage.Storage. The new attempt is also above
// every attempt a stored checkpoint carries, should the attempt file have
// been lost.
func (s *Store) NextAttempt(jobID string, p int, term uint64) (int, error) {
	fail := func(err error) (int, error) {
		return 0, fmt.Errorf("next attempt of job %s pipeline %d: %w", jobID, p, err)
	}
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	pl, unlock, err := s.lockPipeline(job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	if term > math.MaxInt64 {
		return fail(fmt.Errorf("%w: term %d", storage.ErrInvalid, term))
	}
	seen, ok, err := readCounter(pl.dir, termFile)
	if err != nil {
		return fail(err)
	}
	if ok && int64(term) < seen {
		return fail(fmt.Errorf("%w: term %d started an attempt, this leader's term is %d", storage.ErrFenced, seen, term))
	}
	// The term is durable before the attempt: a crash between the two
	// leaves a fence a little early, never an attempt without its fence.
	if !ok || int64(term) > seen {
		if err := writeCounter(pl.dir, termFile, int64(term)); err != nil {
			return fail(err)
		}
	}
	last, err := latestAttempt(pl.dir)
	if err != nil {
		return fail(err)
	}
	cps, _, err := readCompleted(pl.dir, jobID, p)
	if err != nil {
		return fail(err)
	}
	for _, c := range cps {
		last = max(last, int64(c.cp.Attempt))
	}
	next := last + 1
	if next > names.MaxInt32 {
		return fail(fmt.Errorf("%w: attempts exhausted", storage.ErrInvalid))
	}
	if err := writeCounter(pl.dir, attemptFile, next); err != nil {
		return fail(err)
	}
	return int(next), nil
}

// NextCheckpointID implements storage.Storage. Ids come from a block
// reserved in the ids file; a new block starts above the ids file, every
// completed checkpoint and every state directory, so ids do not repeat even
// when another Store (a restarted process) has handed out ids meanwhile.
func (s *Store) NextCheckpointID(ctx context.Context, jobID string, p int) (int64, error) {
	fail := func(err error) (int64, error) {
		return 0, fmt.Errorf("next checkpoint id of job %s pipeline %d: %w", jobID, p, err)
	}
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	pl, unlock, err := s.lockPipeline(job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if pl.nextID > pl.lastID {
		if err := s.reserveIDs(pl); err != nil {
			return fail(err)
		}
	}
	id := pl.nextID
	pl.nextID++
	return id, nil
}

// reserveIDs persists a new block of ids; pl.mu is held.
func (s *Store) reserveIDs(pl *pipeline) error {
	base, _, err := readCounter(pl.dir, idsFile)
	if err != nil {
		return err
	}
	base = max(base, pl.nextID-1)
	ids, err := listIDs(filepath.Join(pl.dir, "completed"), parseCompletedName)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		base = max(base, ids[len(ids)-1])
	}
	ids, err = listIDs(filepath.Join(pl.dir, "state"), names.ParseCount)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		base = max(base, ids[len(ids)-1])
	}
	last := base + s.idBlock
	if last < base {
		return fmt.Errorf("%w: checkpoint ids exhausted", storage.ErrInvalid)
	}
	if err := writeCounter(pl.dir, idsFile, last); err != nil {
		return err
	}
	pl.nextID, pl.lastID = base+1, last
	return nil
}
