package task

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/natschan"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// outEdge sends one vertex's output over a channel edge to the downstream
// chain's subtasks: to the subtask of the same index (forward) or to
// whichever has credit, in turn (rebalance).
type outEdge struct {
	t     *Task
	edge  *plan.Edge
	chans []*outChannel
	queue []*row.Batch // waiting for credit, oldest first; a reference each
	next  int          // rebalance: where to look for credit first
	held  bool         // the queue held batches when drain last returned
}

type outChannel struct {
	to     int32
	pid    *actor.PID
	remote *natschan.Sender // set when the receiver is on another node
	seq    int64            // last sequence number sent
	credit int64            // may send up to this sequence number
}

// inChannel is the receiving end of one channel.
type inChannel struct {
	pid       *actor.PID // the sender, for credits
	received  int64      // last sequence number received
	processed int64      // last sequence number processed
	granted   int64      // credit granted so far
	ended     bool
}

type chanKey struct {
	edge int32
	from int32
}

// wire creates the channels of the chain from the pipeline's subtask pids.
func (t *Task) wire(peers map[[2]int32]*actor.PID) error {
	peer := func(c *plan.Chain, i int) (*actor.PID, error) {
		p := peers[[2]int32{int32(c.ID), int32(i)}]
		if p == nil {
			return nil, fmt.Errorf("no subtask %d of chain %d among the peers", i, c.ID)
		}
		return p, nil
	}
	for _, e := range t.chain.Out {
		o := &outEdge{t: t, edge: e}
		down := e.To.Chain
		targets := []int{t.index}
		if e.Partitioning != plan.Forward {
			targets = targets[:0]
			for i := 0; i < down.Parallelism; i++ {
				targets = append(targets, i)
			}
			o.next = t.index % len(targets)
		}
		for _, i := range targets {
			pid, err := peer(down, i)
			if err != nil {
				return err
			}
			ch := &outChannel{to: int32(i), pid: pid, credit: t.opts.CreditWindow}
			if pid.Address != t.self.Address {
				if ch.remote, err = t.openRemote(int32(e.ID), int32(i)); err != nil {
					return err
				}
			}
			o.chans = append(o.chans, ch)
		}
		t.outs = append(t.outs, o)
		src := t.ops.ops[e.From.ID]
		src.outs = append(src.outs, o)
	}
	t.ins = map[chanKey]*inChannel{}
	for _, e := range t.chain.In {
		up := e.From.Chain
		from := []int{t.index}
		if e.Partitioning != plan.Forward {
			from = from[:0]
			for i := 0; i < up.Parallelism; i++ {
				from = append(from, i)
			}
		}
		for _, i := range from {
			pid, err := peer(up, i)
			if err != nil {
				return err
			}
			t.ins[chanKey{int32(e.ID), int32(i)}] = &inChannel{pid: pid, granted: t.opts.CreditWindow}
		}
	}
	t.eodLeft = len(t.ins)
	return nil
}

func (o *outEdge) send(b *row.Batch) {
	o.queue = append(o.queue, b)
	o.drain()
}

// drain sends queued batches while some channel has credit. The time
// the edge holds batches for lack of credit is the subtask's backpressure.
func (o *outEdge) drain() {
	o.sendWithCredit()
	if held := len(o.queue) > 0; held != o.held {
		o.held = held
		if held {
			o.t.metrics.hold()
		} else {
			o.t.metrics.release()
		}
	}
}

// sendWithCredit sends queued batches while some channel has credit. A
// schema-change batch goes to every channel of the edge (each receiver
// must meet it before the rows after it), once all of them have credit.
func (o *outEdge) sendWithCredit() {
	for len(o.queue) > 0 {
		b := o.queue[0]
		var to []*outChannel
		if b.IsSchemaChange() {
			for _, c := range o.chans {
				if c.seq >= c.credit {
					return
				}
			}
			to = o.chans
		} else {
			for k := 0; k < len(o.chans); k++ {
				c := o.chans[(o.next+k)%len(o.chans)]
				if c.seq < c.credit {
					to = []*outChannel{c}
					o.next = (o.next + k + 1) % len(o.chans)
					break
				}
			}
			if to == nil {
				return
			}
		}
		o.queue[0] = nil
		o.queue = o.queue[1:]
		for range len(to) - 1 {
			b.Retain()
		}
		for _, ch := range to {
			if !o.sendOn(ch, b) {
				return
			}
		}
	}
}

// sendOn sends b on ch with the queue's reference to it; false when a
// remote send failed (remoteErr says why).
func (o *outEdge) sendOn(ch *outChannel, b *row.Batch) bool {
	ch.seq++
	if ch.remote != nil {
		// Encoded before SendBatch returns: this subtask's reference
		// is done with.
		err := ch.remote.SendBatch(int32(o.t.index), ch.seq, o.t.cp.last, b)
		b.Release()
		if err != nil {
			o.t.remoteErr = err
			return false
		}
		return true
	}
	// The message carries the queue's reference to the receiver, whose
	// process hands it to its operators.
	o.t.system.Root.Send(ch.pid, &messages.Batch{Edge: int32(o.edge.ID), From: int32(o.t.index), Seq: ch.seq, Barrier: o.t.cp.last, Rows: b})
	return true
}

func (o *outEdge) endOfData(_ actor.Context) {
	for _, ch := range o.chans {
		if ch.remote != nil {
			if err := ch.remote.SendEndOfData(int32(o.t.index), ch.seq); err != nil {
				o.t.remoteErr = err
			}
			continue
		}
		o.t.system.Root.Send(ch.pid, &messages.EndOfData{Edge: int32(o.edge.ID), From: int32(o.t.index), Seq: ch.seq})
	}
}

// barrier sends barrier id on every channel: the priority copy and the
// in-order marker as two actor messages, or as one NATS message to
// another node.
func (o *outEdge) barrier(id int64, typ string) {
	for _, ch := range o.chans {
		if ch.remote != nil {
			if err := ch.remote.SendBarrier(id, int32(o.t.index), ch.seq, typ); err != nil {
				o.t.remoteErr = err
			}
			continue
		}
		o.t.system.Root.Send(ch.pid, &messages.Barrier{Id: id, Edge: int32(o.edge.ID), From: int32(o.t.index), Type: typ})
		o.t.system.Root.Send(ch.pid, &messages.BarrierMarker{ID: id, Edge: int32(o.edge.ID), From: int32(o.t.index), Seq: ch.seq, Type: typ})
	}
}

// openRemote opens a NATS channel to subtask `to` of edge on another node.
func (t *Task) openRemote(edge, to int32) (*natschan.Sender, error) {
	if t.opts.NATS == nil {
		return nil, fmt.Errorf("edge %d: subtask %d is on another node, but this node has no NATS connection", edge, to)
	}
	s, err := natschan.NewSender(t.opts.NATS, natschan.Scope{Job: t.loc.JobId, Term: t.loc.Term, Attempt: t.loc.Attempt, Pipeline: t.loc.Pipeline}, edge, to, natschan.WithPrefix(t.opts.Prefix))
	if err != nil {
		return nil, fmt.Errorf("edge %d to subtask %d: %w", edge, to, err)
	}
	return s, nil
}

// blocked tells whether some output holds batches for lack of credit.
func (t *Task) blocked() bool {
	for _, o := range t.outs {
		if len(o.queue) > 0 {
			return true
		}
	}
	return false
}

func (t *Task) inChannel(edge, from int32) (*inChannel, error) {
	ch := t.ins[chanKey{edge, from}]
	if ch == nil {
		return nil, fmt.Errorf("data on unknown channel (edge %d from subtask %d)", edge, from)
	}
	return ch, nil
}

func (t *Task) onBatch(ctx actor.Context, m *messages.Batch) error {
	if !t.started {
		t.early = append(t.early, m)
		return nil
	}
	ch, err := t.inChannel(m.Edge, m.From)
	if err != nil {
		return err
	}
	if m.Seq != ch.received+1 {
		return fmt.Errorf("channel edge %d from subtask %d: got batch %d after %d (a gap or a duplicate)", m.Edge, m.From, m.Seq, ch.received)
	}
	ch.received = m.Seq
	t.recordIfCapturing(m)
	if t.holding() {
		t.pending = append(t.pending, m)
		return nil
	}
	return t.process(ctx, m)
}

// holding tells whether input must be set aside: the outputs lack credit,
// a checkpoint capture waits for markers, or older input is set aside.
func (t *Task) holding() bool {
	return t.cp.cur != nil || len(t.pending) > 0 || t.blocked()
}

func (t *Task) onEndOfData(ctx actor.Context, m *messages.EndOfData) error {
	if !t.started {
		t.early = append(t.early, m)
		return nil
	}
	ch, err := t.inChannel(m.Edge, m.From)
	if err != nil {
		return err
	}
	if m.Seq != ch.received {
		return fmt.Errorf("channel edge %d from subtask %d: end of data after batch %d, but %d arrived", m.Edge, m.From, m.Seq, ch.received)
	}
	if t.holding() {
		t.pending = append(t.pending, m)
		return nil
	}
	return t.process(ctx, m)
}

// process handles one input message that is no longer set aside.
func (t *Task) process(ctx actor.Context, msg any) error {
	switch m := msg.(type) {
	case *messages.Batch:
		ch := t.ins[chanKey{m.Edge, m.From}]
		start := time.Now()
		if err := t.ops.push(t.ops.ops[t.chain.Head.ID], m.Rows); err != nil {
			return err
		}
		t.metrics.busy(start)
		ch.processed = m.Seq
		if w := t.opts.CreditWindow; ch.processed+w-ch.granted >= (w+1)/2 {
			ch.granted = ch.processed + w
			ctx.Send(ch.pid, &messages.Credit{Edge: m.Edge, From: m.From, To: int32(t.index), UpTo: ch.granted})
		}
	case *messages.EndOfData:
		ch := t.ins[chanKey{m.Edge, m.From}]
		if ch.ended {
			return fmt.Errorf("channel edge %d from subtask %d ended twice", m.Edge, m.From)
		}
		ch.ended = true
		t.eodLeft--
		if t.eodLeft == 0 && t.src == nil {
			return t.endOfInput(ctx)
		}
	}
	return nil
}

func (t *Task) onCredit(ctx actor.Context, m *messages.Credit) error {
	for _, o := range t.outs {
		if o.edge.ID != int(m.Edge) {
			continue
		}
		for _, ch := range o.chans {
			if ch.to == m.To && m.UpTo > ch.credit {
				ch.credit = m.UpTo
			}
		}
		o.drain()
	}
	return t.tryUnblock(ctx)
}

// resume is a subtask's message to itself: take the next set-aside input.
type resume struct{}

// tryUnblock resumes work that waited for credit.
func (t *Task) tryUnblock(ctx actor.Context) error {
	if t.cp.cur != nil {
		return nil // a capture holds the input until its markers are in
	}
	// One set-aside message per turn: a barrier's priority copy (or a
	// cancel) waiting in the mailbox gets its turn between two batches,
	// however slow the operators are (checkpoint latency must not grow
	// with the sink's slowness, DESIGN §5).
	if !t.blocked() && len(t.pending) > 0 {
		m := t.pending[0]
		t.pending[0] = nil
		t.pending = t.pending[1:]
		if err := t.process(ctx, m); err != nil {
			return err
		}
		if len(t.pending) > 0 {
			if !t.resuming {
				t.resuming = true
				ctx.Send(t.self, &resume{})
			}
			return nil
		}
	}
	if t.blocked() || t.cp.cur != nil {
		return nil
	}
	if t.src != nil {
		if t.src.ended {
			return t.endOfInput(ctx)
		}
		t.schedulePoll(ctx, 0)
		return nil
	}
	if t.eodLeft == 0 && len(t.ins) > 0 {
		return t.endOfInput(ctx)
	}
	return nil
}
