//go:build !race

// Two nodes in one process (see cluster_test.go for why not under -race).

package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/localfile"
	"github.com/stactor/stactor/row"
	"github.com/stactor/stactor/state"
)

// EngineTestNodeFile is the LocalFile sink with a folder per node: nodes
// that share a process share a disk, so each writer writes, and each
// commit commits, under nodeDirs[node] (the path option is ignored), and a
// committer refuses, as a permanent error, an info whose files are not
// under its own node's folder: that is how a commit on the wrong node
// shows. A job's configuration is the same on every node (DESIGN §2); the
// folder comes from the node the connector is told it runs on.
var nodeDirs sync.Map // node id -> folder

func init() {
	connectors.RegisterSink(connectors.SinkFactory{
		Name:    "EngineTestNodeFile",
		Options: localfile.SinkFactory.Options,
		Create: func(cfg *config.PluginConfig, in []*row.Schema, res []byte, job connectors.JobContext) (connectors.Sink, error) {
			s, err := localfile.SinkFactory.Create(cfg, in, res, job)
			if err != nil {
				return nil, err
			}
			return &nodeFileSink{WriterNodeCommitter: s.(connectors.WriterNodeCommitter), cfg: cfg, in: in, res: res, job: job}, nil
		},
	})
}

type nodeFileSink struct {
	connectors.WriterNodeCommitter
	cfg *config.PluginConfig
	in  []*row.Schema
	res []byte
	job connectors.JobContext
}

// onNode is the LocalFile sink writing to node's folder.
func (s *nodeFileSink) onNode(node string) (connectors.WriterNodeCommitter, string, error) {
	d, ok := nodeDirs.Load(node)
	if !ok {
		return nil, "", fmt.Errorf("no folder for node %q", node)
	}
	dir := d.(string)
	body := &hocon.Value{Kind: hocon.Object, Pos: s.cfg.Body.Pos}
	for _, f := range s.cfg.Body.Fields {
		if f.Key != "path" {
			body.Fields = append(body.Fields, f)
		}
	}
	body.Fields = append(body.Fields, &hocon.Field{Key: "path", Value: &hocon.Value{Kind: hocon.String, Text: dir}})
	cfg, _, err := config.Validate(s.cfg.File, s.cfg.Where, s.cfg.Name, s.cfg.Pos, body, localfile.SinkFactory.Options, config.CommonPluginOptions)
	if err != nil {
		return nil, "", err
	}
	snk, err := localfile.SinkFactory.Create(cfg, s.in, s.res, s.job)
	if err != nil {
		return nil, "", err
	}
	return snk.(connectors.WriterNodeCommitter), filepath.Clean(dir), nil
}

func (s *nodeFileSink) CreateWriter(ctx context.Context, task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	snk, _, err := s.onNode(task.Node)
	if err != nil {
		return nil, err
	}
	return snk.CreateWriter(ctx, task, states)
}

func (s *nodeFileSink) CreateCommitter() (connectors.Committer, error) {
	return &nodeFileCommitter{s}, nil
}

type nodeFileCommitter struct{ s *nodeFileSink }

// committer is node's LocalFile committer and folder.
func (c *nodeFileCommitter) committer(node string) (connectors.Committer, string, error) {
	snk, root, err := c.s.onNode(node)
	if err != nil {
		return nil, "", connectors.Permanent(err)
	}
	lc, err := snk.CreateCommitter()
	return lc, root, err
}

func (c *nodeFileCommitter) Commit(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	lc, root, err := c.committer(cc.Node)
	if err != nil {
		return err
	}
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
			if !strings.HasPrefix(f.From, root+string(filepath.Separator)) {
				return connectors.Permanent(fmt.Errorf("committing %s on the node whose folder is %s", f.From, root))
			}
		}
	}
	return lc.Commit(ctx, cc, infos)
}

func (c *nodeFileCommitter) Abort(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	lc, _, err := c.committer(cc.Node)
	if err != nil {
		return err
	}
	return lc.Abort(ctx, cc, infos)
}

func (c *nodeFileCommitter) AbortStale(ctx context.Context, cc connectors.CommitContext) error {
	lc, _, err := c.committer(cc.Node)
	if err != nil {
		return err
	}
	return lc.(connectors.StaleAborter).AbortStale(ctx, cc)
}

// Each node's LocalFile sink writes to its own folder. A subtask fails
// once mid-way, so the pipeline is restored. Every file must be committed
// by the node that staged it, stale staging of the failed attempt must be
// cleaned on both nodes, and the committed files together hold every row
// once.
func TestTwoNodesLocalFileCommitsOnWriterNode(t *testing.T) {
	const job = "node-commit"
	dirA, dirB := t.TempDir(), t.TempDir()
	nodeDirs.Store("a", dirA)
	nodeDirs.Store("b", dirB)
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

	cfg := clusterConfig(t, startNATS(t))
	// One slot each: the two subtasks of the fused source→sink chain run
	// one on each node, in every attempt.
	master, _ := startTwoNodes(t, cfg, cfg, 1)

	submit(t, master, job, fmt.Sprintf(`
env { checkpoint.interval = 40, job.retry.times = 2, job.retry.interval.seconds = 0, read_limit.rows_per_second = 3000 }
source { EngineTestSource { rows = 1000, parallelism = 2, fail_at = 600, fail_once = "%s-%d" } }
sink { EngineTestNodeFile { path = "/nowhere", file_format_type = "csv", batch_size = 50, parallelism = 2 } }`, job, time.Now().UnixNano()))
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
