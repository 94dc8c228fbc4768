package localfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/stactor/stactor/connectors"
)

// committer commits the infos of the writers of its node (the engine runs
// it there: the sink is a connectors.WriterNodeCommitter): it renames
// staged files to their final names. Every step can be repeated: a file
// already moved (staged file gone, final file there) counts as done, so a
// commit that crashed half way completes the rest when run again.
type committer struct {
	root string
}

var _ connectors.Committer = (*committer)(nil)

// Commit moves each info's files into place, fsyncs their folders and
// removes the emptied staging folders.
func (c *committer) Commit(_ context.Context, ctx connectors.CommitContext, infos [][]byte) error {
	for _, raw := range infos {
		info, err := decodeCommitInfo(raw)
		if err != nil {
			return err
		}
		dirs := map[string]bool{}
		for _, m := range info.Files {
			if err := commitFile(m, ctx.WriterGone); err != nil {
				return fmt.Errorf("LocalFile commit of %s (checkpoint %d): %w", info.Txn, info.Checkpoint, err)
			}
			dirs[filepath.Dir(m.To)] = true
		}
		if err := syncDirs(dirs); err != nil {
			return fmt.Errorf("LocalFile commit of %s: %w", info.Txn, err)
		}
		removeEmptyDirs(info.Staging, stagingRootOf(info.Staging))
	}
	return nil
}

// commitFile renames from to to, or finds it already done. A staged file
// that is gone was committed before, as SeaTunnel's file committers take
// it ("already finished in the last commit, skip"): the committed file may
// have been moved on since by whoever reads the output — unless the node
// that staged it left the cluster (writerGone), where it is missing
// because this node's disk is not the writer's: the job fails, saying so,
// instead of waiting forever or passing over lost rows.
func commitFile(m fileMove, writerGone bool) error {
	from, to := m.From, m.To
	if _, err := os.Lstat(from); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if _, err := os.Lstat(to); err == nil || !writerGone {
			return nil // committed before
		}
		return connectors.Permanent(fmt.Errorf("the node that staged %s left the cluster and the file is not on this node's filesystem (LocalFile needs a shared filesystem to commit a departed node's files); its rows are lost", from))
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if m.Write {
		return writeAt(from, to, m.At)
	}
	return os.Rename(from, to)
}

// Abort deletes the staged files of infos that will never be committed;
// final files are never touched.
func (c *committer) Abort(_ context.Context, ctx connectors.CommitContext, infos [][]byte) error {
	var err error
	for _, raw := range infos {
		info, derr := decodeCommitInfo(raw)
		if derr != nil {
			err = errors.Join(err, derr)
			continue
		}
		err = errors.Join(err, abortInfo(info))
	}
	return err
}

func abortInfo(info *commitInfo) error {
	var err error
	for _, m := range info.Files {
		if rerr := os.Remove(m.From); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	if info.Staging != "" {
		removeEmptyDirs(info.Staging, stagingRootOf(info.Staging))
	}
	return err
}

// AbortStale deletes what earlier attempts of this job's pipeline staged
// on this node and never committed (run on restore, on every node, after
// the restored checkpoint's infos were committed). The current attempt's
// staging, a newer attempt's (this committer may be a leftover of a
// replaced leader) and other jobs' and pipelines' are left alone.
func (c *committer) AbortStale(_ context.Context, ctx connectors.CommitContext) error {
	dir := pipelineStaging(c.root, ctx.JobID, ctx.Pipeline)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("LocalFile abort of stale staging: %w", err)
	}
	for _, e := range entries {
		a, ok := stagedAttempt(e.Name())
		if !ok || !e.IsDir() || a >= ctx.Attempt {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("LocalFile abort of stale staging: %w", err)
		}
	}
	removeEmptyDirs(dir, filepath.Join(c.root, stagingDir))
	return nil
}

// syncDirs fsyncs the folders, in name order.
func syncDirs(dirs map[string]bool) error {
	keys := make([]string, 0, len(dirs))
	for d := range dirs {
		keys = append(keys, d)
	}
	sort.Strings(keys)
	for _, d := range keys {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// syncDir fsyncs a folder, making the entries renamed into it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// removeEmptyDirs removes dir's empty folders, then dir and its parents up
// to and including stop while they are empty. A folder that is not empty
// (another writer staging) stays.
func removeEmptyDirs(dir, stop string) {
	var walk func(string)
	walk = func(d string) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.IsDir() {
				walk(filepath.Join(d, e.Name()))
			}
		}
		os.Remove(d)
	}
	walk(dir)
	for d := filepath.Dir(dir); len(d) >= len(stop) && d != filepath.Dir(d); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			return
		}
		if d == stop {
			return
		}
	}
}

// stagingRootOf is the .stactor-staging folder above a staging folder.
func stagingRootOf(dir string) string {
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == stagingDir {
			return d
		}
	}
	return dir
}
