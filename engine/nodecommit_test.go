//go:build !race

// Two nodes in one process (see cluster_test.go for why not under -race).

package engine_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/localfile"
	"github.com/stactor/stactor/row"
	"github.com/stactor/stactor/state"
)

// EngineTestNodeFile is the LocalFile sink whose committer refuses, as a
// permanent error, an info whose files are not under its own path: nodes
// that share a process share a disk, and this is how a commit on the wrong
// node shows.
func init() {
	connectors.RegisterSink(connectors.SinkFactory{
		Name:    "EngineTestNodeFile",
		Options: localfile.SinkFactory.Options,
		Create: func(cfg *config.PluginConfig, in []*row.Schema, job connectors.JobContext) (connectors.Sink, error) {
			s, err := localfile.SinkFactory.Create(cfg, in, job)
			if err != nil {
				return nil, err
			}
			return &nodeFileSink{s.(connectors.WriterNodeCommitter), filepath.Clean(cfg.String("path"))}, nil
		},
	})
}

type nodeFileSink struct {
	connectors.WriterNodeCommitter
	root string
}

func (s *nodeFileSink) CreateCommitter() (connectors.Committer, error) {
	c, err := s.WriterNodeCommitter.CreateCommitter()
	if err != nil {
		return nil, err
	}
	return &nodeFileCommitter{c, s.root}, nil
}

type nodeFileCommitter struct {
	connectors.Committer
	root string
}

func (c *nodeFileCommitter) Commit(ctx connectors.CommitContext, infos [][]byte) error {
	for _, raw := range infos {
		var info struct {
			Files []struct {
				From string `json:"from"`
			} `json:"files"`
		}
		if err := json.Unmarshal(raw, &info); err != nil {
			return err
		}
		for _, f := range info.Files {
			if !strings.HasPrefix(f.From, c.root+string(filepath.Separator)) {
				return connectors.Permanent(fmt.Errorf("committing %s on the node whose folder is %s", f.From, c.root))
			}
		}
	}
	return c.Committer.Commit(ctx, infos)
}

func (c *nodeFileCommitter) AbortStale(ctx connectors.CommitContext) error {
	return c.Committer.(connectors.StaleAborter).AbortStale(ctx)
}

// Each node's LocalFile sink writes to its own folder (the job's path is a
// variable each node resolves for itself, as its own environment would on
// a machine of its own). A subtask fails once mid-way, so the pipeline is
// restored. Every file must be committed by the node that staged it, stale
// staging of the failed attempt must be cleaned on both nodes, and the
// committed files together hold every row once.
func TestTwoNodesLocalFileCommitsOnWriterNode(t *testing.T) {
	const job, dirVar = "node-commit", "STACTOR_TEST_NODE_DIR"
	dirA, dirB := t.TempDir(), t.TempDir()
	t.Setenv(dirVar, dirA) // the master plans the job on node A
	// Staging an earlier attempt left on each node: a restore aborts it.
	var stale []string
	for _, d := range []string{dirA, dirB} {
		p := filepath.Join(d, ".stactor-staging", job, "1", "0-t0", "9", "1", "stale.csv")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("999999,stale\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		stale = append(stale, p)
	}

	a := clusterConfig(t, startNATS(t))
	b := a
	a.NodeVars = map[string]string{dirVar: dirA}
	b.NodeVars = map[string]string{dirVar: dirB}
	// One slot each: the two subtasks of the fused source→sink chain run
	// one on each node, in every attempt.
	master, _ := startTwoNodes(t, a, b, 1)

	submit(t, master, job, fmt.Sprintf(`
env { checkpoint.interval = 40, job.retry.times = 2, job.retry.interval.seconds = 0, read_limit.rows_per_second = 3000 }
source { EngineTestSource { rows = 1000, parallelism = 2, fail_at = 600, fail_once = "%s-%d" } }
sink { EngineTestNodeFile { path = "${%s}", file_format_type = "csv", batch_size = 50, parallelism = 2 } }`, job, time.Now().UnixNano(), dirVar))
	st := wait(t, master, job)
	if st.State != state.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if st.Pipelines[0].Attempt < 1 {
		t.Fatal("the pipeline was not restored")
	}
	var ids []int64
	for _, d := range []string{dirA, dirB} {
		got, staged := committedIDs(t, d)
		if len(got) == 0 {
			t.Fatalf("nothing committed in %s: the node did not write", d)
		}
		if len(staged) > 0 {
			t.Fatalf("staging left in %s: %v", d, staged)
		}
		ids = append(ids, got...)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("stale staging %s was not aborted", p)
		}
	}
	checkExactlyOnce(t, "committed", ids, 2000)
}

// committedIDs reads the ids of the csv files committed under dir, and
// lists the staged files left.
func committedIDs(t *testing.T, dir string) (ids []int64, staged []string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.Contains(p, ".stactor-staging") {
			staged = append(staged, p)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if line == "" {
				continue
			}
			id, err := strconv.ParseInt(strings.SplitN(line, ",", 2)[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%s: %q: %w", p, line, err)
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, staged
}
