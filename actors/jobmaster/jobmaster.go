// Package jobmaster is the JobMaster actor: one per job, child of the
// CoordinatorService. It deploys every pipeline's subtasks by message to a
// worker's TaskExecutionService, starts the enumerator hosts, wires the
// subtasks, watches them, aggregates their metrics, commits the sinks'
// prepared work once a pipeline has drained, and ends the job FINISHED,
// FAILED or CANCELED (DESIGN §3).
package jobmaster

import (
	"fmt"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/enumerator"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
)

// Ended is what the JobMaster tells its parent when the job has ended; the
// JobMaster then stops.
type Ended struct {
	Status *messages.JobStatus
}

// JobMaster is the actor.
type JobMaster struct {
	spec   *messages.JobSpec
	plan   *plan.Plan
	worker *actor.PID
	log    zerolog.Logger

	state     string
	cause     string
	start     time.Time
	end       time.Time
	pipelines []*pipelineRun
	byPID     map[string]*taskRun
}

type pipelineRun struct {
	p       *plan.Pipeline
	state   string
	attempt int32
	tasks   map[[2]int32]*taskRun // by (chain, subtask)
	enums   map[int]*actor.PID    // by source vertex id
	commits map[int][]*messages.CommitInfo
	cause   string
}

type taskRun struct {
	pipe    *pipelineRun
	loc     *messages.TaskLocation
	pid     *actor.PID
	state   string
	metrics *messages.TaskMetrics
	drained bool
	gone    bool // terminated
	stopAsk bool // we asked it to close or cancel
}

// New is the props producer of a JobMaster.
func New(spec *messages.JobSpec, p *plan.Plan, worker *actor.PID, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &JobMaster{spec: spec, plan: p, worker: worker, state: state.JobCreated, byPID: map[string]*taskRun{},
			log: log.With().Str("job", spec.JobId).Logger()}
	}
}

// Receive handles one message.
func (j *JobMaster) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		j.start = time.Now()
		j.deploy(ctx)
	case *messages.DeployTaskReply:
		j.onDeployed(ctx, m)
	case *messages.TaskStateChanged:
		if t := j.task(m.Loc); t != nil {
			t.state = m.State
		}
	case *messages.TaskMetrics:
		if t := j.task(m.Loc); t != nil {
			t.metrics = m
		}
	case *messages.TaskDrained:
		j.onDrained(ctx, m)
	case *messages.TaskFailed:
		if t := j.task(m.Loc); t != nil {
			t.state = state.TaskFailed
			j.failPipeline(ctx, t.pipe, m.Cause)
		}
	case *messages.TaskClosed:
		if t := j.task(m.Loc); t != nil && t.state != state.TaskCanceled {
			t.state = state.TaskClosed
		}
	case *actor.Terminated:
		// A subtask's Terminated (a system message) overtakes the
		// TaskFailed it sent before stopping; look at it after the
		// messages already queued.
		ctx.Send(ctx.Self(), &terminated{m.Who})
	case *terminated:
		j.onTerminated(ctx, m.who)
	case *enumerator.Failed:
		for _, p := range j.pipelines {
			if p.enums[m.Vertex] != nil {
				j.failPipeline(ctx, p, m.Cause.Error())
			}
		}
	case *messages.CancelJob:
		j.cancel(ctx)
	case *messages.GetJobStatus:
		ctx.Respond(j.status())
	}
}

func (j *JobMaster) task(loc *messages.TaskLocation) *taskRun {
	if loc == nil || int(loc.Pipeline) < 1 || int(loc.Pipeline) > len(j.pipelines) {
		return nil
	}
	p := j.pipelines[loc.Pipeline-1]
	t := p.tasks[[2]int32{loc.Chain, loc.Subtask}]
	if t == nil || t.loc.Attempt != loc.Attempt {
		return nil
	}
	return t
}

func (j *JobMaster) deploy(ctx actor.Context) {
	j.state = state.JobScheduled
	for _, p := range j.plan.Pipelines {
		pr := &pipelineRun{p: p, state: state.PipelineDeploying, tasks: map[[2]int32]*taskRun{}, enums: map[int]*actor.PID{}, commits: map[int][]*messages.CommitInfo{}}
		j.pipelines = append(j.pipelines, pr)
		for _, v := range p.Sources() {
			pid, err := ctx.SpawnNamed(actor.PropsFromProducer(enumerator.New(v, nil)), fmt.Sprintf("enumerator/%d/%d", p.ID, v.ID))
			if err != nil {
				j.failPipeline(ctx, pr, fmt.Sprintf("starting the enumerator of %s: %v", v.Name, err))
				return
			}
			pr.enums[v.ID] = pid
		}
		for _, c := range p.Chains {
			for i := 0; i < c.Parallelism; i++ {
				loc := &messages.TaskLocation{JobId: j.spec.JobId, Pipeline: int32(p.ID), Attempt: pr.attempt, Chain: int32(c.ID), Subtask: int32(i)}
				pr.tasks[[2]int32{int32(c.ID), int32(i)}] = &taskRun{pipe: pr, loc: loc, state: state.TaskCreated}
				ctx.Request(j.worker, &messages.DeployTask{Loc: loc, Job: j.spec, JobMaster: messages.FromPID(ctx.Self())})
			}
		}
	}
	j.state = state.JobRunning
}

func (j *JobMaster) onDeployed(ctx actor.Context, m *messages.DeployTaskReply) {
	t := j.task(m.Loc)
	if t == nil {
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
	start := &messages.StartTask{}
	for _, o := range p.tasks {
		start.Peers = append(start.Peers, &messages.TaskPid{Chain: o.loc.Chain, Subtask: o.loc.Subtask, Pid: messages.FromPID(o.pid)})
	}
	for v, pid := range p.enums {
		start.Enumerators = append(start.Enumerators, &messages.EnumeratorPid{Vertex: int32(v), Pid: messages.FromPID(pid)})
	}
	p.state = state.PipelineRunning
	for _, o := range p.tasks {
		ctx.Send(o.pid, start)
	}
}

func (j *JobMaster) onDrained(ctx actor.Context, m *messages.TaskDrained) {
	t := j.task(m.Loc)
	if t == nil || t.pipe.state != state.PipelineRunning {
		return
	}
	t.drained = true
	if m.Metrics != nil {
		t.metrics = m.Metrics
	}
	p := t.pipe
	for _, c := range m.Commits {
		p.commits[int(c.Vertex)] = append(p.commits[int(c.Vertex)], c)
	}
	for _, o := range p.tasks {
		if !o.drained {
			return
		}
	}
	if err := j.commit(p); err != nil {
		j.failPipeline(ctx, p, err.Error())
		return
	}
	p.state = state.PipelineFinished
	for _, o := range p.tasks {
		o.stopAsk = true
		ctx.Send(o.pid, &messages.CloseTask{})
	}
}

// commit hands every sink's prepared work of the drained pipeline to its
// committer. Nothing was visible before.
func (j *JobMaster) commit(p *pipelineRun) error {
	for _, v := range p.p.Sinks() {
		infos := p.commits[v.ID]
		sort.Slice(infos, func(a, b int) bool { return infos[a].Subtask < infos[b].Subtask })
		raw := make([][]byte, len(infos))
		for i, c := range infos {
			raw[i] = c.Info
		}
		cc := connectors.CommitContext{JobID: j.spec.JobId, Pipeline: p.p.ID, Attempt: int(p.attempt), CheckpointID: 1, Final: true}
		switch s := v.Sink.(type) {
		case connectors.SinkWithAggregatedCommitter:
			ac, err := s.CreateAggregatedCommitter()
			if err != nil {
				return fmt.Errorf("%s: creating committer: %w", v.Name, err)
			}
			combined, err := ac.Combine(raw)
			if err == nil {
				err = ac.Commit(cc, [][]byte{combined})
			}
			if cerr := ac.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: commit: %w", v.Name, err)
			}
		case connectors.SinkWithCommitter:
			if len(raw) == 0 {
				continue
			}
			c, err := s.CreateCommitter()
			if err != nil {
				return fmt.Errorf("%s: creating committer: %w", v.Name, err)
			}
			if err := c.Commit(cc, raw); err != nil {
				return fmt.Errorf("%s: commit: %w", v.Name, err)
			}
		default:
			if len(raw) > 0 {
				return fmt.Errorf("%s: prepared commit infos but has no committer", v.Name)
			}
		}
	}
	return nil
}

// failPipeline cancels the pipeline's subtasks and fails the job with cause.
// (Failover from a checkpoint comes with the checkpoint coordinator.)
func (j *JobMaster) failPipeline(ctx actor.Context, p *pipelineRun, cause string) {
	if p.state == state.PipelineFailing || p.state == state.PipelineFailed || p.state == state.PipelineCanceling {
		return
	}
	j.log.Error().Str("cause", cause).Int("pipeline", p.p.ID).Msg("pipeline failed")
	p.state = state.PipelineFailing
	p.cause = cause
	if j.cause == "" {
		j.cause = cause
	}
	if j.state == state.JobRunning || j.state == state.JobScheduled {
		j.state = state.JobFailing
	}
	for _, other := range j.pipelines {
		j.stopTasks(ctx, other)
	}
	j.checkEnd(ctx)
}

func (j *JobMaster) cancel(ctx actor.Context) {
	if state.JobEnded(j.state) || j.state == state.JobCanceling || j.state == state.JobFailing {
		return
	}
	j.state = state.JobCanceling
	for _, p := range j.pipelines {
		j.stopTasks(ctx, p)
	}
	j.checkEnd(ctx)
}

func (j *JobMaster) stopTasks(ctx actor.Context, p *pipelineRun) {
	switch p.state {
	case state.PipelineFinished, state.PipelineFailed, state.PipelineCanceled:
		return
	case state.PipelineFailing:
	default:
		p.state = state.PipelineCanceling
	}
	for _, t := range p.tasks {
		if t.pid != nil && !t.gone && !t.stopAsk {
			t.stopAsk = true
			ctx.Send(t.pid, &messages.CancelTask{})
		}
	}
	for _, pid := range p.enums {
		ctx.Stop(pid)
	}
}

type terminated struct{ who *actor.PID }

func (j *JobMaster) onTerminated(ctx actor.Context, who *actor.PID) {
	t := j.byPID[who.Id]
	if t == nil {
		return
	}
	t.gone = true
	if !t.stopAsk && t.state != state.TaskFailed {
		j.failPipeline(ctx, t.pipe, fmt.Sprintf("subtask %d of chain %d stopped unexpectedly", t.loc.Subtask, t.loc.Chain))
	}
	j.checkEnd(ctx)
}

// checkEnd ends pipelines whose subtasks are all gone, and the job when
// every pipeline has ended.
func (j *JobMaster) checkEnd(ctx actor.Context) {
	for _, p := range j.pipelines {
		all := true
		for _, t := range p.tasks {
			if t.pid == nil && (p.state == state.PipelineFailing || p.state == state.PipelineCanceling) {
				continue // never deployed; its reply will cancel it
			}
			all = all && t.gone
		}
		if !all {
			continue
		}
		switch p.state {
		case state.PipelineFailing:
			p.state = state.PipelineFailed
		case state.PipelineCanceling:
			p.state = state.PipelineCanceled
		}
		for _, pid := range p.enums {
			ctx.Stop(pid)
		}
	}
	for _, p := range j.pipelines {
		switch p.state {
		case state.PipelineFinished, state.PipelineFailed, state.PipelineCanceled:
		default:
			return
		}
		for _, t := range p.tasks {
			if !t.gone && t.pid != nil {
				return
			}
		}
	}
	switch {
	case j.cause != "":
		j.state = state.JobFailed
	case j.state == state.JobCanceling:
		j.state = state.JobCanceled
	default:
		j.state = state.JobFinished
	}
	j.end = time.Now()
	ctx.Send(ctx.Parent(), &Ended{Status: j.status()})
	ctx.Stop(ctx.Self())
}

func (j *JobMaster) status() *messages.JobStatus {
	s := &messages.JobStatus{JobId: j.spec.JobId, Name: j.plan.Job.Name, State: j.state, Error: j.cause,
		StartUnixMs: j.start.UnixMilli()}
	if !j.end.IsZero() {
		s.EndUnixMs = j.end.UnixMilli()
	}
	for _, p := range j.pipelines {
		s.Pipelines = append(s.Pipelines, &messages.PipelineStatus{Id: int32(p.p.ID), State: p.state, Attempt: p.attempt})
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
