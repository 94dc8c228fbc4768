package task

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/internal/timers"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/monitor/tap"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
)

// Task is the subtask actor.
type Task struct {
	loc       *messages.TaskLocation
	plan      *plan.Plan
	chain     *plan.Chain
	index     int
	jobMaster *actor.PID
	opts      Options
	log       zerolog.Logger

	self   *actor.PID
	system *actor.ActorSystem
	state  string
	// io is the context of the connectors' I/O (reader Open, CreateWriter
	// and what they start): cancelled when the subtask stops, for any
	// reason, after its operators are closed.
	io       context.Context
	ioCancel context.CancelFunc

	ops     *operators
	outs    []*outEdge             // one per channel edge leaving the chain
	ins     map[chanKey]*inChannel // one per channel into the chain
	pending []any                  // input messages set aside while blocked
	eodLeft int                    // input channels still open

	src *sourceRun // the chain's source, when its head is one

	store    storage.Storage
	cp       checkpointing
	restore  *messages.CompletedCheckpoint // the checkpoint to restore from
	restored []*messages.SubtaskState      // its subtask states
	started  bool                          // StartTask has wired the channels
	early    []any                         // channel messages that came before StartTask

	// receiver brings channels from other nodes (nil in one process); a
	// send to another node that failed leaves its error in remoteErr.
	receiver  io.Closer
	remoteErr error
	resuming  bool // a resume message is on its way

	drained bool // everything processed to end of data and reported
	closed  bool
	metrics metrics
	timers  *timers.Timers // metrics ticks and poll delays, stopped with the actor
	taps    *tap.Subtask   // nil without taps
}

// New is the props producer for a subtask.
// receiver, if not nil, is the NATS subscription that brings this
// subtask's channels from other nodes; it was opened before the subtask was
// deployed, so nothing sent to it is lost, and the subtask closes it.
func New(loc *messages.TaskLocation, p *plan.Plan, jobMaster *actor.PID, restore *messages.CompletedCheckpoint, store storage.Storage, receiver io.Closer, opts Options, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		c := p.Chains[loc.Chain]
		io, cancel := context.WithCancel(context.Background())
		return &Task{loc: loc, plan: p, chain: c, index: int(loc.Subtask), jobMaster: jobMaster, opts: opts,
			io: io, ioCancel: cancel,
			store: store, restore: restore, receiver: receiver,
			state: state.TaskCreated,
			log:   log.With().Str("task", fmt.Sprintf("%s/p%d/a%d/c%d/%d", loc.JobId, loc.Pipeline, loc.Attempt, loc.Chain, loc.Subtask)).Logger()}
	}
}

// Receive handles one message. A panic inside a connector becomes a
// TaskFailed like any error (DESIGN §3: failures are reported, not hidden).
func (t *Task) Receive(ctx actor.Context) {
	if t.closed {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			t.fail(ctx, fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
	}()
	var err error
	switch m := ctx.Message().(type) {
	case *actor.Started:
		t.self, t.system = ctx.Self(), ctx.ActorSystem()
		t.timers = timers.New(ctx)
		t.metrics.started = time.Now()
		err = t.init()
	case *messages.StartTask:
		err = t.start(ctx, m)
	case *messages.Poll:
		err = t.poll(ctx)
	case *messages.Batch:
		err = t.onBatch(ctx, m)
	case *messages.EndOfData:
		err = t.onEndOfData(ctx, m)
	case *messages.CheckpointTrigger:
		err = t.onTrigger(ctx, m)
	case *messages.Barrier:
		if !t.started {
			t.early = append(t.early, m)
		} else {
			err = t.onBarrier(ctx, m)
		}
	case *messages.BarrierMarker:
		err = t.onMarker(ctx, m)
	case *messages.CheckpointDone:
		err = t.onCheckpointDone(m)
	case *stateWritten:
		err = t.onStateWritten(ctx, m)
	case *messages.StopReading:
		if t.src != nil && !t.src.noMore {
			t.src.noMore, t.src.ended = true, true
			err = t.endOfInput(ctx)
		}
	case *messages.ReadRate:
		err = t.onReadRate(m)
	case *messages.Credit:
		err = t.onCredit(ctx, m)
	case *messages.AddSplits:
		err = t.onAddSplits(m)
	case *messages.NoMoreSplits:
		err = t.onNoMoreSplits()
	case *metricsTick:
		t.sendMetrics(ctx)
	case *resume:
		t.resuming = false
		err = t.tryUnblock(ctx)
	case *messages.CloseTask:
		t.finish(ctx, state.TaskClosed)
	case *messages.CancelTask:
		t.setState(ctx, state.TaskCancelling)
		t.finish(ctx, state.TaskCanceled)
	case *actor.Terminated:
		if m.Who.Equal(t.jobMaster) {
			t.log.Warn().Msg("the JobMaster is gone; stopping")
			t.finish(ctx, state.TaskCanceled)
		}
	case *RemoteFailed:
		err = fmt.Errorf("channel from another node: %w", m.Err)
	case *actor.Stopping, *actor.Stopped, *actor.Restarting:
		t.stopTicker()
		if !t.closed {
			_ = t.closeAll()
			t.closed = true
		}
		t.ioCancel()
	}
	if err == nil && t.remoteErr != nil {
		err = fmt.Errorf("channel to another node: %w", t.remoteErr)
	}
	if err != nil {
		t.fail(ctx, err)
	}
}

type metricsTick struct{}

// RemoteFailed tells a subtask that its NATS channels broke (a gap, a
// duplicate, a lost connection): its pipeline must fail over.
type RemoteFailed struct{ Err error }

func (t *Task) setState(ctx actor.Context, s string) {
	t.state = s
	ctx.Send(t.jobMaster, &messages.TaskStateChanged{Loc: t.loc, State: s})
}

// init builds the chain's operators (state INIT) and reads the state to
// restore, if any (WAITING_RESTORE).
func (t *Task) init() error {
	t.state = state.TaskInit
	if t.restore != nil {
		t.state = state.TaskWaitingRestore
		states, err := storage.ReadSubtaskStates(t.store, t.restore)
		if err != nil {
			return err
		}
		t.restored = states
		t.cp.last = t.restore.Id
	}
	ops, err := buildOperators(t)
	if err != nil {
		return err
	}
	t.ops = ops
	return nil
}

// start wires the channels and opens the operators (READY_START → RUNNING).
func (t *Task) start(ctx actor.Context, m *messages.StartTask) error {
	t.setState(ctx, state.TaskReadyStart)
	peers := map[[2]int32]*actor.PID{}
	for _, p := range m.Peers {
		peers[[2]int32{p.Chain, p.Subtask}] = messages.ToPID(p.Pid)
	}
	if err := t.wire(peers); err != nil {
		return err
	}
	t.attachTaps()
	t.cp.coordinator = messages.ToPID(m.Coordinator)
	// A subtask whose JobMaster is gone (its node died, or it was replaced)
	// stops instead of running on as an orphan; its attempt is fenced.
	ctx.Watch(t.jobMaster)
	t.setState(ctx, state.TaskStarting)
	if err := t.ops.open(); err != nil {
		return err
	}
	if err := t.replay(t.restored); err != nil {
		return err
	}
	t.restored = nil
	if t.chain.Head.Kind == plan.SourceVertex {
		var enum *actor.PID
		for _, e := range m.Enumerators {
			if int(e.Vertex) == t.chain.Head.ID {
				enum = messages.ToPID(e.Pid)
			}
		}
		if enum == nil {
			return fmt.Errorf("no enumerator for %s", t.chain.Head.Name)
		}
		if err := t.openSource(ctx, enum); err != nil {
			return err
		}
	}
	t.setState(ctx, state.TaskRunning)
	t.started = true
	for _, m := range t.early {
		var err error
		switch m := m.(type) {
		case *messages.Batch:
			err = t.onBatch(ctx, m)
		case *messages.EndOfData:
			err = t.onEndOfData(ctx, m)
		case *messages.Barrier:
			err = t.onBarrier(ctx, m)
		case *messages.BarrierMarker:
			err = t.onMarker(ctx, m)
		}
		if err != nil {
			return err
		}
	}
	t.early = nil
	t.startTicker()
	if t.src != nil {
		t.schedulePoll(ctx, 0)
	}
	if t.src == nil && t.eodLeft == 0 {
		return t.endOfInput(ctx)
	}
	return nil
}

// endOfInput runs once every input (or the source) has ended: flush, close
// the output channels in order with the data, prepare the sinks' last
// commit and report TaskDrained. The subtask then waits for CloseTask.
func (t *Task) endOfInput(ctx actor.Context) error {
	if t.drained {
		return nil
	}
	if t.blocked() {
		return nil // tryUnblock calls again when the outputs have drained
	}
	t.drained = true
	for _, o := range t.outs {
		o.endOfData(ctx)
	}
	t.setState(ctx, state.TaskPrepareClose)
	// The subtask stays until the pipeline's final checkpoint, whose
	// barrier prepares the writers' last commit (DESIGN §5).
	ctx.Send(t.jobMaster, &messages.TaskDrained{Loc: t.loc, Metrics: t.metricsMsg()})
	return nil
}

// finish closes the operators and stops the actor with final state s.
func (t *Task) finish(ctx actor.Context, s string) {
	if t.closed {
		return
	}
	t.stopTicker()
	err := t.closeAll()
	t.closed = true
	if err != nil && s == state.TaskClosed {
		t.state = state.TaskFailed
		ctx.Send(t.jobMaster, &messages.TaskFailed{Loc: t.loc, Cause: "closing: " + err.Error()})
	} else {
		t.setState(ctx, s)
		ctx.Send(t.jobMaster, t.metricsMsg())
		ctx.Send(t.jobMaster, &messages.TaskClosed{Loc: t.loc})
	}
	ctx.Stop(t.self)
}

// fail reports err and stops. It never restarts the subtask.
func (t *Task) fail(ctx actor.Context, err error) {
	if t.closed {
		return
	}
	t.log.Error().Err(err).Msg("subtask failed")
	t.stopTicker()
	_ = t.closeAll()
	t.closed = true
	t.state = state.TaskFailed
	ctx.Send(t.jobMaster, t.metricsMsg())
	ctx.Send(t.jobMaster, &messages.TaskFailed{Loc: t.loc, Cause: fmt.Sprintf("%s (subtask %d): %v", t.chain.Name(), t.index, err),
		Fenced: errors.Is(err, storage.ErrFenced)})
	ctx.Stop(t.self)
}

func (t *Task) closeAll() error {
	var first error
	t.closeTaps()
	if t.receiver != nil {
		_ = t.receiver.Close()
		t.receiver = nil
	}
	if t.src != nil {
		if err := t.src.close(); err != nil && first == nil {
			first = err
		}
	}
	if t.ops != nil {
		if err := t.ops.close(); err != nil && first == nil {
			first = err
		}
	}
	t.ioCancel()
	return first
}

var _ actor.Actor = (*Task)(nil)
