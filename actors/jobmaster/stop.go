package jobmaster

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
)

// Stopping: savepoints (sources stop, the pipelines drain, DESIGN §5),
// cancels, and subtasks that stop or do not.

type terminated struct{ who *actor.PID }

type cancelTimeout struct {
	p       *pipelineRun
	attempt int
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
		if p.backoff {
			// Failed and waiting to restart: nothing runs to save; it
			// stops at its latest checkpoint, which restore continues
			// from, now rather than after the back-off.
			p.backoff = false
			p.state = state.PipelineCanceling
			continue
		}
		if p.state != state.PipelineRunning {
			continue
		}
		for _, t := range p.tasks {
			if t.pid != nil && j.plan.Chains[t.loc.Chain].Head.Kind == plan.SourceVertex {
				ctx.Send(t.pid, &messages.StopReading{})
			}
		}
	}
	j.checkEnd(ctx)
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
		p.backoff = false
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
