package cdc

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// harness plays the engine for one enumerator and its readers, in one
// goroutine: messages between them are queues delivered in order per
// reader; a checkpoint snapshots the enumerator, delivers what it had
// sent before (the trigger follows it), then snapshots the readers, with
// the readers' events to the enumerator possibly still in flight; a crash
// drops what is in flight and restores from the last checkpoint with
// another parallelism, and the output goes back to what that checkpoint
// held (an exactly-once sink), or, with upsert, keeps what was emitted
// after it (an upsert sink keeps what a killed run wrote).
type harness struct {
	t       *testing.T
	upsert  bool
	src     *source
	enum    *enumerator
	readers []*reader
	toEnum  [][]func() error // per reader, in order
	toRdr   [][]func() error
	ended   []bool
	out     []outRow
	// the last checkpoint
	ckID    int64
	ckEnum  []byte
	ckSplit []connectors.Split
	ckOut   int
}

type outRow struct {
	kind row.Kind
	id   int64
	v    string
}

type hEnumCtx struct{ h *harness }

func (c hEnumCtx) Parallelism() int { return len(c.h.readers) }
func (c hEnumCtx) RegisteredReaders() []int {
	out := make([]int, len(c.h.readers))
	for i := range out {
		out[i] = i
	}
	return out
}
func (c hEnumCtx) AssignSplits(i int, splits ...connectors.Split) {
	c.h.toRdr[i] = append(c.h.toRdr[i], func() error { return c.h.readers[i].AddSplits(splits) })
}
func (c hEnumCtx) SignalNoMoreSplits(i int) {
	c.h.toRdr[i] = append(c.h.toRdr[i], func() error { return c.h.readers[i].HandleNoMoreSplits() })
}

type hReaderCtx struct {
	h *harness
	i int
}

func (c hReaderCtx) Task() connectors.TaskInfo           { return connectors.TaskInfo{SubtaskIndex: c.i} }
func (c hReaderCtx) Boundedness() connectors.Boundedness { return connectors.Unbounded }
func (c hReaderCtx) SignalNoMoreElement()                { c.h.ended[c.i] = true }
func (c hReaderCtx) SendSplitRequest() {
	c.h.toEnum[c.i] = append(c.h.toEnum[c.i], func() error { return c.h.enum.HandleSplitRequest(c.i) })
}
func (c hReaderCtx) SendSourceEvent(data []byte) {
	c.h.toEnum[c.i] = append(c.h.toEnum[c.i], func() error { return c.h.enum.HandleSourceEvent(c.i, data) })
}

type hCollector struct{ h *harness }

func (c hCollector) BatchSize() int { return 64 }
func (c hCollector) Emit(b *row.Batch) {
	if b == nil {
		return
	}
	for i := 0; i < b.Len(); i++ {
		c.h.out = append(c.h.out, outRow{kind: b.Kind(i), id: b.Cols[0].Ints[i], v: b.Cols[1].Str(i)})
	}
}

// start (re)creates the parts: fresh when state is nil.
func (h *harness) start(par int, state []byte, splits []connectors.Split) {
	h.t.Helper()
	for _, r := range h.readers {
		_ = r.Close()
	}
	if h.enum != nil {
		_ = h.enum.Close()
	}
	h.readers = make([]*reader, par)
	h.toEnum, h.toRdr, h.ended = make([][]func() error, par), make([][]func() error, par), make([]bool, par)
	d, _ := h.src.dialect()
	e, err := newEnumerator(hEnumCtx{h}, h.src, d, state)
	if err != nil {
		h.t.Fatal(err)
	}
	h.enum = e
	if err := e.Open(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	if err := e.AddSplitsBack(splits, 0); err != nil {
		h.t.Fatal(err)
	}
	for i := range h.readers {
		d, _ := h.src.dialect()
		h.readers[i] = newReader(hReaderCtx{h, i}, h.src, d)
		if err := h.readers[i].Open(context.Background()); err != nil {
			h.t.Fatal(err)
		}
		if err := e.RegisterReader(i); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := e.Run(); err != nil {
		h.t.Fatal(err)
	}
}

func deliver(t *testing.T, qs [][]func() error) {
	t.Helper()
	for i := range qs {
		for len(qs[i]) > 0 {
			f := qs[i][0]
			qs[i] = qs[i][1:]
			if err := f(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// step delivers the messages (the readers' ones only sometimes, so events
// are in flight at checkpoints) and polls every reader once.
func (h *harness) step(rng *rand.Rand) {
	if rng.Intn(3) > 0 {
		deliver(h.t, h.toEnum)
	}
	deliver(h.t, h.toRdr)
	for _, r := range h.readers {
		if err := r.PollNext(hCollector{h}); err != nil {
			h.t.Fatal(err)
		}
	}
}

func (h *harness) checkpoint() {
	h.ckID++
	st, err := h.enum.SnapshotState(h.ckID)
	if err != nil {
		h.t.Fatal(err)
	}
	deliver(h.t, h.toRdr)
	var splits []connectors.Split
	for _, r := range h.readers {
		s, err := r.SnapshotState(h.ckID)
		if err != nil {
			h.t.Fatal(err)
		}
		splits = append(splits, s...)
	}
	h.ckEnum, h.ckSplit, h.ckOut = st, splits, len(h.out)
	if err := h.enum.NotifyCheckpointComplete(h.ckID); err != nil {
		h.t.Fatal(err)
	}
	for _, r := range h.readers {
		if err := r.NotifyCheckpointComplete(h.ckID); err != nil {
			h.t.Fatal(err)
		}
	}
}

func (h *harness) crash(par int) {
	if !h.upsert {
		h.out = h.out[:h.ckOut]
	}
	h.start(par, h.ckEnum, h.ckSplit)
}

// streaming tells whether a reader streams at an offset at or past want.
func (h *harness) caughtUp(want int) bool {
	for _, r := range h.readers {
		if r.stream != nil && r.stream.Skip == 0 {
			if n, _ := atoi(r.stream.Pos); n >= want {
				return true
			}
		}
	}
	return false
}

func TestIncrementalSnapshot(t *testing.T) {
	for _, exactly := range []bool{true, false} {
		for seed := int64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("exactly_once=%v/seed=%d", exactly, seed), func(t *testing.T) { runAlgorithm(t, exactly, false, false, seed) })
		}
	}
}

// TestIncrementalSnapshotTableAddedOnRestore: a job that captured only
// db.empty is restored capturing db.t too, listed first (so every table
// index of the checkpoint moves): db.t, written to all along, is
// snapshotted in chunks while its writes go on and the stream waits, then
// the stream carries on from its position with db.t's changes — into an
// exactly-once sink every change once, into an upsert sink the table.
func TestIncrementalSnapshotTableAddedOnRestore(t *testing.T) {
	for _, exactly := range []bool{true, false} {
		for seed := int64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("exactly_once=%v/seed=%d", exactly, seed), func(t *testing.T) { runAlgorithm(t, exactly, !exactly, true, seed) })
		}
	}
}

// A restore cannot drop a captured table.
func TestRestoreWithoutACapturedTableIsRefused(t *testing.T) {
	db := newFakeDB(10, 1)
	commits := &offsetLog{}
	h := &harness{t: t, src: fakeSource(db, true, 4, commits, "db.t", "db.empty")}
	h.start(1, nil, nil)
	h.checkpoint()
	src := fakeSource(db, true, 4, commits, "db.t")
	d, _ := src.dialect()
	_, err := newEnumerator(hEnumCtx{h}, src, d, h.ckEnum)
	if err == nil || !strings.Contains(err.Error(), "table db.empty was captured when the checkpoint was taken") {
		t.Fatalf("restore without db.empty: %v", err)
	}
}

// TestIncrementalSnapshotUpsertSink: without exactly_once into an upsert
// sink, which keeps what a crashed run wrote after its last checkpoint, a
// chunk read again after the restore no longer holds a row deleted since
// the first read: the stream must still deliver that delete (it did not
// when the re-read's watermark covered it, and the deleted row stayed).
func TestIncrementalSnapshotUpsertSink(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runAlgorithm(t, false, true, false, seed) })
	}
}

// runAlgorithm runs a source over a fakeDB through writes, checkpoints
// and crashes, and checks the output against the table. With added, the
// source first captures only db.empty, then a restore adds db.t.
func runAlgorithm(t *testing.T, exactly, upsert, added bool, seed int64) {
	pollWait, idleWait = 2*time.Millisecond, 0
	rng := rand.New(rand.NewSource(seed))
	db := newFakeDB(400, seed)
	commits := &offsetLog{}
	var first []string
	if added {
		first = []string{"db.empty"}
	}
	h := &harness{t: t, src: fakeSource(db, exactly, 37, commits, first...), upsert: upsert}
	h.start(2, nil, nil) // a crash before the first checkpoint starts afresh
	defer func() {
		for _, r := range h.readers {
			_ = r.Close()
		}
	}()
	if added {
		for i := 0; i < 100; i++ {
			if rng.Intn(3) == 0 {
				db.write()
			}
			h.step(rng)
			if rng.Intn(12) == 0 {
				h.checkpoint()
			}
		}
		h.checkpoint()
		if len(h.out) != 0 {
			t.Fatalf("%d rows out before db.t was captured", len(h.out))
		}
		h.src = fakeSource(db, exactly, 37, commits, "db.t", "db.empty")
		h.crash(2)
	}
	crashes := 0
	for i := 0; i < 400; i++ {
		if rng.Intn(3) == 0 {
			db.write() // changes everywhere, chunks read or not
		}
		h.step(rng)
		switch rng.Intn(12) {
		case 0:
			h.checkpoint()
		case 1:
			if crashes < 6 {
				crashes++
				h.crash(1 + rng.Intn(3))
			}
		}
	}
	want := db.offset()
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; !h.caughtUp(want); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the stream did not reach offset %d", want)
		}
		h.step(rng)
		if i%10 == 0 {
			h.checkpoint()
		}
	}
	h.checkpoint()

	// The output applied as upserts equals the table.
	got := map[int64]string{}
	for _, r := range h.out {
		switch r.kind {
		case row.Insert, row.UpdateAfter:
			got[r.id] = r.v
		default:
			delete(got, r.id)
		}
	}
	state := db.state()
	if len(got) != len(state) {
		t.Fatalf("%d rows out, the table has %d (%d crashes)", len(got), len(state), crashes)
	}
	for id, v := range state {
		if got[id] != v {
			t.Fatalf("id %d: %q out, %q in the table", id, got[id], v)
		}
	}
	if !exactly {
		return
	}
	// Exactly once: replayed strictly, every change finds the row as it
	// was (no change lost or repeated), and every row is inserted once.
	rep := map[int64]string{}
	for i, r := range h.out {
		cur, ok := rep[r.id]
		switch r.kind {
		case row.Insert:
			if ok {
				t.Fatalf("output %d: INSERT of id %d, which is there (%q)", i, r.id, cur)
			}
			rep[r.id] = r.v
		case row.UpdateBefore, row.Delete:
			if !ok || cur != r.v {
				t.Fatalf("output %d: %s of id %d with %q, but it is %q (there: %v)", i, r.kind, r.id, r.v, cur, ok)
			}
			delete(rep, r.id)
		case row.UpdateAfter:
			if ok {
				t.Fatalf("output %d: UPDATE_AFTER of id %d, which is there", i, r.id)
			}
			rep[r.id] = r.v
		}
	}
	commits.mu.Lock()
	defer commits.mu.Unlock()
	for i := 1; i < len(commits.offs); i++ {
		if commits.offs[i] < commits.offs[i-1] {
			t.Fatalf("committed offsets went back: %v", commits.offs)
		}
	}
	if len(commits.offs) == 0 {
		t.Fatal("no offset committed")
	}
}

// stuckDialect cuts chunks that end where they start after the first, as
// a dialect that orders the key otherwise than its type does may.
type stuckDialect struct{ *fakeDialect }

func (d stuckDialect) ChunkEnd(_ context.Context, _ *Table, after *Key, _ int) (*Key, error) {
	if after == nil {
		return &Key{I: 5}, nil
	}
	return after, nil
}

// TestChunkEndMustAdvance: a chunk end that does not pass its start is an
// error naming the table, not an endless run of empty chunks.
func TestChunkEndMustAdvance(t *testing.T) {
	db := newFakeDB(20, 1)
	src := fakeSource(db, true, 10, &offsetLog{})
	e, err := newEnumerator(hEnumCtx{&harness{t: t, src: src}}, src, stuckDialect{&fakeDialect{db: db}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c, err := e.next(); err != nil || c == nil || c.Hi == nil || c.Hi.I != 5 {
		t.Fatalf("first chunk %+v, %v", c, err)
	}
	_, err = e.next()
	if err == nil || !strings.Contains(err.Error(), "db.t: the chunk from key 5 ends at 5, not after it") {
		t.Fatalf("second chunk: %v", err)
	}
}
