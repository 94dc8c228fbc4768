// Package jobmaster is the JobMaster actor: one per job, child of the
// CoordinatorService (DESIGN §3, §6). For each pipeline it starts a
// CheckpointCoordinator (with its committers, which find the nodes that
// commit their own writers' infos through the ResourceManager, DESIGN §8),
// the enumerator hosts, and deploys the subtasks by message to a worker's
// TaskExecutionService, naming the worker's node, wires them and watches
// them. A pipeline whose subtasks have all drained takes its final
// checkpoint; once that is committed the pipeline is FINISHED. A failure
// (TaskFailed, a subtask gone, a checkpoint past the tolerable failures)
// cancels the pipeline and restores it from its latest completed
// checkpoint as a new attempt, up to job.retry.times; past that the job
// FAILS with the cause. Other pipelines keep running meanwhile.
//
// The JobMaster resolves its job (DESIGN §2) before anything else, in a
// goroutine of its own so that neither it nor the CoordinatorService is
// blocked on a connector's I/O: from the client's tree (checking options,
// running the sources' and sinks' Resolve, bounded by ResolveTimeout and
// cancelled by a cancel), or, for a job already resolved (a restore, a new
// leader, a local run that resolved it itself), by rebuilding the plan
// from its resolved form without I/O. Before the job's first attempt (not
// when it is restored) the sinks apply their save modes
// (connectors.SaveModeHandler) in that goroutine too. Only then does it
// answer the submitter: an error there refuses the job.
package jobmaster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/actors/enumerator"
	"github.com/stactor/stactor/actors/internal/timers"
	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
)

// Ended is what the JobMaster tells its parent when the job has ended; the
// parent then stops it (with a PoisonPill, so that status requests already
// forwarded to it are answered first).
type Ended struct {
	Status  *messages.JobStatus
	Metrics *messages.JobMetrics // as they were at the end, no backpressure
}

// Options configure a JobMaster.
type Options struct {
	Checkpoint checkpoint.Config // engine defaults; the job's env overrides
	// NoProgressTimeout is the watchdog's limit (DESIGN §3): a RUNNING
	// pipeline with no completed checkpoint and no row moving for this long
	// is failed over. 0 turns the watchdog off.
	NoProgressTimeout time.Duration
	// CancelTimeout is how long a canceled subtask may take to stop before
	// it is given up on (it is stuck inside a connector call); its late
	// messages belong to an old attempt and are ignored.
	CancelTimeout time.Duration
	// Restore starts every pipeline from its latest completed checkpoint
	// (stactor run --restore).
	Restore bool
	// Term is the leader's term (0 in local mode): every attempt this
	// JobMaster starts is fenced by it (DESIGN §6).
	Term uint64
	// ResolveTimeout bounds resolving a job (0: 5 minutes).
	ResolveTimeout time.Duration
}

// Resolved tells the JobMaster's parent that the job is resolved: Spec now
// carries the resolved plan, which the job registry keeps.
type Resolved struct {
	Spec *messages.JobSpec
	Name string
}

// Rejected tells the JobMaster's parent that the job could not be
// resolved: the submitter was told why, and the job never existed.
type Rejected struct {
	JobID string
	Cause string
}

// JobMaster is the actor.
type JobMaster struct {
	spec      *messages.JobSpec
	plan      *plan.Plan // nil until resolved
	submitter *actor.PID // told SubmitJobReply once the job is resolved
	// cancelResolve ends the resolve goroutine (a cancel while resolving)
	cancelResolve context.CancelFunc
	timers        *timers.Timers // watchdog, cancel timeouts, retries; stopped with the actor
	resources     *actor.PID     // the ResourceManager
	store         storage.Storage
	opts          Options
	log           zerolog.Logger

	state     string
	cause     string
	start     time.Time
	end       time.Time
	pipelines []*pipelineRun
	byPID     map[string]*taskRun
	self      *actor.PID
	sys       *actor.ActorSystem
	savepoint bool // a savepoint is draining the job
	ended     bool // Ended was sent: nothing may end the job again
}

type pipelineRun struct {
	p           *plan.Pipeline
	state       string
	queued      bool // its slot request waits (WAIT)
	attempt     int
	retries     int
	restore     *messages.CompletedCheckpoint
	tasks       map[[2]int32]*taskRun // by (chain, subtask)
	enums       map[int]*actor.PID    // by source vertex id
	coordinator *actor.PID
	cause       string
	permanent   bool
	lastCkpt    int64
	// the watchdog's view: when rows last moved or a checkpoint completed
	lastProgress time.Time
	lastRows     int64
	// rows read and written before this attempt: what the checkpoint it
	// restored from had counted
	baseRead, baseWrite int64
}

type taskRun struct {
	pipe    *pipelineRun
	loc     *messages.TaskLocation
	pid     *actor.PID
	state   string
	metrics *messages.TaskMetrics // the latest report
	prev    *messages.TaskMetrics // the one before
	drained bool
	gone    bool // terminated
	stopAsk bool // we asked it to close or cancel
}

// New is the props producer of a JobMaster for spec (a client's tree, or
// a resolved plan); submitter, if not nil, gets the SubmitJobReply once the
// job is resolved.
func New(spec *messages.JobSpec, submitter *actor.PID, resources *actor.PID, store storage.Storage, opts Options, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &JobMaster{spec: spec, submitter: submitter, resources: resources, store: store, opts: opts, state: state.JobCreated,
			byPID: map[string]*taskRun{}, log: log.With().Str("job", spec.JobId).Logger()}
	}
}

// checkpointConfig is the engine's defaults under the job's env.
func (j *JobMaster) checkpointConfig() checkpoint.Config {
	c := j.opts.Checkpoint
	job := j.plan.Job
	if job.CheckpointInterval > 0 {
		c.Interval = job.CheckpointInterval
	}
	if job.CheckpointTimeout > 0 {
		c.Timeout = job.CheckpointTimeout
	}
	if job.MinPause > 0 {
		c.MinPause = job.MinPause
	}
	return c
}

// Receive handles one message.
func (j *JobMaster) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		j.self, j.sys = ctx.Self(), ctx.ActorSystem()
		j.timers = timers.New(ctx)
		j.start = time.Now()
		j.state = state.JobInitializing
		j.resolve()
	case *resolved:
		j.onResolved(ctx, m)
	case *actor.Stopping:
		j.timers.Stop()
		if j.cancelResolve != nil {
			j.cancelResolve()
		}
	case *checkpoint.Ready:
		if p := j.pipeline(m.Pipeline, m.Attempt); p != nil {
			j.requestSlots(ctx, p)
		}
	case *resource.Queued:
		// The pipeline waits for slots (job-schedule-strategy WAIT).
		if p := j.owned(m.Owner); p != nil {
			j.log.Info().Int("pipeline", p.p.ID).Str("cause", m.Cause).Msg("pipeline waiting for slots")
			p.queued = true
			j.updatePending()
		}
	case *resource.Granted:
		if p := j.owned(m.Owner); p != nil {
			p.queued = false
			j.updatePending()
			j.deploy(ctx, p, m)
		}
	case *resource.Refused:
		if p := j.owned(m.Owner); p != nil {
			p.permanent = true
			j.failPipeline(ctx, p, "no slots: "+m.Cause)
		}
	case *resource.WorkerLost:
		if p := j.owned(m.Owner); p != nil {
			j.failPipeline(ctx, p, fmt.Sprintf("worker %s was lost", m.Worker))
		}
	case *messages.DeployTaskReply:
		j.onDeployed(ctx, m)
	case *messages.TaskStateChanged:
		if t := j.task(m.Loc); t != nil {
			t.state = m.State
		}
	case *messages.TaskMetrics:
		if t := j.task(m.Loc); t != nil {
			t.record(m)
		}
	case *messages.TaskDrained:
		j.onDrained(ctx, m)
	case *checkpoint.Completed:
		if p := j.pipeline(int(m.Checkpoint.Pipeline), int(m.Checkpoint.Attempt)); p != nil {
			p.lastCkpt = m.Checkpoint.Id
			p.lastProgress = time.Now()
		}
	case *watchdogTick:
		j.watchdog(ctx)
	case *cancelTimeout:
		if m.p.attempt == m.attempt && !allGone(m.p) {
			for _, t := range m.p.tasks {
				if t.pid != nil && !t.gone {
					j.log.Warn().Int("pipeline", m.p.p.ID).Int32("chain", t.loc.Chain).Int32("subtask", t.loc.Subtask).
						Dur("after", j.opts.CancelTimeout).Msg("subtask did not stop when canceled; giving up on it")
					t.gone = true
					delete(j.byPID, t.pid.Id)
				}
			}
			j.checkEnd(ctx)
		}
	case *checkpoint.FinalCommitted:
		if p := j.pipeline(m.Pipeline, m.Attempt); p != nil && p.state == state.PipelineRunning {
			p.state = state.PipelineFinished
			for _, t := range p.tasks {
				t.stopAsk = true
				ctx.Send(t.pid, &messages.CloseTask{})
			}
		}
	case *checkpoint.Failed:
		if p := j.pipeline(m.Pipeline, m.Attempt); p != nil {
			p.permanent = p.permanent || m.Permanent
			j.failPipeline(ctx, p, m.Cause)
		}
	case *messages.TaskFailed:
		if t := j.task(m.Loc); t != nil {
			t.state = state.TaskFailed
			cause := m.Cause
			if m.Fenced {
				// Replaced by a newer run of the job: stop, do not fail
				// over (DESIGN §6 fencing).
				t.pipe.permanent = true
				cause = "replaced by a newer run of this job (its attempt is fenced): " + cause
			}
			j.failPipeline(ctx, t.pipe, cause)
		}
	case *messages.TaskClosed:
		if t := j.task(m.Loc); t != nil && t.state != state.TaskCanceled {
			t.state = state.TaskClosed
		}
	case *enumerator.Failed:
		for _, p := range j.pipelines {
			if p.enums[m.Vertex] != nil {
				j.failPipeline(ctx, p, m.Cause.Error())
			}
		}
	case *actor.Terminated:
		// A subtask's Terminated (a system message) overtakes the
		// TaskFailed it sent before stopping; look at it after the
		// messages already queued.
		ctx.Send(ctx.Self(), &terminated{m.Who})
	case *terminated:
		j.onTerminated(ctx, m.who)
	case *restart:
		j.startPipeline(ctx, m.p, true)
		j.checkEnd(ctx) // it may have failed to start
	case *messages.CancelJob:
		j.cancel(ctx)
	case *messages.Savepoint:
		j.takeSavepoint(ctx)
	case *messages.GetJobStatus:
		ctx.Respond(j.status())
	case *messages.GetJobMetrics:
		ctx.Respond(j.jobMetrics())
	}
}

// failBeforeStart ends the job as FAILED before any pipeline started.
func (j *JobMaster) failBeforeStart(ctx actor.Context, cause string) {
	j.cause = cause
	j.state = state.JobFailed
	j.end = time.Now()
	j.ended = true
	// The coordinator stops this actor when it has the final status
	// (with a PoisonPill, after any status request it forwarded here).
	ctx.Send(ctx.Parent(), &Ended{Status: j.status(), Metrics: j.jobMetrics()})
}

type terminated struct{ who *actor.PID }
type watchdogTick struct{}
type cancelTimeout struct {
	p       *pipelineRun
	attempt int
}

// watchdog fails over a RUNNING pipeline in which neither rows nor
// checkpoints have moved for NoProgressTimeout.
func (j *JobMaster) watchdog(ctx actor.Context) {
	if state.JobEnded(j.state) {
		return
	}
	now := time.Now()
	for _, p := range j.pipelines {
		if p.state != state.PipelineRunning {
			continue
		}
		var rows int64
		for _, t := range p.tasks {
			if t.metrics != nil {
				rows += t.metrics.ReadRows + t.metrics.WriteRows
			}
		}
		if rows != p.lastRows || p.lastProgress.IsZero() {
			p.lastRows, p.lastProgress = rows, now
			continue
		}
		if idle := now.Sub(p.lastProgress); idle > j.opts.NoProgressTimeout {
			j.failPipeline(ctx, p, fmt.Sprintf("no progress for %s: no row moved and no checkpoint completed", idle.Truncate(time.Second)))
		}
	}
	j.scheduleWatchdog()
}

func (j *JobMaster) scheduleWatchdog() {
	if j.opts.NoProgressTimeout <= 0 {
		return
	}
	j.timers.After(min(j.opts.NoProgressTimeout/4, time.Second), &watchdogTick{})
}

type restart struct{ p *pipelineRun }

func (j *JobMaster) pipeline(id, attempt int) *pipelineRun {
	if id < 1 || id > len(j.pipelines) {
		return nil
	}
	p := j.pipelines[id-1]
	if p.attempt != attempt {
		return nil
	}
	return p
}

func (j *JobMaster) task(loc *messages.TaskLocation) *taskRun {
	if loc == nil {
		return nil
	}
	p := j.pipeline(int(loc.Pipeline), int(loc.Attempt))
	if p == nil {
		return nil
	}
	return p.tasks[[2]int32{loc.Chain, loc.Subtask}]
}

// startPipeline begins an attempt: a new attempt number, persisted first
// (DESIGN §6 fencing), then the coordinator, which commits a restore's
// leftovers before it says Ready.
func (j *JobMaster) startPipeline(ctx actor.Context, p *pipelineRun, restore bool) {
	attempt, err := j.store.NextAttempt(j.spec.JobId, p.p.ID, j.opts.Term)
	if errors.Is(err, storage.ErrFenced) {
		// A newer leader runs the job: this master was replaced and must
		// start nothing (DESIGN §6).
		j.log.Warn().Int("pipeline", p.p.ID).Uint64("term", j.opts.Term).Msg("a newer leader runs this pipeline; not restarting it")
		j.endPipeline(ctx, p, state.PipelineFailed, fmt.Sprintf("not restarting pipeline %d: %v", p.p.ID, err))
		return
	}
	if err != nil {
		j.endPipeline(ctx, p, state.PipelineFailed, fmt.Sprintf("checkpoint storage: %v", err))
		return
	}
	p.attempt = attempt
	p.restore = nil
	p.baseRead, p.baseWrite = 0, 0
	if restore {
		cp, warnings, err := j.store.Latest(j.spec.JobId, p.p.ID)
		for _, w := range warnings {
			j.log.Warn().Int("pipeline", p.p.ID).Msg(w)
		}
		if err != nil {
			j.endPipeline(ctx, p, state.PipelineFailed, fmt.Sprintf("reading the latest checkpoint: %v", err))
			return
		}
		p.restore = cp
		if cp != nil {
			p.baseRead, p.baseWrite = cp.ReadRows, cp.WriteRows
			j.log.Info().Int("pipeline", p.p.ID).Int("attempt", attempt).Int64("checkpoint", cp.Id).Str("type", cp.Type).
				Int64("channel_batches", cp.ChannelBatches).Msg("restoring pipeline from checkpoint")
		} else if p.retries > 0 {
			j.log.Info().Int("pipeline", p.p.ID).Int("attempt", attempt).Msg("restarting pipeline from the start: no checkpoint completed")
		}
	}
	p.state = state.PipelineCreated
	p.tasks = map[[2]int32]*taskRun{}
	p.enums = map[int]*actor.PID{}
	p.cause = ""
	job := checkpoint.Job{Spec: j.spec, Term: j.opts.Term, Workers: workersOf(j.sys, j.resources)}
	pid, err := ctx.SpawnNamed(actor.PropsFromProducer(checkpoint.New(j.checkpointConfig(), job, p.p, attempt, j.store, p.restore, j.log)),
		fmt.Sprintf("checkpoint/%d/%d", p.p.ID, attempt))
	if err != nil {
		j.endPipeline(ctx, p, state.PipelineFailed, fmt.Sprintf("starting the checkpoint coordinator: %v", err))
		return
	}
	p.coordinator = pid
}

// slotOwner names a pipeline attempt's slots at the ResourceManager.
func (j *JobMaster) slotOwner(p *pipelineRun) string {
	return fmt.Sprintf("%s/%d/%d", j.spec.JobId, p.p.ID, p.attempt)
}

func (j *JobMaster) owned(owner string) *pipelineRun {
	for _, p := range j.pipelines {
		if j.slotOwner(p) == owner {
			return p
		}
	}
	return nil
}

// requestSlots asks the ResourceManager for a slot per subtask (a fused
// chain's subtask is one unit and stays together).
func (j *JobMaster) requestSlots(ctx actor.Context, p *pipelineRun) {
	n := 0
	for _, c := range p.p.Chains {
		n += c.Parallelism
	}
	p.state = state.PipelineDeploying
	p.queued = false
	ctx.Send(j.resources, &resource.Request{Owner: j.slotOwner(p), N: n, Filter: j.plan.Job.TagFilter, ReplyTo: ctx.Self()})
}

// deploy starts the enumerators and asks each slot's worker for its
// subtask.
func (j *JobMaster) deploy(ctx actor.Context, p *pipelineRun, g *resource.Granted) {
	if p.state != state.PipelineDeploying {
		ctx.Send(j.resources, &resource.Release{Owner: j.slotOwner(p)})
		return
	}
	for _, v := range p.p.Sources() {
		pid, err := ctx.SpawnNamed(actor.PropsFromProducer(enumerator.New(v, p.restore, j.store, p.coordinator)),
			fmt.Sprintf("enumerator/%d/%d/%d", p.p.ID, p.attempt, v.ID))
		if err != nil {
			j.failPipeline(ctx, p, fmt.Sprintf("starting the enumerator of %s: %v", v.Name, err))
			return
		}
		p.enums[v.ID] = pid
	}
	slot := 0
	for _, c := range p.p.Chains {
		for i := 0; i < c.Parallelism; i++ {
			loc := &messages.TaskLocation{JobId: j.spec.JobId, Pipeline: int32(p.p.ID), Attempt: int32(p.attempt), Chain: int32(c.ID), Subtask: int32(i), Term: j.opts.Term}
			p.tasks[[2]int32{int32(c.ID), int32(i)}] = &taskRun{pipe: p, loc: loc, state: state.TaskCreated}
			worker, node := workerPID(g.Addresses[slot]), g.Slots[slot].ID.Worker
			slot++
			ctx.Request(worker, &messages.DeployTask{Loc: loc, Job: j.spec, JobMaster: messages.FromPID(ctx.Self()), Restore: p.restore, Node: node})
		}
	}
}

func (j *JobMaster) onDeployed(ctx actor.Context, m *messages.DeployTaskReply) {
	t := j.task(m.Loc)
	if t == nil {
		if m.Task != nil { // an old attempt's subtask
			ctx.Send(messages.ToPID(m.Task), &messages.CancelTask{})
		}
		return
	}
	if m.Error != "" {
		j.failPipeline(ctx, t.pipe, m.Error)
		return
	}
	t.pid = messages.ToPID(m.Task)
	j.byPID[t.pid.Id] = t
	ctx.Watch(t.pid)
	p := t.pipe
	if p.state != state.PipelineDeploying {
		t.stopAsk = true
		ctx.Send(t.pid, &messages.CancelTask{})
		return
	}
	for _, o := range p.tasks {
		if o.pid == nil {
			return
		}
	}
	start := &messages.StartTask{Coordinator: messages.FromPID(p.coordinator)}
	var pids []*actor.PID
	for _, o := range p.tasks {
		start.Peers = append(start.Peers, &messages.TaskPid{Chain: o.loc.Chain, Subtask: o.loc.Subtask, Pid: messages.FromPID(o.pid)})
		pids = append(pids, o.pid)
	}
	for v, pid := range p.enums {
		start.Enumerators = append(start.Enumerators, &messages.EnumeratorPid{Vertex: int32(v), Pid: messages.FromPID(pid)})
	}
	p.state = state.PipelineRunning
	p.lastProgress, p.lastRows = time.Now(), 0
	for _, o := range p.tasks {
		ctx.Send(o.pid, start)
	}
	ctx.Send(p.coordinator, &checkpoint.Start{Tasks: pids, Enums: p.enums})
	if j.savepoint {
		for _, o := range p.tasks {
			if p.p.Chains[o.loc.Chain].Head.Kind == plan.SourceVertex {
				ctx.Send(o.pid, &messages.StopReading{})
			}
		}
	}
}

func (j *JobMaster) onDrained(ctx actor.Context, m *messages.TaskDrained) {
	t := j.task(m.Loc)
	if t == nil || t.pipe.state != state.PipelineRunning {
		return
	}
	t.drained = true
	if m.Metrics != nil {
		t.record(m.Metrics)
	}
	for _, o := range t.pipe.tasks {
		if !o.drained {
			return
		}
	}
	typ := checkpoint.TypeFinal
	if j.savepoint {
		typ = checkpoint.TypeSavepoint
	}
	ctx.Send(t.pipe.coordinator, &checkpoint.TriggerFinal{Type: typ})
}

// failPipeline cancels the pipeline's subtasks; when they are gone it is
// restored (checkEnd) or, past the retries, fails the job.
func (j *JobMaster) failPipeline(ctx actor.Context, p *pipelineRun, cause string) {
	switch p.state {
	case state.PipelineFailing, state.PipelineFailed, state.PipelineCanceling, state.PipelineCanceled, state.PipelineFinished:
		return
	}
	j.log.Warn().Str("cause", cause).Int("pipeline", p.p.ID).Int("attempt", p.attempt).Msg("pipeline failed")
	p.state = state.PipelineFailing
	p.cause = cause
	j.stopTasks(ctx, p)
	j.checkEnd(ctx)
}

// takeSavepoint stops every source; the pipelines drain to end of data and
// take a SAVEPOINT instead of a final checkpoint (DESIGN §5).
func (j *JobMaster) takeSavepoint(ctx actor.Context) {
	if state.JobEnded(j.state) || j.state == state.JobCanceling || j.savepoint {
		return
	}
	if j.plan == nil {
		j.cancel(ctx) // nothing ran yet: nothing to save
		return
	}
	j.savepoint = true
	j.state = state.JobDoingSavepoint
	for _, p := range j.pipelines {
		if p.state != state.PipelineRunning {
			continue
		}
		for _, t := range p.tasks {
			if t.pid != nil && p.p.Chains[t.loc.Chain].Head.Kind == plan.SourceVertex {
				ctx.Send(t.pid, &messages.StopReading{})
			}
		}
	}
}

func (j *JobMaster) cancel(ctx actor.Context) {
	if state.JobEnded(j.state) || j.state == state.JobCanceling {
		return
	}
	j.state = state.JobCanceling
	if j.plan == nil {
		// Still resolving: end the goroutine; onResolved ends the job.
		if j.cancelResolve != nil {
			j.cancelResolve()
		}
		return
	}
	for _, p := range j.pipelines {
		switch p.state {
		case state.PipelineFinished, state.PipelineFailed, state.PipelineCanceled:
			continue
		}
		p.state = state.PipelineCanceling
		j.stopTasks(ctx, p)
	}
	j.checkEnd(ctx)
}

func (j *JobMaster) stopTasks(ctx actor.Context, p *pipelineRun) {
	for _, t := range p.tasks {
		if t.pid != nil && !t.gone && !t.stopAsk {
			t.stopAsk = true
			ctx.Send(t.pid, &messages.CancelTask{})
		}
	}
	if j.opts.CancelTimeout > 0 {
		j.timers.After(j.opts.CancelTimeout, &cancelTimeout{p: p, attempt: p.attempt})
	}
	for _, pid := range p.enums {
		ctx.Stop(pid)
	}
	if p.coordinator != nil {
		ctx.Stop(p.coordinator)
		p.coordinator = nil
	}
}

func (j *JobMaster) onTerminated(ctx actor.Context, who *actor.PID) {
	t := j.byPID[who.Id]
	if t == nil {
		return
	}
	delete(j.byPID, who.Id)
	t.gone = true
	if !t.stopAsk && t.state != state.TaskFailed {
		j.failPipeline(ctx, t.pipe, fmt.Sprintf("subtask %d of chain %d stopped unexpectedly", t.loc.Subtask, t.loc.Chain))
	}
	j.checkEnd(ctx)
}

// allGone tells whether every deployed subtask of the attempt has stopped.
func allGone(p *pipelineRun) bool {
	for _, t := range p.tasks {
		if t.pid != nil && !t.gone {
			return false
		}
	}
	return true
}

func (j *JobMaster) endPipeline(ctx actor.Context, p *pipelineRun, s, cause string) {
	ctx.Send(j.resources, &resource.Release{Owner: j.slotOwner(p)})
	p.state = s
	if cause != "" {
		p.cause = cause
		if j.cause == "" {
			j.cause = cause
		}
	}
	if p.coordinator != nil {
		ctx.Stop(p.coordinator)
		p.coordinator = nil
	}
	for _, pid := range p.enums {
		ctx.Stop(pid)
	}
}

// updatePending shows the job PENDING, as SeaTunnel does, while every
// pipeline that has not ended waits for slots, and RUNNING otherwise.
func (j *JobMaster) updatePending() {
	if j.state != state.JobRunning && j.state != state.JobPending {
		return
	}
	waiting, live := 0, 0
	for _, p := range j.pipelines {
		switch p.state {
		case state.PipelineFinished, state.PipelineFailed, state.PipelineCanceled:
			continue
		}
		live++
		if p.queued {
			waiting++
		}
	}
	if live > 0 && waiting == live {
		j.state = state.JobPending
	} else {
		j.state = state.JobRunning
	}
}

// checkEnd moves pipelines whose subtasks are all gone on — restored,
// failed, canceled or finished — and ends the job when all have ended.
func (j *JobMaster) checkEnd(ctx actor.Context) {
	if j.ended {
		return
	}
	for _, p := range j.pipelines {
		if !allGone(p) {
			continue
		}
		switch p.state {
		case state.PipelineFailing:
			if j.state != state.JobCanceling && !p.permanent && p.retries < j.plan.Job.RetryTimes {
				p.retries++
				ctx.Send(j.resources, &resource.Release{Owner: j.slotOwner(p)})
				j.log.Warn().Int("pipeline", p.p.ID).Int("retry", p.retries).Int("of", j.plan.Job.RetryTimes).Str("cause", p.cause).Msg("restoring pipeline from its latest checkpoint")
				p.state = state.PipelineCreated
				j.timers.After(j.plan.Job.RetryInterval, &restart{p: p})
				continue
			}
			j.endPipeline(ctx, p, state.PipelineFailed, p.cause)
		case state.PipelineCanceling:
			j.endPipeline(ctx, p, state.PipelineCanceled, "")
		case state.PipelineFinished:
			j.endPipeline(ctx, p, state.PipelineFinished, "")
		}
	}
	for _, p := range j.pipelines {
		switch p.state {
		case state.PipelineFinished, state.PipelineFailed, state.PipelineCanceled:
			if !allGone(p) {
				return
			}
		default:
			return
		}
	}
	switch {
	case j.cause != "":
		j.state = state.JobFailed
	case j.state == state.JobCanceling:
		j.state = state.JobCanceled
	case j.savepoint:
		j.state = state.JobSavepointDone
	default:
		j.state = state.JobFinished
	}
	j.end = time.Now()
	j.ended = true
	// The coordinator stops this actor when it has the final status
	// (with a PoisonPill, after any status request it forwarded here).
	ctx.Send(ctx.Parent(), &Ended{Status: j.status(), Metrics: j.jobMetrics()})
}

func (j *JobMaster) status() *messages.JobStatus {
	name := j.spec.Name
	if j.plan != nil {
		name = j.plan.Job.Name
	}
	s := &messages.JobStatus{JobId: j.spec.JobId, Name: name, State: j.state, Error: j.cause,
		StartUnixMs: j.start.UnixMilli()}
	if !j.end.IsZero() {
		s.EndUnixMs = j.end.UnixMilli()
	}
	for _, p := range j.pipelines {
		s.Pipelines = append(s.Pipelines, &messages.PipelineStatus{Id: int32(p.p.ID), State: p.state, Attempt: int32(p.attempt)})
		s.ReadRows += p.baseRead
		s.WriteRows += p.baseWrite
		for _, t := range p.tasks {
			if t.metrics != nil {
				s.ReadRows += t.metrics.ReadRows
				s.WriteRows += t.metrics.WriteRows
				s.ReadBytes += t.metrics.ReadBytes
				s.WriteBytes += t.metrics.WriteBytes
			}
		}
	}
	return s
}

// workerPID is the TaskExecutionService of the node at address.
func workerPID(address string) *actor.PID { return actor.NewPID(address, "worker") }

// workersOf is a job's checkpoint.Workers: the ResourceManager's workers,
// each by its node id.
func workersOf(sys *actor.ActorSystem, resources *actor.PID) checkpoint.Workers {
	return func() (map[string]*actor.PID, error) {
		res, err := sys.Root.RequestFuture(resources, &resource.GetWorkers{}, 5*time.Second).Result()
		if err != nil {
			return nil, fmt.Errorf("asking the resource manager for the workers: %w", err)
		}
		ws, ok := res.(*resource.Workers)
		if !ok {
			return nil, fmt.Errorf("the resource manager answered %T", res)
		}
		if len(ws.Workers) == 0 {
			// A new leader that has not heard from Consul yet: no worker
			// listed says nothing about the writers.
			return nil, fmt.Errorf("the resource manager has no workers yet")
		}
		out := make(map[string]*actor.PID, len(ws.Workers))
		for _, w := range ws.Workers {
			out[w.ID] = workerPID(w.Address)
		}
		return out, nil
	}
}
