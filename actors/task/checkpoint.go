package task

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
	"github.com/stactor/stactor/storage"
)

// capture is a checkpoint in progress in this subtask (DESIGN §5 steps
// 3–5): the operators were snapshot when its first barrier (or, at a source,
// its trigger) arrived; until every input channel has delivered its marker,
// batches arriving before a channel's marker are recorded as that channel's
// input state, and nothing is processed.
type capture struct {
	id      int64
	typ     string
	state   *messages.SubtaskState
	waiting map[chanKey]bool
	// recorded batches hold a reference each (row.Batch.Retain) until
	// the capture is written or aborted: they must stay valid, unrecycled,
	// until then, whatever the operators did with them meanwhile.
	recorded map[chanKey][]*row.Batch
	// the counters at the snapshot
	readRows, writeRows int64
	// timing is the diagnosis of this subtask's part (DESIGN §9).
	timing *messages.SubtaskTiming
}

// release gives up the references of the recorded batches; c may be nil.
func (c *capture) release() {
	if c == nil {
		return
	}
	for k, bs := range c.recorded {
		for _, b := range bs {
			b.Release()
		}
		delete(c.recorded, k)
	}
}

// checkpointing is the subtask's checkpoint bookkeeping.
type checkpointing struct {
	coordinator *actor.PID
	last        int64    // the newest barrier seen
	cur         *capture // nil when not capturing
	// infos prepared by the writers and not yet part of a completed
	// checkpoint; every ack carries them until one completes.
	uncommitted []preparedInfo
}

// preparedInfo is a writer's commit info and the checkpoint it was
// prepared for: checkpoint n's completion settles only infos of n and
// before (a later barrier may already have prepared more).
type preparedInfo struct {
	checkpoint int64
	info       *messages.CommitInfo
}

// onTrigger starts checkpoint m.Id at a source subtask: it comes from the
// enumerator on the split-assignment path.
func (t *Task) onTrigger(ctx actor.Context, m *messages.CheckpointTrigger) error {
	return t.startCapture(ctx, m.Id, m.Type)
}

// onBarrier handles a barrier's priority copy.
func (t *Task) onBarrier(ctx actor.Context, m *messages.Barrier) error {
	if m.Id <= t.cp.last {
		return nil // old or already started
	}
	return t.startCapture(ctx, m.Id, m.Type)
}

func (t *Task) startCapture(ctx actor.Context, id int64, typ string) error {
	if id <= t.cp.last {
		return nil
	}
	t.cp.last = id
	t.cp.cur.release() // a newer barrier aborts an older capture
	t.cp.cur = nil
	barrierAt := time.Now()
	c := &capture{id: id, typ: typ, waiting: map[chanKey]bool{}, recorded: map[chanKey][]*row.Batch{},
		state:    &messages.SubtaskState{Chain: t.loc.Chain, Subtask: t.loc.Subtask},
		readRows: t.metrics.readRows, writeRows: t.metrics.writeRows,
		timing: &messages.SubtaskTiming{Chain: t.loc.Chain, Subtask: t.loc.Subtask, BarrierUnixUs: barrierAt.UnixMicro(),
			VertexSnapshotUs: map[int32]int64{}}}
	// Operator state, at once.
	if t.src != nil && t.src.reader != nil {
		began := time.Now()
		splits, err := t.src.reader.SnapshotState(id)
		if err != nil {
			return fmt.Errorf("%s: snapshot: %w", t.chain.Head.Name, err)
		}
		vs := &messages.VertexState{Vertex: int32(t.chain.Head.ID)}
		for _, s := range splits {
			vs.Splits = append(vs.Splits, &messages.Split{Id: s.ID, Data: s.Data})
		}
		c.state.Vertices = append(c.state.Vertices, vs)
		c.timing.VertexSnapshotUs[int32(t.chain.Head.ID)] = time.Since(began).Microseconds()
	}
	for _, p := range t.ops.list {
		if p.writer == nil {
			continue
		}
		began := time.Now()
		info, err := p.writer.PrepareCommit(id)
		if err != nil {
			return fmt.Errorf("%s: prepare commit: %w", p.v.Name, err)
		}
		if info != nil {
			// Where it was written: its TaskExecutionService (the parent)
			// runs the commit when the sink commits on the writer's node.
			t.cp.uncommitted = append(t.cp.uncommitted, preparedInfo{id, &messages.CommitInfo{Vertex: int32(p.v.ID), Subtask: int32(t.index), Info: info,
				Node: t.opts.Node, Worker: messages.FromPID(ctx.Parent())}})
		}
		states, err := p.writer.SnapshotState(id)
		if err != nil {
			return fmt.Errorf("%s: snapshot: %w", p.v.Name, err)
		}
		c.state.Vertices = append(c.state.Vertices, &messages.VertexState{Vertex: int32(p.v.ID), WriterStates: states})
		c.timing.VertexSnapshotUs[int32(p.v.ID)] = time.Since(began).Microseconds()
	}
	c.timing.SnapshotUs = time.Since(barrierAt).Microseconds()
	// The operators' snapshot is work, as Flink counts its synchronous
	// part: a sink that flushes in prepareCommit is busy meanwhile, and
	// read_limit.adaptive estimates a sink's capacity from its busy time.
	t.metrics.busy(barrierAt)
	// Output channel state: what waits for credit.
	for _, o := range t.outs {
		if len(o.queue) > 0 {
			cs := &messages.ChannelState{Edge: int32(o.edge.ID), From: int32(t.index), Output: true,
				Batches: channelContext(t.ops.ops[o.edge.From.ID], true)}
			for _, b := range o.queue {
				cs.Batches = append(cs.Batches, row.AppendBatch(nil, b))
			}
			c.state.Channels = append(c.state.Channels, cs)
		}
	}
	// Input channel state: what was taken off the mailbox and set aside.
	for k := range t.ins {
		c.waiting[k] = true
	}
	for _, m := range t.pending {
		if b, ok := m.(*messages.Batch); ok {
			k := chanKey{b.Edge, b.From}
			b.Rows.Retain()
			c.recorded[k] = append(c.recorded[k], b.Rows)
		}
	}
	t.cp.cur = c
	// Forward the barrier: the priority copy, then the in-order marker.
	for _, o := range t.outs {
		o.barrier(id, typ)
	}
	if len(c.waiting) == 0 {
		return t.finishCapture(ctx)
	}
	return nil
}

// onMarker handles a barrier's in-order marker on one channel.
func (t *Task) onMarker(ctx actor.Context, m *messages.BarrierMarker) error {
	if !t.started {
		t.early = append(t.early, m)
		return nil
	}
	k := chanKey{m.Edge, m.From}
	if t.ins[k] == nil {
		return fmt.Errorf("marker on unknown channel (edge %d from subtask %d)", m.Edge, m.From)
	}
	if m.ID > t.cp.last {
		// The priority copy has not arrived (it was sent before the marker,
		// but another path may be slower): the marker starts the capture.
		if err := t.startCapture(ctx, m.ID, m.Type); err != nil {
			return err
		}
	}
	c := t.cp.cur
	if c == nil || c.id != m.ID || !c.waiting[k] {
		return nil // an aborted or older checkpoint's marker
	}
	delete(c.waiting, k)
	if len(c.waiting) == 0 {
		return t.finishCapture(ctx)
	}
	return nil
}

// recordIfCapturing records a batch that arrived before its channel's
// marker as input channel state.
func (t *Task) recordIfCapturing(m *messages.Batch) {
	if c := t.cp.cur; c != nil {
		k := chanKey{m.Edge, m.From}
		if c.waiting[k] {
			m.Rows.Retain()
			c.recorded[k] = append(c.recorded[k], m.Rows)
		}
	}
}

// inlineStateLimit is the largest subtask state sent in the ack itself
// and stored in the checkpoint's metadata (as Flink's
// state.storage.fs.memory-threshold, 20 KB there): a source's positions,
// a writer's small state. Each blob of its own costs the storage a file
// or object and a sync per checkpoint, which for small states is most of
// what a checkpoint costs (benchmarks/RESULTS.md, workload 3). Channel
// state soon passes it and goes to a blob.
const inlineStateLimit = 16 << 10

// finishCapture writes the subtask's state (or, small, puts it in the
// ack) and acks the checkpoint, then processes what was set aside.
func (t *Task) finishCapture(ctx actor.Context) error {
	c := t.cp.cur
	t.cp.cur = nil
	defer c.release() // encoded below: the recorded batches are done with
	aligned := time.Now()
	c.timing.AlignedUnixUs = aligned.UnixMicro()
	var batches int64
	for k, bs := range c.recorded {
		if len(bs) == 0 {
			continue
		}
		cs := &messages.ChannelState{Edge: k.edge, From: k.from}
		if int(k.edge) < len(t.plan.Edges) {
			cs.Batches = channelContext(t.ops.ops[t.plan.Edges[k.edge].To.ID], false)
		}
		for _, b := range bs {
			cs.Batches = append(cs.Batches, row.AppendBatch(nil, b))
		}
		batches += int64(len(bs))
		c.state.Channels = append(c.state.Channels, cs)
	}
	for _, cs := range c.state.Channels {
		if cs.Output {
			batches += int64(len(cs.Batches))
		}
	}
	data, err := proto.Marshal(c.state)
	if err != nil {
		return fmt.Errorf("encoding checkpoint %d state: %w", c.id, err)
	}
	c.timing.StateBytes, c.timing.ChannelBatches = int64(len(data)), batches
	for _, cs := range c.state.Channels {
		for _, b := range cs.Batches {
			c.timing.ChannelBytes += int64(len(b))
		}
	}
	var commits []*messages.CommitInfo
	for _, p := range t.cp.uncommitted {
		if p.checkpoint <= c.id {
			commits = append(commits, p.info)
		}
	}
	ack := &messages.CheckpointAck{Id: c.id, Loc: t.loc, Commits: commits, StateBytes: int64(len(data)), ChannelBatches: batches,
		ReadRows: c.readRows, WriteRows: c.writeRows, Timing: c.timing}
	if len(data) <= inlineStateLimit {
		ack.State = data
		c.timing.StateWriteUs = time.Since(aligned).Microseconds()
		ctx.Send(t.cp.coordinator, ack)
		return t.tryUnblock(ctx)
	}
	// Written off the actor: the subtask goes on with its rows (the
	// barrier has passed; an unaligned checkpoint's point is that data
	// does not wait for state) and answers close and cancel while a slow
	// store takes its time. stateWritten sends the ack.
	store, loc, id, to := t.store, t.loc, c.id, t.cp.coordinator
	self, root := t.self, t.system.Root
	name := fmt.Sprintf("task-%d-%d", loc.Chain, loc.Subtask)
	go func() {
		handle, err := store.WriteState(loc.JobId, int(loc.Pipeline), int(loc.Attempt), id, name, data)
		ack.Handle = handle
		ack.Timing.StateWriteUs = time.Since(aligned).Microseconds()
		root.Send(self, &stateWritten{ack: ack, to: to, err: err})
	}()
	return t.tryUnblock(ctx)
}

// stateWritten is a subtask state written to the store off the actor:
// the ack to send, or why the write failed.
type stateWritten struct {
	ack *messages.CheckpointAck
	to  *actor.PID
	err error
}

// onStateWritten acks a checkpoint whose state was written. A failed
// write fails the checkpoint, not the subtask: the coordinator aborts it
// (counting it against tolerable failures) and the next one carries the
// same uncommitted infos; a fenced store, which a newer attempt owns,
// fails the subtask. The ack of a checkpoint aborted meanwhile is one the
// coordinator ignores.
func (t *Task) onStateWritten(ctx actor.Context, m *stateWritten) error {
	if m.err != nil {
		if errors.Is(m.err, storage.ErrFenced) {
			return fmt.Errorf("writing checkpoint %d state: %w", m.ack.Id, m.err)
		}
		t.log.Warn().Err(m.err).Int64("checkpoint", m.ack.Id).Msg("writing the subtask's checkpoint state failed; the checkpoint is aborted")
		ctx.Send(m.to, &messages.CheckpointAck{Id: m.ack.Id, Loc: m.ack.Loc,
			Error: fmt.Sprintf("%s (subtask %d): writing its state: %v", t.chain.Name(), t.index, m.err)})
		return nil
	}
	ctx.Send(m.to, m.ack)
	return nil
}

// onCheckpointDone: a completed checkpoint carries our prepared infos, so
// they are no longer ours to carry; an aborted one leaves them for the next.
func (t *Task) onCheckpointDone(m *messages.CheckpointDone) error {
	if m.Aborted {
		if c := t.cp.cur; c != nil && c.id == m.Id {
			c.release()
			t.cp.cur = nil
		}
		return nil
	}
	kept := t.cp.uncommitted[:0]
	for _, p := range t.cp.uncommitted {
		if p.checkpoint > m.Id {
			kept = append(kept, p)
		}
	}
	t.cp.uncommitted = kept
	if t.src != nil && t.src.reader != nil {
		if err := t.src.reader.NotifyCheckpointComplete(m.Id); err != nil {
			return fmt.Errorf("%s: %w", t.chain.Head.Name, err)
		}
	}
	return nil
}

// replay pushes the restored channel state into the operators before any
// new data: per logical edge, batches recorded by the old sender i go to
// subtask i mod parallelism of the edge's target, input state before
// output state (DESIGN §5 step 7 and rescaling).
func (t *Task) replay(states []*messages.SubtaskState) error {
	dec := row.NewDecoder().Recycle() // push hands each batch on, then releases it
	for _, output := range []bool{false, true} {
		for _, st := range states {
			for _, cs := range st.Channels {
				if cs.Output != output || int(cs.Edge) >= len(t.plan.Edges) {
					continue
				}
				e := t.plan.Edges[cs.Edge]
				if e.To.Chain != t.chain || int(cs.From)%e.To.Parallelism != t.index {
					continue
				}
				p := t.ops.ops[e.To.ID]
				for _, raw := range cs.Batches {
					b, _, err := dec.Decode(raw)
					if err != nil {
						return fmt.Errorf("restoring channel state of edge %d: %w", cs.Edge, err)
					}
					if err := t.ops.push(p, b); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// writerStates are the restored states of vertex v's writer for this
// subtask: those of old subtask i where i mod parallelism is this one.
func (t *Task) writerStates(v *plan.Vertex) [][]byte {
	var out [][]byte
	for _, st := range t.restored {
		if int(st.Subtask)%v.Parallelism != t.index {
			continue
		}
		for _, vs := range st.Vertices {
			if int(vs.Vertex) == v.ID {
				out = append(out, vs.WriterStates...)
			}
		}
	}
	return out
}
