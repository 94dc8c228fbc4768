package worker

import (
	"context"
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
	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/actors/task"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	_ "github.com/stactor/stactor/connectors/fake"
	_ "github.com/stactor/stactor/connectors/localfile"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// The job's sink path is the test's folder for the node, filled in when the
// job is resolved (as the submitting client would).
const nodeJob = `
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { plugin_output = "fake", row.num = 4, schema = { fields { name = "string", age = "int" } } } }
sink { LocalFile { plugin_input = "fake", path = "${node_dir}", file_format_type = "csv" } }
`

func startService(t *testing.T) (*actor.ActorSystem, *actor.PID) {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	t.Cleanup(sys.Shutdown)
	pid, err := sys.Root.SpawnNamed(Props(task.DefaultOptions(), nil, zerolog.Nop()), "worker")
	if err != nil {
		t.Fatal(err)
	}
	return sys, pid
}

// nodeWithJob starts a service, and gives a job resolved to write to a
// folder of the test.
func nodeWithJob(t *testing.T) (string, *actor.ActorSystem, *actor.PID, *messages.JobSpec) {
	t.Helper()
	dir := t.TempDir()
	sys, pid := startService(t)
	return dir, sys, pid, resolvedSpec(t, "j1", nodeJob, map[string]string{"node_dir": dir})
}

// resolvedSpec is the job as the master ships it.
func resolvedSpec(t *testing.T, id, text string, vars map[string]string) *messages.JobSpec {
	t.Helper()
	job, err := config.Parse("job.conf", []byte(text), vars)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Resolve(context.Background(), job, id)
	if err != nil {
		t.Fatal(err)
	}
	return &messages.JobSpec{JobId: id, File: "job.conf", Resolved: p.Resolved}
}

// stage writes rows with a writer of attempt and prepares them for
// checkpoint; it returns the sink vertex and the commit info.
func stage(t *testing.T, spec *messages.JobSpec, attempt int, checkpoint int64) (*plan.Vertex, []byte) {
	t.Helper()
	p, err := plan.FromResolved(spec.JobId, spec.File, spec.Name, spec.Resolved)
	if err != nil {
		t.Fatal(err)
	}
	v := p.Vertices[len(p.Vertices)-1]
	w, err := v.Sink.CreateWriter(context.Background(), connectors.TaskInfo{JobID: spec.JobId, Pipeline: v.Pipeline.ID, Attempt: attempt, Parallelism: 1}, nil)
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

// A CommitOnNode is committed by the job's sink as the resolved plan has
// it.
func TestCommitOnNodeCommitsWithTheResolvedPlan(t *testing.T) {
	dir, sys, pid, spec := nodeWithJob(t)
	v, info := stage(t, spec, 0, 1)
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
	dir, sys, pid, spec := nodeWithJob(t)
	v, _ := stage(t, spec, 0, 1)
	stage(t, spec, 1, 2)
	r := ask(t, sys, pid, &messages.CommitOnNode{Job: spec, Pipeline: int32(v.Pipeline.ID), Attempt: 1, Vertex: int32(v.ID), CheckpointId: 1, AbortStale: true})
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	got := listing(t, dir)
	if len(got) != 1 || !strings.Contains(got[0], "/1-t0/") {
		t.Fatalf("after aborting stale work: %v", got)
	}
}

// What cannot succeed says so; a node that cannot rebuild the job's plan
// is retried for a commit and has nothing to abort.
func TestCommitOnNodeErrors(t *testing.T) {
	_, sys, pid, spec := nodeWithJob(t)
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: spec, Vertex: 0, CheckpointId: 1}); r.Error == "" || !r.Permanent {
		t.Fatalf("a source's commit: %+v", r)
	}
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: spec, Vertex: 9, CheckpointId: 1}); r.Error == "" || !r.Permanent {
		t.Fatalf("no such vertex: %+v", r)
	}
	// A plan this node cannot rebuild (from another version, say).
	bad := proto.Clone(spec).(*messages.JobSpec)
	bad.JobId = "j2"
	bad.Resolved.Vertices[1].Name = "Sink[0]-NoSuchSink"
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: bad, Vertex: 1, CheckpointId: 1,
		Infos: []*messages.PendingCommit{{Info: []byte("{}")}}}); r.Error == "" || r.Permanent || !strings.Contains(r.Error, "on this node") {
		t.Fatalf("a commit where the job cannot be planned: %+v", r)
	}
	if r := ask(t, sys, pid, &messages.CommitOnNode{Job: bad, Vertex: 1, CheckpointId: 1, AbortStale: true}); r.Error != "" {
		t.Fatalf("aborting stale work where the job cannot be planned: %+v", r)
	}
}
