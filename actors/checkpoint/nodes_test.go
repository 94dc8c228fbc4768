package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// nodeSink commits on the writer's node; its committer here records what
// it was given.
type nodeSink struct{ here *recorder }

func (s *nodeSink) CreateWriter(context.Context, connectors.TaskInfo, [][]byte) (connectors.Writer, error) {
	return nil, errors.New("not in this test")
}
func (s *nodeSink) CreateCommitter() (connectors.Committer, error) { return s.here, nil }
func (s *nodeSink) CommitsOnWriterNode() bool                      { return true }

var _ connectors.WriterNodeCommitter = (*nodeSink)(nil)

// recorder is the committer of the JobMaster's node.
type recorder struct {
	mu     sync.Mutex // guards the fields below
	infos  []string
	gone   []string // infos committed with WriterGone
	stale  int
	failAt int // the number of commits that fail first
}

func (r *recorder) Commit(_ context.Context, cc connectors.CommitContext, infos [][]byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failAt > 0 {
		r.failAt--
		return errors.New("local disk hiccup")
	}
	for _, in := range infos {
		r.infos = append(r.infos, string(in))
		if cc.WriterGone {
			r.gone = append(r.gone, string(in))
		}
	}
	return nil
}
func (r *recorder) Abort(context.Context, connectors.CommitContext, [][]byte) error { return nil }
func (r *recorder) AbortStale(context.Context, connectors.CommitContext) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stale++
	return nil
}

func (r *recorder) snapshot() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.infos), r.stale
}

// fakeNode stands for another node's TaskExecutionService: it records
// every CommitOnNode and fails the first `fail` of them.
type fakeNode struct {
	mu        sync.Mutex // guards the fields below
	reqs      []*messages.CommitOnNode
	fail      int
	permanent bool
}

func (n *fakeNode) Receive(ctx actor.Context) {
	m, ok := ctx.Message().(*messages.CommitOnNode)
	if !ok {
		return
	}
	n.mu.Lock()
	n.reqs = append(n.reqs, m)
	failing := n.fail > 0
	if failing {
		n.fail--
	}
	n.mu.Unlock()
	if failing {
		ctx.Respond(&messages.CommitOnNodeReply{Error: "disk full", Permanent: n.permanent})
		return
	}
	ctx.Respond(&messages.CommitOnNodeReply{})
}

func (n *fakeNode) requests() []*messages.CommitOnNode {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.reqs)
}

func (n *fakeNode) setFail(k int, permanent bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fail, n.permanent = k, permanent
}

// infosOf is what the requests carried, in order.
func infosOf(reqs []*messages.CommitOnNode) []string {
	var out []string
	for _, r := range reqs {
		for _, in := range r.Infos {
			out = append(out, string(in.Info))
		}
	}
	return out
}

// cluster is an actor system whose "other nodes" are local actors found
// through an address resolver: a pid at address "b:1" reaches fake node b.
type cluster struct {
	sys     *actor.ActorSystem
	nodes   map[string]*fakeNode // by address
	workers map[string]*actor.PID
	wmu     sync.Mutex // guards workers
	events  chan any   // committed and commitFailed, from the committer
	// goneAfter overrides NodeGoneAfter (0: the default).
	goneAfter time.Duration
}

func newCluster(t *testing.T, addresses ...string) *cluster {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	t.Cleanup(sys.Shutdown)
	c := &cluster{sys: sys, nodes: map[string]*fakeNode{}, workers: map[string]*actor.PID{}, events: make(chan any, 16)}
	local := map[string]*actor.PID{}
	for _, a := range addresses {
		n := &fakeNode{}
		c.nodes[a] = n
		local[a] = sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return n }))
		// Node "b" at "b:1" is a worker of the cluster (tests change that
		// with setWorkers).
		id, _, _ := strings.Cut(a, ":")
		c.workers[id] = actor.NewPID(a, "worker")
	}
	sys.ProcessRegistry.RegisterAddressResolver(func(pid *actor.PID) (actor.Process, bool) {
		if l := local[pid.Address]; l != nil {
			return sys.ProcessRegistry.Get(l)
		}
		return nil, false
	})
	return c
}

func (c *cluster) setWorkers(ws map[string]string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.workers = map[string]*actor.PID{}
	for id, addr := range ws {
		c.workers[id] = actor.NewPID(addr, "worker")
	}
}

func (c *cluster) directory() (map[string]*actor.PID, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return maps.Clone(c.workers), nil
}

// start spawns a committer for a node-committing sink under a parent that
// reports its committed and commitFailed messages.
func (c *cluster) start(t *testing.T, here *recorder, restored bool) *actor.PID {
	t.Helper()
	v := &plan.Vertex{ID: 3, Name: "Sink[0]-Test", Sink: &nodeSink{here: here}, Pipeline: &plan.Pipeline{ID: 1}}
	cfg := DefaultConfig()
	cfg.CommitBackoff, cfg.CommitBackoffMax, cfg.CommitTimeout = 10*time.Millisecond, 20*time.Millisecond, 2*time.Second
	if c.goneAfter != 0 {
		cfg.NodeGoneAfter = c.goneAfter
	}
	job := Job{Spec: &messages.JobSpec{JobId: "j1", Resolved: &messages.ResolvedJob{Tree: &messages.Hocon{Kind: 4}}}, Term: 7, Workers: c.directory}
	pids := make(chan *actor.PID, 1)
	c.sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			pids <- ctx.Spawn(actor.PropsFromProducer(NewCommitter(v, job, 2, restored, cfg, zerolog.Nop())))
		case *committed, *commitFailed:
			c.events <- m
		}
	}))
	return <-pids
}

func (c *cluster) next(t *testing.T) any {
	t.Helper()
	select {
	case e := <-c.events:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("the committer reported nothing")
		return nil
	}
}

// pending is an info written on a node whose worker was at address.
func pending(checkpoint int64, subtask int32, node, address string) *messages.PendingCommit {
	return &messages.PendingCommit{CheckpointId: checkpoint, Vertex: 3, Subtask: subtask, Node: node,
		Worker: &messages.Pid{Address: address, Id: "worker"}, Info: []byte(fmt.Sprintf("%s-%d-%d", node, checkpoint, subtask))}
}

// A checkpoint's infos from three nodes: this node's are committed here,
// the other two nodes each get one CommitOnNode with their own infos and
// the job's spec; a node that fails is asked again (and only it) until it
// succeeds, and only then is the checkpoint reported committed.
func TestCommitterRoutesInfosToTheNodesThatWrote(t *testing.T) {
	c := newCluster(t, "b:1", "c:1")
	here := &recorder{}
	c.nodes["c:1"].setFail(2, false)
	pid := c.start(t, here, false)
	local := c.sys.Address()
	c.sys.Root.Send(pid, &commit{checkpoint: 5, infos: []*messages.PendingCommit{
		pending(5, 0, "a", local), pending(5, 1, "b", "b:1"), pending(5, 2, "c", "c:1"), pending(5, 3, "b", "b:1"),
	}})
	ev := c.next(t)
	if m, ok := ev.(*committed); !ok || m.checkpoint != 5 || m.vertex != 3 {
		t.Fatalf("got %#v, want checkpoint 5 committed", ev)
	}
	if got, _ := here.snapshot(); !slices.Equal(got, []string{"a-5-0"}) {
		t.Fatalf("committed here %v, want only this node's info", got)
	}
	b, cc := c.nodes["b:1"].requests(), c.nodes["c:1"].requests()
	if len(b) != 1 || !slices.Equal(infosOf(b), []string{"b-5-1", "b-5-3"}) {
		t.Fatalf("node b got %d requests with %v, want one with its two infos", len(b), infosOf(b))
	}
	if len(cc) != 3 {
		t.Fatalf("node c got %d requests, want 3 (two failures, then success)", len(cc))
	}
	for _, r := range cc {
		if !slices.Equal(infosOf([]*messages.CommitOnNode{r}), []string{"c-5-2"}) {
			t.Fatalf("node c got %v", infosOf([]*messages.CommitOnNode{r}))
		}
	}
	r := b[0]
	if r.Job.GetJobId() != "j1" || r.Pipeline != 1 || r.Attempt != 2 || r.Term != 7 || r.Vertex != 3 || r.CheckpointId != 5 || r.AbortStale {
		t.Fatalf("request %v", r)
	}
	select {
	case e := <-c.events:
		t.Fatalf("reported again: %#v", e)
	case <-time.After(50 * time.Millisecond):
	}
}

// A node that restarted keeps its id but not its address: the committer
// finds it through the cluster's workers. A node the workers do not list
// (it died, or missed its health check) is not asked at its recorded
// address — a request to a dead address would wait out protoactor's
// connect retries, 10 s — but retried soon, and asked as soon as it is
// listed again.
func TestCommitterFindsARestartedNodeByID(t *testing.T) {
	c := newCluster(t, "b:2", "c:1")
	c.setWorkers(map[string]string{"b": "b:2"})
	here := &recorder{}
	pid := c.start(t, here, false)
	c.sys.Root.Send(pid, &commit{checkpoint: 9, infos: []*messages.PendingCommit{
		pending(8, 0, "b", "b:1"), pending(9, 0, "b", "b:1"), pending(9, 1, "c", "c:1"),
	}})
	select {
	case e := <-c.events:
		t.Fatalf("reported %#v while node c is not listed", e)
	case <-time.After(300 * time.Millisecond):
	}
	if got := c.nodes["c:1"].requests(); len(got) != 0 {
		t.Fatalf("node c, not listed, was asked at its recorded address: %v", infosOf(got))
	}
	c.setWorkers(map[string]string{"b": "b:2", "c": "c:1"})
	if ev := c.next(t); ev.(*committed).checkpoint != 9 {
		t.Fatalf("got %#v", ev)
	}
	if got := infosOf(c.nodes["b:2"].requests()); !slices.Equal(got, []string{"b-8-0", "b-9-0"}) {
		t.Fatalf("node b at its new address got %v", got)
	}
	if got := infosOf(c.nodes["c:1"].requests()); !slices.Equal(got, []string{"c-9-1"}) {
		t.Fatalf("node c at its recorded address got %v", got)
	}
	if got, _ := here.snapshot(); len(got) != 0 {
		t.Fatalf("committed here %v", got)
	}
}

// A node missing from the workers for NodeGoneAfter left the cluster: its
// part is retried (not asked where it was) until then, and committed here
// after, with
// WriterGone set (right on a shared filesystem; LocalFile fails otherwise).
func TestCommitterCommitsADepartedNodesPartHere(t *testing.T) {
	c := newCluster(t, "b:1")
	c.goneAfter = 300 * time.Millisecond
	c.setWorkers(map[string]string{"b": "b:1"})
	here := &recorder{}
	pid := c.start(t, here, false)
	start := time.Now()
	// Node d wrote, and is neither listed nor reachable.
	c.sys.Root.Send(pid, &commit{checkpoint: 4, infos: []*messages.PendingCommit{pending(4, 0, "b", "b:1"), pending(4, 1, "d", "d:1")}})
	if ev := c.next(t); ev.(*committed).checkpoint != 4 {
		t.Fatalf("got %#v", ev)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("committed a missing node's part here after %s, before NodeGoneAfter", waited)
	}
	if got, _ := here.snapshot(); !slices.Equal(got, []string{"d-4-1"}) {
		t.Fatalf("committed here %v, want the departed node's part", got)
	}
	here.mu.Lock()
	gone := slices.Clone(here.gone)
	here.mu.Unlock()
	if !slices.Equal(gone, []string{"d-4-1"}) {
		t.Fatalf("committed with WriterGone: %v", gone)
	}
	if got := infosOf(c.nodes["b:1"].requests()); !slices.Equal(got, []string{"b-4-0"}) {
		t.Fatalf("node b got %v", got)
	}
}

// On restore, after the restored infos are committed, stale work is
// aborted here, on every worker of the cluster (also one that wrote
// nothing) and on every node that wrote; a node that fails the abort is
// asked again, and the restore is committed only after all succeeded.
func TestCommitterAbortsStaleWorkOnEveryNode(t *testing.T) {
	c := newCluster(t, "b:1", "c:1", "d:1")
	c.setWorkers(map[string]string{"b": "b:1", "c": "c:1", "d": "d:1", "here": c.sys.Address()})
	c.nodes["d:1"].setFail(1, false)
	here := &recorder{}
	pid := c.start(t, here, true)
	c.sys.Root.Send(pid, &commit{checkpoint: 4, infos: []*messages.PendingCommit{pending(4, 0, "c", "c:1")}})
	if ev := c.next(t); ev.(*committed).checkpoint != 4 {
		t.Fatalf("got %#v", ev)
	}
	if _, stale := here.snapshot(); stale != 1 {
		t.Fatalf("aborted stale work here %d times, want 1", stale)
	}
	aborts := func(a string) (n int) {
		for _, r := range c.nodes[a].requests() {
			if r.AbortStale {
				n++
			}
		}
		return n
	}
	if aborts("b:1") != 1 || aborts("c:1") != 1 || aborts("d:1") != 2 {
		t.Fatalf("stale aborts: b %d, c %d, d %d; want 1, 1, 2", aborts("b:1"), aborts("c:1"), aborts("d:1"))
	}
	if got := infosOf(c.nodes["c:1"].requests()); !slices.Equal(got, []string{"c-4-0"}) {
		t.Fatalf("node c committed %v", got)
	}
	// The next checkpoint aborts nothing.
	c.sys.Root.Send(pid, &commit{checkpoint: 5, infos: []*messages.PendingCommit{pending(5, 0, "b", "b:1")}})
	if ev := c.next(t); ev.(*committed).checkpoint != 5 {
		t.Fatalf("got %#v", ev)
	}
	if aborts("b:1") != 1 {
		t.Fatal("stale work aborted again after the restore")
	}
}

// A node's permanent error fails the job; a node that is not there at all
// is retried.
func TestCommitterNodeErrors(t *testing.T) {
	t.Run("permanent", func(t *testing.T) {
		c := newCluster(t, "b:1")
		c.nodes["b:1"].setFail(1, true)
		pid := c.start(t, &recorder{}, false)
		c.sys.Root.Send(pid, &commit{checkpoint: 2, infos: []*messages.PendingCommit{pending(2, 0, "b", "b:1")}})
		if ev, ok := c.next(t).(*commitFailed); !ok {
			t.Fatalf("got %#v, want the commit failed", ev)
		}
	})
	t.Run("unreachable until it is back", func(t *testing.T) {
		c := newCluster(t, "b:2")
		// Still listed at its old address (its Consul check has not
		// failed yet), where nothing answers.
		c.setWorkers(map[string]string{"b": "b:1"})
		pid := c.start(t, &recorder{}, false)
		c.sys.Root.Send(pid, &commit{checkpoint: 2, infos: []*messages.PendingCommit{pending(2, 0, "b", "b:1")}})
		select {
		case e := <-c.events:
			t.Fatalf("reported %#v while the node that wrote is gone", e)
		case <-time.After(300 * time.Millisecond):
		}
		c.setWorkers(map[string]string{"b": "b:2"}) // it restarted elsewhere
		if ev := c.next(t); ev.(*committed).checkpoint != 2 {
			t.Fatalf("got %#v", ev)
		}
		if got := infosOf(c.nodes["b:2"].requests()); !slices.Equal(got, []string{"b-2-0"}) {
			t.Fatalf("got %v", got)
		}
	})
}

// A local commit that fails is retried like a node's.
func TestCommitterRetriesThisNodesPart(t *testing.T) {
	c := newCluster(t, "b:1")
	here := &recorder{failAt: 1}
	pid := c.start(t, here, false)
	c.sys.Root.Send(pid, &commit{checkpoint: 3, infos: []*messages.PendingCommit{
		pending(3, 0, "a", c.sys.Address()), pending(3, 1, "b", "b:1"),
	}})
	if ev := c.next(t); ev.(*committed).checkpoint != 3 {
		t.Fatalf("got %#v", ev)
	}
	if got, _ := here.snapshot(); !slices.Equal(got, []string{"a-3-0"}) {
		t.Fatalf("committed here %v", got)
	}
	if n := len(c.nodes["b:1"].requests()); n != 1 {
		t.Fatalf("node b asked %d times, want once: its part was done", n)
	}
}
