package localfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrJobRunning is returned by LockJob when another process runs the job.
var ErrJobRunning = errors.New("the job is running in another process")

// LockJob takes the job's run lock, <root>/<job>/run.lock, flock'ed for as
// long as this process runs the job: `stactor run` holds it, so a second
// run with the same --job-id, a --restore of a job that still runs and
// two concurrent restores are refused at once instead of racing for the
// job's checkpoints. The kernel drops it when the holder dies (SIGKILL
// included), so a crash never leaves a job locked. The lock file records
// the holder's pid, for the error. unlock releases it.
func (s *Store) LockJob(jobID string) (unlock func(), err error) {
	job, err := fileNames.EscapeJob(jobID)
	if err != nil {
		return nil, fmt.Errorf("lock job %s: %w", jobID, err)
	}
	dir := s.jobDir(job)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock job %s: %w", jobID, err)
	}
	path := filepath.Join(dir, "run.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock job %s: %w", jobID, err)
	}
	ok, err := tryFlock(f)
	if err != nil || !ok {
		holder, _ := os.ReadFile(path)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("lock job %s: %w", jobID, err)
		}
		who := ""
		if pid := strings.TrimSpace(string(holder)); pid != "" {
			who = " (pid " + pid + ")"
		}
		return nil, fmt.Errorf("job %s: %w%s", jobID, ErrJobRunning, who)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		funlock(f)
		f.Close()
	}, nil
}
