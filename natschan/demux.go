package natschan

import (
	"fmt"
	"sync/atomic"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// demux is a Receiver's protocol state: it checks each channel's sequence,
// joins the parts of batches, decodes them and hands the messages on. Its
// owner calls it from one goroutine at a time.
type demux struct {
	attempt int32  // the scope's attempt
	term    uint64 // and its leader's term
	deliver func(any)
	onError func(error)
	chans   map[chanKey]*inChan
	failed  bool // a receiver-wide failure: nothing more is delivered
	dropped atomic.Int64
}

type chanKey struct{ edge, from int32 }

// inChan is the receiving end of one channel.
type inChan struct {
	dec     *row.Decoder // one per channel: its schema cache
	last    int64        // the last batch delivered
	barrier int64        // the last barrier delivered
	ended   bool
	failed  bool
	// a batch being joined from its parts; parts is nil when none is
	parts    [][]byte
	count    uint32
	seq      int64
	passed   int64 // the batch's barrier
	partSize int
}

func newDemux(s Scope, deliver func(any), onError func(error)) *demux {
	return &demux{attempt: s.Attempt, term: s.Term, deliver: deliver, onError: onError, chans: map[chanKey]*inChan{}}
}

// fail stops all delivery and reports err, once.
func (d *demux) fail(err error) {
	if d.failed {
		return
	}
	d.failed = true
	d.onError(err)
}

// handle takes one NATS message: its subject and payload (wire.go).
func (d *demux) handle(subject string, msg []byte) {
	if d.failed {
		return
	}
	v, ok := frameVersionOf(msg)
	if ok && v != frameVersion {
		d.fail(fmt.Errorf("%w: %s: a channel message of wire version %d, this node's is %d: every node of a cluster must run the same stactor build", ErrCorrupt, subject, v, frameVersion))
		return
	}
	if !ok || len(msg) < frameSize {
		d.dropped.Add(1) // not a channel message at all
		return
	}
	f, data, err := readFrame(msg)
	if f.attempt != d.attempt || f.term != d.term {
		// Another attempt's or leader's sender (a paused node that woke
		// up): it must not count (DESIGN §6 fencing).
		d.dropped.Add(1)
		return
	}
	edge, ok := edgeOf(subject)
	if !ok || f.from < 0 {
		d.fail(fmt.Errorf("%w: %s: no channel in the subject or sending subtask %d", ErrCorrupt, subject, f.from))
		return
	}
	k := chanKey{edge, f.from}
	c := d.chans[k]
	if c == nil {
		// Recycled: the subtask that is delivered a batch owns its one
		// reference and releases it when its operators are done.
		c = &inChan{dec: row.NewDecoder().Recycle()}
		d.chans[k] = c
	}
	if c.failed {
		return
	}
	if err == nil {
		err = d.channel(k, c, &f, data)
	} else {
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err != nil {
		c.failed = true
		c.parts = nil
		d.onError(&ChannelError{Edge: k.edge, From: k.from, Err: err})
	}
}

func (d *demux) channel(k chanKey, c *inChan, f *frame, data []byte) error {
	if f.seq < 0 {
		return fmt.Errorf("%w: %s with sequence number %d", ErrCorrupt, kindName(f.kind), f.seq)
	}
	if f.kind != kindBatch && (f.part != 0 || f.parts != 1 || len(data) != 0) {
		return fmt.Errorf("%w: %s as part %d of %d with %d bytes of data", ErrCorrupt, kindName(f.kind), f.part, f.parts, len(data))
	}
	switch f.kind {
	case kindBatch:
		return d.batch(k, c, f, data)
	case kindEnd:
		if err := c.follows(f.seq, "end of data"); err != nil {
			return err
		}
		if c.ended {
			return fmt.Errorf("%w: end of data twice", ErrDuplicate)
		}
		c.ended = true
		d.deliver(&messages.EndOfData{Edge: k.edge, From: k.from, Seq: f.seq})
	case kindBarrier:
		id := f.barrier
		if id < 1 {
			return fmt.Errorf("%w: barrier id %d", ErrCorrupt, id)
		}
		if err := c.follows(f.seq, fmt.Sprintf("barrier %d", id)); err != nil {
			return err
		}
		if id <= c.barrier {
			return fmt.Errorf("%w: barrier %d after barrier %d", ErrDuplicate, id, c.barrier)
		}
		c.barrier = id
		// The priority copy first: it may overtake queued data at the
		// receiver; the marker stays in order with the batches.
		d.deliver(&messages.Barrier{Id: id, Edge: k.edge, From: k.from, Type: f.typ})
		d.deliver(&messages.BarrierMarker{ID: id, Edge: k.edge, From: k.from, Seq: f.seq, Type: f.typ})
	default:
		return fmt.Errorf("%w: %s", ErrCorrupt, kindName(f.kind))
	}
	return nil
}

// follows checks that a message sent after batch seq comes right after
// the last batch received, whole.
func (c *inChan) follows(seq int64, what string) error {
	switch {
	case c.parts != nil:
		return fmt.Errorf("%w: %s after part %d of %d of batch %d", ErrGap, what, len(c.parts), c.count, c.seq)
	case seq > c.last:
		return fmt.Errorf("%w: %s sent after batch %d, but batch %d is the last received", ErrGap, what, seq, c.last)
	case seq < c.last:
		return fmt.Errorf("%w: %s sent after batch %d, but batch %d was received", ErrDuplicate, what, seq, c.last)
	}
	return nil
}

func (d *demux) batch(k chanKey, c *inChan, f *frame, data []byte) error {
	seq, part, count := f.seq, f.part, f.parts
	if count < 1 || count > maxParts || part >= count {
		return fmt.Errorf("%w: batch %d: part %d of %d", ErrCorrupt, seq, part, count)
	}
	if f.typ != "" {
		return fmt.Errorf("%w: batch %d with a barrier type", ErrCorrupt, seq)
	}
	var passed int64
	if c.parts != nil {
		want := uint32(len(c.parts))
		switch {
		case seq < c.seq || seq == c.seq && part < want:
			return fmt.Errorf("%w: batch %d part %d while joining part %d of batch %d", ErrDuplicate, seq, part, want, c.seq)
		case seq > c.seq || part > want:
			return fmt.Errorf("%w: batch %d part %d while joining part %d of batch %d", ErrGap, seq, part, want, c.seq)
		case count != c.count:
			return fmt.Errorf("%w: batch %d part %d of %d, earlier parts said %d", ErrCorrupt, seq, part, count, c.count)
		}
		c.parts = append(c.parts, data)
		c.partSize += len(data)
		if uint32(len(c.parts)) < c.count {
			return nil
		}
		joined := make([]byte, 0, c.partSize)
		for _, p := range c.parts {
			joined = append(joined, p...)
		}
		data, passed = joined, c.passed
		c.parts, c.partSize = nil, 0
	} else {
		switch {
		case seq <= c.last:
			return fmt.Errorf("%w: batch %d after batch %d", ErrDuplicate, seq, c.last)
		case seq > c.last+1:
			return fmt.Errorf("%w: batch %d after batch %d", ErrGap, seq, c.last)
		case part > 0:
			return fmt.Errorf("%w: batch %d begins with part %d of %d", ErrGap, seq, part, count)
		case c.ended:
			return fmt.Errorf("%w: batch %d after end of data", ErrCorrupt, seq)
		case f.barrier < 0:
			return fmt.Errorf("%w: batch %d after barrier %d", ErrCorrupt, seq, f.barrier)
		}
		passed = f.barrier
		if count > 1 {
			c.parts, c.count, c.seq, c.passed, c.partSize = [][]byte{data}, count, seq, passed, len(data)
			return nil
		}
	}
	rows, rest, err := c.dec.DecodeOwned(data) // data is the message's own (nats.go allocates it per message) or joined here
	if err != nil {
		return fmt.Errorf("%w: batch %d: %w", ErrCorrupt, seq, err)
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: batch %d: %d bytes after the rows", ErrCorrupt, seq, len(rest))
	}
	c.last = seq
	d.deliver(&messages.Batch{Edge: k.edge, From: k.from, Seq: seq, Barrier: passed, Rows: rows})
	return nil
}
