package localfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// completed is a completed checkpoint that read back intact.
type completed struct {
	id int64
	cp *messages.CompletedCheckpoint
}

// broken is a completed checkpoint file that did not.
type broken struct {
	id     int64
	reason string
}

func completedDir(pipelineDir string) string { return filepath.Join(pipelineDir, "completed") }

// listIDs returns, ascending, the ids parse finds among dir's entry names;
// none when dir does not exist.
func listIDs(dir string, parse func(string) (int64, bool)) ([]int64, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, e := range ents {
		if id, ok := parse(e.Name()); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// errGone: a checkpoint file was listed but removed (by Retain) before it
// was read.
var errGone = errors.New("gone")

// readOne reads completed checkpoint id of (job, p). A file that decodes
// but names another checkpoint is corrupt too (it was copied or renamed).
func readOne(pdir, jobID string, p int, id int64) (*messages.CompletedCheckpoint, error) {
	b, err := os.ReadFile(filepath.Join(completedDir(pdir), completedName(id)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errGone
	}
	if err != nil {
		return nil, err
	}
	payload, err := decodeFrame(b)
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

// readCompleted reads all of a pipeline's completed checkpoints, ascending.
func readCompleted(pdir, jobID string, p int) ([]completed, []broken, error) {
	ids, err := listIDs(completedDir(pdir), parseCompletedName)
	if err != nil {
		return nil, nil, err
	}
	var ok []completed
	var bad []broken
	for _, id := range ids {
		cp, err := readOne(pdir, jobID, p, id)
		var ce *corruptError
		switch {
		case err == nil:
			ok = append(ok, completed{id, cp})
		case errors.As(err, &ce):
			bad = append(bad, broken{id, ce.reason})
		case errors.Is(err, errGone):
		default:
			return nil, nil, err
		}
	}
	return ok, bad, nil
}

func checkCheckpoint(cp *messages.CompletedCheckpoint) (job string, err error) {
	if cp == nil {
		return "", fmt.Errorf("%w: nil checkpoint", storage.ErrInvalid)
	}
	if job, err = fileNames.EscapeJob(cp.JobId); err != nil {
		return "", err
	}
	if cp.Pipeline < 0 || cp.Id < 0 || cp.Attempt < 0 {
		return "", fmt.Errorf("%w: negative pipeline, id or attempt", storage.ErrInvalid)
	}
	return job, nil
}

// Complete implements storage.Storage. Under the pipeline lock, so that a
// NextAttempt either precedes it (and fences it) or waits for it. ctx is
// looked at once the lock is held and again just before the metadata's
// rename, the commit point: a call that gave up there wrote nothing that
// counts. A file system call in progress is not interrupted.
func (s *Store) Complete(ctx context.Context, cp *messages.CompletedCheckpoint) error {
	job, err := checkCheckpoint(cp)
	if err != nil {
		return fmt.Errorf("complete checkpoint: %w", err)
	}
	p := int(cp.Pipeline)
	fail := func(err error) error {
		return fmt.Errorf("complete checkpoint %d of job %s pipeline %d attempt %d: %w", cp.Id, cp.JobId, p, cp.Attempt, err)
	}
	pl, unlock, err := s.lockPipeline(job, p)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return fail(err)
	}

	latest, err := latestAttempt(pl.dir)
	if err != nil {
		return fail(err)
	}
	if int64(cp.Attempt) < latest {
		return fail(fmt.Errorf("%w (attempt %d)", storage.ErrFenced, latest))
	}
	cps, _, err := readCompleted(pl.dir, cp.JobId, p)
	if err != nil {
		return fail(err)
	}
	for _, c := range cps {
		if c.cp.Attempt > cp.Attempt {
			return fail(fmt.Errorf("%w: checkpoint %d of attempt %d is stored", storage.ErrFenced, c.id, c.cp.Attempt))
		}
	}

	// The states must be there and their entries durable before the
	// checkpoint that points at them is.
	dirs := map[string]bool{}
	for _, t := range cp.Tasks {
		if t.GetHandle() == "" {
			continue
		}
		h, err := parseHandle(t.Handle)
		if err != nil {
			return fail(err)
		}
		if h.Pipeline != p {
			return fail(fmt.Errorf("%w: state %s belongs to another pipeline", storage.ErrInvalid, t.Handle))
		}
		path := s.statePath(job, h)
		if _, err := os.Stat(path); err != nil {
			return fail(fmt.Errorf("state %s of chain %d subtask %d: %w", t.Handle, t.Chain, t.Subtask, err))
		}
		dirs[filepath.Dir(path)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return fail(err)
		}
	}
	if len(dirs) > 0 {
		if err := syncDir(filepath.Join(pl.dir, "state")); err != nil {
			return fail(err)
		}
	}

	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(cp)
	if err != nil {
		return fail(err)
	}
	cdir := completedDir(pl.dir)
	if err := mkdirSync(cdir); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := writeAtomic(cdir, completedName(cp.Id), frameHeader(b), b); err != nil {
		return fail(err)
	}
	if err := syncDir(cdir); err != nil {
		return fail(err)
	}
	// The high-water mark lives beside job.pb, outside the pipeline's
	// directory, so that losing the checkpoints does not lose it.
	if hi, ok, err := readCounter(s.jobDir(job), lastCompletedFile(p)); err != nil {
		return fail(err)
	} else if !ok || cp.Id > hi {
		if err := writeCounter(s.jobDir(job), lastCompletedFile(p), cp.Id); err != nil {
			return fail(err)
		}
	}
	// A caller may complete an id it did not get from NextCheckpointID;
	// later ids still go above it.
	if cp.Id >= pl.nextID {
		pl.nextID = cp.Id + 1
	}
	return nil
}

// Latest implements storage.Storage. It reads newest first and stops at the
// first intact checkpoint; it takes no lock (files are replaced whole, and
// Retain never removes the newest intact one).
func (s *Store) Latest(jobID string, p int) (*messages.CompletedCheckpoint, []string, error) {
	fail := func(err error) (*messages.CompletedCheckpoint, []string, error) {
		return nil, nil, fmt.Errorf("latest checkpoint of job %s pipeline %d: %w", jobID, p, err)
	}
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	if err := names.CheckPipeline(p); err != nil {
		return fail(err)
	}
	pdir := filepath.Join(s.jobDir(job), names.Pipeline(p))
	ids, err := listIDs(completedDir(pdir), parseCompletedName)
	if err != nil {
		return fail(err)
	}
	var bad []broken
	warn := func(using string) []string {
		var ws []string
		for _, b := range bad {
			ws = append(ws, fmt.Sprintf("checkpoint %d of job %s pipeline %d is corrupt (%s); %s", b.id, jobID, p, b.reason, using))
		}
		return ws
	}
	for i := len(ids) - 1; i >= 0; i-- {
		cp, err := readOne(pdir, jobID, p, ids[i])
		var ce *corruptError
		switch {
		case err == nil:
			return cp, warn(fmt.Sprintf("using checkpoint %d", cp.Id)), nil
		case errors.As(err, &ce):
			bad = append(bad, broken{ids[i], ce.reason})
		case errors.Is(err, errGone):
		default:
			return fail(err)
		}
	}
	return nil, warn("no intact checkpoint is left"), nil
}

// lastCompletedFile holds, in the job's directory, the pipeline's highest
// completed checkpoint id.
func lastCompletedFile(p int) string { return names.Pipeline(p) + ".completed" }

// LastCompleted implements storage.Storage.
func (s *Store) LastCompleted(jobID string, p int) (int64, error) {
	job, err := fileNames.EscapeJob(jobID)
	if err == nil {
		err = names.CheckPipeline(p)
	}
	if err != nil {
		return 0, fmt.Errorf("last completed checkpoint of job %s pipeline %d: %w", jobID, p, err)
	}
	hi, ok, err := readCounter(s.jobDir(job), lastCompletedFile(p))
	if err != nil {
		return 0, fmt.Errorf("last completed checkpoint of job %s pipeline %d: %w", jobID, p, err)
	}
	if !ok {
		return -1, nil
	}
	return hi, nil
}

// List implements storage.Storage. Each pipeline's checkpoints come in id
// order; across pipelines they are merged by completion time.
func (s *Store) List(jobID string) ([]*messages.CompletedCheckpoint, error) {
	fail := func(err error) ([]*messages.CompletedCheckpoint, error) {
		return nil, fmt.Errorf("list checkpoints of job %s: %w", jobID, err)
	}
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return fail(err)
	}
	ents, err := os.ReadDir(s.jobDir(job))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return fail(err)
	}
	var per [][]completed
	for _, e := range ents {
		p, ok := names.ParsePipeline(e.Name())
		if !ok || !e.IsDir() {
			continue
		}
		cps, _, err := readCompleted(filepath.Join(s.jobDir(job), e.Name()), jobID, p)
		if err != nil {
			return fail(err)
		}
		if len(cps) > 0 {
			per = append(per, cps)
		}
	}
	slices.SortFunc(per, func(a, b []completed) int { return int(a[0].cp.Pipeline - b[0].cp.Pipeline) })
	var out []*messages.CompletedCheckpoint
	for {
		best := -1
		for i, cps := range per {
			if len(cps) > 0 && (best < 0 || cps[0].cp.CompleteUnixMs < per[best][0].cp.CompleteUnixMs) {
				best = i
			}
		}
		if best < 0 {
			return out, nil
		}
		out = append(out, per[best][0].cp)
		per[best] = per[best][1:]
	}
}
