package tap

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/row"
)

// Subtask is one subtask's taps: a Point per vertex of its chain, the
// subscription to the job's control subject that turns them on and off,
// and the goroutine that publishes what they are offered. Attach starts
// it, Close ends it; the points are used from the subtask's goroutine.
type Subtask struct {
	hub    *Hub
	loc    Location
	points []*Point
	sub    *nats.Subscription
	queue  chan item
	done   chan struct{}
	wg     sync.WaitGroup

	mu        sync.Mutex           // protects the fields below
	listeners map[string]*listener // by Interest.Listener
	timer     *time.Timer          // fires at the earliest expiry
	closed    bool
}

type listener struct {
	sample  float64
	expires time.Time
	points  []*Point
}

type item struct {
	p *Point
	b *row.Batch
}

// Attach subscribes a subtask's vertices to the job's tap control subject.
func (h *Hub) Attach(loc Location, vertices []Vertex) (*Subtask, error) {
	s := &Subtask{hub: h, loc: loc, queue: make(chan item, h.opts.Queue), done: make(chan struct{}), listeners: map[string]*listener{}}
	for _, v := range vertices {
		s.points = append(s.points, &Point{s: s, v: v, subject: Subject(h.prefix, loc.Job, v.ID)})
	}
	sub, err := h.nc.Subscribe(ControlSubject(h.prefix, loc.Job), s.onInterest)
	if err != nil {
		return nil, fmt.Errorf("tap: subscribing to %s: %w", ControlSubject(h.prefix, loc.Job), err)
	}
	s.sub = sub
	s.wg.Add(1)
	go s.run()
	return s, nil
}

// Point is the tap of vertex id, nil if the chain has no such vertex.
func (s *Subtask) Point(id int) *Point {
	for _, p := range s.points {
		if p.v.ID == id {
			return p
		}
	}
	return nil
}

// Close unsubscribes, turns every point off and waits for the tap
// goroutine to end: at most one publish of rows, and a last message of
// counters from each point that published. Batches still queued are
// counted as dropped, not published.
func (s *Subtask) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	for _, p := range s.points {
		p.on.Store(false)
	}
	s.mu.Unlock()
	_ = s.sub.Unsubscribe()
	close(s.done)
	s.wg.Wait()
}

// onInterest runs on the NATS subscription's goroutine.
func (s *Subtask) onInterest(m *nats.Msg) {
	var in Interest
	if err := json.Unmarshal(m.Data, &in); err != nil || in.Listener == "" {
		s.hub.log.Debug().Err(err).Msg("tap: malformed interest ignored")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	now := time.Now()
	if in.Bye {
		delete(s.listeners, in.Listener)
		s.refresh(now)
		return
	}
	var matched []*Point
	var refs []VertexRef
	for _, p := range s.points {
		if p.v.Matches(in.Vertex) {
			matched = append(matched, p)
			refs = append(refs, VertexRef{ID: p.v.ID, Name: p.v.Name, Sent: p.sent.Load(), Dropped: p.droppedTotal()})
		}
	}
	if len(matched) == 0 {
		return
	}
	_, known := s.listeners[in.Listener]
	// The Ack goes out before the points turn on, so on the listener's
	// connection it arrives before the first rows.
	if !known && m.Reply != "" {
		data, _ := json.Marshal(Ack{Vertices: refs, Pipeline: s.loc.Pipeline, Attempt: s.loc.Attempt, Subtask: s.loc.Subtask})
		_ = s.hub.nc.Publish(m.Reply, data)
	}
	s.listeners[in.Listener] = &listener{sample: clampSample(in.Sample), expires: now.Add(s.hub.opts.InterestTTL), points: matched}
	s.refresh(now)
}

// refresh drops expired listeners, sets each point's flag and sample
// rate from those left, and arms the timer for the next expiry. s.mu is
// held.
func (s *Subtask) refresh(now time.Time) {
	rates := make(map[*Point]float64, len(s.points))
	var next time.Time
	for id, l := range s.listeners {
		if !l.expires.After(now) {
			delete(s.listeners, id)
			continue
		}
		if next.IsZero() || l.expires.Before(next) {
			next = l.expires
		}
		for _, p := range l.points {
			rates[p] = max(rates[p], l.sample)
		}
	}
	for _, p := range s.points {
		r, on := rates[p]
		if on {
			p.sample.Store(math.Float64bits(r))
		}
		p.on.Store(on)
	}
	switch {
	case next.IsZero():
		if s.timer != nil {
			s.timer.Stop()
		}
	case s.timer == nil:
		s.timer = time.AfterFunc(next.Sub(now), s.expire)
	default:
		s.timer.Reset(next.Sub(now))
	}
}

func (s *Subtask) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.refresh(time.Now())
	}
}

// clampSample keeps a rate in (0, 1]; 0 or less (unset) is 1.
func clampSample(r float64) float64 {
	if r <= 0 || r > 1 || math.IsNaN(r) {
		return 1
	}
	return r
}

// run is the tap goroutine: it publishes what the points were offered.
func (s *Subtask) run() {
	defer s.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case it := <-s.queue:
			it.p.publish(it.b, time.Now())
			it.b.Release()
		case now := <-tick.C:
			for _, p := range s.points {
				p.reportDrops(now)
			}
		case <-s.done:
			// What is still queued is dropped; a last message with the
			// final counters tells a listener that lost the tail of a
			// stream how much.
			for len(s.queue) > 0 {
				it := <-s.queue
				it.p.dropped.Add(int64(it.b.Len()))
				it.b.Release()
			}
			for _, p := range s.points {
				if p.seq > 0 {
					p.send(nil, nil, time.Now())
				}
			}
			return
		}
	}
}
