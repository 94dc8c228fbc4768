// Package storagetest is the conformance suite for checkpoint storage
// backends (package storage): every backend runs Run from its own tests, so
// they all keep the same contract — atomic states, fencing, ids that never
// repeat across restarts, retention that keeps what a restore needs.
// Backend-specific cases (corrupting bytes on disk, path escapes) stay with
// the backend.
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
)

// Factory makes a fresh, empty backing store for one test and returns a
// function that opens it. Each call of open returns a new Storage on the
// same backing store, as a restarted process — or another process, at the
// same time — would see it; the factory closes them with t.Cleanup.
type Factory func(t *testing.T) (open func() storage.Storage)

// Option adds a promise a backend makes beyond the Storage contract, and
// the checks that hold it to it.
type Option func(*config)

type config struct {
	denseIDs bool
}

// DenseIDs: the backend never skips a checkpoint id, even with several
// Storages on one backing store (it reserves no blocks of ids).
func DenseIDs() Option { return func(c *config) { c.denseIDs = true } }

// Run runs the conformance suite against the backend f makes.
func Run(t *testing.T, f Factory, opts ...Option) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	cases := []struct {
		name string
		run  func(*testing.T, func() storage.Storage)
	}{
		{"StateRoundTrip", testStateRoundTrip},
		{"CompleteLatestList", testCompleteLatestList},
		{"CompleteNeedsItsStates", testCompleteNeedsItsStates},
		{"LastCompleted", testLastCompleted},
		{"CompleteAgainReplaces", testCompleteAgainReplaces},
		{"GivesUpWithItsContext", testGivesUpWithItsContext},
		{"FencedByNextAttempt", testFencedByNextAttempt},
		{"FencedByTerm", testFencedByTerm},
		{"FencedByNewerCheckpoint", testFencedByNewerCheckpoint},
		{"AttemptsSurviveRestart", testAttemptsSurviveRestart},
		{"IDsNeverRepeat", testIDsNeverRepeat},
		{"IDsAboveCompleted", testIDsAboveCompleted},
		{"Retain", testRetain},
		{"ConcurrentWriteState", testConcurrentWriteState},
		{"ConcurrentPipelines", testConcurrentPipelines},
		{"TwoStores", func(t *testing.T, open func() storage.Storage) { testTwoStores(t, open, cfg) }},
		{"FenceAcrossStores", testFenceAcrossStores},
		{"Jobs", testJobs},
		{"AnyJobID", testAnyJobID},
		{"InvalidArguments", testInvalidArguments},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, f(t)) })
	}
}

// Checkpoint builds a completed checkpoint whose completion time follows
// its id, with one task state per handle.
func Checkpoint(job string, pipeline int, id int64, attempt int, handles ...string) *messages.CompletedCheckpoint {
	cp := &messages.CompletedCheckpoint{
		JobId: job, Pipeline: int32(pipeline), Id: id, Attempt: int32(attempt), Type: "CHECKPOINT",
		TriggerUnixMs: 1_700_000_000_000 + id*1000, CompleteUnixMs: 1_700_000_000_000 + id*1000 + 10 + int64(pipeline),
		Parallelism: map[int32]int32{1: 2, 2: 2},
	}
	for i, h := range handles {
		cp.Tasks = append(cp.Tasks, &messages.TaskStateRef{Chain: 1, Subtask: int32(i), Handle: h})
	}
	return cp
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}

func ids(cps []*messages.CompletedCheckpoint) []string {
	var out []string
	for _, c := range cps {
		out = append(out, fmt.Sprintf("p%d/%d", c.Pipeline, c.Id))
	}
	return out
}

func testStateRoundTrip(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-1"
	blobs := map[string][]byte{"task-1-0": []byte("a"), "task-1-1": bytes.Repeat([]byte{7}, 1<<20), "enumerator-3": {}}
	handles := map[string]string{}
	for name, b := range blobs {
		h, err := s.WriteState(job, 0, 0, 1, name, b)
		must(t, err)
		handles[name] = h
	}
	h2, err := s.WriteState(job, 0, 0, 2, "task-1-0", []byte("checkpoint 2"))
	must(t, err)
	if h2 == handles["task-1-0"] {
		t.Fatalf("checkpoints 1 and 2 share handle %s", h2)
	}
	s = open() // what was written survives a restart
	for name, b := range blobs {
		got, err := s.ReadState(job, handles[name])
		must(t, err)
		if !bytes.Equal(got, b) {
			t.Fatalf("state %s: read %d bytes, wrote %d", name, len(got), len(b))
		}
	}
	// Writing a name again replaces it.
	h, err := s.WriteState(job, 0, 0, 1, "task-1-0", []byte("again"))
	must(t, err)
	got, err := s.ReadState(job, h)
	must(t, err)
	if string(got) != "again" {
		t.Fatalf("rewritten state reads %q", got)
	}
	_, err = s.ReadState("another-job", h)
	wantErr(t, err, storage.ErrNotFound)
}

func testCompleteLatestList(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-2"
	cp, warns, err := s.Latest(job, 0)
	if cp != nil || len(warns) != 0 || err != nil {
		t.Fatalf("Latest of nothing = %v, %v, %v", cp, warns, err)
	}
	if l, err := s.List(job); err != nil || len(l) != 0 {
		t.Fatalf("List of nothing = %v, %v", l, err)
	}
	for _, p := range []int{0, 1} {
		for id := int64(1); id <= 3; id++ {
			h, err := s.WriteState(job, p, 0, id, "task-1-0", []byte{byte(id)})
			must(t, err)
			c := Checkpoint(job, p, id, 0, h)
			c.Pending = []*messages.PendingCommit{{CheckpointId: id, Vertex: 2, Info: []byte("txn")}}
			must(t, s.Complete(context.Background(), c))
		}
	}
	s = open()
	for _, p := range []int{0, 1} {
		cp, warns, err := s.Latest(job, p)
		must(t, err)
		if len(warns) != 0 {
			t.Fatalf("warnings: %v", warns)
		}
		want := Checkpoint(job, p, 3, 0, cp.GetTasks()[0].GetHandle())
		want.Pending = []*messages.PendingCommit{{CheckpointId: 3, Vertex: 2, Info: []byte("txn")}}
		if !proto.Equal(cp, want) {
			t.Fatalf("Latest(%d) = %v, want %v", p, cp, want)
		}
		b, err := s.ReadState(job, cp.Tasks[0].Handle)
		must(t, err)
		if !bytes.Equal(b, []byte{3}) {
			t.Fatalf("state of checkpoint 3 reads %v", b)
		}
	}
	l, err := s.List(job)
	must(t, err)
	if got, want := ids(l), []string{"p0/1", "p1/1", "p0/2", "p1/2", "p0/3", "p1/3"}; !slices.Equal(got, want) {
		t.Fatalf("List = %v, want %v", got, want)
	}
}

// testLastCompleted: the high-water mark of completed checkpoints, which a
// restore compares with what Latest found, follows Complete, survives a
// restart and Retain, and is per pipeline.
func testLastCompleted(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-last"
	last := func(p int) int64 {
		t.Helper()
		id, err := s.LastCompleted(job, p)
		must(t, err)
		return id
	}
	if id := last(0); id != -1 {
		t.Fatalf("LastCompleted of nothing = %d, want -1", id)
	}
	for id := int64(1); id <= 4; id++ {
		h, err := s.WriteState(job, 0, 0, id, "task-1-0", []byte{byte(id)})
		must(t, err)
		must(t, s.Complete(context.Background(), Checkpoint(job, 0, id, 0, h)))
		if got := last(0); got != id {
			t.Fatalf("after completing %d LastCompleted = %d", id, got)
		}
	}
	must(t, s.Retain(context.Background(), job, 0, 1, func(*messages.CompletedCheckpoint) bool { return false }))
	s = open()
	if got := last(0); got != 4 {
		t.Fatalf("after Retain and a restart LastCompleted = %d, want 4", got)
	}
	if got := last(1); got != -1 {
		t.Fatalf("pipeline 1 LastCompleted = %d, want -1", got)
	}
}

func testCompleteNeedsItsStates(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-3"
	h, err := s.WriteState(job, 0, 0, 1, "task-1-0", []byte("x"))
	must(t, err)
	if err := s.Complete(context.Background(), Checkpoint("other-job", 0, 1, 0, h)); err == nil {
		t.Fatal("Complete accepted a handle of another job's state")
	}
	if err := s.Complete(context.Background(), Checkpoint(job, 1, 1, 0, h)); err == nil {
		t.Fatal("Complete accepted a handle of another pipeline's state")
	}
	cp, _, err := s.Latest(job, 1)
	must(t, err)
	if cp != nil {
		t.Fatalf("a refused checkpoint was stored: %v", cp)
	}
}

func testFencedByNextAttempt(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-4"
	for want := 0; want < 3; want++ {
		a, err := s.NextAttempt(job, 0, 0)
		must(t, err)
		if a != want {
			t.Fatalf("NextAttempt = %d, want %d", a, want)
		}
	}
	// Attempt 2 is running; a leftover of attempt 1 can write nothing that counts.
	_, err := s.WriteState(job, 0, 1, 5, "task-1-0", []byte("old"))
	wantErr(t, err, storage.ErrFenced)
	wantErr(t, s.Complete(context.Background(), Checkpoint(job, 0, 5, 1)), storage.ErrFenced)
	h, err := s.WriteState(job, 0, 2, 6, "task-1-0", []byte("new"))
	must(t, err)
	must(t, s.Complete(context.Background(), Checkpoint(job, 0, 6, 2, h)))
	// Another pipeline's attempts are its own.
	must(t, s.Complete(context.Background(), Checkpoint(job, 1, 1, 0)))
	// A restarted process sees the same fence.
	s = open()
	wantErr(t, s.Complete(context.Background(), Checkpoint(job, 0, 7, 1)), storage.ErrFenced)
	cp, _, err := s.Latest(job, 0)
	must(t, err)
	if cp.GetId() != 6 {
		t.Fatalf("Latest = %d, want 6", cp.GetId())
	}
}

// testFencedByTerm: a leader that was replaced (a lower term) can start no
// attempt, so neither it nor anything it deployed writes anything that
// counts (DESIGN §6).
func testFencedByTerm(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-term"
	next := func(term uint64, want int) {
		t.Helper()
		a, err := s.NextAttempt(job, 0, term)
		must(t, err)
		if a != want {
			t.Fatalf("NextAttempt(term %d) = %d, want %d", term, a, want)
		}
	}
	next(5, 0)
	next(5, 1) // the same leader restores the pipeline
	next(9, 2) // a new leader takes over
	// The old leader wakes up and tries to fail the pipeline over.
	_, err := s.NextAttempt(job, 0, 5)
	wantErr(t, err, storage.ErrFenced)
	// What it still runs (attempt 1) writes nothing that counts.
	_, err = s.WriteState(job, 0, 1, 3, "task-0-0", []byte("old"))
	wantErr(t, err, storage.ErrFenced)
	wantErr(t, s.Complete(context.Background(), Checkpoint(job, 0, 3, 1)), storage.ErrFenced)
	// Terms are per pipeline, and survive a restart.
	s = open()
	a, err := s.NextAttempt(job, 1, 1)
	must(t, err)
	if a != 0 {
		t.Fatalf("pipeline 1's first attempt = %d", a)
	}
	_, err = s.NextAttempt(job, 0, 8)
	wantErr(t, err, storage.ErrFenced)
	next(9, 3) // the refused calls handed out nothing
	next(12, 4)
}

func testFencedByNewerCheckpoint(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-5"
	// Attempt 3 is recorded only by its checkpoint (its attempt counter is
	// not where this store looks, or was lost).
	must(t, s.Complete(context.Background(), Checkpoint(job, 0, 10, 3)))
	wantErr(t, s.Complete(context.Background(), Checkpoint(job, 0, 11, 2)), storage.ErrFenced)
	must(t, s.Complete(context.Background(), Checkpoint(job, 0, 11, 3)))
	a, err := s.NextAttempt(job, 0, 0)
	must(t, err)
	if a <= 3 {
		t.Fatalf("NextAttempt = %d after a checkpoint of attempt 3", a)
	}
}

func testAttemptsSurviveRestart(t *testing.T, open func() storage.Storage) {
	const job = "job-6"
	for want := 0; want < 4; want++ {
		a, err := open().NextAttempt(job, 2, 0)
		must(t, err)
		if a != want {
			t.Fatalf("NextAttempt after %d restarts = %d", want, a)
		}
	}
}

func testIDsNeverRepeat(t *testing.T, open func() storage.Storage) {
	const job = "job-7"
	seen := map[int64]bool{}
	var last int64
	for restart := 0; restart < 4; restart++ {
		s := open()
		if _, err := s.NextAttempt(job, 0, 0); err != nil {
			t.Fatal(err)
		}
		// Several goroutines take ids at once, as coordinators of a
		// pipeline's successive attempts might overlap.
		const n, workers = 25, 4
		got := make(chan int64, n*workers)
		errs := make(chan error, workers)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range n {
					id, err := s.NextCheckpointID(context.Background(), job, 0)
					if err != nil {
						errs <- err
						return
					}
					got <- id
				}
			})
		}
		wg.Wait()
		close(got)
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		var first int64 = -1
		for id := range got {
			if seen[id] {
				t.Fatalf("id %d handed out twice (restart %d)", id, restart)
			}
			seen[id] = true
			if first < 0 || id < first {
				first = id
			}
		}
		if first <= last {
			t.Fatalf("after restart %d the first id is %d, not above %d", restart, first, last)
		}
		for id := range seen {
			last = max(last, id)
		}
		if restart%2 == 1 { // complete the newest, as a coordinator would
			must(t, s.Complete(context.Background(), Checkpoint(job, 0, last, restart)))
		}
	}
}

func testIDsAboveCompleted(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-8"
	id, err := s.NextCheckpointID(context.Background(), job, 0)
	must(t, err)
	if id < 1 {
		t.Fatalf("first id %d", id)
	}
	// A checkpoint completed with an id this store did not hand out (say, by
	// another coordinator process) pushes the ids up, now and after a restart.
	must(t, s.Complete(context.Background(), Checkpoint(job, 0, 500, 0)))
	id, err = s.NextCheckpointID(context.Background(), job, 0)
	must(t, err)
	if id <= 500 {
		t.Fatalf("id %d after checkpoint 500 completed", id)
	}
	id, err = open().NextCheckpointID(context.Background(), job, 0)
	must(t, err)
	if id <= 500 {
		t.Fatalf("id %d after a restart", id)
	}
	// And so does state written under an id (a checkpoint that never
	// completed).
	_, err = s.WriteState(job, 1, 0, 900, "task-1-0", nil)
	must(t, err)
	id, err = open().NextCheckpointID(context.Background(), job, 1)
	must(t, err)
	if id <= 900 {
		t.Fatalf("id %d after state of checkpoint 900 was written", id)
	}
}

func testRetain(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-9"
	handles := map[int64]string{}
	write := func(id int64) {
		h, err := s.WriteState(job, 0, 0, id, "task-1-0", []byte{byte(id)})
		must(t, err)
		handles[id] = h
	}
	// 1..10 complete except 5 and 11 (11 still in progress); 10 reuses the
	// state of 1 for a finished subtask; 3 still holds a commit info.
	for id := int64(1); id <= 11; id++ {
		write(id)
		if id == 5 || id == 11 {
			continue
		}
		c := Checkpoint(job, 0, id, 0, handles[id])
		if id == 10 {
			c.Tasks = append(c.Tasks, &messages.TaskStateRef{Chain: 2, Handle: handles[1]})
		}
		if id == 3 {
			c.Pending = []*messages.PendingCommit{{CheckpointId: 3, Info: []byte("txn-3")}}
		}
		must(t, s.Complete(context.Background(), c))
	}
	wantErr(t, s.Retain(context.Background(), job, 0, 0, nil), storage.ErrInvalid)
	holdsCommit := func(c *messages.CompletedCheckpoint) bool { return len(c.Pending) > 0 }
	must(t, s.Retain(context.Background(), job, 0, 3, holdsCommit))

	l, err := s.List(job)
	must(t, err)
	if got, want := ids(l), []string{"p0/3", "p0/8", "p0/9", "p0/10"}; !slices.Equal(got, want) {
		t.Fatalf("after Retain: %v, want %v", got, want)
	}
	for id := int64(1); id <= 11; id++ {
		_, err := s.ReadState(job, handles[id])
		switch id {
		case 1, 3, 5, 8, 9, 10, 11: // kept, referenced by a kept one, or newer than the oldest kept
			must(t, err)
		default:
			wantErr(t, err, storage.ErrNotFound)
		}
	}
	// Once 3's commit is done it goes, and with it the never-completed 5.
	must(t, s.Retain(context.Background(), job, 0, 3, func(*messages.CompletedCheckpoint) bool { return false }))
	l, err = s.List(job)
	must(t, err)
	if got, want := ids(l), []string{"p0/8", "p0/9", "p0/10"}; !slices.Equal(got, want) {
		t.Fatalf("after second Retain: %v, want %v", got, want)
	}
	for _, id := range []int64{3, 5} {
		_, err := s.ReadState(job, handles[id])
		wantErr(t, err, storage.ErrNotFound)
	}
	for _, id := range []int64{1, 8, 11} {
		_, err := s.ReadState(job, handles[id])
		must(t, err)
	}
	// Retaining what is not there is fine, and stores nothing.
	must(t, s.Retain(context.Background(), "job-without-checkpoints", 0, 1, nil))
	jobs, err := s.Jobs()
	must(t, err)
	if !slices.Equal(jobs, []string{job}) {
		t.Fatalf("Jobs = %v, want [%s]", jobs, job)
	}
}

func testConcurrentWriteState(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-10"
	const workers, per = 16, 20
	type written struct {
		handle string
		data   []byte
	}
	results := make(chan written, workers*per)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				// All workers write checkpoint i+1 at once, each its own name.
				data := bytes.Repeat([]byte{byte(w), byte(i)}, 1000+w*i)
				h, err := s.WriteState(job, 0, 0, int64(i+1), fmt.Sprintf("task-%d-%d", w%3, w), data)
				if err != nil {
					errs <- err
					return
				}
				results <- written{h, data}
			}
		})
	}
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n := 0
	for r := range results {
		got, err := s.ReadState(job, r.handle)
		must(t, err)
		if !bytes.Equal(got, r.data) {
			t.Fatalf("state %s does not read back", r.handle)
		}
		n++
	}
	if n != workers*per {
		t.Fatalf("%d states written, want %d", n, workers*per)
	}
}

// testConcurrentPipelines runs what a JobMaster with three pipelines does —
// ids, states, completes, retains, restores — all at once.
func testConcurrentPipelines(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-11"
	const pipelines, rounds = 3, 15
	errs := make(chan error, pipelines*4)
	var wg sync.WaitGroup
	for p := range pipelines {
		wg.Go(func() {
			attempt, err := s.NextAttempt(job, p, 0)
			if err != nil {
				errs <- err
				return
			}
			for range rounds {
				id, err := s.NextCheckpointID(context.Background(), job, p)
				if err != nil {
					errs <- err
					return
				}
				var mu sync.Mutex
				var handles []string
				var sub sync.WaitGroup
				for task := range 4 {
					sub.Go(func() {
						h, err := s.WriteState(job, p, attempt, id, fmt.Sprintf("task-1-%d", task), []byte("state"))
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						handles = append(handles, h)
						mu.Unlock()
					})
				}
				sub.Wait()
				if err := s.Complete(context.Background(), Checkpoint(job, p, id, attempt, handles...)); err != nil {
					errs <- err
					return
				}
				if err := s.Retain(context.Background(), job, p, 2, nil); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() { // a reader, as the REST API
		for range rounds {
			if _, err := s.List(job); err != nil {
				errs <- err
				return
			}
			for p := range pipelines {
				if _, _, err := s.Latest(job, p); err != nil {
					errs <- err
					return
				}
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	l, err := s.List(job)
	must(t, err)
	if len(l) != pipelines*2 {
		t.Fatalf("%d checkpoints retained, want %d: %v", len(l), pipelines*2, ids(l))
	}
	for _, c := range l {
		for _, task := range c.Tasks {
			if _, err := s.ReadState(job, task.Handle); err != nil {
				t.Fatalf("retained checkpoint %d: %v", c.Id, err)
			}
		}
	}
}

// testTwoStores: two Storages on one backing store (a replaced leader and
// its successor), each used by two goroutines, never hand out the same
// attempt or id, and between them hand out every attempt.
func testTwoStores(t *testing.T, open func() storage.Storage, cfg config) {
	const job = "job-two"
	stores := []storage.Storage{open(), open()}
	const goroutines, per = 2, 40
	var mu sync.Mutex // guards attempts and ids
	attempts, ids := map[int]bool{}, map[int64]bool{}
	errs := make(chan error, goroutines*len(stores))
	var wg sync.WaitGroup
	for _, s := range stores {
		for range goroutines {
			wg.Go(func() {
				for range per {
					a, err := s.NextAttempt(job, 0, 0)
					if err != nil {
						errs <- err
						return
					}
					id, err := s.NextCheckpointID(context.Background(), job, 0)
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					dup := attempts[a] || ids[id]
					attempts[a], ids[id] = true, true
					mu.Unlock()
					if dup {
						errs <- fmt.Errorf("attempt %d or id %d handed out twice", a, id)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const n = goroutines * 2 * per
	for i := range n {
		if !attempts[i] {
			t.Fatalf("attempt %d never handed out", i)
		}
		if cfg.denseIDs && !ids[int64(i+1)] {
			t.Fatalf("id %d never handed out", i+1)
		}
	}
}

// testFenceAcrossStores: a leftover that wrote state before another
// Storage started a newer attempt can neither complete nor write more.
func testFenceAcrossStores(t *testing.T, open func() storage.Storage) {
	const job = "job-fence"
	old, next := open(), open()
	a0, err := old.NextAttempt(job, 0, 0)
	must(t, err)
	id, err := old.NextCheckpointID(context.Background(), job, 0)
	must(t, err)
	h, err := old.WriteState(job, 0, a0, id, "t", []byte("x"))
	must(t, err)
	a1, err := next.NextAttempt(job, 0, 0)
	must(t, err)
	wantErr(t, old.Complete(context.Background(), Checkpoint(job, 0, id, a0, h)), storage.ErrFenced)
	_, err = old.WriteState(job, 0, a0, id, "t", []byte("x"))
	wantErr(t, err, storage.ErrFenced)
	id1, err := next.NextCheckpointID(context.Background(), job, 0)
	must(t, err)
	if id1 <= id {
		t.Fatalf("new attempt's id %d not above %d", id1, id)
	}
	must(t, next.Complete(context.Background(), Checkpoint(job, 0, id1, a1)))
}

func testJobs(t *testing.T, open func() storage.Storage) {
	s := open()
	jobs, err := s.Jobs()
	must(t, err)
	if len(jobs) != 0 {
		t.Fatalf("Jobs of an empty store = %v", jobs)
	}
	_, err = s.LoadJob("nope")
	wantErr(t, err, storage.ErrNotFound)
	spec := &messages.JobSpec{JobId: "j-1", File: "jobs/a.conf", Vars: map[string]string{"dt": "2024-01-01"}, Name: "nightly",
		Resolved: &messages.ResolvedJob{Tree: &messages.Hocon{Kind: 4, Fields: []*messages.HoconField{{Key: "env", Value: &messages.Hocon{Kind: 4}}}},
			Vertices: []*messages.ResolvedVertex{{Id: 0, Name: "Source[0]-FakeSource", Parallelism: 2, Resolved: []byte("x")}}}}
	must(t, s.SaveJob(spec))
	_, err = s.NextAttempt("j-2", 0, 0)
	must(t, err)
	s = open()
	got, err := s.LoadJob("j-1")
	must(t, err)
	if !proto.Equal(got, spec) {
		t.Fatalf("LoadJob = %v, want %v", got, spec)
	}
	spec.Vars["dt"] = "2024-01-02"
	must(t, s.SaveJob(spec))
	got, err = s.LoadJob("j-1")
	must(t, err)
	if got.Vars["dt"] != "2024-01-02" {
		t.Fatalf("SaveJob did not replace the spec: %v", got)
	}
	jobs, err = s.Jobs()
	must(t, err)
	if !slices.Equal(jobs, []string{"j-1", "j-2"}) {
		t.Fatalf("Jobs = %v", jobs)
	}
}

// testAnyJobID: a job id is the user's (--job-id), so every string works
// and stays apart from every other.
func testAnyJobID(t *testing.T, open func() storage.Storage) {
	s := open()
	weird := []string{"a/b", "a%2Fb", "..", ".", "../x", "/abs", `a\b`, ".tmp-x", "x.y", "x..y", "日本", "a b", "%", "a\x00b"}
	for i, job := range weird {
		must(t, s.SaveJob(&messages.JobSpec{JobId: job, Name: job}))
		h, err := s.WriteState(job, 0, 0, 1, job, []byte(job))
		must(t, err)
		must(t, s.Complete(context.Background(), Checkpoint(job, 0, int64(i+1), 0, h)))
	}
	s = open()
	for i, job := range weird {
		spec, err := s.LoadJob(job)
		must(t, err)
		if spec.Name != job {
			t.Fatalf("job %q loads the spec of %q", job, spec.Name)
		}
		cp, _, err := s.Latest(job, 0)
		must(t, err)
		if cp.GetId() != int64(i+1) {
			t.Fatalf("job %q: latest %d, want %d", job, cp.GetId(), i+1)
		}
		b, err := s.ReadState(job, cp.Tasks[0].Handle)
		must(t, err)
		if string(b) != job {
			t.Fatalf("job %q reads state %q", job, b)
		}
	}
	jobs, err := s.Jobs()
	must(t, err)
	want := slices.Clone(weird)
	slices.Sort(want)
	if !slices.Equal(jobs, want) {
		t.Fatalf("Jobs = %q, want %q", jobs, want)
	}
}

func testInvalidArguments(t *testing.T, open func() storage.Storage) {
	s := open()
	_, err := s.WriteState("", 0, 0, 1, "x", nil)
	wantErr(t, err, storage.ErrInvalid)
	_, err = s.WriteState("j", 0, 0, 1, "", nil)
	wantErr(t, err, storage.ErrInvalid)
	_, err = s.WriteState("j", -1, 0, 1, "x", nil)
	wantErr(t, err, storage.ErrInvalid)
	_, err = s.WriteState("j", 0, -1, 1, "x", nil)
	wantErr(t, err, storage.ErrInvalid)
	_, err = s.NextAttempt("", 0, 0)
	wantErr(t, err, storage.ErrInvalid)
	wantErr(t, s.Complete(context.Background(), nil), storage.ErrInvalid)
	wantErr(t, s.Complete(context.Background(), Checkpoint("j", 0, -1, 0)), storage.ErrInvalid)
	wantErr(t, s.SaveJob(&messages.JobSpec{}), storage.ErrInvalid)
	for _, h := range []string{"", "x", "../../etc/passwd", "/etc/passwd"} {
		_, err = s.ReadState("j", h)
		wantErr(t, err, storage.ErrInvalid)
	}
}

// testCompleteAgainReplaces: a checkpoint completed again (the
// coordinator adds its commit times once they are in) replaces its
// metadata, also when a newer checkpoint of the attempt is stored.
func testCompleteAgainReplaces(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-again"
	var cps []*messages.CompletedCheckpoint
	for id := int64(1); id <= 2; id++ {
		h, err := s.WriteState(job, 0, 0, id, "task-1-0", []byte{byte(id)})
		must(t, err)
		c := Checkpoint(job, 0, id, 0, h)
		must(t, s.Complete(context.Background(), c))
		cps = append(cps, c)
	}
	again := proto.Clone(cps[0]).(*messages.CompletedCheckpoint)
	again.Commits = []*messages.CommitTiming{{Vertex: 2, CommitUs: 1234}}
	again.CommittedUnixMs = 99
	must(t, s.Complete(context.Background(), again))
	l, err := open().List(job)
	must(t, err)
	if len(l) != 2 || !proto.Equal(l[0], again) || !proto.Equal(l[1], cps[1]) {
		t.Fatalf("List after completing 1 again = %v", l)
	}
	latest, _, err := s.Latest(job, 0)
	must(t, err)
	if latest.GetId() != 2 {
		t.Fatalf("Latest = %v, want checkpoint 2", latest)
	}
}

// A coordinator call whose context is done (its checkpoint's deadline
// passed while it waited) fails with the context's error and stores
// nothing: no checkpoint that counts, nothing retained away, no id used.
func testGivesUpWithItsContext(t *testing.T, open func() storage.Storage) {
	s := open()
	const job = "job-ctx"
	done, cancel := context.WithCancel(context.Background())
	cancel()
	first, err := s.NextCheckpointID(context.Background(), job, 0)
	must(t, err)
	h, err := s.WriteState(job, 0, 0, first, "task-1-0", []byte{1})
	must(t, err)
	must(t, s.Complete(context.Background(), Checkpoint(job, 0, first, 0, h)))
	if _, err := s.NextCheckpointID(done, job, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("NextCheckpointID with a done context = %v, want context.Canceled", err)
	}
	h2, err := s.WriteState(job, 0, 0, first+1, "task-1-0", []byte{2})
	must(t, err)
	if err := s.Complete(done, Checkpoint(job, 0, first+1, 0, h2)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Complete with a done context = %v, want context.Canceled", err)
	}
	if err := s.Retain(done, job, 0, 1, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Retain with a done context = %v, want context.Canceled", err)
	}
	latest, _, err := open().Latest(job, 0)
	must(t, err)
	if latest.GetId() != first {
		t.Fatalf("Latest after a Complete that gave up = %v, want checkpoint %d", latest, first)
	}
	if last, err := s.LastCompleted(job, 0); err != nil || last != first {
		t.Fatalf("LastCompleted = %d, %v; want %d", last, err, first)
	}
}
