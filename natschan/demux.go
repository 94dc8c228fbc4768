package natschan

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// demux is a Receiver's protocol state: it checks each channel's sequence,
// joins the parts of batches, decodes them and hands the messages on. Its
// owner calls it from one goroutine at a time.
type demux struct {
	attempt string // the scope's attempt, as HeaderAttempt carries it
	term    string // and its leader's term, as HeaderTerm does
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
	count    int
	seq      int64
	passed   int64 // the batch's barrier header
	partSize int
}

func newDemux(s Scope, deliver func(any), onError func(error)) *demux {
	return &demux{attempt: strconv.FormatInt(int64(s.Attempt), 10), term: strconv.FormatUint(s.Term, 10), deliver: deliver, onError: onError,
		chans: map[chanKey]*inChan{}}
}

// fail stops all delivery and reports err, once.
func (d *demux) fail(err error) {
	if d.failed {
		return
	}
	d.failed = true
	d.onError(err)
}

// handle takes one NATS message.
func (d *demux) handle(subject string, h nats.Header, data []byte) {
	if d.failed {
		return
	}
	if h.Get(HeaderAttempt) != d.attempt || h.Get(HeaderTerm) != d.term {
		// Another attempt's or leader's sender (a paused node that woke
		// up) or not a channel message at all: it must not count (DESIGN
		// §6 fencing).
		d.dropped.Add(1)
		return
	}
	edge, ok := edgeOf(subject)
	from, err := strconv.ParseInt(h.Get(HeaderFrom), 10, 32)
	if !ok || err != nil || from < 0 {
		d.fail(fmt.Errorf("%w: %s: no channel in the subject or %s %q", ErrCorrupt, subject, HeaderFrom, h.Get(HeaderFrom)))
		return
	}
	k := chanKey{edge, int32(from)}
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
	if err := d.channel(k, c, h, data); err != nil {
		c.failed = true
		c.parts = nil
		d.onError(&ChannelError{Edge: k.edge, From: k.from, Err: err})
	}
}

func (d *demux) channel(k chanKey, c *inChan, h nats.Header, data []byte) error {
	seq, err := strconv.ParseInt(h.Get(HeaderSeq), 10, 64)
	if err != nil || seq < 0 {
		return fmt.Errorf("%w: %s %q", ErrCorrupt, HeaderSeq, h.Get(HeaderSeq))
	}
	switch kind := h.Get(HeaderKind); kind {
	case KindBatch:
		return d.batch(k, c, seq, h, data)
	case KindEnd:
		if err := c.follows(seq, "end of data"); err != nil {
			return err
		}
		if c.ended {
			return fmt.Errorf("%w: end of data twice", ErrDuplicate)
		}
		c.ended = true
		d.deliver(&messages.EndOfData{Edge: k.edge, From: k.from, Seq: seq})
	case KindBarrier:
		id, err := strconv.ParseInt(h.Get(HeaderBarrier), 10, 64)
		if err != nil || id < 1 {
			return fmt.Errorf("%w: barrier id %q", ErrCorrupt, h.Get(HeaderBarrier))
		}
		if err := c.follows(seq, fmt.Sprintf("barrier %d", id)); err != nil {
			return err
		}
		if id <= c.barrier {
			return fmt.Errorf("%w: barrier %d after barrier %d", ErrDuplicate, id, c.barrier)
		}
		c.barrier = id
		typ := h.Get(HeaderType)
		// The priority copy first: it may overtake queued data at the
		// receiver; the marker stays in order with the batches.
		d.deliver(&messages.Barrier{Id: id, Edge: k.edge, From: k.from, Type: typ})
		d.deliver(&messages.BarrierMarker{ID: id, Edge: k.edge, From: k.from, Seq: seq, Type: typ})
	default:
		return fmt.Errorf("%w: %s %q", ErrCorrupt, HeaderKind, kind)
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

func (d *demux) batch(k chanKey, c *inChan, seq int64, h nats.Header, data []byte) error {
	part, count, err := parsePart(h.Get(HeaderPart))
	if err != nil {
		return fmt.Errorf("%w: batch %d: %w", ErrCorrupt, seq, err)
	}
	var passed int64
	if c.parts != nil {
		want := len(c.parts)
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
		if len(c.parts) < c.count {
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
		}
		if s := h.Get(HeaderBarrier); s != "" {
			if passed, err = strconv.ParseInt(s, 10, 64); err != nil || passed < 0 {
				return fmt.Errorf("%w: batch %d: %s %q", ErrCorrupt, seq, HeaderBarrier, s)
			}
		}
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
