package jobmaster

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
)

// A pipeline's life: an attempt started (numbered and persisted first,
// DESIGN §6), failed over from its latest checkpoint up to job.retry.times,
// or ended; and the job's end once every pipeline has ended.

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
		j.startFailed(p, fmt.Sprintf("checkpoint storage: %v", err), err)
		return
	}
	p.attempt = attempt
	p.restore = nil
	p.baseRead, p.baseWrite = 0, 0
	var undo *checkpoint.Undo
	if restore {
		cp, warnings, err := j.store.Latest(j.spec.JobId, p.p.ID)
		for _, w := range warnings {
			j.log.Warn().Int("pipeline", p.p.ID).Msg(w)
		}
		if err != nil {
			j.startFailed(p, fmt.Sprintf("reading the latest checkpoint: %v", err), err)
			return
		}
		last, err := j.store.LastCompleted(j.spec.JobId, p.p.ID)
		if err != nil {
			j.startFailed(p, fmt.Sprintf("reading the last completed checkpoint: %v", err), err)
			return
		}
		refusal, warning, undoes := committedPast(j.spec.JobId, p.p.ID, cp, last, warnings, j.opts.AcceptDuplicates, sinksUndo(p.p))
		if refusal != "" {
			j.endPipeline(ctx, p, state.PipelineFailed, refusal)
			return
		}
		if warning != "" {
			j.log.Warn().Int("pipeline", p.p.ID).Msg(warning)
		}
		if undoes {
			undo = &checkpoint.Undo{From: -1, To: last}
			if cp != nil {
				undo.From = cp.Id
			}
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
	job := checkpoint.Job{Spec: j.spec, Term: j.opts.Term, Workers: workersOf(j.sys, j.resources), Undo: undo}
	pid, err := ctx.SpawnNamed(actor.PropsFromProducer(checkpoint.New(j.checkpointConfig(), job, p.p, attempt, j.store, p.restore, j.log)),
		fmt.Sprintf("checkpoint/%d/%d", p.p.ID, attempt))
	if err != nil {
		j.endPipeline(ctx, p, state.PipelineFailed, fmt.Sprintf("starting the checkpoint coordinator: %v", err))
		return
	}
	p.coordinator = pid
}

// startFailed fails a pipeline whose attempt could not start because the
// checkpoint storage failed: like a failed attempt, it is tried again
// after job.retry.interval.seconds while retries are left (checkEnd,
// which the callers run next), so a store that is down for a moment — a
// NATS server restarting — costs a retry, not the job. What the store
// says is corrupt or invalid is permanent: retrying reads it again.
func (j *JobMaster) startFailed(p *pipelineRun, cause string, err error) {
	j.log.Warn().Str("cause", cause).Int("pipeline", p.p.ID).Msg("pipeline failed to start")
	p.state, p.cause = state.PipelineFailing, cause
	p.permanent = p.permanent || errors.Is(err, storage.ErrCorrupt) || errors.Is(err, storage.ErrInvalid)
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
				p.backoff = true
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
	m := j.jobMetrics()
	j.publish(m)
	ctx.Send(ctx.Parent(), &Ended{Status: j.status(), Metrics: m})
}
