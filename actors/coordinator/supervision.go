package coordinator

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

var _ actor.SupervisorStrategy = (*Service)(nil)

// HandleFailure is the coordinator's strategy for its JobMasters: one that
// crashed is stopped, not restarted in place with empty state, and its job
// ends FAILED with the cause; no other job is touched.
func (s *Service) HandleFailure(_ *actor.ActorSystem, supervisor actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason any, _ any) {
	supervisor.StopChildren(child)
	for id, j := range s.jobs {
		if j.pid == nil || !j.pid.Equal(child) {
			continue
		}
		s.log.Error().Str("job", id).Interface("reason", reason).Msg("the JobMaster crashed; the job failed")
		j.pid = nil
		j.final = &messages.JobStatus{JobId: id, State: state.JobFailed, Error: fmt.Sprintf("the JobMaster crashed: %v", reason),
			EndUnixMs: time.Now().UnixMilli()}
		s.save(id, j.final)
		if ctx, ok := supervisor.(actor.Context); ok {
			for _, w := range j.waiters {
				ctx.Send(w, j.final)
			}
		}
		j.waiters = nil
		return
	}
}
