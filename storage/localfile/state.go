package localfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// stateDir is where checkpoint id's blobs of a pipeline live.
func stateDir(pipelineDir string, id int64) string {
	return filepath.Join(pipelineDir, "state", strconv.FormatInt(id, 10))
}

// WriteState implements storage.Storage. It takes no pipeline lock, so the
// subtasks of a pipeline write in parallel; the blob's directory entry is
// fsynced by Complete, once for all of a checkpoint's blobs.
func (s *Store) WriteState(jobID string, p, attempt int, id int64, name string, data []byte) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("write state %q of job %s pipeline %d checkpoint %d attempt %d: %w", name, jobID, p, id, attempt, err)
	}
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	if attempt < 0 || attempt > names.MaxInt32 || id < 0 {
		return fail(fmt.Errorf("%w: negative attempt or checkpoint id", storage.ErrInvalid))
	}
	esc, err := fileNames.Escape(name)
	if err != nil {
		return fail(fmt.Errorf("state name: %w", err))
	}
	h := names.Handle{Pipeline: p, ID: id, Attempt: attempt, Name: esc}
	pdir := filepath.Join(s.jobDir(job), names.Pipeline(p))
	latest, err := latestAttempt(pdir)
	if err != nil {
		return fail(err)
	}
	if int64(attempt) < latest {
		return fail(fmt.Errorf("%w (attempt %d)", storage.ErrFenced, latest))
	}
	dir := stateDir(pdir, id)
	if err := mkdirSync(dir); err != nil {
		return fail(err)
	}
	if err := writeAtomic(dir, stateFile(h), frameHeader(data), data); err != nil {
		return fail(err)
	}
	return formatHandle(h), nil
}

// ReadState implements storage.Storage.
func (s *Store) ReadState(jobID string, hs string) ([]byte, error) {
	fail := func(err error) ([]byte, error) {
		return nil, fmt.Errorf("read state %s of job %s: %w", hs, jobID, err)
	}
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	h, err := parseHandle(hs)
	if err != nil {
		return fail(err)
	}
	b, err := os.ReadFile(s.statePath(job, h))
	if errors.Is(err, fs.ErrNotExist) {
		return fail(storage.ErrNotFound)
	}
	if err != nil {
		return fail(err)
	}
	data, err := decodeFrame(b)
	if err != nil {
		return fail(err)
	}
	return data, nil
}

func (s *Store) statePath(job string, h names.Handle) string {
	return filepath.Join(stateDir(filepath.Join(s.jobDir(job), names.Pipeline(h.Pipeline)), h.ID), stateFile(h))
}
