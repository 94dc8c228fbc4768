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
//
// Metrics (metrics.go): the JobMaster keeps each subtask's last two
// TaskMetrics reports and builds messages.JobMetrics from them (per job,
// pipeline, vertex and subtask: counts, rates, busy / idle /
// back-pressured time per second, queues, the last checkpoint). That one
// message answers GetJobMetrics (the HTTP API, /metrics) and, with
// Options.Metrics, goes out every MetricsInterval on
// <prefix>.metrics.<job> for stactor top (publish.go, monitor/metrics).
//
// read_limit.adaptive (adaptive.go) lives here, not in the subtasks nor in
// the CheckpointCoordinator, because only the JobMaster sees both halves
// of it: every subtask's TaskMetrics (read rates; the busy time from which
// a sink's capacity is estimated) and, from each pipeline's coordinator,
// its checkpoints' course (Triggered, Completed, Aborted with whether it
// timed out, CommitsDone with the commit latency). Once a second
// (AdaptiveInterval) it predicts each pipeline's next checkpoint duration
// against checkpoint.timeout and, when the sources' rate must change,
// sends each source subtask its share as a ReadRate message: a control
// message at the high mailbox level, with plain Send, so that it
// overtakes the subtask's queued polls and data (DESIGN §3) — the subtask
// reads at the lower of it and the job's read_limit.rows_per_second. A new
// attempt's subtasks get the current rate once they run. The rate is in
// PipelineMetrics and each change is logged.
package jobmaster

import (
	"context"
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
	// AcceptDuplicates lets a restore fall back past a completed checkpoint
	// that is corrupt or missing, writing again what it committed
	// (committedPast; stactor run --accept-duplicates).
	AcceptDuplicates bool
	// Term is the leader's term (0 in local mode): every attempt this
	// JobMaster starts is fenced by it (DESIGN §6).
	Term uint64
	// ResolveTimeout bounds resolving a job (0: 5 minutes).
	ResolveTimeout time.Duration
	// Metrics, when set, gets the job's JobMetrics every MetricsInterval
	// (0: DefaultMetricsInterval) and once more when the job ends.
	Metrics         MetricsPublisher
	MetricsInterval time.Duration
}

// Resolved tells the JobMaster's parent that the job is resolved: Spec now
// carries the resolved plan, which the job registry keeps. The parent
// sends Reply to Submitter (when not nil) once the job is recorded there:
// a submitter told its job runs must find it under the next leader.
type Resolved struct {
	Spec      *messages.JobSpec
	Name      string
	Submitter *actor.PID
	Reply     *messages.SubmitJobReply
}

// Rejected tells the JobMaster's parent that the job could not be
// resolved: the job never existed, and the parent answers Submitter (if
// any) with Cause once it has forgotten the job.
type Rejected struct {
	JobID     string
	Cause     string
	Submitter *actor.PID
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
	backoff     bool // failed, waiting job.retry.interval.seconds to restart
	starting    int  // the starts asked (startPipeline); the latest is the one that counts
	// startPending: the latest start's storage reads have not answered
	// (onStartRead); the pipeline does not end before they do.
	startPending bool
	lastCkpt     int64
	// the latest completed checkpoint and how many completed, for the
	// metrics (PipelineMetrics)
	lastCheckpoint    *messages.CompletedCheckpoint
	checkpoints       int64
	checkpointsFailed int64
	// adaptive is the read_limit.adaptive loop (adaptive.go); nil
	// without it.
	adaptive *adaptive
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
	worker  *actor.PID // the TaskExecutionService asked to deploy it
	gone    bool       // terminated
	stopAsk bool       // we asked it to close or cancel
	rate    float64    // the read rate sent to it (read_limit.adaptive); 0: none
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
		j.startPublishing()
		j.resolve()
	case *resolved:
		j.onResolved(ctx, m)
	case *startRead:
		j.onStartRead(ctx, m)
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
	case *actor.DeadLetterResponse:
		j.onUndeliverable(ctx, m.Target)
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
			p.lastCheckpoint = m.Checkpoint
			p.checkpoints++
			p.lastProgress = time.Now()
		}
		j.onCheckpointEvent(m)
	case *checkpoint.Triggered, *checkpoint.Aborted, *checkpoint.CommitsDone:
		j.onCheckpointEvent(m)
	case *adaptiveTick:
		j.adaptiveStep(ctx)
	case *watchdogTick:
		j.watchdog(ctx)
	case *publishTick:
		if !j.ended {
			j.publish(j.jobMetrics())
		}
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
		if !m.p.backoff || j.ended {
			return // stopped during the back-off
		}
		m.p.backoff = false
		j.startPipeline(ctx, m.p, true)
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
