package localfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/stactor/stactor/connectors"
)

// Undoing commits (connectors.CommitUndoer). A committed file's name
// carries its transaction id, T_<job>_<pipeline>_<subtask>_<checkpoint>
// (file_name_expression must contain ${transactionId} with transactions),
// so the files a checkpoint committed are found by name under the sink's
// path and removed. Files of other jobs, other pipelines, checkpoints
// outside the range, staging and anything else are left alone. Without
// transactions files are written under their final names as rows arrive
// and the binary format writes into the source's file names: neither can
// be undone, and the sink says so.

var (
	_ connectors.CommitUndoer  = (*sink)(nil)
	_ connectors.CommitRemover = (*committer)(nil)
)

// UndoesCommits implements connectors.CommitUndoer.
func (s *sink) UndoesCommits() bool { return s.cfg.transactional && s.cfg.format != formatBinary }

// UndoCommits removes the files checkpoints from+1 .. to of the pipeline
// committed under the sink's path, fsyncing each folder it removed from.
func (c *committer) UndoCommits(ctx context.Context, cc connectors.CommitContext, from, to int64) error {
	txn := regexp.MustCompile(regexp.QuoteMeta("T_"+pathSafe(cc.JobID)+"_"+strconv.Itoa(cc.Pipeline)+"_") + `[0-9]+_([0-9]+)(?:[^0-9]|$)`)
	dirs := map[string]bool{}
	err := filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // nothing committed there (yet), or removed meanwhile
			}
			return err
		}
		if d.IsDir() {
			if d.Name() == stagingDir && filepath.Dir(p) == filepath.Clean(c.root) {
				return filepath.SkipDir
			}
			return ctx.Err()
		}
		m := txn.FindStringSubmatch(d.Name())
		if m == nil {
			return nil
		}
		id, perr := strconv.ParseInt(m[1], 10, 64)
		if perr != nil || id <= from || id > to {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		dirs[filepath.Dir(p)] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("LocalFile undoing the commits of checkpoints %d to %d: %w", from+1, to, err)
	}
	if err := syncDirs(dirs); err != nil {
		return fmt.Errorf("LocalFile undoing the commits of checkpoints %d to %d: %w", from+1, to, err)
	}
	return nil
}
