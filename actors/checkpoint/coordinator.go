package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/internal/timers"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/storage"
)

// Coordinator is the CheckpointCoordinator actor of one pipeline attempt,
// child of the JobMaster.
type Coordinator struct {
	// timers are the actor\'s (interval ticks, timeouts), stopped with it.
	timers  *timers.Timers
	cfg     Config
	job     Job
	jobID   string
	pipe    *plan.Pipeline
	attempt int
	term    uint64
	store   storage.Storage
	// io makes the store calls off the actor (storeio.go), started with
	// it and stopped with it.
	io      *storeIO
	restore *messages.CompletedCheckpoint
	log     zerolog.Logger

	self *actor.PID
	sys  *actor.ActorSystem

	tasks      []*actor.PID
	enums      map[int]*actor.PID
	committers map[int]*actor.PID // by sink vertex
	running    bool

	// pending are commit infos of completed checkpoints not yet committed,
	// by checkpoint id; they go into every later checkpoint.
	pending       map[int64][]*messages.PendingCommit
	pendingFinal  map[int64]bool
	uncommitted   map[int64]map[int]bool // checkpoint → sink vertices yet to commit
	restoring     map[int]bool           // sinks still committing a restore's leftovers
	restoredIDs   []int64                // checkpoint ids of the infos a restore carries
	inflight      *inflight
	seq           int64 // the number of checkpoints begun: inflight.seq
	lastEnd       time.Time
	requested     bool // a subtask asked for a checkpoint while one was in flight
	failures      int
	finalAsked    bool
	finalType     string
	done          bool
	lastCompleted *messages.CompletedCheckpoint
	// committing are the completed checkpoints whose commits are not all
	// in, with when each sink's began: once they are, the checkpoint is
	// stored again with its commit times (diagnosis.go).
	committing map[int64]*committing
	stopping   bool // the pipeline is stopping: store nothing more
}

type inflight struct {
	// seq tells this checkpoint's timeout and store answers from those of
	// one given up before.
	seq     int64
	id      int64 // -1 until the store handed it out
	typ     string
	started time.Time
	sent    time.Time // the triggers sent, the id in hand
	acks    map[string]*messages.CheckpointAck
	need    int
	// writing: every ack is in and the completed checkpoint (cp) is being
	// stored; newInfos are the commit infos it adds.
	writing  bool
	cp       *messages.CompletedCheckpoint
	newInfos []*messages.PendingCommit
}

// deadline is when the checkpoint is given up (zero: never).
func (c *Coordinator) deadline(in *inflight) time.Time {
	if c.cfg.Timeout <= 0 {
		return time.Time{}
	}
	return in.started.Add(c.cfg.Timeout)
}

// idReserved is the store's answer to a checkpoint's NextCheckpointID.
type idReserved struct {
	seq int64
	id  int64
	err error
}

// finalStored says the store calls asked before the final checkpoint's
// commits were all in are done: the JobMaster may end the pipeline.
type finalStored struct{}

// stored is the store's answer to a completed checkpoint's Complete.
type stored struct {
	seq int64
	id  int64
	err error
}

// New is the props producer of a pipeline's coordinator. restore is the
// checkpoint the attempt starts from (nil: a fresh start).
func New(cfg Config, job Job, pipe *plan.Pipeline, attempt int, store storage.Storage, restore *messages.CompletedCheckpoint, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &Coordinator{cfg: cfg, job: job, jobID: job.Spec.JobId, pipe: pipe, attempt: attempt, term: job.Term, store: store, restore: restore,
			log:        log.With().Int("pipeline", pipe.ID).Int("attempt", attempt).Logger(),
			committers: map[int]*actor.PID{}, pending: map[int64][]*messages.PendingCommit{},
			pendingFinal: map[int64]bool{}, uncommitted: map[int64]map[int]bool{}, restoring: map[int]bool{}, committing: map[int64]*committing{}}
	}
}

// Receive handles one message.
func (c *Coordinator) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*actor.Stopping); ok {
		c.timers.Stop()
		c.stopping = true
		c.io.stop()
	}
	if c.done {
		return
	}
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.self, c.sys = ctx.Self(), ctx.ActorSystem()
		c.timers = timers.New(ctx)
		c.io = newStoreIO(c.sys, c.self)
		c.startCommitters(ctx)
	case *Start:
		c.tasks, c.enums, c.running = m.Tasks, m.Enums, true
		c.lastEnd = time.Now()
		c.schedule(c.cfg.Interval)
	case *tick:
		c.maybeTrigger(ctx, TypeCheckpoint)
	case *TriggerFinal:
		c.finalAsked, c.finalType = true, m.Type
		if c.inflight == nil {
			c.trigger(ctx, c.finalType)
		}
	case *messages.CheckpointAck:
		c.onAck(ctx, m)
	case *messages.CheckpointRequest:
		c.onRequest(ctx, m)
	case *timeout:
		if in := c.inflight; in != nil && in.seq == m.seq {
			c.timedOut(ctx, in, nil)
		}
	case *idReserved:
		c.onIDReserved(ctx, m)
	case *stored:
		c.onStored(ctx, m)
	case *finalStored:
		ctx.Send(ctx.Parent(), &FinalCommitted{Pipeline: c.pipe.ID, Attempt: c.attempt})
	case *committed:
		c.onCommitted(ctx, m)
	case *commitFailed:
		c.fail(ctx, m.cause, true)
	}
}

// startCommitters spawns a committer per sink; on a restore they first
// commit what the checkpoint carries, then abort stale prepared work.
func (c *Coordinator) startCommitters(ctx actor.Context) {
	for _, v := range c.pipe.Sinks() {
		pid, err := ctx.SpawnNamed(actor.PropsFromProducer(NewCommitter(v, c.job, c.attempt, c.restore != nil, c.cfg, c.log)), fmt.Sprintf("committer/%d", v.ID))
		if err != nil {
			c.fail(ctx, fmt.Sprintf("starting the committer of %s: %v", v.Name, err), true)
			return
		}
		c.committers[v.ID] = pid
	}
	if c.restore == nil {
		ctx.Send(ctx.Parent(), &Ready{Pipeline: c.pipe.ID, Attempt: c.attempt})
		return
	}
	byVertex := map[int][]*messages.PendingCommit{}
	for _, p := range c.restore.Pending {
		byVertex[int(p.Vertex)] = append(byVertex[int(p.Vertex)], p)
	}
	for v, pid := range c.committers {
		c.restoring[v] = true
		ctx.Send(pid, &commit{checkpoint: c.restore.Id, final: c.restore.Type == TypeFinal, infos: byVertex[v]})
	}
	if len(c.restoring) == 0 || c.restore.Type == TypeFinal {
		// A FINAL checkpoint ends the pipeline once its commits are done:
		// Ready waits for them (onCommitted).
		if len(c.restoring) == 0 {
			ctx.Send(ctx.Parent(), &Ready{Pipeline: c.pipe.ID, Attempt: c.attempt})
		}
		return
	}
	// The pipeline need not wait for the restore's commits: they are first
	// in each committer's queue, so nothing commits before them, and their
	// infos stay pending — carried into every later checkpoint — until
	// they are committed. A restore whose writer node is paused or gone
	// (the commit waits for it, up to NodeGoneAfter) still runs at once.
	for _, p := range c.restore.Pending {
		id := p.CheckpointId
		if c.uncommitted[id] == nil {
			c.uncommitted[id] = map[int]bool{}
			c.restoredIDs = append(c.restoredIDs, id)
		}
		for v := range c.committers {
			c.uncommitted[id][v] = true
		}
		c.pending[id] = append(c.pending[id], p)
	}
	ctx.Send(ctx.Parent(), &Ready{Pipeline: c.pipe.ID, Attempt: c.attempt})
}

// onRequest takes a checkpoint a subtask asked for now
// (connectors.CheckpointRequester): at once when min-pause allows, else
// when it has passed, or right after the one in flight.
func (c *Coordinator) onRequest(ctx actor.Context, m *messages.CheckpointRequest) {
	c.log.Debug().Str("reason", m.Reason).Msg("checkpoint requested")
	if c.inflight != nil {
		c.requested = true
		return
	}
	c.maybeTrigger(ctx, TypeCheckpoint)
}

func (c *Coordinator) schedule(d time.Duration) {
	c.timers.After(d, &tick{})
}

func (c *Coordinator) maybeTrigger(ctx actor.Context, typ string) {
	if !c.running || c.inflight != nil || c.finalAsked {
		return
	}
	if wait := time.Until(c.lastEnd.Add(c.cfg.MinPause)); wait > 0 {
		c.schedule(wait)
		return
	}
	c.trigger(ctx, typ)
}

// trigger begins a checkpoint: its id comes from the store (off the
// actor, onIDReserved sends the triggers), and checkpoint.timeout counts
// from now.
func (c *Coordinator) trigger(ctx actor.Context, typ string) {
	c.seq++
	in := &inflight{seq: c.seq, id: -1, typ: typ, started: time.Now(), acks: map[string]*messages.CheckpointAck{},
		need: len(c.tasks) + len(c.enums)}
	c.inflight = in
	if c.cfg.Timeout > 0 {
		c.timers.After(c.cfg.Timeout, &timeout{seq: in.seq})
	}
	store, job, pipe, seq := c.store, c.jobID, c.pipe.ID, in.seq
	c.io.call(c.deadline(in), func(ctx context.Context) any {
		id, err := store.NextCheckpointID(ctx, job, pipe)
		return &idReserved{seq: seq, id: id, err: err}
	})
}

func (c *Coordinator) onIDReserved(ctx actor.Context, m *idReserved) {
	in := c.inflight
	if in == nil || in.seq != m.seq {
		return // given up already: the id is skipped
	}
	switch {
	case c.pastDeadline(in, m.err):
		c.timedOut(ctx, in, m.err)
		return
	case m.err != nil:
		c.fail(ctx, fmt.Sprintf("checkpoint storage: %v", m.err), errors.Is(m.err, storage.ErrFenced))
		return
	}
	in.id, in.sent = m.id, time.Now()
	for _, pid := range c.enums {
		ctx.Send(pid, &messages.CheckpointTrigger{Id: in.id, Type: in.typ})
	}
	ctx.Send(ctx.Parent(), &Triggered{Pipeline: c.pipe.ID, Attempt: c.attempt, ID: in.id, At: in.started})
}

// pastDeadline tells a store error that came of the checkpoint's deadline:
// the context's, or any once the deadline has passed (the NATS client
// answers a request cut short by its context with nats.ErrTimeout).
func (c *Coordinator) pastDeadline(in *inflight, err error) bool {
	if err == nil {
		return false
	}
	d := c.deadline(in)
	return errors.Is(err, context.DeadlineExceeded) || (!d.IsZero() && !time.Now().Before(d))
}

// timedOut gives up the checkpoint in flight at its deadline, saying which
// step had not finished; err is the store's answer when it came first.
func (c *Coordinator) timedOut(ctx actor.Context, in *inflight, err error) {
	var cause string
	switch {
	case in.id < 0:
		cause = fmt.Sprintf("checkpoint trigger: the store did not hand out a checkpoint id in %s", c.cfg.Timeout)
	case in.writing:
		cause = fmt.Sprintf("checkpoint %d: store write did not finish in %s", in.id, c.cfg.Timeout)
	default:
		c.abort(ctx, fmt.Sprintf("checkpoint %d timed out after %s", in.id, c.cfg.Timeout), true)
		return
	}
	if err == nil {
		err = errors.New("the checkpoint storage has not answered")
	}
	c.abort(ctx, fmt.Sprintf("%s: %v", cause, err), true)
}

func ackKey(a *messages.CheckpointAck) string {
	if a.Loc == nil {
		return fmt.Sprintf("enumerator/%d", a.EnumeratorVertex)
	}
	return fmt.Sprintf("task/%d/%d", a.Loc.Chain, a.Loc.Subtask)
}

func (c *Coordinator) onAck(ctx actor.Context, a *messages.CheckpointAck) {
	in := c.inflight
	if in == nil || a.Id != in.id || in.writing {
		return // late ack of an aborted checkpoint, or one of a stored one
	}
	if a.Loc != nil && int(a.Loc.Attempt) != c.attempt {
		return
	}
	if a.Error != "" {
		c.abort(ctx, fmt.Sprintf("checkpoint %d: %s", a.Id, a.Error), false)
		return
	}
	if a.Timing != nil {
		a.Timing.AckUnixUs = time.Now().UnixMicro()
	}
	in.acks[ackKey(a)] = a
	if len(in.acks) < in.need {
		return
	}
	c.write(ctx)
}

// write stores the checkpoint in flight, all its acks in, off the actor
// with the checkpoint's deadline; onStored completes it.
func (c *Coordinator) write(ctx actor.Context) {
	in := c.inflight
	cp := &messages.CompletedCheckpoint{JobId: c.jobID, Pipeline: int32(c.pipe.ID), Id: in.id, Attempt: int32(c.attempt), Term: c.term,
		Type: in.typ, TriggerUnixMs: in.started.UnixMilli(), TriggerUnixUs: in.started.UnixMicro(), TriggersSentUnixUs: in.sent.UnixMicro(),
		Parallelism: map[int32]int32{}}
	for _, v := range c.pipe.Vertices {
		cp.Parallelism[int32(v.ID)] = int32(v.Parallelism)
	}
	if c.restore != nil {
		cp.ReadRows, cp.WriteRows = c.restore.ReadRows, c.restore.WriteRows
	}
	var newInfos []*messages.PendingCommit
	for _, a := range in.acks {
		cp.ReadRows += a.ReadRows
		cp.WriteRows += a.WriteRows
		cp.SizeBytes += a.StateBytes
		cp.ChannelBatches += a.ChannelBatches
		if a.Loc == nil {
			cp.Enumerators = append(cp.Enumerators, &messages.EnumeratorState{Vertex: a.EnumeratorVertex, State: a.EnumeratorState})
			continue
		}
		cp.Tasks = append(cp.Tasks, &messages.TaskStateRef{Chain: a.Loc.Chain, Subtask: a.Loc.Subtask, Handle: a.Handle, State: a.State})
		if a.Timing != nil {
			cp.Timings = append(cp.Timings, a.Timing)
		}
		for _, ci := range a.Commits {
			newInfos = append(newInfos, &messages.PendingCommit{CheckpointId: in.id, Vertex: ci.Vertex, Subtask: ci.Subtask, Info: ci.Info,
				Node: ci.Node, Worker: ci.Worker})
		}
	}
	for _, ps := range c.pending {
		cp.Pending = append(cp.Pending, ps...)
	}
	cp.Pending = append(cp.Pending, newInfos...)
	cp.CompleteUnixMs = time.Now().UnixMilli()
	in.writing, in.cp, in.newInfos = true, cp, newInfos
	store, seq, id := c.store, in.seq, in.id
	c.io.call(c.deadline(in), func(ctx context.Context) any {
		return &stored{seq: seq, id: id, err: store.Complete(ctx, cp)}
	})
}

func (c *Coordinator) onStored(ctx actor.Context, m *stored) {
	if errors.Is(m.err, storage.ErrFenced) {
		// Replaced by a newer run of the job: the pipeline stops for good
		// rather than failing over, which would fence the newer run in
		// turn. Also for a checkpoint given up before.
		c.log.Warn().Err(m.err).Msg("a newer attempt owns this pipeline; stopping")
		c.fail(ctx, fmt.Sprintf("replaced by a newer run of this job: %v", m.err), true)
		return
	}
	in := c.inflight
	if in == nil || in.seq != m.seq || !in.writing {
		if m.err == nil {
			// Aborted at its deadline, stored after all: a valid restore
			// point, which nothing here counts on (its subtasks were told
			// it aborted and carry its commit infos into the next one).
			c.log.Warn().Int64("checkpoint", m.id).Msg("checkpoint stored after it was given up; its commits wait for a later checkpoint")
		}
		return
	}
	switch {
	case c.pastDeadline(in, m.err):
		c.timedOut(ctx, in, m.err)
		return
	case m.err != nil:
		c.abort(ctx, fmt.Sprintf("storing checkpoint %d: %v", in.id, m.err), false)
		return
	}
	c.complete(ctx, in)
}

// complete makes the stored checkpoint in complete: the JobMaster, the
// subtasks and the committers hear of it, and retention runs.
func (c *Coordinator) complete(ctx actor.Context, in *inflight) {
	cp, newInfos := in.cp, in.newInfos
	c.inflight = nil
	c.lastEnd = time.Now()
	c.failures = 0
	c.lastCompleted = cp
	c.log.Debug().Int64("checkpoint", cp.Id).Str("type", cp.Type).Dur("took", c.lastEnd.Sub(in.started)).Int64("channel_batches", cp.ChannelBatches).Msg("checkpoint completed")
	ctx.Send(ctx.Parent(), &Completed{Checkpoint: cp})
	done := &messages.CheckpointDone{Id: cp.Id}
	for _, pid := range c.tasks {
		ctx.Send(pid, done)
	}
	for _, pid := range c.enums {
		ctx.Send(pid, done)
	}
	// Commit: every sink gets the checkpoint's infos (aggregated committers
	// also when there are none: the final commit checks, for one).
	byVertex := map[int][]*messages.PendingCommit{}
	for _, p := range newInfos {
		byVertex[int(p.Vertex)] = append(byVertex[int(p.Vertex)], p)
	}
	c.pending[cp.Id] = newInfos
	c.pendingFinal[cp.Id] = isLast(cp.Type)
	c.uncommitted[cp.Id] = map[int]bool{}
	c.committing[cp.Id] = &committing{cp: cp, began: time.Now()}
	for v, pid := range c.committers {
		c.uncommitted[cp.Id][v] = true
		ctx.Send(pid, &commit{checkpoint: cp.Id, final: cp.Type == TypeFinal, infos: byVertex[v]})
	}
	c.retain() // before checkCommitted, which may end the pipeline after the calls asked so far
	c.checkCommitted(ctx, cp.Id)
	if last := isLast(cp.Type); c.finalAsked && !last {
		c.trigger(ctx, c.finalType)
		return
	} else if !last && c.requested {
		c.requested = false
		c.schedule(max(c.cfg.MinPause, time.Millisecond))
	} else if !last {
		c.schedule(max(c.cfg.Interval, c.cfg.MinPause))
	}
}

// retain deletes old checkpoints, off the actor, after those queued
// before. It keeps a checkpoint that carries an info not yet committed,
// as of now: what commits meanwhile is only kept one round longer, and
// no later checkpoint is stored before it runs.
func (c *Coordinator) retain() {
	held := map[int64]bool{}
	for id, u := range c.uncommitted {
		if len(u) > 0 {
			held[id] = true
		}
	}
	keep := func(cp *messages.CompletedCheckpoint) bool {
		for _, p := range cp.Pending {
			if held[p.CheckpointId] {
				return true
			}
		}
		return false
	}
	store, job, pipe, n, log := c.store, c.jobID, c.pipe.ID, c.cfg.MaxRetained, c.log
	c.io.call(c.callDeadline(), func(ctx context.Context) any {
		if err := store.Retain(ctx, job, pipe, n, keep); err != nil {
			log.Warn().Err(err).Msg("deleting old checkpoints")
		}
		return nil
	})
}

// callDeadline bounds a store call that is no checkpoint's own (retention,
// commit times) by checkpoint.timeout from now (zero: none).
func (c *Coordinator) callDeadline() time.Time {
	if c.cfg.Timeout <= 0 {
		return time.Time{}
	}
	return time.Now().Add(c.cfg.Timeout)
}

func (c *Coordinator) onCommitted(ctx actor.Context, m *committed) {
	if c.restoring[m.vertex] && c.restore != nil && m.checkpoint == c.restore.Id {
		delete(c.restoring, m.vertex)
		if c.restore.Type == TypeFinal {
			if len(c.restoring) == 0 {
				ctx.Send(ctx.Parent(), &Ready{Pipeline: c.pipe.ID, Attempt: c.attempt})
			}
			return
		}
		for _, id := range c.restoredIDs {
			if u := c.uncommitted[id]; u != nil {
				delete(u, m.vertex)
				c.checkCommitted(ctx, id)
			}
		}
		return
	}
	if u := c.uncommitted[m.checkpoint]; u != nil {
		c.committedBy(m.checkpoint, m.vertex)
		delete(u, m.vertex)
		c.checkCommitted(ctx, m.checkpoint)
	}
}

func (c *Coordinator) checkCommitted(ctx actor.Context, id int64) {
	if len(c.uncommitted[id]) > 0 {
		return
	}
	delete(c.uncommitted, id)
	delete(c.pending, id)
	if w := c.committing[id]; w != nil {
		ctx.Send(ctx.Parent(), &CommitsDone{Pipeline: c.pipe.ID, Attempt: c.attempt, ID: id, Took: time.Since(w.began)})
	}
	c.storeCommitTimes(id)
	if c.pendingFinal[id] {
		delete(c.pendingFinal, id)
		// The pipeline ends once the store calls asked before are done
		// (the commit times, retention), as when they ran on the actor.
		c.io.call(time.Time{}, func(context.Context) any { return &finalStored{} })
	}
	delete(c.pendingFinal, id)
}

// abort gives up the checkpoint in flight and counts the failure;
// timedOut: it took checkpoint.timeout.
func (c *Coordinator) abort(ctx actor.Context, cause string, timedOut bool) {
	in := c.inflight
	if in == nil {
		return
	}
	ctx.Send(ctx.Parent(), &Aborted{Pipeline: c.pipe.ID, Attempt: c.attempt, ID: in.id, TimedOut: timedOut, Cause: cause})
	c.inflight = nil
	c.lastEnd = time.Now()
	c.failures++
	c.log.Warn().Str("cause", cause).Int("failures", c.failures).Msg("checkpoint aborted")
	if in.id >= 0 { // else never triggered: no subtask knows of it
		done := &messages.CheckpointDone{Id: in.id, Aborted: true}
		for _, pid := range c.tasks {
			ctx.Send(pid, done)
		}
	}
	if isLast(in.typ) || c.failures > c.cfg.TolerableFailures {
		c.fail(ctx, cause, false)
		return
	}
	if c.finalAsked {
		c.trigger(ctx, c.finalType)
		return
	}
	c.schedule(max(c.cfg.MinPause, time.Millisecond))
}

// fail stops the coordinator and asks the JobMaster to fail the pipeline.
func (c *Coordinator) fail(ctx actor.Context, cause string, permanent bool) {
	c.done = true
	ctx.Send(ctx.Parent(), &Failed{Pipeline: c.pipe.ID, Attempt: c.attempt, Cause: cause, Permanent: permanent})
}

// isLast tells whether a checkpoint type ends the attempt.
func isLast(typ string) bool { return typ == TypeFinal || typ == TypeSavepoint }
