// Package enumerator is the SplitEnumerator host: one actor per source per
// pipeline, child of the JobMaster. It creates the source's enumerator,
// registers the readers as they come up, calls Run once all of them have,
// and turns the enumerator's assignments into messages to the readers — at
// the default level, the level and path checkpoint triggers will take too
// (DESIGN §5 step 2), so a reader sees its splits and triggers in one order.
package enumerator

import (
	"context"
	"fmt"
	"sort"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/actors/internal/guard"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/storage"
)

// Failed is what the host tells its parent when the enumerator fails; the
// host has stopped.
type Failed struct {
	Vertex int
	Cause  error
}

// Host is the enumerator host actor.
type Host struct {
	vertex      *plan.Vertex
	restore     *messages.CompletedCheckpoint // nil on a fresh start
	store       storage.Storage
	coordinator *actor.PID

	ctx  actor.Context
	enum connectors.SplitEnumerator
	// io is the context of the enumerator's I/O: cancelled when the host
	// stops (the pipeline is cancelled or fails over).
	io       context.Context
	ioCancel context.CancelFunc
	readers  map[int]*actor.PID
	waiting  map[int][]any // messages for readers not registered yet
	ran      bool
	stopped  bool
}

// New is the props producer of a host for source vertex v; restore is the
// checkpoint to restore from (nil on a fresh start), coordinator the
// pipeline's CheckpointCoordinator.
func New(v *plan.Vertex, restore *messages.CompletedCheckpoint, store storage.Storage, coordinator *actor.PID) actor.Producer {
	return func() actor.Actor {
		return &Host{vertex: v, restore: restore, store: store, coordinator: coordinator,
			readers: map[int]*actor.PID{}, waiting: map[int][]any{}}
	}
}

var _ connectors.EnumeratorContext = (*Host)(nil)

// Receive handles one message.
func (h *Host) Receive(ctx actor.Context) {
	if h.stopped {
		return
	}
	h.ctx = ctx
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
		if err != nil {
			h.stopped = true
			if h.enum != nil {
				_ = guard.Call(h.enum.Close)
				h.enum = nil
			}
			h.ioCancel()
			ctx.Send(ctx.Parent(), &Failed{Vertex: h.vertex.ID, Cause: fmt.Errorf("%s enumerator: %w", h.vertex.Name, err)})
			ctx.Stop(ctx.Self())
		}
	}()
	switch m := ctx.Message().(type) {
	case *actor.Started:
		h.io, h.ioCancel = context.WithCancel(context.Background())
		err = h.open()
	case *messages.RegisterReader:
		i := int(m.Subtask)
		h.readers[i] = messages.ToPID(m.Reader)
		for _, w := range h.waiting[i] {
			ctx.Send(h.readers[i], w)
		}
		delete(h.waiting, i)
		if err = h.enum.RegisterReader(i); err == nil && !h.ran && len(h.readers) == h.vertex.Parallelism {
			h.ran = true
			err = h.enum.Run()
		}
	case *messages.SplitRequest:
		err = h.enum.HandleSplitRequest(int(m.Subtask))
	case *messages.SourceEvent:
		if eh, ok := h.enum.(connectors.SourceEventHandler); ok {
			err = eh.HandleSourceEvent(int(m.Subtask), m.Data)
		} else {
			err = fmt.Errorf("reader %d sent an event, but the enumerator takes none", m.Subtask)
		}
	case *messages.CheckpointTrigger:
		err = h.trigger(ctx, m)
	case *messages.CheckpointDone:
		if !m.Aborted {
			err = h.enum.NotifyCheckpointComplete(m.Id)
		}
	case *actor.Stopping:
		if h.enum != nil {
			_ = h.enum.Close()
			h.enum = nil
		}
		h.ioCancel()
	}
}

// open creates the enumerator; on a restore from its state in the
// checkpoint, and the readers' splits (with their positions) go back to it,
// to be assigned across the readers there are now (DESIGN §5, rescaling).
func (h *Host) open() error {
	src, err := h.vertex.NewSource()
	if err != nil {
		return err
	}
	var state []byte
	if h.restore != nil {
		for _, es := range h.restore.Enumerators {
			if int(es.Vertex) == h.vertex.ID {
				state = es.State
			}
		}
	}
	e, err := src.CreateEnumerator(h, state)
	if err != nil {
		return err
	}
	h.enum = e
	if err := e.Open(h.io); err != nil {
		return err
	}
	if h.restore == nil {
		return nil
	}
	states, err := storage.ReadSubtaskStates(h.store, h.restore)
	if err != nil {
		return err
	}
	for _, st := range states {
		for _, vs := range st.Vertices {
			if int(vs.Vertex) != h.vertex.ID || len(vs.Splits) == 0 {
				continue
			}
			splits := make([]connectors.Split, len(vs.Splits))
			for i, sp := range vs.Splits {
				splits[i] = connectors.Split{ID: sp.Id, Data: sp.Data}
			}
			if err := e.AddSplitsBack(splits, int(st.Subtask)); err != nil {
				return err
			}
		}
	}
	return nil
}

// trigger snapshots the enumerator for checkpoint m.Id, acks, and passes
// the trigger to every reader behind the splits assigned so far.
func (h *Host) trigger(ctx actor.Context, m *messages.CheckpointTrigger) error {
	state, err := h.enum.SnapshotState(m.Id)
	if err != nil {
		return fmt.Errorf("snapshot for checkpoint %d: %w", m.Id, err)
	}
	ctx.Send(h.coordinator, &messages.CheckpointAck{Id: m.Id, EnumeratorVertex: int32(h.vertex.ID), EnumeratorState: state, StateBytes: int64(len(state))})
	for i := 0; i < h.vertex.Parallelism; i++ {
		h.send(i, m)
	}
	return nil
}

// Parallelism is the number of readers.
func (h *Host) Parallelism() int { return h.vertex.Parallelism }

// RegisteredReaders are the readers registered so far, in order.
func (h *Host) RegisteredReaders() []int {
	out := make([]int, 0, len(h.readers))
	for i := range h.readers {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// AssignSplits sends splits to a registered reader.
func (h *Host) AssignSplits(subtask int, splits ...connectors.Split) {
	if len(splits) == 0 {
		return
	}
	m := &messages.AddSplits{Vertex: int32(h.vertex.ID)}
	for _, s := range splits {
		m.Splits = append(m.Splits, &messages.Split{Id: s.ID, Data: s.Data})
	}
	h.send(subtask, m)
}

// send delivers m to a reader, or keeps it until the reader registers.
func (h *Host) send(subtask int, m any) {
	if pid := h.readers[subtask]; pid != nil {
		h.ctx.Send(pid, m)
		return
	}
	h.waiting[subtask] = append(h.waiting[subtask], m)
}

// SignalNoMoreSplits tells a registered reader it gets no more splits.
func (h *Host) SignalNoMoreSplits(subtask int) {
	h.send(subtask, &messages.NoMoreSplits{Vertex: int32(h.vertex.ID)})
}
