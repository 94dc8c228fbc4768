package worker

import (
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/task"
	"github.com/stactor/stactor/connectors"
	_ "github.com/stactor/stactor/connectors/fake"
	_ "github.com/stactor/stactor/connectors/localfile"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// The job's sink path is a node variable: each node resolves it to its
// own folder, as it would its own environment on a machine of its own.
const nodeJob = `
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { plugin_output = "fake", row.num = 4, schema = { fields { name = "string", age = "int" } } } }
sink { LocalFile { plugin_input = "fake", path = "${node_dir}", file_format_type = "csv" } }
`

func startService(t *testing.T, vars map[string]string) (*actor.ActorSystem, *actor.PID) {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	t.Cleanup(sys.Shutdown)
	pid, err := sys.Root.SpawnNamed(Props(task.DefaultOptions(), nil, zerolog.Nop(), WithVars(vars)), "worker")
	if err != nil {
		t.Fatal(err)
	}
	return sys, pid
}

// nodeWithJob starts a service whose node folder (node_dir) is a folder of
// the test, and gives the job that writes there.
func nodeWithJob(t *testing.T) (string, map[string]string, *actor.ActorSystem, *actor.PID, *messages.JobSpec) {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"node_dir": dir}
	sys, pid := startService(t, vars)
	return dir, vars, sys, pid, &messages.JobSpec{JobId: "j1", File: "job.conf", Config: []byte(nodeJob)}
}

// stage writes rows with a writer of attempt on the node whose variables
// are vars and prepares them for checkpoint; it returns the sink vertex
// and the commit info.
func stage(t *testing.T, spec *messages.JobSpec, vars map[string]string, attempt int, checkpoint int64) (*plan.Vertex, []byte) {
	t.Helper()
	p, err := planOn(spec, vars)
	if err != nil {
		t.Fatal(err)
	}
	v := p.Vertices[len(p.Vertices)-1]
	w, err := v.Sink.CreateWriter(connectors.TaskInfo{JobID: spec.JobId, Pipeline: v.Pipeline.ID, Attempt: attempt, Parallelism: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := row.NewBuilder(v.InTables[0], 2)
	for _, r := range [][]any{{"ann", 31}, {"bob", 42}} {
		if err := b.AppendRow(row.Insert, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(b.Build()); err != nil {
		t.Fatal(err)
	}
	info, err := w.PrepareCommit(checkpoint)
	if err != nil || info == nil {
		t.Fatalf("prepare: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return v, info
}

func ask(t *testing.T, sys *actor.ActorSystem, pid *actor.PID, m *messages.CommitOnNode) *messages.CommitOnNodeReply {
	t.Helper()
	res, err := sys.Root.RequestFuture(pid, m, 10*time.Second).Result()
	if err != nil {
		t.Fatal(err)
	}
	return res.(*messages.CommitOnNodeReply)
}

// listing is every file under dir, relative, sorted; staging shows as its
// folder's name.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// A CommitOnNode is committed by the job's sink as this node plans it:
// with the node's variables, so into this node's folder.
func TestCommitOnNodeCommitsWithTheNodesPlan(t *testing.T) {
	dir, vars, sys, pid, spec := nodeWithJob(t)
	v, info := stage(t, spec, vars, 0, 1)
	if got := listing(t, dir); len(got) != 1 || !strings.HasPrefix(got[0], ".stactor-staging/") {
		t.Fatalf("staged %v", got)
	}
	req := &messages.CommitOnNode{Job: spec, Pipeline: int32(v.Pipeline.ID), Vertex: int32(v.ID), CheckpointId: 1,
		Infos: []*messages.PendingCommit{{CheckpointId: 1, Vertex: int32(v.ID), Info: info}}}
	for range 2 { // idempotent
		if r := ask(t, sys, pid, req); r.Error != "" {
			t.Fatalf("commit: %s", r.Error)
		}
	}
	if got := listing(t, dir); len(got) != 1 || !strings.HasPrefix(got[0], "T_j1_") {
		t.Fatalf("after commit %v", got)
	}
}

// On restore, AbortStale deletes what earlier attempts staged on this node
// and leaves the current attempt's staging.
func TestCommitOnNodeAbortsStaleWork(t *testing.T) {
	dir, vars, sys, pid, spec := nodeWithJob(t)
	v, _ := stage(t, spec, vars, 0, 1)
	stage(t, spec, vars, 1, 2)
	r := ask(t, sys, pid, &messages.CommitOnNode{Job: spec, Pipeline: int32(v.Pipeline.ID), Attempt: 1, Vertex: int32(v.ID), CheckpointId: 1, AbortStale: true})
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	got := listing(t, dir)
	if len(got) != 1 || !strings.Contains(got[0], "/1-t0/") {
		t.Fatalf("after aborting stale work: %v", got)
	}
}

// What cannot succeed says so; a node that cannot plan the job is retried
// for a commit and has nothing to abort.
func TestCommitOnNodeErrors(t *testing.T) {
	_, _, sys, pid, spec := nodeWithJob(t)
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: spec, Vertex: 0, CheckpointId: 1}); r.Error == "" || !r.Permanent {
		t.Fatalf("a source's commit: %+v", r)
	}
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: spec, Vertex: 9, CheckpointId: 1}); r.Error == "" || !r.Permanent {
		t.Fatalf("no such vertex: %+v", r)
	}
	// A job this node cannot plan (a plugin it does not have, say).
	bad := &messages.JobSpec{JobId: "j2", File: "job.conf", Config: []byte(strings.Replace(nodeJob, "LocalFile", "NoSuchSink", 1))}
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: bad, Vertex: 1, CheckpointId: 1,
		Infos: []*messages.PendingCommit{{Info: []byte("{}")}}}); r.Error == "" || r.Permanent || !strings.Contains(r.Error, "planning") {
		t.Fatalf("a commit where the job cannot be planned: %+v", r)
	}
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: bad, Vertex: 1, CheckpointId: 1, AbortStale: true}); r.Error != "" {
		t.Fatalf("aborting stale work where the job cannot be planned: %+v", r)
	}
}
