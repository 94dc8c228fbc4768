// Package worker is the TaskExecutionService: the actor on each worker node
// that starts subtasks when a JobMaster asks (DESIGN §3, "deployment is by
// message, locally too"), is their parent and supervisor, and never restarts
// one in place: a subtask that fails is stopped and its JobMaster told. It
// also commits, on this node, the infos that this node's writers prepared
// for a sink that commits on the writer's node (DESIGN §8; commit.go).
package worker

import (
	"fmt"
	"io"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/mailbox"
	"github.com/stactor/stactor/actors/task"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/natschan"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/storage"
)

// Service is the TaskExecutionService actor.
type Service struct {
	opts    task.Options
	store   storage.Storage
	log     zerolog.Logger
	plans   map[string]*jobPlan      // by job id
	tasks   map[string]*deployedTask // by subtask pid id
	commits map[string]*actor.PID    // node committers, by job id
	// commitSeq numbers the node committers: one that stopped may still
	// hold its name while the next starts.
	commitSeq int
}

type jobPlan struct {
	plan  *plan.Plan
	tasks int
}

type deployedTask struct {
	loc       *messages.TaskLocation
	jobMaster *actor.PID
}

// Props are the service's props: its supervisor strategy stops a failed
// subtask and reports it.
func Props(opts task.Options, store storage.Storage, log zerolog.Logger) *actor.Props {
	s := &Service{opts: opts, store: store, log: log, plans: map[string]*jobPlan{}, tasks: map[string]*deployedTask{},
		commits: map[string]*actor.PID{}}
	return actor.PropsFromProducer(func() actor.Actor { return s }, actor.WithSupervisor(&reporting{s: s}))
}

// Receive handles one message.
func (s *Service) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *messages.DeployTask:
		pid, err := s.deploy(ctx, m)
		reply := &messages.DeployTaskReply{Loc: m.Loc, Task: messages.FromPID(pid)}
		if err != nil {
			reply.Error = err.Error()
		}
		ctx.Respond(reply)
	case *messages.CommitOnNode:
		s.commitOnNode(ctx, m)
	case *committerIdle:
		s.stopCommitter(ctx, m)
	case *actor.Terminated:
		s.committerGone(m.Who)
		if d := s.tasks[m.Who.Id]; d != nil {
			delete(s.tasks, m.Who.Id)
			if jp := s.plans[d.loc.JobId]; jp != nil {
				if jp.tasks--; jp.tasks <= 0 {
					delete(s.plans, d.loc.JobId)
				}
			}
		}
	}
}

func (s *Service) deploy(ctx actor.Context, m *messages.DeployTask) (*actor.PID, error) {
	jp := s.plans[m.Job.JobId]
	if jp == nil {
		// The plan the master resolved, rebuilt without I/O: a worker
		// never parses job text or reads its environment for a job
		// (DESIGN §2).
		p, err := plan.FromResolved(m.Job.JobId, m.Job.File, m.Job.Name, m.Job.Resolved)
		if err != nil {
			return nil, fmt.Errorf("job %s on this worker: %w", m.Job.JobId, err)
		}
		jp = &jobPlan{plan: p}
		s.plans[m.Job.JobId] = jp
	}
	if int(m.Loc.Chain) >= len(jp.plan.Chains) {
		return nil, fmt.Errorf("job %s has no chain %d", m.Job.JobId, m.Loc.Chain)
	}
	jm := messages.ToPID(m.JobMaster)
	name := fmt.Sprintf("task/%s/%d/%d/%d/%d", m.Loc.JobId, m.Loc.Pipeline, m.Loc.Attempt, m.Loc.Chain, m.Loc.Subtask)
	// In a cluster, subscribe to the subtask's NATS channels before it is
	// deployed: upstream subtasks start sending after StartTask, which comes
	// after every DeployTaskReply, so nothing is published before the
	// subscription exists.
	var receiver io.Closer
	if s.opts.NATS != nil && len(jp.plan.Chains[m.Loc.Chain].In) > 0 {
		var edges []int32
		for _, e := range jp.plan.Chains[m.Loc.Chain].In {
			edges = append(edges, int32(e.ID))
		}
		sys, self := ctx.ActorSystem(), actor.NewPID(ctx.Self().Address, ctx.Self().Id+"/"+name)
		deliver := func(msg any) { sys.Root.Send(self, msg) }
		fail := func(err error) { sys.Root.Send(self, &task.RemoteFailed{Err: err}) }
		r, err := natschan.NewReceiver(s.opts.NATS, natschan.Scope{Job: m.Loc.JobId, Term: m.Loc.Term, Attempt: m.Loc.Attempt, Pipeline: m.Loc.Pipeline},
			m.Loc.Subtask, deliver, fail, natschan.WithPrefix(s.opts.Prefix), natschan.WithEdges(edges...))
		if err != nil {
			return nil, fmt.Errorf("subscribing subtask %s to its channels: %w", name, err)
		}
		receiver = r
	}
	// The subtask's sinks name this node on their commit infos: by the
	// ResourceManager's id for it, or (one process) the system's address.
	opts := s.opts
	if opts.Node = m.Node; opts.Node == "" {
		opts.Node = ctx.Self().Address
	}
	props := actor.PropsFromProducer(task.New(m.Loc, jp.plan, jm, m.Restore, s.store, receiver, opts, s.log), actor.WithMailbox(mailbox.Producer()))
	pid, err := ctx.SpawnNamed(props, name)
	if err != nil {
		if receiver != nil {
			receiver.Close()
		}
		return nil, fmt.Errorf("starting subtask %s: %w", name, err)
	}
	jp.tasks++
	s.tasks[pid.Id] = &deployedTask{loc: m.Loc, jobMaster: jm}
	return pid, nil
}

// reporting is the service's supervisor strategy: never restart a subtask
// in place (it would drop the failing batch and the operator state); stop
// it and tell its JobMaster.
type reporting struct{ s *Service }

func (r *reporting) HandleFailure(sys *actor.ActorSystem, supervisor actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason any, _ any) {
	if d := r.s.tasks[child.Id]; d != nil {
		sys.Root.Send(d.jobMaster, &messages.TaskFailed{Loc: d.loc, Cause: fmt.Sprintf("subtask crashed: %v", reason)})
	}
	supervisor.StopChildren(child)
}
