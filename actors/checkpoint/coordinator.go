package checkpoint

import (
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
	lastEnd       time.Time
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
	id      int64
	typ     string
	started time.Time
	acks    map[string]*messages.CheckpointAck
	need    int
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
	}
	if c.done {
		return
	}
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.self, c.sys = ctx.Self(), ctx.ActorSystem()
		c.timers = timers.New(ctx)
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
	case *timeout:
		if c.inflight != nil && c.inflight.id == m.id {
			c.abort(ctx, fmt.Sprintf("checkpoint %d timed out after %s", m.id, c.cfg.Timeout), true)
		}
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

func (c *Coordinator) trigger(ctx actor.Context, typ string) {
	id, err := c.store.NextCheckpointID(c.jobID, c.pipe.ID)
	if err != nil {
		c.fail(ctx, fmt.Sprintf("checkpoint storage: %v", err), false)
		return
	}
	c.inflight = &inflight{id: id, typ: typ, started: time.Now(), acks: map[string]*messages.CheckpointAck{},
		need: len(c.tasks) + len(c.enums)}
	for _, pid := range c.enums {
		ctx.Send(pid, &messages.CheckpointTrigger{Id: id, Type: typ})
	}
	ctx.Send(ctx.Parent(), &Triggered{Pipeline: c.pipe.ID, Attempt: c.attempt, ID: id, At: c.inflight.started})
	if c.cfg.Timeout > 0 {
		c.timers.After(c.cfg.Timeout, &timeout{id: id})
	}
}

func ackKey(a *messages.CheckpointAck) string {
	if a.Loc == nil {
		return fmt.Sprintf("enumerator/%d", a.EnumeratorVertex)
	}
	return fmt.Sprintf("task/%d/%d", a.Loc.Chain, a.Loc.Subtask)
}

func (c *Coordinator) onAck(ctx actor.Context, a *messages.CheckpointAck) {
	in := c.inflight
	if in == nil || a.Id != in.id {
		return // late ack of an aborted checkpoint
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
	c.complete(ctx)
}

func (c *Coordinator) complete(ctx actor.Context) {
	in := c.inflight
	cp := &messages.CompletedCheckpoint{JobId: c.jobID, Pipeline: int32(c.pipe.ID), Id: in.id, Attempt: int32(c.attempt), Term: c.term,
		Type: in.typ, TriggerUnixMs: in.started.UnixMilli(), TriggerUnixUs: in.started.UnixMicro(), Parallelism: map[int32]int32{}}
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
	if err := c.store.Complete(cp); err != nil {
		if errors.Is(err, storage.ErrFenced) {
			// Replaced by a newer run of the job: the pipeline stops for
			// good rather than failing over, which would fence the newer
			// run in turn.
			c.log.Warn().Err(err).Msg("a newer attempt owns this pipeline; stopping")
			c.fail(ctx, fmt.Sprintf("replaced by a newer run of this job: %v", err), true)
			return
		}
		c.abort(ctx, fmt.Sprintf("storing checkpoint %d: %v", in.id, err), false)
		return
	}
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
	c.checkCommitted(ctx, cp.Id)
	if err := c.store.Retain(c.jobID, c.pipe.ID, c.cfg.MaxRetained, c.holdsUncommitted); err != nil {
		c.log.Warn().Err(err).Msg("deleting old checkpoints")
	}
	if last := isLast(cp.Type); c.finalAsked && !last {
		c.trigger(ctx, c.finalType)
		return
	} else if !last {
		c.schedule(max(c.cfg.Interval, c.cfg.MinPause))
	}
}

// holdsUncommitted tells retention to keep a checkpoint that carries an
// info not yet committed.
func (c *Coordinator) holdsUncommitted(cp *messages.CompletedCheckpoint) bool {
	for _, p := range cp.Pending {
		if len(c.uncommitted[p.CheckpointId]) > 0 {
			return true
		}
	}
	return false
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
		ctx.Send(ctx.Parent(), &FinalCommitted{Pipeline: c.pipe.ID, Attempt: c.attempt})
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
	ctx.Send(ctx.Parent(), &Aborted{Pipeline: c.pipe.ID, Attempt: c.attempt, ID: in.id, TimedOut: timedOut})
	c.inflight = nil
	c.lastEnd = time.Now()
	c.failures++
	c.log.Warn().Str("cause", cause).Int("failures", c.failures).Msg("checkpoint aborted")
	done := &messages.CheckpointDone{Id: in.id, Aborted: true}
	for _, pid := range c.tasks {
		ctx.Send(pid, done)
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
