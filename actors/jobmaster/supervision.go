package jobmaster

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
)

// Supervision of the JobMaster's children (DESIGN §3): each pipeline's
// CheckpointCoordinator and its enumerator hosts. The hosts and the
// committers guard the connector's calls themselves and report failures as
// messages; a child that still crashes is stopped — never restarted in
// place with empty state, which would lose the checkpoint in flight or the
// unassigned splits — and its pipeline fails over from its latest
// checkpoint. Other pipelines and other jobs go on.

var _ actor.SupervisorStrategy = (*JobMaster)(nil)

// HandleFailure is the JobMaster's strategy for its children.
func (j *JobMaster) HandleFailure(_ *actor.ActorSystem, supervisor actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason any, _ any) {
	supervisor.StopChildren(child)
	ctx, ok := supervisor.(actor.Context)
	if !ok {
		return
	}
	for _, p := range j.pipelines {
		if p.coordinator != nil && p.coordinator.Equal(child) {
			p.coordinator = nil
			j.failPipeline(ctx, p, fmt.Sprintf("the checkpoint coordinator of pipeline %d crashed: %v", p.p.ID, reason))
			return
		}
		for v, pid := range p.enums {
			if pid.Equal(child) {
				delete(p.enums, v)
				j.failPipeline(ctx, p, fmt.Sprintf("the split enumerator of %s crashed: %v", j.plan.Vertices[v].Name, reason))
				return
			}
		}
	}
	j.log.Error().Str("actor", child.Id).Interface("reason", reason).Msg("a child of the JobMaster crashed")
}
