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
// leftovers before it says Ready. The storage calls (the attempt, and on a
// restore the latest and the last completed checkpoint) run on a goroutine
// of their own, so a store that does not answer (JetStream gives up after
// its request timeout) leaves this actor free for status requests and a
// cancel; startRead brings their answers back (onStartRead). Meanwhile
// the pipeline is CREATED, with no subtasks.
func (j *JobMaster) startPipeline(ctx actor.Context, p *pipelineRun, restore bool) {
	p.state = state.PipelineCreated
	p.tasks, p.enums = map[[2]int32]*taskRun{}, map[int]*actor.PID{} // the last attempt's are gone
	p.starting++
	p.startPending = true
	gen, store, jobID, term, sys, self := p.starting, j.store, j.spec.JobId, j.opts.Term, j.sys, j.self
	go func() {
		r := &startRead{p: p, gen: gen, restore: restore}
		r.read(store, jobID, term)
		sys.Root.Send(self, r)
	}()
}

// startRead is what the storage said for a pipeline's start.
type startRead struct {
	p        *pipelineRun
	gen      int // the pipeline's starting count when it was asked
	restore  bool
	attempt  int
	cp       *messages.CompletedCheckpoint // the latest readable checkpoint
	warnings []string
	last     int64 // the last completed checkpoint's id
	err      error
	what     string // the call that failed
}

func (r *startRead) read(store storage.Storage, jobID string, term uint64) {
	id := r.p.p.ID
	if r.attempt, r.err = store.NextAttempt(jobID, id, term); r.err != nil {
		r.what = "checkpoint storage"
		return
	}
	if !r.restore {
		return
	}
	if r.cp, r.warnings, r.err = store.Latest(jobID, id); r.err != nil {
		r.what = "reading the latest checkpoint"
		return
	}
	if r.last, r.err = store.LastCompleted(jobID, id); r.err != nil {
		r.what = "reading the last completed checkpoint"
	}
}

// onStartRead goes on with a start once the storage answered. A pipeline
// canceled meanwhile ends now (checkEnd waits for the answer: a restored
// pipeline's counts are its checkpoint's, which only the answer has).
func (j *JobMaster) onStartRead(ctx actor.Context, m *startRead) {
	p := m.p
	if j.ended || m.gen != p.starting {
		return
	}
	p.startPending = false
	switch {
	case p.state == state.PipelineCreated && p.coordinator == nil:
		j.finishStart(ctx, p, m)
	case m.err == nil && m.cp != nil:
		p.baseRead, p.baseWrite = m.cp.ReadRows, m.cp.WriteRows
	}
	j.checkEnd(ctx) // it may have failed to start, or been canceled
}

func (j *JobMaster) finishStart(ctx actor.Context, p *pipelineRun, m *startRead) {
	if errors.Is(m.err, storage.ErrFenced) {
		// A newer leader runs the job: this master was replaced and must
		// start nothing (DESIGN §6).
		j.log.Warn().Int("pipeline", p.p.ID).Uint64("term", j.opts.Term).Msg("a newer leader runs this pipeline; not restarting it")
		j.endPipeline(ctx, p, state.PipelineFailed, fmt.Sprintf("not restarting pipeline %d: %v", p.p.ID, m.err))
		return
	}
	for _, w := range m.warnings {
		j.log.Warn().Int("pipeline", p.p.ID).Msg(w)
	}
	if m.err != nil {
		j.startFailed(p, fmt.Sprintf("%s: %v", m.what, m.err), m.err)
		return
	}
	attempt := m.attempt
	p.attempt = attempt
	p.restore = nil
	p.baseRead, p.baseWrite = 0, 0
	var undo *checkpoint.Undo
	if m.restore {
		cp, last := m.cp, m.last
		refusal, warning, undoes := committedPast(j.spec.JobId, p.p.ID, cp, last, m.warnings, j.opts.AcceptDuplicates, sinksUndo(p.p))
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
// which onStartRead runs next), so a store that is down for a moment — a
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
		if !allGone(p) || p.startPending {
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
