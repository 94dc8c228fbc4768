package natschan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

var scope = Scope{Job: "job.1 *>", Term: 7, Attempt: 3, Pipeline: 2}

func TestRoundTripEveryType(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	newReceiver(t, connect(t, s), scope, 1, &c)
	snd := newSender(t, connect(t, s), scope, 4, 1)

	every := everyTypeRows(t)
	sent := []*row.Batch{every, emptyBatch(everyType), every.Slice(1, 3), scoreBatch(100, 4096, 12), every}
	for i, b := range sent {
		if err := snd.SendBatch(0, int64(i+1), int64(i), b); err != nil {
			t.Fatalf("batch %d: %v", i+1, err)
		}
	}
	if err := snd.SendEndOfData(0, int64(len(sent))); err != nil {
		t.Fatal(err)
	}
	got := c.waitMsgs(t, len(sent)+1)
	if len(got) != len(sent)+1 {
		t.Fatalf("delivered:\n%s", describeAll(got))
	}
	for i, b := range sent {
		m, ok := got[i].(*messages.Batch)
		if !ok {
			t.Fatalf("message %d is %s", i, describe(got[i]))
		}
		if m.Edge != 4 || m.From != 0 || m.Seq != int64(i+1) || m.Barrier != int64(i) {
			t.Errorf("message %d: %s", i, describe(m))
		}
		if err := sameRows(b, m.Rows); err != nil {
			t.Errorf("batch %d: %v", i+1, err)
		}
	}
	if e, ok := got[len(sent)].(*messages.EndOfData); !ok || e.Seq != int64(len(sent)) || e.Edge != 4 {
		t.Errorf("last message: %s", describe(got[len(sent)]))
	}
	// The decoder's schema cache: batches of one schema share it.
	if got[0].(*messages.Batch).Rows.Schema != got[4].(*messages.Batch).Rows.Schema {
		t.Error("batches of one schema on one channel decoded to two schemas")
	}
}

func TestSplitOverMaxPayload(t *testing.T) {
	const maxPayload = 64 << 10
	s := runServer(t, func(o *server.Options) { o.MaxPayload = maxPayload })
	var c collector
	newReceiver(t, connect(t, s), scope, 0, &c)
	nc := connect(t, s)
	if nc.MaxPayload() != maxPayload {
		t.Fatalf("max_payload %d", nc.MaxPayload())
	}
	snd := newSender(t, nc, scope, 1, 0)

	big := scoreBatch(0, 20_000, 40) // about 1.2 MB
	// A row far over the limit on its own, between ordinary ones.
	huge := row.NewBatch(benchSchema, []row.Kind{row.Insert, row.UpdateAfter, row.Delete}, []*row.Column{
		scoreBatch(0, 3, 0).Cols[0],
		func() *row.Column {
			col := row.NewColumn(row.String, 3)
			col.AppendString("a")
			col.AppendString(strings.Repeat("€", 100_000)) // 300 KB
			col.AppendString("c")
			return col
		}(),
		scoreBatch(0, 3, 0).Cols[2],
	})
	small := scoreBatch(5, 10, 12)
	sent := []*row.Batch{big, small, huge, small}
	before := nc.Stats().OutMsgs
	for i, b := range sent {
		if err := snd.SendBatch(7, int64(i+1), 0, b); err != nil {
			t.Fatalf("batch %d: %v", i+1, err)
		}
	}
	if err := snd.SendBarrier(1, 7, int64(len(sent)), "checkpoint"); err != nil {
		t.Fatal(err)
	}
	msgs := nc.Stats().OutMsgs - before
	wantMin := uint64(len(sent) + 1 + row.EncodedSize(big)/maxPayload + row.EncodedSize(huge)/maxPayload)
	if msgs < wantMin {
		t.Errorf("%d NATS messages, want at least %d: the big batches were not split", msgs, wantMin)
	}
	got := c.waitMsgs(t, len(sent)+2)
	if len(got) != len(sent)+2 {
		t.Fatalf("delivered:\n%s", describeAll(got))
	}
	for i, b := range sent {
		m, ok := got[i].(*messages.Batch)
		if !ok || m.Seq != int64(i+1) || m.From != 7 {
			t.Fatalf("message %d: %s", i, describe(got[i]))
		}
		if err := sameRows(b, m.Rows); err != nil {
			t.Errorf("batch %d: %v", i+1, err)
		}
	}
	if m, ok := got[len(sent)+1].(*messages.BarrierMarker); !ok || m.Seq != int64(len(sent)) {
		t.Errorf("last message %s", describe(got[len(sent)+1]))
	}
}

// Several senders, each on its own connection and goroutine, interleave on
// one receiver: each channel arrives whole and in order.
func TestOrderPerChannel(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	newReceiver(t, connect(t, s), scope, 2, &c)
	const senders, batches, rows = 6, 150, 50
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for k := range senders {
		snd := newSender(t, connect(t, s), scope, int32(k%2), 2) // two edges
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := int32(k)
			for seq := int64(1); seq <= batches; seq++ {
				if seq%50 == 0 {
					if err := snd.SendBarrier(seq/50, from, seq-1, "checkpoint"); err != nil {
						errs <- err
						return
					}
				}
				if err := snd.SendBatch(from, seq, seq/50, scoreBatch(int64(k)*1_000_000+seq*rows, rows, 12)); err != nil {
					errs <- err
					return
				}
			}
			errs <- snd.SendEndOfData(from, batches)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	perChannel := batches + 1 + 2*(batches/50)
	got := c.waitMsgs(t, senders*perChannel)
	type state struct {
		seq     int64
		barrier int64
		ended   bool
		copy    bool // a barrier copy waits for its marker
	}
	chans := map[[2]int32]*state{}
	at := func(edge, from int32) *state {
		k := [2]int32{edge, from}
		if chans[k] == nil {
			chans[k] = &state{}
		}
		return chans[k]
	}
	for i, m := range got {
		switch m := m.(type) {
		case *messages.Batch:
			st := at(m.Edge, m.From)
			if m.Edge != m.From%2 || m.Seq != st.seq+1 || st.ended || st.copy || m.Barrier != st.barrier {
				t.Fatalf("message %d: %s after batch %d", i, describe(m), st.seq)
			}
			first := int64(m.From)*1_000_000 + m.Seq*rows
			if m.Rows.N != rows || m.Rows.Cols[0].Ints[0] != first || m.Rows.Cols[0].Ints[rows-1] != first+rows-1 {
				t.Fatalf("message %d: %s has the wrong rows", i, describe(m))
			}
			st.seq = m.Seq
		case *messages.Barrier:
			st := at(m.Edge, m.From)
			if m.Id != st.barrier+1 || st.copy {
				t.Fatalf("message %d: %s", i, describe(m))
			}
			st.copy = true
		case *messages.BarrierMarker:
			st := at(m.Edge, m.From)
			if !st.copy || m.Seq != st.seq {
				t.Fatalf("message %d: %s without its copy or after batch %d", i, describe(m), st.seq)
			}
			st.copy, st.barrier = false, m.ID
		case *messages.EndOfData:
			st := at(m.Edge, m.From)
			if m.Seq != batches || st.seq != batches || st.ended {
				t.Fatalf("message %d: %s", i, describe(m))
			}
			st.ended = true
		}
	}
	if len(chans) != senders {
		t.Errorf("%d channels, want %d", len(chans), senders)
	}
	for k, st := range chans {
		if !st.ended {
			t.Errorf("channel %v did not end", k)
		}
	}
}

func TestBarrierCopyThenMarker(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	newReceiver(t, connect(t, s), scope, 0, &c)
	snd := newSender(t, connect(t, s), scope, 3, 0)
	b := scoreBatch(0, 10, 12)
	steps := []func() error{
		func() error { return snd.SendBarrier(1, 5, 0, "checkpoint") }, // before any batch
		func() error { return snd.SendBatch(5, 1, 1, b) },
		func() error { return snd.SendBarrier(2, 5, 1, "savepoint") },
		func() error { return snd.SendBatch(5, 2, 2, b) },
		func() error { return snd.SendEndOfData(5, 2) },
		func() error { return snd.SendBarrier(3, 5, 2, "checkpoint") }, // a finished subtask forwards barriers
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := []string{
		"barrier e3 f5 id1 checkpoint", "marker e3 f5 id1 #0 checkpoint",
		"batch e3 f5 #1 b1 (10 rows)",
		"barrier e3 f5 id2 savepoint", "marker e3 f5 id2 #1 savepoint",
		"batch e3 f5 #2 b2 (10 rows)",
		"end e3 f5 #2",
		"barrier e3 f5 id3 checkpoint", "marker e3 f5 id3 #2 checkpoint",
	}
	got := c.waitMsgs(t, len(want))
	if g, w := describeAll(got), strings.Join(want, "\n")+"\n"; g != w {
		t.Errorf("delivered:\n%s\nwant:\n%s", g, w)
	}
	if err := snd.SendBarrier(4, 5, 2, "bad\ntype"); err == nil {
		t.Error("a barrier type with a newline was sent")
	}
	if err := snd.SendBarrier(4, 5, 2, strings.Repeat("t", 200)); err == nil {
		t.Error("a barrier type of 200 bytes was sent")
	}
}

// publish sends a channel message by hand, as a broken or stale sender
// would: f's frame, then data (data alone when f is nil).
func publish(t *testing.T, nc *nats.Conn, subject string, f *frame, data []byte) {
	t.Helper()
	var msg []byte
	if f != nil {
		msg = appendFrame(nil, f)
	}
	if err := nc.Publish(subject, append(msg, data...)); err != nil {
		t.Fatal(err)
	}
}

func batchFrame(s Scope, from int32, seq int64) *frame {
	return &frame{kind: kindBatch, from: from, attempt: s.Attempt, term: s.Term, seq: seq, parts: 1}
}

func TestOtherAttemptDropped(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	r := newReceiver(t, connect(t, s), scope, 0, &c)
	nc := connect(t, s)
	// The old attempt's sender publishes on its own subject: not ours.
	old := scope
	old.Attempt--
	stale := newSender(t, nc, old, 0, 0)
	b := scoreBatch(0, 5, 12)
	if err := stale.SendBatch(0, 1, 0, b); err != nil {
		t.Fatal(err)
	}
	// So does a replaced leader's, with the same attempt number.
	oldLeader := scope
	oldLeader.Term--
	if err := newSender(t, nc, oldLeader, 0, 0).SendBatch(0, 1, 0, b); err != nil {
		t.Fatal(err)
	}
	// A message on our subject that says it is of another attempt, of
	// another term, or of none.
	subject, err := Subject(DefaultPrefix, scope, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	enc := row.AppendBatch(nil, b)
	next := scope
	next.Attempt++
	publish(t, nc, subject, batchFrame(next, 0, 1), enc)
	publish(t, nc, subject, batchFrame(oldLeader, 0, 1), enc)
	publish(t, nc, subject, nil, enc)
	// Then ours: seq 1 is still expected.
	publish(t, nc, subject, batchFrame(scope, 0, 1), enc)
	got := c.waitMsgs(t, 1)
	if m, ok := got[0].(*messages.Batch); !ok || m.Seq != 1 {
		t.Fatalf("delivered %s", describe(got[0]))
	}
	if r.Dropped() != 3 {
		t.Errorf("Dropped = %d, want 3", r.Dropped())
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.snapshot(); len(got) != 1 {
		t.Errorf("delivered:\n%s", describeAll(got))
	}
}

// A sender of an older build (channel messages in NATS headers) or of
// another wire version fails the receiver with an error that says why,
// rather than being dropped forever as a stale attempt is.
func TestOtherVersionFails(t *testing.T) {
	enc := row.AppendBatch(nil, scoreBatch(0, 3, 12))
	for _, tc := range []struct {
		name string
		msg  func(subject string) *nats.Msg
	}{
		{"headers", func(subject string) *nats.Msg {
			m := nats.NewMsg(subject)
			m.Header.Set("Stactor-Kind", "batch")
			m.Data = enc
			return m
		}},
		{"version", func(subject string) *nats.Msg {
			data := append(appendFrame(nil, batchFrame(scope, 0, 1)), enc...)
			data[2]++
			return &nats.Msg{Subject: subject, Data: data}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := runServer(t, nil)
			var c collector
			newReceiver(t, connect(t, s), scope, 0, &c)
			nc := connect(t, s)
			subject, _ := Subject(DefaultPrefix, scope, 0, 0)
			if err := nc.PublishMsg(tc.msg(subject)); err != nil {
				t.Fatal(err)
			}
			if err := c.waitErr(t); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "same stactor build") {
				t.Fatalf("error %v, want ErrCorrupt saying every node must run the same build", err)
			}
		})
	}
}

func TestGapAndDuplicate(t *testing.T) {
	for _, tc := range []struct {
		name string
		seqs []int64
		want error
	}{
		{"gap", []int64{1, 3}, ErrGap},
		{"duplicate", []int64{1, 2, 2}, ErrDuplicate},
		{"first batch missing", []int64{2}, ErrGap},
		{"reordered", []int64{1, 3, 2}, ErrGap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := runServer(t, nil)
			var c collector
			newReceiver(t, connect(t, s), scope, 0, &c)
			nc := connect(t, s)
			subject, _ := Subject(DefaultPrefix, scope, 1, 0)
			enc := row.AppendBatch(nil, scoreBatch(0, 3, 12))
			for _, seq := range tc.seqs {
				publish(t, nc, subject, batchFrame(scope, 4, seq), enc)
			}
			err := c.waitErr(t)
			var ce *ChannelError
			if !errors.Is(err, tc.want) || !errors.As(err, &ce) || ce.Edge != 1 || ce.From != 4 {
				t.Fatalf("error %v, want a channel error (edge 1, from 4) wrapping %v", err, tc.want)
			}
			// The failed channel delivers nothing more; another one does.
			publish(t, nc, subject, batchFrame(scope, 4, tc.seqs[len(tc.seqs)-1]+1), enc)
			publish(t, nc, subject, batchFrame(scope, 5, 1), enc)
			checkFor(t, 5*time.Second, 5*time.Millisecond, func() error {
				got, _ := c.snapshot()
				if len(got) == 0 || describe(got[len(got)-1]) != "batch e1 f5 #1 b0 (3 rows)" {
					return fmt.Errorf("delivered:\n%s", describeAll(got))
				}
				return nil
			})
			got, errs := c.snapshot()
			for _, m := range got {
				if b := m.(*messages.Batch); b.From == 4 && b.Seq > 2 {
					t.Errorf("delivered %s after the failure", describe(m))
				}
			}
			if len(errs) != 1 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
}

// The NATS server goes away while batches flow: the sender returns errors
// (no panic, no hang) and the receiver reports the lost connection.
func TestServerShutdownMidStream(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	r := newReceiver(t, connect(t, s), scope, 0, &c)
	// The sender's connection would reconnect: it must still fail, since
	// what was in flight is lost.
	nc := connect(t, s, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	snd := newSender(t, nc, scope, 0, 0)
	b := scoreBatch(0, 1000, 12)
	var sendErr error
	deadline := time.Now().Add(20 * time.Second)
	for seq := int64(1); ; seq++ {
		if seq == 20 {
			s.Shutdown()
		}
		if sendErr = snd.SendBatch(0, seq, 0, b); sendErr != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sender kept sending after the server shut down")
		}
	}
	if !errors.Is(sendErr, ErrDisconnected) {
		t.Errorf("send error %v, want ErrDisconnected", sendErr)
	}
	// The channel stays broken.
	if err := snd.SendEndOfData(0, 1); !errors.Is(err, ErrDisconnected) {
		t.Errorf("end of data after the failure: %v", err)
	}
	if err := snd.SendBarrier(1, 0, 1, "checkpoint"); !errors.Is(err, ErrDisconnected) {
		t.Errorf("barrier after the failure: %v", err)
	}
	if err := c.waitErr(t); !errors.Is(err, ErrDisconnected) {
		t.Errorf("receiver error %v, want ErrDisconnected", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs")
	}
	checkFor(t, 10*time.Second, 5*time.Millisecond, func() error {
		if st := nc.Status(); st == nats.CONNECTED {
			return fmt.Errorf("connection %s", st)
		}
		return nil
	})
	if _, err := NewSender(nc, scope, 0, 0); !errors.Is(err, ErrDisconnected) {
		t.Errorf("NewSender on a lost connection: %v", err)
	}
	if _, err := NewReceiver(nc, scope, 0, c.deliver, c.onError); !errors.Is(err, ErrDisconnected) {
		t.Errorf("NewReceiver on a lost connection: %v", err)
	}
}

// A connection that closes (no reconnect) fails sends with the closed error.
func TestConnectionClosed(t *testing.T) {
	s := runServer(t, nil)
	nc := connect(t, s, nats.NoReconnect())
	snd := newSender(t, nc, scope, 0, 0)
	nc.Close()
	err := snd.SendBatch(0, 1, 0, scoreBatch(0, 1, 12))
	if !errors.Is(err, ErrDisconnected) || !errors.Is(err, nats.ErrConnectionClosed) {
		t.Errorf("send on a closed connection: %v", err)
	}
}

// A reconnect may lose what was in flight: both ends fail.
func TestReconnectFailsBothEnds(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	rnc := connect(t, s, nats.ReconnectWait(10*time.Millisecond))
	newReceiver(t, rnc, scope, 0, &c)
	snc := connect(t, s, nats.ReconnectWait(10*time.Millisecond))
	snd := newSender(t, snc, scope, 0, 0)
	if err := snd.SendBatch(0, 1, 0, scoreBatch(0, 3, 12)); err != nil {
		t.Fatal(err)
	}
	c.waitMsgs(t, 1)
	if err := rnc.ForceReconnect(); err != nil {
		t.Fatal(err)
	}
	if err := c.waitErr(t); !errors.Is(err, ErrDisconnected) {
		t.Errorf("receiver: %v", err)
	}
	if err := snc.ForceReconnect(); err != nil {
		t.Fatal(err)
	}
	checkFor(t, 10*time.Second, 5*time.Millisecond, func() error {
		if snc.Status() != nats.CONNECTED || snc.Stats().Reconnects == 0 {
			return fmt.Errorf("not reconnected: %s", snc.Status())
		}
		return nil
	})
	if err := snd.SendBatch(0, 2, 0, scoreBatch(0, 3, 12)); !errors.Is(err, ErrDisconnected) {
		t.Errorf("send after a reconnect: %v", err)
	}
}

// A receiver that falls behind its pending limits drops messages: that is
// reported, not hidden.
func TestSlowConsumer(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	release := make(chan struct{})
	var once sync.Once
	quiet := nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})
	r, err := NewReceiver(connect(t, s, quiet), scope, 0, func(m any) {
		once.Do(func() { <-release }) // the first delivery stalls
		c.deliver(m)
	}, c.onError, WithPendingLimits(3, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snd := newSender(t, connect(t, s), scope, 0, 0)
	for seq := int64(1); seq <= 10; seq++ {
		if err := snd.SendBatch(0, seq, 0, scoreBatch(0, 3, 12)); err != nil {
			t.Fatal(err)
		}
	}
	if err := snd.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	checkFor(t, 10*time.Second, 5*time.Millisecond, func() error {
		if d, _ := r.subs[0].Dropped(); d == 0 {
			return fmt.Errorf("nothing dropped yet")
		}
		return nil
	})
	close(release)
	if err := c.waitErr(t); !errors.Is(err, ErrGap) || !errors.Is(err, nats.ErrSlowConsumer) {
		t.Errorf("error %v, want a gap from a slow consumer", err)
	}
}

func TestCloseStopsDelivery(t *testing.T) {
	s := runServer(t, nil)
	var c collector
	r := newReceiver(t, connect(t, s), scope, 0, &c)
	snd := newSender(t, connect(t, s), scope, 0, 0)
	if err := snd.SendBatch(0, 1, 0, scoreBatch(0, 3, 12)); err != nil {
		t.Fatal(err)
	}
	c.waitMsgs(t, 1)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := snd.SendBatch(0, 2, 0, scoreBatch(0, 3, 12)); err != nil {
		t.Fatal(err)
	}
	if err := snd.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, errs := c.snapshot(); len(got) != 1 || len(errs) != 0 {
		t.Errorf("after Close: %d messages, errors %v", len(got), errs)
	}
}

// Chains' subtasks of one index share the wildcard; WithEdges keeps each
// to its own input edges.
func TestWithEdges(t *testing.T) {
	s := runServer(t, nil)
	var all, chainA, chainB collector
	newReceiver(t, connect(t, s), scope, 1, &all)
	ra := newReceiver(t, connect(t, s), scope, 1, &chainA, WithEdges(0, 2))
	rb := newReceiver(t, connect(t, s), scope, 1, &chainB, WithEdges(1))
	if got := strings.Join(ra.Subjects(), " "); got != "stactor.data.job%2E1%20%2A%3E.7.3.2.0.1 stactor.data.job%2E1%20%2A%3E.7.3.2.2.1" {
		t.Errorf("subjects %s", got)
	}
	nc := connect(t, s)
	for edge := range int32(3) {
		snd := newSender(t, nc, scope, edge, 1)
		if err := snd.SendBatch(0, 1, 0, scoreBatch(0, 2, 12)); err != nil {
			t.Fatal(err)
		}
		if err := snd.SendEndOfData(0, 1); err != nil {
			t.Fatal(err)
		}
	}
	// Order holds per channel, not across edges.
	edges := func(ms []any) string {
		var ended []int
		for _, m := range ms {
			if m, ok := m.(*messages.EndOfData); ok {
				ended = append(ended, int(m.Edge))
			}
		}
		slices.Sort(ended)
		return fmt.Sprint(ended)
	}
	if got := edges(all.waitMsgs(t, 6)); got != "[0 1 2]" {
		t.Errorf("wildcard receiver: edges %s", got)
	}
	if got := edges(chainA.waitMsgs(t, 4)); got != "[0 2]" {
		t.Errorf("edges 0 and 2: got %s", got)
	}
	if got := edges(chainB.waitMsgs(t, 2)); got != "[1]" {
		t.Errorf("edge 1: got %s", got)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, _ := chainB.snapshot(); len(got) != 2 || rb.Dropped() != 0 {
		t.Errorf("edge 1's receiver got %d messages, dropped %d", len(got), rb.Dropped())
	}
	if _, err := NewReceiver(nc, scope, 1, all.deliver, all.onError, WithEdges(-1)); !errors.Is(err, ErrSubject) {
		t.Errorf("a negative edge: %v", err)
	}
}
