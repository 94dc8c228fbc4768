// Package enumerator is the SplitEnumerator host: one actor per source per
// pipeline, child of the JobMaster. It creates the source's enumerator,
// registers the readers as they come up, calls Run once all of them have,
// and turns the enumerator's assignments into messages to the readers — at
// the default level, the level and path checkpoint triggers will take too
// (DESIGN §5 step 2), so a reader sees its splits and triggers in one order.
package enumerator

import (
	"fmt"
	"sort"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// Failed is what the host tells its parent when the enumerator fails; the
// host has stopped.
type Failed struct {
	Vertex int
	Cause  error
}

// Host is the enumerator host actor.
type Host struct {
	vertex *plan.Vertex
	state  []byte // to restore from; nil on a fresh start
	parent *actor.PID

	ctx     actor.Context
	enum    connectors.SplitEnumerator
	readers map[int]*actor.PID
	waiting map[int][]any // messages for readers not registered yet
	ran     bool
	stopped bool
}

// New is the props producer of a host for source vertex v.
func New(v *plan.Vertex, state []byte) actor.Producer {
	return func() actor.Actor { return &Host{vertex: v, state: state, readers: map[int]*actor.PID{}, waiting: map[int][]any{}} }
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
				_ = h.enum.Close()
			}
			ctx.Send(ctx.Parent(), &Failed{Vertex: h.vertex.ID, Cause: fmt.Errorf("%s enumerator: %w", h.vertex.Name, err)})
			ctx.Stop(ctx.Self())
		}
	}()
	switch m := ctx.Message().(type) {
	case *actor.Started:
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
	case *actor.Stopping:
		if h.enum != nil {
			_ = h.enum.Close()
			h.enum = nil
		}
	}
}

func (h *Host) open() error {
	src, err := h.vertex.NewSource()
	if err != nil {
		return err
	}
	e, err := src.CreateEnumerator(h, h.state)
	if err != nil {
		return err
	}
	h.enum = e
	return e.Open()
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
