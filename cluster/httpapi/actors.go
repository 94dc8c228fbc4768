package httpapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/resources"
)

// actorCoordinator asks the CoordinatorService and the ResourceManager on
// the handler's own actor system by message, as the CLI does over remote.
type actorCoordinator struct {
	root        *actor.RootContext
	coordinator *actor.PID
	resources   *actor.PID
	slot        resources.Profile
}

var _ Coordinator = (*actorCoordinator)(nil)

// NewActorCoordinator is the Coordinator of the CoordinatorService
// coordinator and the ResourceManager rm, asked from root (a node's actor
// system: the handler runs where they run). slot is the ResourceManager's
// slot profile with dynamic slots (resource.Options.Slot), from which a
// worker's slot count is worked out.
func NewActorCoordinator(root *actor.RootContext, coordinator, rm *actor.PID, slot resources.Profile) Coordinator {
	return &actorCoordinator{root: root, coordinator: coordinator, resources: rm, slot: slot}
}

// request asks pid and waits up to limit, or less when ctx ends sooner.
func (a *actorCoordinator) request(ctx context.Context, pid *actor.PID, msg any, limit time.Duration) (any, error) {
	if d, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(d))
	}
	if err := ctx.Err(); err != nil || limit <= 0 {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, context.DeadlineExceeded)
	}
	res, err := a.root.RequestFuture(pid, msg, limit).Result()
	switch {
	case errors.Is(err, actor.ErrDeadLetter):
		return nil, fmt.Errorf("%w: no %s actor runs here (this node does not lead any more)", ErrUnavailable, pid.Id)
	case errors.Is(err, actor.ErrTimeout):
		return nil, fmt.Errorf("%w: the %s actor did not answer within %s (%w)", ErrUnavailable, pid.Id, limit.Round(time.Millisecond), err)
	case err != nil:
		return nil, fmt.Errorf("%w: asking the %s actor: %v", ErrUnavailable, pid.Id, err)
	}
	if _, dead := res.(*actor.DeadLetterResponse); dead {
		return nil, fmt.Errorf("%w: no %s actor runs here (this node does not lead any more)", ErrUnavailable, pid.Id)
	}
	return res, nil
}

// ask is request with the answer's type checked.
func ask[T any](ctx context.Context, a *actorCoordinator, pid *actor.PID, msg any, limit time.Duration) (T, error) {
	var zero T
	res, err := a.request(ctx, pid, msg, limit)
	if err != nil {
		return zero, err
	}
	t, ok := res.(T)
	if !ok {
		return zero, fmt.Errorf("%T to the %s actor: unexpected answer %T", msg, pid.Id, res)
	}
	return t, nil
}

func (a *actorCoordinator) Submit(ctx context.Context, m *messages.SubmitJob) (*messages.SubmitJobReply, error) {
	return ask[*messages.SubmitJobReply](ctx, a, a.coordinator, m, 30*time.Second)
}

func (a *actorCoordinator) Status(ctx context.Context, id string) (*messages.JobStatus, error) {
	return ask[*messages.JobStatus](ctx, a, a.coordinator, &messages.GetJobStatus{JobId: id}, 5*time.Second)
}

func (a *actorCoordinator) Metrics(ctx context.Context, id string) (*messages.JobMetrics, error) {
	return ask[*messages.JobMetrics](ctx, a, a.coordinator, &messages.GetJobMetrics{JobId: id}, 5*time.Second)
}

func (a *actorCoordinator) List(ctx context.Context) ([]*messages.JobStatus, error) {
	l, err := ask[*messages.JobList](ctx, a, a.coordinator, &messages.ListJobs{}, 15*time.Second)
	if err != nil {
		return nil, err
	}
	return l.Jobs, nil
}

func (a *actorCoordinator) Cancel(_ context.Context, id string) error {
	a.root.Send(a.coordinator, &messages.CancelJob{JobId: id})
	return nil
}

func (a *actorCoordinator) Savepoint(_ context.Context, id string) error {
	a.root.Send(a.coordinator, &messages.Savepoint{JobId: id})
	return nil
}

func (a *actorCoordinator) Workers(ctx context.Context) ([]Worker, error) {
	ws, err := ask[*resource.Workers](ctx, a, a.resources, &resource.GetWorkers{}, 10*time.Second)
	if err != nil {
		return nil, err
	}
	out := make([]Worker, 0, len(ws.Workers))
	for _, w := range ws.Workers {
		used := ws.Used[w.ID]
		out = append(out, Worker{ID: w.ID, Tags: w.Tags, Slots: max(w.Slots(a.slot), used), UsedSlots: used})
	}
	return out, nil
}
