package jobmaster

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
)

// resolved is the resolve goroutine's result.
type resolved struct {
	spec *messages.JobSpec // the spec it resolved, with its plan
	plan *plan.Plan
	err  error
	// rejected: the job could not be resolved (the submitter is refused);
	// otherwise err came later, from a save mode, and the job FAILED.
	rejected bool
}

const defaultResolveTimeout = 5 * time.Minute

// resolve starts the goroutine that resolves the job and applies the save
// modes, off this actor's handler; it reports with a resolved message. A
// panic in connector code there is the job's error, not the node's.
func (j *JobMaster) resolve() {
	timeout := j.opts.ResolveTimeout
	if timeout <= 0 {
		timeout = defaultResolveTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	j.cancelResolve = cancel
	spec, restore, sys, self, store := proto.Clone(j.spec).(*messages.JobSpec), j.opts.Restore, j.sys, j.self, j.store
	log := j.log
	go func() {
		defer cancel()
		res := &resolved{}
		func() {
			defer func() {
				if r := recover(); r != nil {
					res.err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
				}
			}()
			p, err := resolveSpec(ctx, spec, store, restore)
			if err != nil {
				res.err, res.rejected = err, true
				return
			}
			res.plan, res.spec = p, spec
			if !restore {
				res.err = handleSaveModes(ctx, p, func(v *plan.Vertex) { log.Info().Str("sink", v.Name).Msg("save mode handled") })
			}
		}()
		if res.plan == nil && res.err != nil {
			res.rejected = true
		}
		if ctx.Err() == context.DeadlineExceeded && res.err != nil {
			res.err = fmt.Errorf("resolving the job took longer than %s: %w", timeout, res.err)
		}
		sys.Root.Send(self, res)
	}()
}

// resolveSpec is the job's plan, and spec is given it (spec.Resolved):
//   - a spec already resolved is rebuilt from its resolved form, no I/O;
//   - a restore without a job file continues the plan the job was
//     resolved with (checkpoint storage keeps it), its variables included;
//   - a client's tree is resolved afresh; for a restore (a changed job
//     file) the tables must still fit the state the job left, checked
//     against the stored plan (plan.CheckCompatible) — but when a source
//     that carries schema changes sees its tables' columns changed
//     (plan.Evolved), the stored plan continues, its stream reading the
//     DDL, and a changed job file is an error.
func resolveSpec(ctx context.Context, spec *messages.JobSpec, store storage.Storage, restore bool) (*plan.Plan, error) {
	if spec.Resolved != nil {
		return plan.FromResolved(spec.JobId, spec.File, spec.Name, spec.Resolved)
	}
	var stored *messages.JobSpec
	if restore {
		s, err := store.LoadJob(spec.JobId)
		switch {
		case err == nil:
			stored = s
		case spec.Tree == nil || !errors.Is(err, storage.ErrNotFound):
			return nil, fmt.Errorf("job %s: reading the plan it was resolved with: %w", spec.JobId, err)
		}
	}
	if spec.Tree == nil {
		if stored == nil || stored.Resolved == nil && stored.Tree == nil {
			return nil, fmt.Errorf("job %s has no resolved plan to continue; give its job file", spec.JobId)
		}
		spec.File, spec.Vars = stored.File, stored.Vars
		if spec.Name == "" {
			spec.Name = stored.Name
		}
		if stored.Resolved != nil {
			spec.Resolved = stored.Resolved
			return plan.FromResolved(spec.JobId, spec.File, spec.Name, spec.Resolved)
		}
		// Stored before it was resolved (the process died first): the
		// tree the client parsed, with the variables it filled, is
		// resolved now.
		spec.Tree = stored.Tree
		stored = nil
	}
	tree, err := config.DecodeTree(spec.Tree)
	if err != nil {
		return nil, err
	}
	job, err := config.FromTree(spec.File, tree)
	if err != nil {
		return nil, err
	}
	if spec.Name != "" {
		job.Name = spec.Name
	}
	p, err := plan.Resolve(ctx, job, spec.JobId)
	if err != nil {
		return nil, err
	}
	if stored != nil && stored.Resolved != nil {
		evolved, err := plan.Evolved(stored.Resolved, p)
		if err != nil {
			return nil, err
		}
		if len(evolved) > 0 {
			if !proto.Equal(spec.Tree, stored.Resolved.Tree) {
				return nil, fmt.Errorf("job %s cannot continue with a changed job file: the columns of %s changed since it was resolved, and its checkpoint goes on from the plan it was resolved with (its stream carries the change); restore with the job file unchanged, or without one", spec.JobId, strings.Join(evolved, ", "))
			}
			spec.Tree, spec.Resolved = nil, stored.Resolved
			return plan.FromResolved(spec.JobId, spec.File, spec.Name, spec.Resolved)
		}
		if err := plan.CheckCompatible(stored.Resolved, p); err != nil {
			return nil, fmt.Errorf("job %s cannot continue with this job file: %w", spec.JobId, err)
		}
	}
	spec.Tree, spec.Resolved = nil, p.Resolved
	return p, nil
}

// handleSaveModes lets every sink that has one apply its save mode
// (connectors.SaveModeHandler), once, before the job's first attempt.
func handleSaveModes(ctx context.Context, p *plan.Plan, done func(*plan.Vertex)) error {
	for _, v := range p.Vertices {
		if h, ok := v.Sink.(connectors.SaveModeHandler); ok && v.Kind == plan.SinkVertex {
			if err := h.HandleSaveMode(ctx); err != nil {
				return fmt.Errorf("%s: save mode: %w", v.Name, err)
			}
			done(v)
		}
	}
	return nil
}

// onResolved starts the pipelines of a resolved job, or ends a job that
// could not be resolved or was cancelled meanwhile.
func (j *JobMaster) onResolved(ctx actor.Context, m *resolved) {
	j.cancelResolve = nil
	if j.state == state.JobCanceling {
		j.reply(ctx, "", nil, nil)
		j.state = state.JobCanceled
		j.endNow(ctx)
		return
	}
	if m.rejected {
		// The parent forgets the job and then answers the submitter, so
		// that a status request the submitter makes next finds no job.
		j.log.Info().Err(m.err).Msg("job refused: it could not be resolved")
		j.ended = true
		ctx.Send(ctx.Parent(), &Rejected{JobID: j.spec.JobId, Cause: m.err.Error(), Submitter: j.submitter})
		j.submitter = nil
		return
	}
	j.plan, j.spec = m.plan, m.spec
	if err := j.store.SaveJob(j.spec); err != nil {
		j.log.Warn().Err(err).Msg("saving the job for restore")
	}
	var warnings []string
	for _, w := range j.plan.Warnings {
		j.log.Warn().Msg(w.String())
		warnings = append(warnings, w.String())
	}
	var guarantees []string
	for _, g := range j.plan.Guarantees() {
		guarantees = append(guarantees, g.String())
	}
	// The parent answers the submitter once the job is in its registry.
	ctx.Send(ctx.Parent(), &Resolved{Spec: j.spec, Name: j.plan.Job.Name, Submitter: j.submitter,
		Reply: &messages.SubmitJobReply{JobId: j.spec.JobId, Warnings: warnings, Guarantees: guarantees}})
	j.submitter = nil
	if m.err != nil {
		j.failBeforeStart(ctx, m.err.Error())
		return
	}
	j.state = state.JobScheduled
	for _, p := range j.plan.Pipelines {
		pr := &pipelineRun{p: p}
		j.pipelines = append(j.pipelines, pr)
		j.startPipeline(ctx, pr, j.opts.Restore)
	}
	j.startAdaptive()
	if j.state == state.JobScheduled {
		j.state = state.JobRunning
	}
	j.checkEnd(ctx) // every pipeline may have failed to start
	j.scheduleWatchdog()
}

// reply answers the submitter, once: the warnings resolving found and
// what each pipeline guarantees (plan.Guarantees).
func (j *JobMaster) reply(ctx actor.Context, cause string, warnings, guarantees []string) {
	if j.submitter == nil {
		return
	}
	ctx.Send(j.submitter, &messages.SubmitJobReply{JobId: j.spec.JobId, Error: cause, Warnings: warnings, Guarantees: guarantees})
	j.submitter = nil
}

// endNow ends a job that has no pipeline running (cancelled while it was
// being resolved).
func (j *JobMaster) endNow(ctx actor.Context) {
	j.end = time.Now()
	j.ended = true
	m := j.jobMetrics()
	j.publish(m)
	ctx.Send(ctx.Parent(), &Ended{Status: j.status(), Metrics: m})
}
