// Package coordinator is the CoordinatorService: the job registry of a
// node that leads (every node in local mode). It checks and plans a
// submitted job, spawns its JobMaster, keeps the status of ended jobs, and
// answers status, wait and cancel requests (DESIGN §3).
package coordinator

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/jobmaster"
	"github.com/stactor/stactor/actors/worker"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
)

// Service is the actor.
type Service struct {
	resources *actor.PID
	store     storage.Storage
	opts      jobmaster.Options
	log       zerolog.Logger
	jobs      map[string]*job
	order     []string
}

type job struct {
	pid     *actor.PID
	final   *messages.JobStatus
	waiters []*actor.PID
}

// New is the props producer of the service; slots come from the
// ResourceManager resources, checkpoints go to store, and opts configure
// every JobMaster.
func New(resources *actor.PID, store storage.Storage, opts jobmaster.Options, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &Service{resources: resources, store: store, opts: opts, log: log, jobs: map[string]*job{}}
	}
}

// Receive handles one message.
func (s *Service) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *messages.SubmitJob:
		ctx.Respond(s.submit(ctx, m))
	case *jobmaster.Ended:
		j := s.jobs[m.Status.JobId]
		if j == nil {
			return
		}
		j.final, j.pid = m.Status, nil
		for _, w := range j.waiters {
			ctx.Send(w, m.Status)
		}
		j.waiters = nil
	case *messages.WaitJob:
		j := s.jobs[m.JobId]
		switch {
		case j == nil:
			ctx.Respond(unknown(m.JobId))
		case j.final != nil:
			ctx.Respond(j.final)
		default:
			j.waiters = append(j.waiters, ctx.Sender())
		}
	case *messages.GetJobStatus:
		j := s.jobs[m.JobId]
		switch {
		case j == nil:
			ctx.Respond(unknown(m.JobId))
		case j.final != nil:
			ctx.Respond(j.final)
		default:
			ctx.RequestWithCustomSender(j.pid, m, ctx.Sender())
		}
	case *messages.CancelJob:
		if j := s.jobs[m.JobId]; j != nil && j.pid != nil {
			ctx.Send(j.pid, m)
		}
	case *messages.Savepoint:
		if j := s.jobs[m.JobId]; j != nil && j.pid != nil {
			ctx.Send(j.pid, m)
		}
	}
}

func unknown(id string) *messages.JobStatus {
	return &messages.JobStatus{JobId: id, State: "UNKNOWN", Error: fmt.Sprintf("no job %s", id)}
}

func (s *Service) submit(ctx actor.Context, m *messages.SubmitJob) *messages.SubmitJobReply {
	if _, dup := s.jobs[m.JobId]; dup {
		return &messages.SubmitJobReply{JobId: m.JobId, Error: fmt.Sprintf("job %s exists already", m.JobId)}
	}
	spec := &messages.JobSpec{JobId: m.JobId, File: m.File, Config: m.Config, Vars: m.Vars, Name: m.Name}
	p, err := worker.PlanFor(spec)
	if err != nil {
		return &messages.SubmitJobReply{JobId: m.JobId, Error: err.Error()}
	}
	opts := s.opts
	opts.Restore = m.Restore
	pid, err := ctx.SpawnNamed(actor.PropsFromProducer(jobmaster.New(spec, p, s.resources, s.store, opts, s.log)), "job/"+m.JobId)
	if err != nil {
		return &messages.SubmitJobReply{JobId: m.JobId, Error: err.Error()}
	}
	s.jobs[m.JobId] = &job{pid: pid}
	s.order = append(s.order, m.JobId)
	s.log.Debug().Str("job", m.JobId).Str("state", state.JobCreated).Msg("job submitted")
	return &messages.SubmitJobReply{JobId: m.JobId}
}
