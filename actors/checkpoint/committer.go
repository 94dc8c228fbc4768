package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/internal/guard"
	"github.com/stactor/stactor/actors/internal/timers"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// Committer commits one sink vertex's commit infos, checkpoint after
// checkpoint, in order. A failed commit is retried with backoff (commits are
// idempotent); an error that says it is permanent (connectors.IsPermanent,
// as Assert's failures) fails the job.
//
// It runs where the JobMaster is, and so does the commit, except for a
// sink that commits on the writer's node (connectors.WriterNodeCommitter,
// DESIGN §8): then a checkpoint's infos are grouped by the node that wrote
// them, this node's part is committed here and every other part is sent
// to its node's TaskExecutionService as a CommitOnNode (see nodes.go). The
// checkpoint is reported committed only when every part is.
type Committer struct {
	v        *plan.Vertex
	job      Job
	attempt  int
	cfg      Config
	log      zerolog.Logger
	restored bool // abort stale prepared work after the first commit
	undo     bool // take back job.Undo's commits before the first commit

	c      connectors.Committer
	ac     connectors.AggregatedCommitter
	onNode bool // c commits on the node that wrote
	queue  []*commit
	// staleDone are the nodes (by worker address) whose stale work is
	// aborted, while a restore's abort is retried.
	staleDone map[string]bool
	// missingSince is when each writer node was first found missing from
	// the cluster's workers (NodeGoneAfter).
	missingSince map[string]time.Time
	backoff      time.Duration
	waiting      bool // a retry timer is set
	self         *actor.PID
	sys          *actor.ActorSystem
	// io is the context of the sink's commits: cancelled when the
	// committer stops (the job ends, the pipeline fails over).
	io       context.Context
	ioCancel context.CancelFunc
	timers   *timers.Timers // the retry backoff's, stopped with the actor
}

// NewCommitter is the props producer of a committer for sink vertex v.
// restored says the pipeline restarts from a checkpoint: after committing
// what it carries, prepared work of other attempts is aborted.
func NewCommitter(v *plan.Vertex, job Job, attempt int, restored bool, cfg Config, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &Committer{v: v, job: job, attempt: attempt, restored: restored, undo: job.Undo != nil, cfg: cfg, log: log, staleDone: map[string]bool{},
			missingSince: map[string]time.Time{}}
	}
}

// Receive handles one message.
func (c *Committer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.self, c.sys = ctx.Self(), ctx.ActorSystem()
		c.timers = timers.New(ctx)
		c.io, c.ioCancel = context.WithCancel(context.Background())
		err := guard.Call(func() (err error) {
			switch s := c.v.Sink.(type) {
			case connectors.SinkWithAggregatedCommitter:
				c.ac, err = s.CreateAggregatedCommitter()
			case connectors.SinkWithCommitter:
				c.c, err = s.CreateCommitter()
				if w, ok := s.(connectors.WriterNodeCommitter); ok {
					c.onNode = w.CommitsOnWriterNode()
				}
			}
			return err
		})
		if err != nil {
			ctx.Send(ctx.Parent(), &commitFailed{vertex: c.v.ID, cause: fmt.Sprintf("%s: creating committer: %v", c.v.Name, err)})
			return
		}
		if c.undo {
			ctx.Send(ctx.Self(), &retry{}) // undo now, not at the first commit
		}
	case *commit:
		c.queue = append(c.queue, m)
		c.run(ctx)
	case *retry:
		c.waiting = false
		c.run(ctx)
	case *actor.Stopping:
		c.timers.Stop()
		c.ioCancel()
		if c.ac != nil {
			_ = guard.Call(c.ac.Close)
		}
	}
}

func (c *Committer) run(ctx actor.Context) {
	for (c.undo || len(c.queue) > 0) && !c.waiting {
		var m *commit
		var err error
		if c.undo {
			// Before any commit, so the restore's own commits and the new
			// attempt's come after the undo, retried as a commit is.
			if err = guard.Call(c.undoCommits); err == nil {
				c.undo, c.backoff = false, 0
				c.log.Warn().Str("sink", c.v.Name).Int64("from", c.job.Undo.From+1).Int64("to", c.job.Undo.To).
					Msg("took back what the checkpoints the restore falls back past committed")
				continue
			}
		} else {
			m = c.queue[0]
			// A panic in the sink's commit is a failed commit like any
			// other: retried with backoff, its infos kept (DESIGN §3).
			err = guard.Call(func() error { return c.commit(m) })
		}
		if err == nil {
			c.queue = c.queue[1:]
			c.backoff = 0
			ctx.Send(ctx.Parent(), &committed{vertex: c.v.ID, checkpoint: m.checkpoint})
			continue
		}
		if connectors.IsPermanent(err) {
			c.queue = nil
			ctx.Send(ctx.Parent(), &commitFailed{vertex: c.v.ID, cause: fmt.Sprintf("%s: %v", c.v.Name, err)})
			return
		}
		if c.backoff == 0 {
			c.backoff = c.cfg.CommitBackoff
		} else {
			c.backoff = min(2*c.backoff, c.cfg.CommitBackoffMax)
		}
		if errors.Is(err, errWriterAbsent) {
			c.backoff = min(c.backoff, max(writerAbsentRetry, c.cfg.CommitBackoff))
		}
		ev := c.log.Warn().Err(err).Str("sink", c.v.Name).Dur("retry_in", c.backoff)
		if m != nil {
			ev.Int64("checkpoint", m.checkpoint).Msg("commit failed; retrying")
		} else {
			ev.Int64("from", c.job.Undo.From).Int64("to", c.job.Undo.To).Msg("undoing commits failed; retrying")
		}
		c.waiting = true
		c.timers.After(c.backoff, &retry{})
	}
}

func (c *Committer) commitContext(m *commit) connectors.CommitContext {
	return connectors.CommitContext{JobID: c.job.Spec.JobId, Pipeline: c.v.Pipeline.ID, Attempt: c.attempt, Term: c.job.Term,
		CheckpointID: m.checkpoint, Final: m.final}
}

func (c *Committer) commit(m *commit) error {
	cc := c.commitContext(m)
	infos := append([]*messages.PendingCommit(nil), m.infos...)
	sort.SliceStable(infos, func(a, b int) bool { return infos[a].Subtask < infos[b].Subtask })
	if c.c != nil && c.onNode {
		return c.commitOnNodes(m, infos)
	}
	raw := rawInfos(infos)
	var err error
	switch {
	case c.ac != nil:
		var combined []byte
		if combined, err = c.ac.Combine(raw); err == nil {
			err = c.ac.Commit(c.io, cc, [][]byte{combined})
		}
	case c.c != nil:
		if len(raw) > 0 {
			err = c.c.Commit(c.io, cc, raw)
		}
	default:
		if len(raw) > 0 {
			return connectors.Permanent(fmt.Errorf("prepared commit infos but the sink has no committer"))
		}
	}
	if err != nil {
		return err
	}
	if c.restored {
		var sa connectors.StaleAborter
		if x, ok := c.ac.(connectors.StaleAborter); ok && c.ac != nil {
			sa = x
		} else if x, ok := c.c.(connectors.StaleAborter); ok && c.c != nil {
			sa = x
		}
		if sa != nil {
			if err := sa.AbortStale(c.io, cc); err != nil {
				return fmt.Errorf("aborting work of earlier attempts: %w", err)
			}
		}
		c.restored = false
	}
	return nil
}

// rawInfos are the infos' bytes, in order.
func rawInfos(infos []*messages.PendingCommit) [][]byte {
	raw := make([][]byte, len(infos))
	for i, in := range infos {
		raw[i] = in.Info
	}
	return raw
}

// undoCommits takes back what checkpoints job.Undo.From+1 .. To committed,
// on every node that may hold committed output when the sink commits on
// the writer's node (as a restore's stale abort), here otherwise.
func (c *Committer) undoCommits() error {
	u := c.job.Undo
	cc := connectors.CommitContext{JobID: c.job.Spec.JobId, Pipeline: c.v.Pipeline.ID, Attempt: c.attempt, Term: c.job.Term, CheckpointID: u.From}
	var r connectors.CommitRemover
	if x, ok := c.ac.(connectors.CommitRemover); ok && c.ac != nil {
		r = x
	} else if x, ok := c.c.(connectors.CommitRemover); ok && c.c != nil {
		r = x
	}
	if r == nil {
		return connectors.Permanent(fmt.Errorf("%s cannot take back the commits of checkpoints %d to %d", c.v.Name, u.From+1, u.To))
	}
	if c.c == nil || !c.onNode {
		return r.UndoCommits(c.io, cc, u.From, u.To)
	}
	m := &commit{checkpoint: u.From}
	err := c.eachNode(c.staleTargets(nil, c.workers()), c.staleDone,
		func(p *nodePart) error { pc := cc; pc.Node = p.node; return r.UndoCommits(c.io, pc, u.From, u.To) },
		func(p *nodePart) *messages.CommitOnNode {
			req := c.request(m)
			req.Undo, req.UndoTo, req.Node = true, u.To, p.node
			return req
		})
	if err == nil {
		clear(c.staleDone)
	}
	return err
}
