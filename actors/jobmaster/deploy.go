package jobmaster

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/actors/enumerator"
	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
)

// Deployment (DESIGN §3): slots from the ResourceManager, enumerator hosts
// started here, each subtask asked of its worker's TaskExecutionService by
// message, and the pipeline started once every subtask is up.

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
			worker, node := workerPID(g.Addresses[slot]), g.Slots[slot].ID.Worker
			p.tasks[[2]int32{int32(c.ID), int32(i)}] = &taskRun{pipe: p, loc: loc, state: state.TaskCreated, worker: worker}
			slot++
			ctx.Request(worker, &messages.DeployTask{Loc: loc, Job: j.spec, JobMaster: messages.FromPID(ctx.Self()), Restore: p.restore, Node: node})
		}
	}
}

// onUndeliverable fails a deploying pipeline whose DeployTask could not
// be delivered: the worker's address is dead (protoactor answers a
// request to it with a DeadLetterResponse once its connect retries are
// spent). Without this the pipeline would wait for a DeployTaskReply that
// never comes — a worker that died between the grant and the deploy and
// came back at a new address before Consul noticed is never reported lost.
func (j *JobMaster) onUndeliverable(ctx actor.Context, target *actor.PID) {
	if target == nil {
		return
	}
	for _, p := range j.pipelines {
		if p.state != state.PipelineDeploying {
			continue
		}
		for _, t := range p.tasks {
			if t.pid == nil && t.worker != nil && t.worker.Address == target.Address && t.worker.Id == target.Id {
				j.failPipeline(ctx, p, fmt.Sprintf("deploying subtask %d of chain %d: the worker at %s cannot be reached", t.loc.Subtask, t.loc.Chain, target.Address))
				break
			}
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
			if j.plan.Chains[o.loc.Chain].Head.Kind == plan.SourceVertex {
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
