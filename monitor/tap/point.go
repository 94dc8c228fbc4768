package tap

import (
	"encoding/json"
	"math"
	"sync/atomic"
	"time"

	"github.com/stactor/stactor/row"
)

// Point is the tap of one vertex in one subtask. On and Offer are called
// from the subtask's goroutine; everything else a point does runs on its
// Subtask's tap goroutine.
type Point struct {
	s       *Subtask
	v       Vertex
	subject string

	on      atomic.Bool
	sample  atomic.Uint64 // float64 bits of the sample rate, set before on
	seen    atomic.Int64  // rows offered while on
	dropped atomic.Int64  // rows not queued: the queue was full
	// Written by the tap goroutine, read for Acks.
	sent    atomic.Int64 // rows published
	limited atomic.Int64 // rows past RowsPerSecond

	// Owned by the tap goroutine.
	seq       uint64
	skip      float64   // rows to pass over before the next sampled one
	tokens    float64   // the rows-per-second bucket
	refilled  time.Time // when tokens were last topped up
	published time.Time // when the last message went out
	reported  int64     // drops the last message told of
	idx       []int
}

// On tells whether someone listens: the one check a subtask makes per
// batch.
func (p *Point) On() bool { return p.on.Load() }

// Offer hands a batch that left the vertex to the tap goroutine, or
// counts its rows as dropped when the goroutine is behind. It never
// blocks. b must not change afterwards (row.Batch is immutable once
// emitted).
func (p *Point) Offer(b *row.Batch) {
	n := int64(b.Len())
	if n == 0 {
		return
	}
	p.seen.Add(n)
	// The batch path recycles batches once their readers are done
	// (package row): the tap is one more reader until it has published.
	b.Retain()
	select {
	case p.s.queue <- item{p, b}:
	default:
		b.Release()
		p.dropped.Add(n)
	}
}

// droppedTotal is the rows the point could not publish so far: not
// queued, or past its rows-per-second cap.
func (p *Point) droppedTotal() int64 { return p.dropped.Load() + p.limited.Load() }

// sampleIndexes picks the rows of a batch of n to publish: every 1/r-th
// row, carrying the phase from batch to batch.
func (p *Point) sampleIndexes(n int, r float64) []int {
	idx := p.idx[:0]
	step := 1 / r
	pos := p.skip
	for pos < float64(n) {
		idx = append(idx, int(pos))
		pos += step
	}
	p.skip = pos - float64(n)
	p.idx = idx
	return idx
}

// allow takes up to k rows from the rows-per-second bucket and says how
// many it may publish.
func (p *Point) allow(k int, now time.Time) int {
	rate := float64(p.s.hub.opts.RowsPerSecond)
	if p.refilled.IsZero() {
		p.tokens = rate
	} else {
		p.tokens = min(rate, p.tokens+now.Sub(p.refilled).Seconds()*rate)
	}
	p.refilled = now
	n := min(k, int(p.tokens))
	p.tokens -= float64(n)
	return n
}

// publish samples b, caps it and publishes the rows left.
func (p *Point) publish(b *row.Batch, now time.Time) {
	r := math.Float64frombits(p.sample.Load())
	idx := p.sampleIndexes(b.Len(), clampSample(r))
	n := p.allow(len(idx), now)
	over := int64(len(idx) - n)
	for idx = idx[:n]; len(idx) > 0; {
		k := min(len(idx), p.s.hub.opts.MaxRowsPerMessage)
		p.send(b, idx[:k], now)
		idx = idx[k:]
	}
	// Counted after the rows that got through, so the next message (or
	// reportDrops) tells of them.
	p.limited.Add(over)
}

// reportDrops publishes an empty message when rows were dropped since the
// last message and none went out for a second, so a listener hears of
// them even when nothing gets through.
func (p *Point) reportDrops(now time.Time) {
	if p.droppedTotal() != p.reported && now.Sub(p.published) >= time.Second {
		p.send(nil, nil, now)
	}
}

func (p *Point) send(b *row.Batch, idx []int, now time.Time) {
	m := p.message(b, idx)
	data, err := json.Marshal(m)
	if err != nil {
		// Not reached with the value types Row carries; were it, the
		// listener would count the rows as missed from the next message.
		p.s.hub.log.Debug().Err(err).Str("vertex", p.v.Name).Msg("tap: cannot encode rows")
		return
	}
	p.published = now
	p.reported = m.Dropped
	if err := p.s.hub.nc.Publish(p.subject, data); err != nil {
		p.s.hub.log.Debug().Err(err).Str("subject", p.subject).Msg("tap: publish failed")
	}
}

// message numbers and fills the next Message with rows idx of b (none
// when b is nil).
func (p *Point) message(b *row.Batch, idx []int) *Message {
	p.seq++
	l := p.s.loc
	m := &Message{Job: l.Job, Vertex: p.v.ID, Name: p.v.Name, Pipeline: l.Pipeline, Attempt: l.Attempt, Subtask: l.Subtask,
		Seq: p.seq, Seen: p.seen.Load(), Sent: p.sent.Add(int64(len(idx))), Dropped: p.droppedTotal()}
	if b == nil {
		return m
	}
	m.Table = b.Schema.TableID
	for _, f := range b.Schema.Fields {
		m.Fields = append(m.Fields, f.Name)
		m.Types = append(m.Types, f.Type.String())
	}
	m.Rows = make([]Row, len(idx))
	for k, i := range idx {
		vals := make([]any, len(b.Cols))
		for j, c := range b.Cols {
			vals[j] = value(c, i)
		}
		m.Rows[k] = Row{Kind: b.Kind(i).String(), Values: vals}
	}
	return m
}
