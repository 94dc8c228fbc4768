package checkpoint

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
)

// Supervision of the CheckpointCoordinator's children, its committers
// (DESIGN §3): a committer guards the sink's calls itself (a panic in a
// commit is a failed commit, retried with backoff, its infos kept), so a
// committer that still crashes has a bug of its own. It is stopped, never
// restarted in place with empty state (its queue of infos would be lost),
// and the pipeline fails over from its latest checkpoint, which carries
// every info not yet committed.

var _ actor.SupervisorStrategy = (*Coordinator)(nil)

// HandleFailure is the coordinator's strategy for its committers.
func (c *Coordinator) HandleFailure(_ *actor.ActorSystem, supervisor actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason any, _ any) {
	supervisor.StopChildren(child)
	name := child.Id
	for v, pid := range c.committers {
		if pid.Equal(child) {
			name = fmt.Sprintf("the committer of vertex %d", v)
		}
	}
	c.log.Error().Str("actor", child.Id).Interface("reason", reason).Msg("committer crashed; failing the pipeline over")
	if ctx, ok := supervisor.(actor.Context); ok && !c.done {
		c.fail(ctx, fmt.Sprintf("%s crashed: %v", name, reason), false)
	}
}
