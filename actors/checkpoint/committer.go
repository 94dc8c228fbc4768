package checkpoint

import (
	"fmt"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// Committer commits one sink vertex's commit infos, checkpoint after
// checkpoint, in order. A failed commit is retried with backoff (commits are
// idempotent); an error that says it is permanent (a method
// Permanent() bool returning true, as Assert's failures do) fails the job.
type Committer struct {
	v        *plan.Vertex
	jobID    string
	attempt  int
	term     uint64
	cfg      Config
	log      zerolog.Logger
	restored bool // abort stale prepared work after the first commit

	c       connectors.Committer
	ac      connectors.AggregatedCommitter
	queue   []*commit
	backoff time.Duration
	waiting bool // a retry timer is set
	self    *actor.PID
	sys     *actor.ActorSystem
}

// NewCommitter is the props producer of a committer for sink vertex v.
// restored says the pipeline restarts from a checkpoint: after committing
// what it carries, prepared work of other attempts is aborted.
func NewCommitter(v *plan.Vertex, jobID string, attempt int, term uint64, restored bool, cfg Config, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &Committer{v: v, jobID: jobID, attempt: attempt, term: term, restored: restored, cfg: cfg, log: log}
	}
}

// Receive handles one message.
func (c *Committer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.self, c.sys = ctx.Self(), ctx.ActorSystem()
		var err error
		switch s := c.v.Sink.(type) {
		case connectors.SinkWithAggregatedCommitter:
			c.ac, err = s.CreateAggregatedCommitter()
		case connectors.SinkWithCommitter:
			c.c, err = s.CreateCommitter()
		}
		if err != nil {
			ctx.Send(ctx.Parent(), &commitFailed{vertex: c.v.ID, cause: fmt.Sprintf("%s: creating committer: %v", c.v.Name, err)})
		}
	case *commit:
		c.queue = append(c.queue, m)
		c.run(ctx)
	case *retry:
		c.waiting = false
		c.run(ctx)
	case *actor.Stopping:
		if c.ac != nil {
			_ = c.ac.Close()
		}
	}
}

func (c *Committer) run(ctx actor.Context) {
	for len(c.queue) > 0 && !c.waiting {
		m := c.queue[0]
		err := c.commit(m)
		if err == nil {
			c.queue = c.queue[1:]
			c.backoff = 0
			ctx.Send(ctx.Parent(), &committed{vertex: c.v.ID, checkpoint: m.checkpoint})
			continue
		}
		if p, ok := err.(interface{ Permanent() bool }); ok && p.Permanent() {
			c.queue = nil
			ctx.Send(ctx.Parent(), &commitFailed{vertex: c.v.ID, cause: fmt.Sprintf("%s: %v", c.v.Name, err)})
			return
		}
		if c.backoff == 0 {
			c.backoff = c.cfg.CommitBackoff
		} else {
			c.backoff = min(2*c.backoff, c.cfg.CommitBackoffMax)
		}
		c.log.Warn().Err(err).Str("sink", c.v.Name).Int64("checkpoint", m.checkpoint).Dur("retry_in", c.backoff).Msg("commit failed; retrying")
		c.waiting = true
		sys, self := c.sys, c.self
		time.AfterFunc(c.backoff, func() { sys.Root.Send(self, &retry{}) })
	}
}

func (c *Committer) commit(m *commit) error {
	cc := connectors.CommitContext{JobID: c.jobID, Pipeline: c.v.Pipeline.ID, Attempt: c.attempt, Term: c.term, CheckpointID: m.checkpoint, Final: m.final}
	infos := append([]*messages.PendingCommit(nil), m.infos...)
	sort.SliceStable(infos, func(a, b int) bool { return infos[a].Subtask < infos[b].Subtask })
	raw := make([][]byte, len(infos))
	for i, in := range infos {
		raw[i] = in.Info
	}
	var err error
	switch {
	case c.ac != nil:
		var combined []byte
		if combined, err = c.ac.Combine(raw); err == nil {
			err = c.ac.Commit(cc, [][]byte{combined})
		}
	case c.c != nil:
		if len(raw) > 0 {
			err = c.c.Commit(cc, raw)
		}
	default:
		if len(raw) > 0 {
			return permanent{fmt.Errorf("prepared commit infos but the sink has no committer")}
		}
	}
	if err != nil {
		return err
	}
	if c.restored {
		c.restored = false
		var sa connectors.StaleAborter
		if x, ok := c.ac.(connectors.StaleAborter); ok && c.ac != nil {
			sa = x
		} else if x, ok := c.c.(connectors.StaleAborter); ok && c.c != nil {
			sa = x
		}
		if sa != nil {
			if err := sa.AbortStale(cc); err != nil {
				c.restored = true
				return fmt.Errorf("aborting work of earlier attempts: %w", err)
			}
		}
	}
	return nil
}

type permanent struct{ error }

func (permanent) Permanent() bool { return true }
