package jetstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
	"github.com/stactor/stactor/storage/storagetest"
)

// TestConformance runs the shared suite; every open is a new connection and
// a new Store on the same buckets, as a restarted process would make. Ids
// come from a compare-and-set on the register, one at a time, so they have
// no gaps.
func TestConformance(t *testing.T) {
	srv := runServer(t, t.TempDir(), -1)
	storagetest.Run(t, func(t *testing.T) func() storage.Storage {
		prefix := newPrefix()
		return func() storage.Storage { return openStore(t, connect(t, srv.ClientURL()), prefix) }
	}, storagetest.DenseIDs())
}

// fixture is one server, one connection and one Store.
type fixture struct {
	url    string
	prefix string
	s      *Store
}

func newFixture(t *testing.T) fixture {
	srv := runServer(t, t.TempDir(), -1)
	prefix := newPrefix()
	return fixture{srv.ClientURL(), prefix, openStore(t, connect(t, srv.ClientURL()), prefix)}
}

// another opens a second Store on the same buckets, as another process.
func (f fixture) another(t *testing.T) *Store {
	return openStore(t, connect(t, f.url), f.prefix)
}

func keys(t *testing.T, s *Store) []string {
	t.Helper()
	m, err := s.listKeys(testCtx(t), ">")
	must(t, err)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func objects(t *testing.T, s *Store) []string {
	t.Helper()
	infos, err := s.obs.List(testCtx(t))
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	must(t, err)
	var out []string
	for _, i := range infos {
		out = append(out, i.Name)
	}
	slices.Sort(out)
	return out
}

func TestLayout(t *testing.T) {
	s := newFixture(t).s
	must(t, s.SaveJob(&messages.JobSpec{JobId: "nightly"}))
	a, err := s.NextAttempt("nightly", 1, 0)
	must(t, err)
	id, err := s.NextCheckpointID(context.Background(), "nightly", 1)
	must(t, err)
	h, err := s.WriteState("nightly", 1, a, id, "task-2.0", []byte("x"))
	must(t, err)
	if h != "pipeline-1/state/1/0-task-2=2E0" {
		t.Fatalf("handle %s", h)
	}
	must(t, s.Complete(context.Background(), storagetest.Checkpoint("nightly", 1, id, a, h)))
	wantKeys := []string{
		"nightly.job",
		"nightly.pipeline-1",
		"nightly.pipeline-1.completed.1",
		"nightly.pipeline-1.state.1.0.task-2=2E0",
	}
	if got := keys(t, s); !slices.Equal(got, wantKeys) {
		t.Fatalf("keys:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantKeys, "\n"))
	}
	wantObjects := []string{
		"nightly/job",
		"nightly/pipeline-1/completed/00000000000000000001",
		"nightly/pipeline-1/state/1/0-task-2=2E0",
	}
	if got := objects(t, s); !slices.Equal(got, wantObjects) {
		t.Fatalf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantObjects, "\n"))
	}
	b, err := s.obs.GetBytes(testCtx(t), wantObjects[1])
	must(t, err)
	if !strings.HasPrefix(string(b), magic) {
		t.Fatalf("metadata starts %q", b[:8])
	}
	e, err := s.kv.Get(testCtx(t), "nightly.pipeline-1")
	must(t, err)
	r, err := decodeRegister(e.Value())
	must(t, err)
	if r.attempt != 0 || r.ckptAttempt != 0 || r.id != 1 || !slices.Equal(r.completed, []int64{1}) {
		t.Fatalf("register %+v", r)
	}
}

// completeN completes checkpoints 1..n of job pipeline 0 and returns the
// name of each metadata object.
func completeN(t *testing.T, s *Store, job string, n int) map[int64]string {
	t.Helper()
	names := map[int64]string{}
	for id := int64(1); id <= int64(n); id++ {
		h, err := s.WriteState(job, 0, 0, id, "task-1-0", []byte{byte(id)})
		must(t, err)
		must(t, s.Complete(context.Background(), storagetest.Checkpoint(job, 0, id, 0, h)))
		names[id] = completedObject(job, 0, id)
	}
	return names
}

// rewrite replaces an object through the object store: its digest is
// computed over the new bytes, so only the frame can tell they are bad.
func rewrite(t *testing.T, s *Store, name string, b []byte) {
	t.Helper()
	must(t, s.putObject(testCtx(t), name, b))
}

// damageChunk replaces the bytes of an object's (only) chunk under its meta
// message, as a disk fault would: the digest no longer matches.
func damageChunk(t *testing.T, s *Store, name string, damage func([]byte) []byte) {
	t.Helper()
	ctx := testCtx(t)
	info, _, err := s.objectInfo(ctx, name)
	must(t, err)
	subj := s.chunkSubject(info.NUID)
	m, err := s.objStream.GetLastMsgForSubject(ctx, subj)
	must(t, err)
	must(t, s.objStream.DeleteMsg(ctx, m.Sequence))
	_, err = s.js.Publish(ctx, subj, damage(slices.Clone(m.Data)))
	must(t, err)
}

// TestLatestSkipsCorrupt damages the newest metadata object in every way
// it can be damaged in the object store — each byte flipped or the object
// cut short (digest intact, frame wrong), its chunk changed under the
// digest, its chunk or all of it gone, its meta garbled, another
// checkpoint's object copied over it — and Latest must fall back to the
// previous checkpoint and say why.
func TestLatestSkipsCorrupt(t *testing.T) {
	s := newFixture(t).s
	const job = "j"
	names := completeN(t, s, job, 12)
	orig, err := s.readObject(testCtx(t), names[12])
	must(t, err)

	check := func(what, reason string) {
		t.Helper()
		cp, warns, err := s.Latest(job, 0)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if cp.GetId() != 11 {
			t.Fatalf("%s: Latest = %d, want 11", what, cp.GetId())
		}
		if len(warns) != 1 || !strings.HasPrefix(warns[0], "checkpoint 12 of job j pipeline 0 is corrupt ("+reason) || !strings.HasSuffix(warns[0], "; using checkpoint 11") {
			t.Fatalf("%s: warnings %q", what, warns)
		}
	}
	for i := range orig {
		b := slices.Clone(orig)
		b[i] ^= 0x10
		rewrite(t, s, names[12], b)
		check(fmt.Sprintf("byte %d flipped", i), "")
	}
	for _, n := range []int{0, 1, headerLen - 1, headerLen, len(orig) - 1} {
		rewrite(t, s, names[12], orig[:n])
		check(fmt.Sprintf("cut to %d bytes", n), "")
	}
	b := slices.Clone(orig)
	b[len(b)-1] ^= 1
	rewrite(t, s, names[12], b)
	check("last byte flipped", "checksum mismatch")
	other, err := s.readObject(testCtx(t), names[10])
	must(t, err)
	rewrite(t, s, names[12], other)
	check("checkpoint 10 copied over 12", "it holds checkpoint 10")

	// Under the object store's digest.
	for _, i := range []int{0, headerLen, len(orig) - 1} {
		rewrite(t, s, names[12], orig)
		damageChunk(t, s, names[12], func(b []byte) []byte { b[i] ^= 0x01; return b })
		check(fmt.Sprintf("stored byte %d flipped", i), "object digest mismatch")
	}
	rewrite(t, s, names[12], orig)
	damageChunk(t, s, names[12], func(b []byte) []byte { return b[:len(b)/2] })
	check("stored chunk cut short", fmt.Sprintf("%d bytes in the chunks, %d in the object meta", len(orig)/2, len(orig)))

	rewrite(t, s, names[12], orig)
	info, seq, err := s.objectInfo(testCtx(t), names[12])
	must(t, err)
	must(t, s.objStream.Purge(testCtx(t), jetstream.WithPurgeSubject(s.chunkSubject(info.NUID))))
	check("chunk gone", "missing chunk 1 of 1")

	must(t, s.objStream.DeleteMsg(testCtx(t), seq))
	check("object gone", "its metadata object is missing")

	_, err = s.js.Publish(testCtx(t), s.metaSubject(names[12]), []byte("{not json"))
	must(t, err)
	check("meta garbled", "undecodable object meta")

	// List leaves it out.
	l, err := s.List(job)
	must(t, err)
	if len(l) != 11 || l[10].Id != 11 {
		t.Fatalf("List has %d checkpoints, last %d", len(l), l[len(l)-1].Id)
	}
	// Once restored it is whole again.
	rewrite(t, s, names[12], orig)
	cp, warns, err := s.Latest(job, 0)
	if err != nil || cp.GetId() != 12 || len(warns) != 0 {
		t.Fatalf("repaired: %d %q %v", cp.GetId(), warns, err)
	}
}

func TestLatestAllCorrupt(t *testing.T) {
	s := newFixture(t).s
	names := completeN(t, s, "j", 3)
	for _, n := range names {
		rewrite(t, s, n, []byte("stactor"))
	}
	cp, warns, err := s.Latest("j", 0)
	must(t, err)
	if cp != nil || len(warns) != 3 {
		t.Fatalf("Latest = %v, %q", cp, warns)
	}
	for i, w := range warns {
		if !strings.HasPrefix(w, fmt.Sprintf("checkpoint %d of job j pipeline 0 is corrupt (truncated", 3-i)) || !strings.HasSuffix(w, "no intact checkpoint is left") {
			t.Fatalf("warning %q", w)
		}
	}
	// Nothing intact means nothing to retain against: everything stays.
	before := objects(t, s)
	must(t, s.Retain(context.Background(), "j", 0, 1, nil))
	if after := objects(t, s); !slices.Equal(after, before) {
		t.Fatalf("Retain deleted %v", after)
	}
}

// TestRetainCorruptAndLeftovers: corrupt checkpoints older than the oldest
// kept one go, the newest stays for inspection; objects a crash left behind
// (a metadata object never committed, states of a checkpoint that never
// completed) go once they are older than the oldest kept checkpoint.
func TestRetainCorruptAndLeftovers(t *testing.T) {
	s := newFixture(t).s
	ctx := testCtx(t)
	// Leftovers of a Complete of checkpoint 0 that crashed before its commit.
	h0, err := s.WriteState("j", 0, 0, 0, "task-1-0", []byte("zero"))
	must(t, err)
	must(t, s.putMarker(ctx, completedMarker("j", 0, 0)))
	must(t, s.putObject(ctx, completedObject("j", 0, 0), frame([]byte("never committed"))))
	names := completeN(t, s, "j", 6)
	rewrite(t, s, names[2], []byte("garbage")) // older than the kept ones: goes
	rewrite(t, s, names[6], []byte("garbage")) // newest: stays for inspection
	// A Complete of 7 in flight: written, not committed yet.
	must(t, s.putMarker(ctx, completedMarker("j", 0, 7)))
	must(t, s.putObject(ctx, completedObject("j", 0, 7), frame([]byte("in flight"))))

	must(t, s.Retain(context.Background(), "j", 0, 2, nil))
	want := []string{
		"j/pipeline-0/completed/00000000000000000004",
		"j/pipeline-0/completed/00000000000000000005",
		"j/pipeline-0/completed/00000000000000000006",
		"j/pipeline-0/completed/00000000000000000007",
		"j/pipeline-0/state/4/0-task-1-0",
		"j/pipeline-0/state/5/0-task-1-0",
		"j/pipeline-0/state/6/0-task-1-0",
	}
	if got := objects(t, s); !slices.Equal(got, want) {
		t.Fatalf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantKeys := []string{
		"j.pipeline-0",
		"j.pipeline-0.completed.4", "j.pipeline-0.completed.5", "j.pipeline-0.completed.6", "j.pipeline-0.completed.7",
		"j.pipeline-0.state.4.0.task-1-0", "j.pipeline-0.state.5.0.task-1-0", "j.pipeline-0.state.6.0.task-1-0",
	}
	if got := keys(t, s); !slices.Equal(got, wantKeys) {
		t.Fatalf("keys:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantKeys, "\n"))
	}
	if _, err := s.ReadState("j", h0); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("ReadState of a removed leftover: %v", err)
	}
	r, _, err := s.readRegister(ctx, registerKey("j", 0))
	must(t, err)
	if !slices.Equal(r.completed, []int64{4, 5, 6}) {
		t.Fatalf("committed %v", r.completed)
	}
	_, warns, err := s.Latest("j", 0)
	must(t, err)
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "checkpoint 6 of job j pipeline 0 is corrupt") {
		t.Fatalf("warnings %q", warns)
	}
}

// TestNoTombstones: what Retain deletes leaves nothing behind in the
// streams — no object-store delete markers, no KV delete markers — so a
// long-running job's buckets stay the size of what is kept.
func TestNoTombstones(t *testing.T) {
	s := newFixture(t).s
	for id := int64(1); id <= 20; id++ {
		var hs []string
		for task := range 2 {
			h, err := s.WriteState("j", 0, 0, id, fmt.Sprintf("task-1-%d", task), []byte("state"))
			must(t, err)
			hs = append(hs, h)
		}
		must(t, s.Complete(context.Background(), storagetest.Checkpoint("j", 0, id, 0, hs...)))
		must(t, s.Retain(context.Background(), "j", 0, 1, nil))
	}
	ctx := testCtx(t)
	kvInfo, err := s.kvStream.Info(ctx)
	must(t, err)
	objInfo, err := s.objStream.Info(ctx)
	must(t, err)
	// KV: the register and three markers; objects: three, each a meta
	// message and one chunk.
	if kvInfo.State.Msgs != 4 || objInfo.State.Msgs != 6 {
		t.Fatalf("after 20 checkpoints with one retained: %d KV messages (want 4), %d object messages (want 6)", kvInfo.State.Msgs, objInfo.State.Msgs)
	}
}

func TestReadStateCorrupt(t *testing.T) {
	s := newFixture(t).s
	h, err := s.WriteState("j", 0, 0, 1, "t", []byte("hello state"))
	must(t, err)
	name := stateObject("j", mustHandle(t, h))
	damageChunk(t, s, name, func(b []byte) []byte { b[3] ^= 0xff; return b })
	if _, err := s.ReadState("j", h); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), "digest mismatch") {
		t.Fatalf("ReadState of a damaged blob: %v", err)
	}
	// A blob of several chunks with one lost.
	big := bytes.Repeat([]byte("0123456789abcdef"), 20_000) // 320 kB: three chunks
	h, err = s.WriteState("j", 0, 0, 2, "t", big)
	must(t, err)
	got, err := s.ReadState("j", h)
	must(t, err)
	if !bytes.Equal(got, big) {
		t.Fatal("a blob of three chunks does not read back")
	}
	ctx := testCtx(t)
	info, _, err := s.objectInfo(ctx, stateObject("j", mustHandle(t, h)))
	must(t, err)
	if info.Chunks != 3 {
		t.Fatalf("%d chunks", info.Chunks)
	}
	m, err := s.objStream.GetLastMsgForSubject(ctx, s.chunkSubject(info.NUID))
	must(t, err)
	must(t, s.objStream.DeleteMsg(ctx, m.Sequence))
	if _, err := s.ReadState("j", h); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), "missing chunk 3 of 3") {
		t.Fatalf("ReadState of a blob with a lost chunk: %v", err)
	}
}

func mustHandle(t *testing.T, s string) names.Handle {
	t.Helper()
	h, err := tokenNames.ParseHandle(s)
	must(t, err)
	return h
}

func TestCorruptRegisterIsAnError(t *testing.T) {
	s := newFixture(t).s
	_, err := s.NextAttempt("j", 0, 0)
	must(t, err)
	_, err = s.kv.Put(testCtx(t), registerKey("j", 0), frame([]byte{registerVersion, 0xff}))
	must(t, err)
	if _, err := s.NextAttempt("j", 0, 0); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("NextAttempt over a corrupt register: %v", err)
	}
	// Fencing must not guess either.
	if err := s.Complete(context.Background(), storagetest.Checkpoint("j", 0, 1, 0)); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Complete over a corrupt register: %v", err)
	}
	if _, _, err := s.Latest("j", 0); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Latest over a corrupt register: %v", err)
	}
}

func TestLoadJobOfAnotherID(t *testing.T) {
	s := newFixture(t).s
	must(t, s.SaveJob(&messages.JobSpec{JobId: "a"}))
	b, err := s.readObject(testCtx(t), jobObject("a"))
	must(t, err)
	rewrite(t, s, jobObject("b"), b)
	if _, err := s.LoadJob("b"); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("LoadJob of a copied spec: %v", err)
	}
}

// TestFencedBetweenWriteAndCommit: the new attempt starts after the old
// coordinator's Complete passed its fence check and wrote its metadata, but
// before it committed. The commit's compare-and-set sees the fence: the
// checkpoint is refused, never counts, and its object is taken away.
func TestFencedBetweenWriteAndCommit(t *testing.T) {
	f := newFixture(t)
	old, next := f.s, f.another(t)
	completeN(t, old, "j", 1)
	var a1 int
	old.testHookBeforeCommit = func() {
		var err error
		a1, err = next.NextAttempt("j", 0, 0)
		must(t, err)
		// The new attempt restores now, and must not see checkpoint 2.
		cp, _, err := next.Latest("j", 0)
		must(t, err)
		if cp.GetId() != 1 {
			t.Errorf("Latest during the race = %d, want 1", cp.GetId())
		}
	}
	err := old.Complete(context.Background(), storagetest.Checkpoint("j", 0, 2, 0))
	if !errors.Is(err, storage.ErrFenced) || a1 != 1 {
		t.Fatalf("Complete fenced in flight: %v (new attempt %d)", err, a1)
	}
	cp, _, err := next.Latest("j", 0)
	must(t, err)
	if cp.GetId() != 1 {
		t.Fatalf("Latest = %d, want 1", cp.GetId())
	}
	for _, o := range objects(t, next) {
		if strings.Contains(o, "/completed/") && !strings.HasSuffix(o, "/00000000000000000001") {
			t.Fatalf("the refused checkpoint's object %s is still stored", o)
		}
	}
	if slices.Contains(keys(t, next), completedMarker("j", 0, 2)) {
		t.Fatal("the refused checkpoint's marker is still stored")
	}
}

// TestServerRestart: everything survives the server going away and coming
// back on the same store directory and port; the Store that was open goes
// on once its connection is back, and a new one sees the same.
func TestServerRestart(t *testing.T) {
	dir := t.TempDir()
	srv := runServer(t, dir, -1)
	port := srv.Addr().(*net.TCPAddr).Port
	nc := connect(t, srv.ClientURL())
	prefix := newPrefix()
	s := openStore(t, nc, prefix)

	spec := &messages.JobSpec{JobId: "j", Name: "nightly", Resolved: &messages.ResolvedJob{Tree: &messages.Hocon{Kind: 4}}}
	must(t, s.SaveJob(spec))
	a, err := s.NextAttempt("j", 0, 0)
	must(t, err)
	big := bytes.Repeat([]byte{1, 2, 3}, 1<<18)
	var last int64
	var handle string
	for range 3 {
		id, err := s.NextCheckpointID(context.Background(), "j", 0)
		must(t, err)
		handle, err = s.WriteState("j", 0, a, id, "task-1-0", append(big, byte(id)))
		must(t, err)
		must(t, s.Complete(context.Background(), storagetest.Checkpoint("j", 0, id, a, handle)))
		last = id
	}

	srv.Shutdown()
	srv.WaitForShutdown()
	srv = runServer(t, dir, port)
	checkFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		if !nc.IsConnected() {
			return errors.New("not reconnected")
		}
		return nil
	})

	for i, st := range []*Store{s, openStore(t, connect(t, srv.ClientURL()), prefix)} {
		got, err := st.LoadJob("j")
		must(t, err)
		if got.Name != "nightly" {
			t.Fatalf("store %d: spec %v", i, got)
		}
		cp, warns, err := st.Latest("j", 0)
		must(t, err)
		if cp.GetId() != last || len(warns) != 0 {
			t.Fatalf("store %d: Latest = %d %q, want %d", i, cp.GetId(), warns, last)
		}
		b, err := st.ReadState("j", cp.Tasks[0].Handle)
		must(t, err)
		if !bytes.Equal(b, append(big, byte(last))) {
			t.Fatalf("store %d: state does not read back", i)
		}
		l, err := st.List("j")
		must(t, err)
		if len(l) != 3 {
			t.Fatalf("store %d: %d checkpoints listed", i, len(l))
		}
	}
	// The counters went on where they were.
	a2, err := s.NextAttempt("j", 0, 0)
	must(t, err)
	id, err := s.NextCheckpointID(context.Background(), "j", 0)
	must(t, err)
	if a2 != a+1 || id != last+1 {
		t.Fatalf("after the restart: attempt %d, id %d; want %d, %d", a2, id, a+1, last+1)
	}
	if err := s.Complete(context.Background(), storagetest.Checkpoint("j", 0, id, a)); !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("Complete of the attempt before the restart: %v", err)
	}
	must(t, s.Complete(context.Background(), storagetest.Checkpoint("j", 0, id, a2)))
}

func TestNewInvalid(t *testing.T) {
	srv := runServer(t, t.TempDir(), -1)
	nc := connect(t, srv.ClientURL())
	for _, p := range []string{"", "a.b", "a b", "a*"} {
		if _, err := New(testCtx(t), nc, p); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("New with prefix %q: %v", p, err)
		}
	}
	if _, err := New(testCtx(t), nil, "x"); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("New without a connection: %v", err)
	}
	// The buckets are created once, with direct gets off, and reopened.
	s := openStore(t, nc, "x")
	openStore(t, nc, "x")
	for _, st := range []jetstream.Stream{s.kvStream, s.objStream} {
		if st.CachedInfo().Config.AllowDirect {
			t.Fatalf("stream %s allows direct gets", st.CachedInfo().Config.Name)
		}
	}
	s.Close()
	if _, err := s.NextAttempt("j", 0, 0); err == nil {
		t.Fatal("a closed Store handed out an attempt")
	}
}

// TestCallBehindAStuckOneGivesUpAtItsDeadline: a call that waits for the
// pipeline's lock behind one JetStream has not answered (held here in
// Complete before its commit) fails at its own context's deadline instead
// of after the stuck call's timeout; once the stuck call returns, the
// pipeline's calls go through again.
func TestCallBehindAStuckOneGivesUpAtItsDeadline(t *testing.T) {
	s := newFixture(t).s
	completeN(t, s, "j", 1)
	stuck, free := make(chan struct{}), make(chan struct{})
	s.testHookBeforeCommit = func() { close(stuck); <-free }
	done := make(chan error, 1)
	go func() { done <- s.Complete(context.Background(), storagetest.Checkpoint("j", 0, 2, 0)) }()
	<-stuck
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := s.NextCheckpointID(ctx, "j", 0)
	if took := time.Since(began); !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
		t.Fatalf("NextCheckpointID behind a stuck Complete: %v after %s, want its deadline's error at 200ms", err, took)
	}
	close(free)
	must(t, <-done)
	s.testHookBeforeCommit = nil
	if id, err := s.NextCheckpointID(context.Background(), "j", 0); err != nil || id <= 2 {
		t.Fatalf("NextCheckpointID after = %d, %v", id, err)
	}
}
