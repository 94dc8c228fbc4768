package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/localfile"
)

// gateStore is a checkpoint store whose coordinator calls can be held on
// command: a held call waits until it is released or, unless ignoreCtx,
// until its context is done (as JetStream's store gives up at the
// checkpoint's deadline). A call held ignoring its context goes on with
// the real store once released, and so lands late.
type gateStore struct {
	storage.Storage
	mu        sync.Mutex // guards the fields below
	gates     map[string]chan struct{}
	ignoreCtx bool
	// holdAfter, when above 0, holds every call once that many Completes
	// have succeeded.
	holdAfter int
	active    int // calls in progress
	maxActive int
	completed []int64 // ids whose first Complete returned nil
}

func newGateStore(t *testing.T) *gateStore {
	t.Helper()
	base, err := localfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = base.Close() })
	return &gateStore{Storage: base, gates: map[string]chan struct{}{}}
}

// hold holds the calls of the methods named from now on.
func (s *gateStore) hold(methods ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range methods {
		if s.gates[m] == nil {
			s.gates[m] = make(chan struct{})
		}
	}
}

// release lets every held call go on, and later ones pass.
func (s *gateStore) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for m, g := range s.gates {
		close(g)
		delete(s.gates, m)
	}
	s.holdAfter = 0
}

// enter waits while method is held; it returns the context to call the
// real store with.
func (s *gateStore) enter(ctx context.Context, method string) (context.Context, error) {
	s.mu.Lock()
	s.active++
	s.maxActive = max(s.maxActive, s.active)
	if s.holdAfter > 0 && len(s.completed) >= s.holdAfter && s.gates[method] == nil {
		s.gates[method] = make(chan struct{})
	}
	gate, ignore := s.gates[method], s.ignoreCtx
	s.mu.Unlock()
	if gate == nil {
		return ctx, nil
	}
	if ignore {
		<-gate
		return context.Background(), nil
	}
	select {
	case <-gate:
		return ctx, nil
	case <-ctx.Done():
		return ctx, fmt.Errorf("%s: no answer from the store: %w", method, ctx.Err())
	}
}

func (s *gateStore) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
}

func (s *gateStore) NextCheckpointID(ctx context.Context, job string, p int) (int64, error) {
	defer s.leave()
	ctx, err := s.enter(ctx, "NextCheckpointID")
	if err != nil {
		return 0, err
	}
	return s.Storage.NextCheckpointID(ctx, job, p)
}

// Complete is held as "Complete" for a checkpoint's first write, as
// "CommitTimes" for its second, with its commit times.
func (s *gateStore) Complete(ctx context.Context, cp *messages.CompletedCheckpoint) error {
	defer s.leave()
	method := "Complete"
	if cp.Commits != nil {
		method = "CommitTimes"
	}
	ctx, err := s.enter(ctx, method)
	if err != nil {
		return err
	}
	if err := s.Storage.Complete(ctx, cp); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.completed, cp.Id) {
		s.completed = append(s.completed, cp.Id)
	}
	return nil
}

func (s *gateStore) Retain(ctx context.Context, job string, p, n int, keep func(*messages.CompletedCheckpoint) bool) error {
	defer s.leave()
	ctx, err := s.enter(ctx, "Retain")
	if err != nil {
		return err
	}
	return s.Storage.Retain(ctx, job, p, n, keep)
}

func (s *gateStore) stats() (maxActive int, completed []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxActive, slices.Clone(s.completed)
}

// plainSink commits where the JobMaster is, into its recorder.
type plainSink struct{ here *recorder }

func (s *plainSink) CreateWriter(context.Context, connectors.TaskInfo, [][]byte) (connectors.Writer, error) {
	return nil, fmt.Errorf("not in this test")
}
func (s *plainSink) CreateCommitter() (connectors.Committer, error) { return s.here, nil }

var _ connectors.SinkWithCommitter = (*plainSink)(nil)

// pipelineRig runs a coordinator under a parent that is also its one
// enumerator host and its one subtask: it acks every trigger at once, the
// subtask's ack carrying commit info "<id>" for the sink, and reports
// what the coordinator tells the JobMaster.
type pipelineRig struct {
	store  *gateStore
	here   *recorder
	events chan any // Completed, Aborted, Failed
	// ask sends a subtask's checkpoint request to the coordinator.
	ask func()
}

const rigAttempt = 1

func startRig(t *testing.T, cfg Config, store *gateStore) *pipelineRig {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	t.Cleanup(sys.Shutdown)
	r := &pipelineRig{store: store, here: &recorder{}, events: make(chan any, 4096)}
	pipe := &plan.Pipeline{ID: 1}
	sink := &plan.Vertex{ID: 2, Kind: plan.SinkVertex, Name: "Sink[0]-Test", Parallelism: 1, Sink: &plainSink{here: r.here}, Pipeline: pipe}
	pipe.Vertices = []*plan.Vertex{sink}
	job := Job{Spec: &messages.JobSpec{JobId: "j1"}}
	if _, err := store.NextAttempt("j1", 1, 0); err != nil { // attempt 0
		t.Fatal(err)
	}
	if _, err := store.NextAttempt("j1", 1, 0); err != nil { // rigAttempt
		t.Fatal(err)
	}
	var coord *actor.PID
	type ask struct{}
	parent := sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			coord = ctx.Spawn(actor.PropsFromProducer(New(cfg, job, pipe, rigAttempt, store, nil, zerolog.Nop())))
		case ask:
			ctx.Send(coord, &messages.CheckpointRequest{Reason: "test"})
		case *Ready:
			ctx.Send(coord, &Start{Tasks: []*actor.PID{ctx.Self()}, Enums: map[int]*actor.PID{1: ctx.Self()}})
		case *messages.CheckpointTrigger:
			ctx.Send(coord, &messages.CheckpointAck{Id: m.Id, EnumeratorVertex: 1})
			ctx.Send(coord, &messages.CheckpointAck{Id: m.Id, Loc: &messages.TaskLocation{JobId: "j1", Pipeline: 1, Attempt: rigAttempt},
				Commits: []*messages.CommitInfo{{Vertex: int32(sink.ID), Info: []byte(strconv.FormatInt(m.Id, 10))}}})
		case *Completed, *Aborted, *Failed:
			r.events <- m
		}
	}))
	r.ask = func() { sys.Root.Send(parent, ask{}) }
	// The coordinator, stopped with its parent, ends its store calls
	// before the store's directory goes.
	t.Cleanup(func() { _ = sys.Root.StopFuture(parent).Wait() })
	return r
}

func rigConfig() Config {
	cfg := DefaultConfig()
	cfg.Interval, cfg.Timeout, cfg.TolerableFailures = 20*time.Millisecond, time.Second, 100
	cfg.CommitBackoff, cfg.CommitBackoffMax = 10*time.Millisecond, 20*time.Millisecond
	return cfg
}

// startCheckpointing starts a rig and waits for its first completed
// checkpoint; seen holds the events so far.
func startCheckpointing(t *testing.T, cfg Config, store *gateStore) (*pipelineRig, []any) {
	t.Helper()
	r := startRig(t, cfg, store)
	var seen []any
	next[*Completed](t, r, 5*time.Second, &seen)
	return r, seen
}

// next returns the next event of type E within d, skipping others (kept
// in seen); it fails the test when none came.
func next[E any](t *testing.T, r *pipelineRig, d time.Duration, seen *[]any) E {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case e := <-r.events:
			if seen != nil {
				*seen = append(*seen, e)
			}
			if m, ok := e.(E); ok {
				return m
			}
		case <-deadline:
			var zero E
			t.Fatalf("no %T within %s; before it: %v", zero, d, seen)
			return zero
		}
	}
}

// committedIDs are the checkpoints whose infos the sink committed.
func (r *pipelineRig) committedIDs() []int64 {
	infos, _ := r.here.snapshot()
	var ids []int64
	for _, in := range infos {
		id, _ := strconv.ParseInt(in, 10, 64)
		ids = append(ids, id)
	}
	return ids
}

// A checkpoint store that stops answering a checkpoint's write (nats-server
// on a full disk) fails the checkpoint at checkpoint.timeout with the
// cause, its commits do not run, and once the store answers again later
// checkpoints complete and commit. The coordinator waited in the store
// call before: no timeout fired and no checkpoint ended until the store
// answered.
func TestCheckpointWhoseStoreWriteHangsFailsAtItsTimeout(t *testing.T) {
	store, cfg := newGateStore(t), rigConfig()
	r, seen := startCheckpointing(t, cfg, store)

	store.hold("Complete")
	held := time.Now()
	ab := next[*Aborted](t, r, 3*time.Second, &seen)
	if took := time.Since(held); !ab.TimedOut || took > cfg.Timeout+time.Second {
		t.Fatalf("checkpoint %d aborted after %s (timed out: %v), want at its %s timeout", ab.ID, took, ab.TimedOut, cfg.Timeout)
	}
	// The store's own answer, or the deadline's timer first.
	want := fmt.Sprintf("checkpoint %d: store write did not finish in %s: ", ab.ID, cfg.Timeout)
	if !strings.HasPrefix(ab.Cause, want) {
		t.Fatalf("checkpoint %d aborted as %q, want %q...", ab.ID, ab.Cause, want)
	}
	next[*Aborted](t, r, 3*time.Second, &seen) // and the next one, triggered after it

	store.release()
	after := next[*Completed](t, r, 5*time.Second, &seen)
	if after.Checkpoint.Id <= ab.ID {
		t.Fatalf("checkpoint %d completed after %d was aborted", after.Checkpoint.Id, ab.ID)
	}
	// Every completed checkpoint's infos are committed, and only theirs.
	_, stored := store.stats()
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(r.committedIDs(), after.Checkpoint.Id) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, id := range r.committedIDs() {
		if !slices.Contains(stored, id) {
			t.Errorf("the infos of checkpoint %d were committed, but it was never stored (stored: %v)", id, stored)
		}
	}
	for _, e := range seen {
		if c, ok := e.(*Completed); ok && !slices.Contains(stored, c.Checkpoint.Id) {
			t.Errorf("checkpoint %d reported completed but never stored", c.Checkpoint.Id)
		}
	}
	if maxActive, _ := store.stats(); maxActive != 1 {
		t.Errorf("%d store calls ran at once, want one at a time", maxActive)
	}
}

// A write given up at its deadline that the store finishes anyway (its
// answer came late) is not completed: no Completed, no commit of its
// infos; the trigger queued behind it fails at its own deadline, and once
// the store answers the next checkpoint completes. The late checkpoint is
// stored, below the newer one, so a restore takes the newer.
func TestStoreWriteThatLandsAfterItsDeadlineIsNotCompleted(t *testing.T) {
	store, cfg := newGateStore(t), rigConfig()
	r, seen := startCheckpointing(t, cfg, store)

	store.mu.Lock()
	store.ignoreCtx = true
	store.mu.Unlock()
	store.hold("Complete")
	late := next[*Aborted](t, r, 3*time.Second, &seen)
	trig := next[*Aborted](t, r, 3*time.Second, &seen)
	if !late.TimedOut || !trig.TimedOut || trig.ID != -1 {
		t.Fatalf("aborted %+v then %+v; want the write's timeout, then the next trigger's (id -1)", late, trig)
	}
	if want := fmt.Sprintf("checkpoint %d: store write did not finish in %s: ", late.ID, cfg.Timeout); !strings.HasPrefix(late.Cause, want) {
		t.Fatalf("checkpoint %d aborted as %q, want %q...", late.ID, late.Cause, want)
	}
	if want := fmt.Sprintf("checkpoint trigger: the store did not hand out a checkpoint id in %s: ", cfg.Timeout); !strings.HasPrefix(trig.Cause, want) {
		t.Fatalf("the next trigger aborted as %q, want %q...", trig.Cause, want)
	}

	store.release()
	after := next[*Completed](t, r, 5*time.Second, &seen)
	if after.Checkpoint.Id <= late.ID {
		t.Fatalf("checkpoint %d completed after %d", after.Checkpoint.Id, late.ID)
	}
	_, stored := store.stats()
	if !slices.Contains(stored, late.ID) {
		t.Fatalf("the late write of checkpoint %d did not land (stored %v): the test tests nothing", late.ID, stored)
	}
	for _, e := range seen {
		if c, ok := e.(*Completed); ok && c.Checkpoint.Id == late.ID {
			t.Fatalf("checkpoint %d was reported completed after it was aborted", late.ID)
		}
	}
	time.Sleep(100 * time.Millisecond) // commits that should not come
	if slices.Contains(r.committedIDs(), late.ID) {
		t.Fatalf("the infos of aborted checkpoint %d were committed", late.ID)
	}
	cp, _, err := store.Latest("j1", 1)
	if err != nil || cp == nil || cp.Id < after.Checkpoint.Id {
		t.Fatalf("Latest = %v, %v; want checkpoint %d or newer", cp, err, after.Checkpoint.Id)
	}
}

// A store that stops answering right after a checkpoint completed — its
// retention and then every call after it hang — fails the next
// checkpoints at their timeouts and, past checkpoint.tolerable-failure
// of them in a row, the pipeline over with the cause (chaos fault 126: the
// coordinator sat in Retain, the commit times' Complete and the next
// NextCheckpointID, 30 s each, and no checkpoint failed for 90 s).
func TestStoreThatStopsAnsweringFailsThePipelinePastTolerableFailures(t *testing.T) {
	store := newGateStore(t)
	store.holdAfter = 1
	cfg := rigConfig()
	cfg.TolerableFailures = 1
	r := startRig(t, cfg, store)
	var seen []any
	done := next[*Completed](t, r, 5*time.Second, &seen)
	began := time.Now()
	f := next[*Failed](t, r, 5*time.Second, &seen)
	var aborts int
	for _, e := range seen {
		if a, ok := e.(*Aborted); ok && a.TimedOut {
			aborts++
		}
	}
	if aborts != cfg.TolerableFailures+1 || f.Permanent || !strings.Contains(f.Cause, "did not") {
		t.Fatalf("after checkpoint %d: %d aborted, then failed %+v; want %d timeouts, then a failover with the cause", done.Checkpoint.Id, aborts, f, cfg.TolerableFailures+1)
	}
	if took := time.Since(began); took > time.Duration(cfg.TolerableFailures+1)*cfg.Timeout+2*time.Second {
		t.Fatalf("the pipeline failed %s after the store stopped answering", took)
	}
	store.release()
}

// A store error that comes once the checkpoint's deadline has passed is
// its timeout, whatever the error says (the NATS client answers a request
// its context cut short with "nats: timeout", not the context's error);
// one that comes before is the store's own failure.
func TestStoreErrorAtTheDeadlineIsATimeout(t *testing.T) {
	c := &Coordinator{cfg: Config{Timeout: time.Second}}
	natsTimeout := errors.New("nats: timeout")
	for _, tc := range []struct {
		name    string
		started time.Duration // before now
		err     error
		want    bool
	}{
		{"the client's timeout after the deadline", 2 * time.Second, natsTimeout, true},
		{"the context's error", 0, fmt.Errorf("put: %w", context.DeadlineExceeded), true},
		{"a failure before the deadline", 0, natsTimeout, false},
		{"no error", 2 * time.Second, nil, false},
	} {
		in := &inflight{started: time.Now().Add(-tc.started)}
		if got := c.pastDeadline(in, tc.err); got != tc.want {
			t.Errorf("%s: pastDeadline = %v, want %v", tc.name, got, tc.want)
		}
	}
	c.cfg.Timeout = 0 // no deadline
	if c.pastDeadline(&inflight{started: time.Now().Add(-time.Hour)}, natsTimeout) {
		t.Error("an error is past a deadline that is not set")
	}
}

// A subtask's CheckpointRequest (a CDC reader at a schema change) is a
// checkpoint at once, not at the interval's end; one asked for while a
// checkpoint is in flight follows right after it.
func TestCheckpointRequest(t *testing.T) {
	store, cfg := newGateStore(t), rigConfig()
	cfg.Interval = time.Hour
	r := startRig(t, cfg, store)
	var seen []any
	time.Sleep(100 * time.Millisecond) // the rig's Start, whose interval is an hour
	r.ask()
	first := next[*Completed](t, r, 3*time.Second, &seen)

	store.hold("Complete")
	r.ask()
	time.Sleep(100 * time.Millisecond) // the second is in flight, its write held
	r.ask()
	store.release()
	second := next[*Completed](t, r, 3*time.Second, &seen)
	third := next[*Completed](t, r, 3*time.Second, &seen)
	if !(first.Checkpoint.Id < second.Checkpoint.Id && second.Checkpoint.Id < third.Checkpoint.Id) {
		t.Fatalf("checkpoints %d, %d, %d", first.Checkpoint.Id, second.Checkpoint.Id, third.Checkpoint.Id)
	}
	select {
	case e := <-r.events:
		t.Fatalf("%T beyond the three asked for, within the hour's interval", e)
	case <-time.After(300 * time.Millisecond):
	}
}
