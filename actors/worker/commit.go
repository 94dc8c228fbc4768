package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/actors/internal/guard"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// Committing on this node (DESIGN §8). A sink whose commit touches the
// disk of the node that wrote (connectors.WriterNodeCommitter) has its
// committer actor, where the JobMaster is, send each node the infos that
// its writers prepared, as a CommitOnNode. The service hands them to the
// job's node committer: a child actor per job that rebuilds the job's plan
// from its resolved form once (as a deployment does), keeps each
// sink's Committer, and runs Commit — or, on restore, AbortStale — one
// request at a time, off the service's mailbox so that deployments are
// not held up behind a slow commit. A node committer that has had nothing
// to do for committerIdleAfter is stopped, and its plan with it.

// committerIdleAfter is how long a node committer waits for more work.
const committerIdleAfter = 5 * time.Minute

// committerIdle is a node committer's word that it has been idle.
type committerIdle struct {
	job string
	pid *actor.PID
}

// commitOnNode passes m to its job's node committer, started if need be;
// the committer answers the sender.
func (s *Service) commitOnNode(ctx actor.Context, m *messages.CommitOnNode) {
	id := m.GetJob().GetJobId()
	pid := s.commits[id]
	if pid == nil {
		nc := &nodeCommitter{job: id, log: s.log.With().Str("job", id).Logger()}
		var err error
		s.commitSeq++
		name := fmt.Sprintf("commit/%s/%d", id, s.commitSeq)
		if pid, err = ctx.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return nc }), name); err != nil {
			ctx.Respond(&messages.CommitOnNodeReply{Error: fmt.Sprintf("starting the committer of job %s on this node: %v", id, err)})
			return
		}
		s.commits[id] = pid
	}
	ctx.Forward(pid)
}

// stopCommitter stops an idle node committer. Requests forwarded to it
// before this are ahead of the poison pill and still answered; later ones
// start a new one.
func (s *Service) stopCommitter(ctx actor.Context, m *committerIdle) {
	if pid := s.commits[m.job]; pid != nil && pid.Equal(m.pid) {
		delete(s.commits, m.job)
		ctx.Poison(pid)
	}
}

// committerGone forgets a node committer that stopped.
func (s *Service) committerGone(who *actor.PID) {
	for job, pid := range s.commits {
		if pid.Equal(who) {
			delete(s.commits, job)
		}
	}
}

// nodeCommitter commits one job's infos on this node.
type nodeCommitter struct {
	job string
	log zerolog.Logger
	// io is the context of the commits: cancelled when the committer stops.
	io         context.Context
	ioCancel   context.CancelFunc
	spec       *messages.JobSpec
	plan       *plan.Plan
	committers map[int32]connectors.Committer // by sink vertex
}

// Receive handles one message.
func (n *nodeCommitter) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		n.io, n.ioCancel = context.WithCancel(context.Background())
		ctx.SetReceiveTimeout(committerIdleAfter)
	case *actor.Stopping:
		n.ioCancel()
	case *messages.CommitOnNode:
		ctx.Respond(n.commit(m))
	case *actor.ReceiveTimeout:
		ctx.CancelReceiveTimeout()
		ctx.Send(ctx.Parent(), &committerIdle{job: n.job, pid: ctx.Self()})
	}
}

// commit runs one request. A panic in the connector is an error like
// another: the committer actor retries.
func (n *nodeCommitter) commit(m *messages.CommitOnNode) *messages.CommitOnNodeReply {
	var c connectors.Committer
	err := guard.Call(func() (err error) { c, err = n.committer(m); return err })
	if err != nil && m.AbortStale && !connectors.IsPermanent(err) {
		// A node that cannot plan the job now ran none of its writers
		// with this configuration; what an older one staged there is
		// never committed, so it is left for a later restore.
		n.log.Warn().Err(err).Int32("pipeline", m.Pipeline).Msg("cannot abort stale staged work on this node")
		return &messages.CommitOnNodeReply{}
	}
	if err == nil {
		cc := connectors.CommitContext{JobID: m.Job.JobId, Pipeline: int(m.Pipeline), Attempt: int(m.Attempt), Term: m.Term,
			CheckpointID: m.CheckpointId, Final: m.Final, Node: m.Node}
		err = guard.Call(func() error {
			if m.Undo {
				// The node's part of a restore that falls back past
				// committed checkpoints: it must not be skipped.
				u, ok := c.(connectors.CommitRemover)
				if !ok {
					return connectors.Permanent(fmt.Errorf("the sink's committer cannot undo commits"))
				}
				return u.UndoCommits(n.io, cc, m.CheckpointId, m.UndoTo)
			}
			switch sa, ok := c.(connectors.StaleAborter); {
			case m.AbortStale && ok:
				return sa.AbortStale(n.io, cc)
			case !m.AbortStale && len(m.Infos) > 0:
				raw := make([][]byte, len(m.Infos))
				for i, in := range m.Infos {
					raw[i] = in.Info
				}
				return c.Commit(n.io, cc, raw)
			}
			return nil
		})
	}
	if err != nil {
		return &messages.CommitOnNodeReply{Error: err.Error(), Permanent: connectors.IsPermanent(err)}
	}
	return &messages.CommitOnNodeReply{}
}

// committer is the Committer of m's sink, from the plan of m's job (made
// again when the spec differs from the one planned).
func (n *nodeCommitter) committer(m *messages.CommitOnNode) (connectors.Committer, error) {
	if m.Job == nil {
		return nil, connectors.Permanent(fmt.Errorf("CommitOnNode without a job"))
	}
	if n.plan == nil || !proto.Equal(n.spec, m.Job) {
		p, err := plan.FromResolved(m.Job.JobId, m.Job.File, m.Job.Name, m.Job.Resolved)
		if err != nil {
			return nil, fmt.Errorf("job %s on this node: %w", m.Job.JobId, err)
		}
		n.spec, n.plan, n.committers = m.Job, p, map[int32]connectors.Committer{}
	}
	if c := n.committers[m.Vertex]; c != nil {
		return c, nil
	}
	if m.Vertex < 0 || int(m.Vertex) >= len(n.plan.Vertices) {
		return nil, connectors.Permanent(fmt.Errorf("job %s has no vertex %d", m.Job.JobId, m.Vertex))
	}
	v := n.plan.Vertices[m.Vertex]
	s, ok := v.Sink.(connectors.SinkWithCommitter)
	if !ok {
		return nil, connectors.Permanent(fmt.Errorf("%s has no per-writer committer", v.Name))
	}
	c, err := s.CreateCommitter()
	if err != nil {
		return nil, fmt.Errorf("%s: creating committer: %w", v.Name, err)
	}
	n.committers[m.Vertex] = c
	return c, nil
}
