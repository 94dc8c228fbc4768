// Package localfile is the checkpoint storage backend for one machine
// (DESIGN §8): a directory tree under a root, stactor's being
// $STACTOR_HOME/checkpoints.
//
//	<root>/<job>/job.pb                                    the JobSpec
//	<root>/<job>/pipeline-<p>.completed                    highest completed checkpoint id (LastCompleted)
//	<root>/<job>/run.lock                                  flock'ed by the process running the job (LockJob)
//	<root>/<job>/pipeline-<p>/attempt                      last attempt handed out
//	<root>/<job>/pipeline-<p>/term                         highest leader term that started one
//	<root>/<job>/pipeline-<p>/ids                          checkpoint ids reserved up to
//	<root>/<job>/pipeline-<p>/lock                         flock'ed by the pipeline lock
//	<root>/<job>/pipeline-<p>/state/<id>/<attempt>-<name>.pb   state blobs
//	<root>/<job>/pipeline-<p>/completed/<id, 20 digits>.ckpt   completed checkpoints
//
// Job ids and state names are escaped into single path elements (see
// fileNames). Every file is a frame — magic, length, CRC-32C, payload — and
// is written to a temp file, fsynced and renamed into place; directories are
// fsynced where an entry must be durable before the call returns.
//
// Each pipeline has a lock (a mutex, plus flock on its lock file so another
// process on the same root is excluded too) that serializes the counters and
// the check-then-write of Complete and Retain. State writes do not take it:
// they go to distinct files, each atomically.
package localfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// Store is a storage.Storage on the local file system.
type Store struct {
	root    string
	idBlock int64

	mu    sync.Mutex // protects pipes (the map; each pipeline has its own lock)
	pipes map[pipeKey]*pipeline
}

var _ storage.Storage = (*Store)(nil)

type pipeKey struct {
	job      string // escaped
	pipeline int
}

// pipeline is the in-process side of one pipeline's lock and id block.
type pipeline struct {
	dir string

	// mu serializes, within this process, everything that reads and then
	// writes the pipeline's files: the attempt and ids counters, Complete's
	// fencing check and write, Retain's deletions. It guards the fields
	// below. While it is held, lock is flock'ed, excluding other processes.
	mu   sync.Mutex
	lock *os.File
	// nextID..lastID is the reserved block of checkpoint ids not yet handed
	// out; lastID is what the ids file holds. Empty when nextID > lastID.
	nextID, lastID int64
}

// Option configures a Store.
type Option func(*Store)

// WithIDBlock makes NextCheckpointID reserve n ids per write of the ids
// file (default 16): fewer fsyncs, bigger gaps after a restart.
func WithIDBlock(n int64) Option {
	return func(s *Store) {
		if n > 0 {
			s.idBlock = n
		}
	}
}

// New opens (creating it if needed) a store under root.
func New(root string, opts ...Option) (*Store, error) {
	if root == "" {
		return nil, fmt.Errorf("checkpoint storage: %w: empty root directory", storage.ErrInvalid)
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint storage %s: %w", root, err)
	}
	if err := mkdirSync(root); err != nil {
		return nil, fmt.Errorf("checkpoint storage: %w", err)
	}
	s := &Store{root: root, idBlock: 16, pipes: make(map[pipeKey]*pipeline)}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Root is the directory the store keeps everything under.
func (s *Store) Root() string { return s.root }

// Close releases the pipelines' lock files. A Store used after Close opens
// them again.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for k, p := range s.pipes {
		p.mu.Lock()
		if p.lock != nil {
			errs = append(errs, p.lock.Close())
			p.lock = nil
		}
		p.mu.Unlock()
		delete(s.pipes, k)
	}
	return errors.Join(errs...)
}

func (s *Store) jobDir(job string) string { return filepath.Join(s.root, job) }

// lockPipeline takes the pipeline's lock (creating its directory) and
// returns it with the function that releases it.
func (s *Store) lockPipeline(job string, p int) (*pipeline, func(), error) {
	s.mu.Lock()
	k := pipeKey{job, p}
	pl := s.pipes[k]
	if pl == nil {
		pl = &pipeline{dir: filepath.Join(s.jobDir(job), names.Pipeline(p)), nextID: 1}
		s.pipes[k] = pl
	}
	s.mu.Unlock()

	pl.mu.Lock()
	if pl.lock == nil {
		if err := mkdirSync(pl.dir); err != nil {
			pl.mu.Unlock()
			return nil, nil, err
		}
		f, err := os.OpenFile(filepath.Join(pl.dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			pl.mu.Unlock()
			return nil, nil, err
		}
		pl.lock = f
	}
	if err := flock(pl.lock); err != nil {
		pl.mu.Unlock()
		return nil, nil, fmt.Errorf("lock %s: %w", pl.dir, err)
	}
	return pl, func() {
		funlock(pl.lock) // closing the file would drop it too
		pl.mu.Unlock()
	}, nil
}

// SaveJob implements storage.Storage.
func (s *Store) SaveJob(spec *messages.JobSpec) error {
	if spec == nil {
		return fmt.Errorf("save job: %w: nil spec", storage.ErrInvalid)
	}
	job, err := fileNames.EscapeJob(spec.JobId)
	if err != nil {
		return fmt.Errorf("save job: %w", err)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(spec)
	if err != nil {
		return fmt.Errorf("save job %s: %w", spec.JobId, err)
	}
	dir := s.jobDir(job)
	if err := mkdirSync(dir); err != nil {
		return fmt.Errorf("save job %s: %w", spec.JobId, err)
	}
	if err := writeAtomic(dir, "job.pb", frameHeader(b), b); err != nil {
		return fmt.Errorf("save job %s: %w", spec.JobId, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("save job %s: %w", spec.JobId, err)
	}
	return nil
}

// LoadJob implements storage.Storage.
func (s *Store) LoadJob(jobID string) (*messages.JobSpec, error) {
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return nil, fmt.Errorf("load job: %w", err)
	}
	path := filepath.Join(s.jobDir(job), "job.pb")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("job %s: %w", jobID, storage.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load job %s: %w", jobID, err)
	}
	payload, err := decodeFrame(b)
	if err != nil {
		return nil, fmt.Errorf("job %s: %s: %w", jobID, path, err)
	}
	spec := &messages.JobSpec{}
	if err := proto.Unmarshal(payload, spec); err != nil {
		return nil, fmt.Errorf("job %s: %s: %w", jobID, path, corrupt("undecodable: %v", err))
	}
	if spec.JobId != jobID {
		return nil, fmt.Errorf("job %s: %s: %w", jobID, path, corrupt("it holds job %q", spec.JobId))
	}
	return spec, nil
}

// Jobs implements storage.Storage.
func (s *Store) Jobs() ([]string, error) {
	ents, err := os.ReadDir(s.root)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var jobs []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if job, ok := fileNames.Unescape(e.Name()); ok {
			jobs = append(jobs, job)
		}
	}
	sort.Strings(jobs)
	return jobs, nil
}
