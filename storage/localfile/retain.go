package localfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// Retain implements storage.Storage.
//
// Corrupt checkpoint files are never kept, but one newer than the oldest
// kept checkpoint stays (with its states) for someone to look at until newer
// checkpoints push it out. Metadata goes before state, with the directory
// fsynced in between, so a crash never leaves a checkpoint whose state is
// gone; leftover state is removed by the next Retain. A blob that a kept
// checkpoint references stays even if its checkpoint goes (a finished
// subtask may answer later triggers with the handle of its final state).
func (s *Store) Retain(ctx context.Context, jobID string, p int, n int, keep func(*messages.CompletedCheckpoint) bool) error {
	fail := func(err error) error {
		return fmt.Errorf("retain checkpoints of job %s pipeline %d: %w", jobID, p, err)
	}
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	if n < 1 {
		return fail(fmt.Errorf("%w: keep %d checkpoints (at least the latest must stay)", storage.ErrInvalid, n))
	}
	if _, err := os.Stat(filepath.Join(s.jobDir(job), names.Pipeline(p))); errors.Is(err, fs.ErrNotExist) {
		return nil // nothing stored: do not create the pipeline just to lock it
	}
	pl, unlock, err := s.lockPipeline(job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return fail(err)
	}

	cdir := completedDir(pl.dir)
	for _, dir := range []string{pl.dir, cdir} {
		if err := removeTemps(dir); err != nil {
			return fail(err)
		}
	}
	cps, bad, err := readCompleted(pl.dir, jobID, p)
	if err != nil {
		return fail(err)
	}
	if len(cps) == 0 {
		return nil // nothing to measure "older" against
	}

	kept := map[int64]bool{}
	oldest := cps[len(cps)-1].id
	referenced := map[string]map[string]bool{} // state dir -> blob files kept checkpoints use
	for i := len(cps) - 1; i >= 0; i-- {
		c := cps[i]
		if len(cps)-i > n && (keep == nil || !keep(c.cp)) {
			continue
		}
		kept[c.id] = true
		oldest = min(oldest, c.id)
		for _, t := range c.cp.Tasks {
			h, err := parseHandle(t.GetHandle())
			if err != nil || h.Pipeline != p {
				continue
			}
			path := s.statePath(job, h)
			dir := filepath.Dir(path)
			if referenced[dir] == nil {
				referenced[dir] = map[string]bool{}
			}
			referenced[dir][filepath.Base(path)] = true
		}
	}

	completedIDs := map[int64]bool{}
	drop := map[int64]bool{}
	for _, c := range cps {
		completedIDs[c.id] = true
		if !kept[c.id] {
			drop[c.id] = true
		}
	}
	for _, b := range bad {
		completedIDs[b.id] = true
		if b.id < oldest {
			drop[b.id] = true
		}
	}
	for id := range drop {
		if err := os.Remove(filepath.Join(cdir, completedName(id))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(err)
		}
	}
	if len(drop) > 0 {
		if err := syncDir(cdir); err != nil {
			return fail(err)
		}
	}

	stateIDs, err := listIDs(filepath.Join(pl.dir, "state"), names.ParseCount)
	if err != nil {
		return fail(err)
	}
	for _, id := range stateIDs {
		if !drop[id] && (completedIDs[id] || id >= oldest) {
			continue
		}
		if err := removeState(stateDir(pl.dir, id), referenced); err != nil {
			return fail(err)
		}
	}
	return nil
}

// removeState removes a checkpoint's state directory, or, if kept
// checkpoints reference blobs in it, every other blob. Removals need no
// fsync: a blob that comes back after a crash is only removed again.
func removeState(dir string, referenced map[string]map[string]bool) error {
	keepFiles := referenced[dir]
	if len(keepFiles) == 0 {
		return os.RemoveAll(dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !keepFiles[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
