package tap

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/internal/natstest"
	"github.com/stactor/stactor/row"
)

func connect(t *testing.T) *nats.Conn {
	t.Helper()
	s, err := natstest.Start("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// checkFor polls fn until it returns true or total passes.
func checkFor(t *testing.T, total time.Duration, what string, fn func() bool) {
	t.Helper()
	deadline := time.Now().Add(total)
	for !fn() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", total, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func batch(t *testing.T, from, n int) *row.Batch {
	t.Helper()
	sch, err := row.NewSchema("fake", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "name", Type: row.String})
	if err != nil {
		t.Fatal(err)
	}
	ids, names := row.NewColumn(row.BigInt, n), row.NewColumn(row.String, n)
	for i := from; i < from+n; i++ {
		ids.AppendInt(int64(i))
		names.AppendString("n")
	}
	return row.NewBatch(sch, nil, []*row.Column{ids, names})
}

var vertices = []Vertex{
	{ID: 0, Name: "Source[0]-FakeSource", Plugin: "FakeSource", Tables: []string{"fake"}},
	{ID: 1, Name: "Sink[0]-Console", Plugin: "Console"},
}

func attach(t *testing.T, nc *nats.Conn, o Options) *Subtask {
	t.Helper()
	s, err := NewHub(nc, "st.test", o, zerolog.Nop()).Attach(Location{Job: "j1", Pipeline: 1, Attempt: 2, Subtask: 0}, vertices)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// collector runs a Listener in the background and keeps what it got.
type collector struct {
	mu     sync.Mutex
	acks   []*Ack
	msgs   []*Message
	rows   int64
	missed int64
	cancel context.CancelFunc
	done   chan error
}

func listen(t *testing.T, nc *nats.Conn, o ListenOptions) *collector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &collector{cancel: cancel, done: make(chan error, 1)}
	o.Prefix, o.Job = "st.test", "j1"
	go func() {
		c.done <- Listen(ctx, nc, o, func(ev Event) bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			if ev.Ack != nil {
				c.acks = append(c.acks, ev.Ack)
			}
			if ev.Msg != nil {
				c.msgs = append(c.msgs, ev.Msg)
				c.rows += int64(len(ev.Msg.Rows))
				c.missed += ev.Missed
			}
			return true
		})
	}()
	t.Cleanup(func() { c.stop(t) })
	return c
}

func (c *collector) stop(t *testing.T) {
	if c.cancel == nil {
		return
	}
	c.cancel()
	c.cancel = nil
	if err := <-c.done; err != nil {
		t.Error(err)
	}
}

func (c *collector) counts() (acks, msgs int, rows, missed int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.acks), len(c.msgs), c.rows, c.missed
}

// A point is off until a listener announces itself, on for the vertices
// its selector names only, and off at once when the listener leaves.
func TestFlagFollowsListener(t *testing.T) {
	nc := connect(t)
	s := attach(t, nc, Options{})
	src, snk := s.Point(0), s.Point(1)
	if src.On() || snk.On() {
		t.Fatal("a point is on with no listener")
	}
	c := listen(t, nc, ListenOptions{Vertex: "fakesource"})
	checkFor(t, 2*time.Second, "the source's point to turn on", src.On)
	if snk.On() {
		t.Fatal("the sink's point is on for a listener of the source")
	}
	checkFor(t, 2*time.Second, "an ack", func() bool { a, _, _, _ := c.counts(); return a == 1 })
	c.mu.Lock()
	a := c.acks[0]
	c.mu.Unlock()
	if len(a.Vertices) != 1 || a.Vertices[0].Name != "Source[0]-FakeSource" || a.Attempt != 2 || a.Pipeline != 1 {
		t.Fatalf("ack = %+v", a)
	}
	src.Offer(batch(t, 0, 10))
	checkFor(t, 2*time.Second, "10 rows", func() bool { _, _, r, _ := c.counts(); return r == 10 })
	c.mu.Lock()
	m := c.msgs[0]
	c.mu.Unlock()
	if m.Table != "fake" || m.Fields[0] != "id" || m.Types[1] != "STRING" && m.Types[1] != "string" || m.Rows[3].Kind != "INSERT" || m.Rows[3].Values[0] != json.Number("3") || m.Seq != 1 || m.Sent != 10 {
		t.Fatalf("message = %+v", m)
	}
	c.stop(t)
	checkFor(t, time.Second, "the point to turn off after the goodbye", func() bool { return !src.On() })
}

// A listener that vanishes without a goodbye turns the point off after
// InterestTTL.
func TestFlagExpires(t *testing.T) {
	nc := connect(t)
	s := attach(t, nc, Options{InterestTTL: 300 * time.Millisecond})
	p := s.Point(1)
	if err := nc.Publish(ControlSubject("st.test", "j1"), []byte(`{"listener":"x","vertex":"1","sample":0.5}`)); err != nil {
		t.Fatal(err)
	}
	checkFor(t, 2*time.Second, "the point to turn on", p.On)
	on := time.Now()
	checkFor(t, 2*time.Second, "the point to turn off", func() bool { return !p.On() })
	if d := time.Since(on); d < 200*time.Millisecond {
		t.Fatalf("off after %s, before the interest's TTL", d)
	}
	// A second listener keeps it on while the first one's interest lapses.
	for _, l := range []string{"a", "b"} {
		if err := nc.Publish(ControlSubject("st.test", "j1"), []byte(`{"listener":"`+l+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	checkFor(t, 2*time.Second, "the point to turn on again", p.On)
	if err := nc.Publish(ControlSubject("st.test", "j1"), []byte(`{"listener":"a","bye":true}`)); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if !p.On() {
		t.Fatal("one listener's goodbye turned off the other's tap")
	}
	checkFor(t, 2*time.Second, "the point to turn off when b's interest lapses", func() bool { return !p.On() })
}

// Sampling takes every 1/R-th row, carrying the phase across batches.
func TestSampling(t *testing.T) {
	p := &Point{}
	var got []int
	base := 0
	for _, n := range []int{3, 5, 1, 7, 4} {
		for _, i := range p.sampleIndexes(n, 0.25) {
			got = append(got, base+i)
		}
		base += n
	}
	want := []int{0, 4, 8, 12, 16}
	if len(got) != len(want) {
		t.Fatalf("sampled %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sampled %v, want %v", got, want)
		}
	}
	if n := len(p.sampleIndexes(1000, 1)); n != 1000 {
		t.Fatalf("rate 1 took %d of 1000", n)
	}
	if n := len(p.sampleIndexes(10000, 0.01)); n != 100 {
		t.Fatalf("rate 0.01 took %d of 10000", n)
	}
	for _, r := range []float64{0, -1, 2} {
		if clampSample(r) != 1 {
			t.Fatalf("clampSample(%v) = %v", r, clampSample(r))
		}
	}
}

// Offer never blocks: when the tap goroutine is behind, the batch's rows
// are counted as dropped.
func TestOfferDropsWhenQueueFull(t *testing.T) {
	s := &Subtask{queue: make(chan item, 1)}
	p := &Point{s: s}
	p.Offer(batch(t, 0, 10))
	done := make(chan struct{})
	go func() {
		p.Offer(batch(t, 10, 7))
		p.Offer(batch(t, 17, 5))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Offer blocked on a full queue")
	}
	if d, seen := p.dropped.Load(), p.seen.Load(); d != 12 || seen != 22 {
		t.Fatalf("dropped %d of %d rows, want 12 of 22", d, seen)
	}
}

// Rows past the rows-per-second cap are dropped, and the listener is told
// how many, also when nothing more gets through.
func TestRateCapReportsMissedRows(t *testing.T) {
	nc := connect(t)
	s := attach(t, nc, Options{RowsPerSecond: 50, Queue: 64})
	p := s.Point(0)
	c := listen(t, nc, ListenOptions{Vertex: "0"})
	checkFor(t, 2*time.Second, "the point to turn on", p.On)
	for i := 0; i < 10; i++ {
		p.Offer(batch(t, i*100, 100))
	}
	checkFor(t, 5*time.Second, "1000 rows received or missed", func() bool {
		_, _, r, m := c.counts()
		return r+m == 1000
	})
	_, _, rows, _ := c.counts()
	if rows < 50 || rows > 200 {
		t.Fatalf("%d rows got through a cap of 50 rows/s", rows)
	}
}

// account counts the rows of messages a listener did not receive and the
// rows the point dropped, from the first message it received on.
func TestAccount(t *testing.T) {
	streams := map[streamKey]*stream{}
	msg := func(seq uint64, sent, dropped int64, rows int) *Message {
		return &Message{Vertex: 1, Subtask: 0, Seq: seq, Sent: sent, Dropped: dropped, Rows: make([]Row, rows)}
	}
	steps := []struct {
		m    *Message
		want int64
	}{
		{msg(3, 30, 5, 10), 0},  // joined late: the baseline
		{msg(4, 40, 5, 10), 0},  // the next one
		{msg(6, 60, 5, 10), 10}, // message 5 (10 rows) was lost
		{msg(7, 70, 25, 10), 20},
		{msg(8, 70, 27, 0), 2}, // an empty message telling of drops
	}
	for i, s := range steps {
		if got := account(streams, s.m); got != s.want {
			t.Fatalf("step %d: missed %d, want %d", i, got, s.want)
		}
	}
	// Another subtask's stream has its own baseline.
	if got := account(streams, &Message{Vertex: 1, Subtask: 1, Sent: 500, Dropped: 90}); got != 0 {
		t.Fatalf("a new stream missed %d", got)
	}
}

func TestMatches(t *testing.T) {
	v := vertices[0]
	for _, sel := range []string{"", "0", "Source[0]-FakeSource", "source[0]-fakesource", "FakeSource", "fake", " 0 "} {
		if !v.Matches(sel) {
			t.Errorf("%q does not match %+v", sel, v)
		}
	}
	for _, sel := range []string{"1", "Console", "Source[1]-FakeSource", "fak"} {
		if v.Matches(sel) {
			t.Errorf("%q matches %+v", sel, v)
		}
	}
}
