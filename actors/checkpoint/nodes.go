package checkpoint

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
)

// Committing on the writer's node (DESIGN §8). Each info names the node
// that wrote it and that node's TaskExecutionService as it was; the node
// is looked up again by id (Job.Workers) because a node that restarted
// keeps its id but not its address; the recorded pid is the fallback only
// when the workers cannot be listed. A node the workers do not list is not
// asked at its recorded address: it failed its health check or died, and
// a request to a dead address waits out protoactor's connect retries (5 ×
// 2 s) before it fails, which held a worker's SIGKILL up for 10 s
// (benchmarks/RESULTS.md). Its part fails at once (errWriterAbsent) and is
// retried every writerAbsentRetry at most, until the node is listed again
// (a restarted node, at its new address) or NodeGoneAfter passes. A node
// missing from the ResourceManager's workers for NodeGoneAfter has left the
// cluster: its part is committed here rather than waited for, with
// CommitContext.WriterGone set — right on a shared filesystem; without one
// its staged files are gone with it, the commit fails permanently and the
// job fails with an error naming the missing file, instead of hanging.
// Infos written on this actor system's node are committed here; every
// other node gets a CommitOnNode with its infos and the job's spec, all
// nodes at once, and the checkpoint is committed when every node replied
// success. A node that failed or did not answer in time fails the attempt,
// which is retried with backoff; the nodes that succeeded are not asked
// again for that checkpoint.
//
// On restore, after the restored checkpoint's infos are committed, stale
// prepared work of earlier attempts is aborted (AbortStale) on this node,
// on every worker the cluster has now and on every node the infos name.
// A writer may have staged on any worker that ran a subtask of an earlier
// attempt, and no record says which ones did (and the new attempt's
// workers are not chosen yet), so every live worker is asked; a worker
// that is down now cannot be reached, and what it staged stays until a
// later restore reaches it — harmless, as staged work that no completed
// checkpoint carries is never committed.

// nodePart is the infos of one checkpoint that one node wrote.
type nodePart struct {
	key   string     // the node's id, or for infos without one their recorded worker's address
	node  string     // the node's id ("" unknown: infos of an older version)
	to    *actor.PID // its TaskExecutionService; nil: this node
	infos []*messages.PendingCommit
	// newest is the checkpoint of the info whose recorded worker is in to
	// when the node was not found by id.
	newest int64
	gone   bool // the node left the cluster; its part is committed here
	absent bool // not listed, not gone yet: not asked unless here (errWriterAbsent)
}

// errWriterAbsent is a part's error while its node is missing from the
// cluster's workers and not yet gone for NodeGoneAfter: the commit is
// retried, every writerAbsentRetry at most (no request is sent, so a
// retry is cheap, and the node is committed on soon after it is back).
var errWriterAbsent = errors.New("the node is not among the cluster's workers")

// writerAbsentRetry bounds the commit backoff while a writer is absent.
const writerAbsentRetry = 250 * time.Millisecond

// commitOnNodes commits m's infos on the nodes that wrote them, then, on
// restore, aborts stale work on every node.
func (c *Committer) commitOnNodes(m *commit, infos []*messages.PendingCommit) error {
	workers := c.workers()
	parts := partsByNode(infos, workers, c.goneNode(workers))
	for _, p := range parts {
		if p.gone && !m.done[p.key] {
			c.log.Warn().Str("sink", c.v.Name).Str("node", p.node).Int64("checkpoint", m.checkpoint).
				Msg("the node that wrote has left the cluster; committing its files here (they must be on a shared filesystem)")
		}
	}
	if m.done == nil {
		m.done = map[string]bool{}
	}
	cc := c.commitContext(m)
	err := c.eachNode(parts, m.done,
		func(p *nodePart) error {
			pc := cc
			pc.WriterGone, pc.Node = p.gone, p.node
			return c.c.Commit(c.io, pc, rawInfos(p.infos))
		},
		func(p *nodePart) *messages.CommitOnNode {
			r := c.request(m)
			r.Infos, r.Node = p.infos, p.node
			return r
		})
	if err != nil || !c.restored {
		return err
	}
	if sa, ok := c.c.(connectors.StaleAborter); ok {
		err = c.eachNode(c.staleTargets(parts, workers), c.staleDone,
			func(p *nodePart) error { pc := cc; pc.Node = p.node; return sa.AbortStale(c.io, pc) },
			func(p *nodePart) *messages.CommitOnNode {
				r := c.request(m)
				r.AbortStale, r.Node = true, p.node
				return r
			})
		if err != nil {
			return fmt.Errorf("aborting work of earlier attempts: %w", err)
		}
	}
	c.restored = false
	clear(c.staleDone)
	return nil
}

// workers asks where the cluster's workers are now; without an answer the
// recorded workers are used.
func (c *Committer) workers() map[string]*actor.PID {
	if c.job.Workers == nil {
		return nil
	}
	ws, err := c.job.Workers()
	if err != nil {
		c.log.Warn().Err(err).Str("sink", c.v.Name).Msg("finding the workers; committing at the recorded addresses")
		return nil
	}
	return ws
}

// goneNode tells, for the workers just listed, whether a writer node that
// is not among them has been missing for NodeGoneAfter; it notes when each
// was first missed and forgets nodes that are back.
func (c *Committer) goneNode(workers map[string]*actor.PID) func(node string) bool {
	for node := range c.missingSince {
		if workers[node] != nil {
			delete(c.missingSince, node)
		}
	}
	now := time.Now()
	return func(node string) bool {
		since, ok := c.missingSince[node]
		if !ok {
			c.missingSince[node], since = now, now
		}
		return now.Sub(since) >= c.cfg.NodeGoneAfter
	}
}

// partsByNode groups infos by the node that wrote them, in the order of
// their first info. A node the workers do not list is asked at its
// recorded address until gone says it left for good.
func partsByNode(infos []*messages.PendingCommit, workers map[string]*actor.PID, gone func(node string) bool) []*nodePart {
	var parts []*nodePart
	byKey := map[string]*nodePart{}
	for _, in := range infos {
		key := in.Node
		if key == "" && in.Worker != nil {
			key = in.Worker.Address
		}
		p := byKey[key]
		if p == nil {
			p = &nodePart{key: key, node: in.Node, to: messages.ToPID(in.Worker), newest: in.CheckpointId}
			byKey[key] = p
			parts = append(parts, p)
		} else if in.Worker != nil && in.CheckpointId > p.newest {
			p.to, p.newest = messages.ToPID(in.Worker), in.CheckpointId
		}
		p.infos = append(p.infos, in)
	}
	for _, p := range parts {
		if p.node == "" || workers == nil {
			continue
		}
		if w := workers[p.node]; w != nil {
			p.to = w
		} else if !gone(p.node) {
			p.absent = true
		} else {
			// The node that wrote is gone (the ResourceManager no longer
			// lists it): waiting for it could wait forever, so its part is
			// committed here, which is right on a shared filesystem. Files
			// that are not here fail the commit permanently (LocalFile:
			// "neither the staged file ... exists"), so the job fails with
			// that error instead of hanging.
			p.to, p.gone = nil, true
		}
	}
	return parts
}

// staleTargets are the nodes a restore aborts stale work on: this one,
// every worker, every node that wrote; once per address.
func (c *Committer) staleTargets(parts []*nodePart, workers map[string]*actor.PID) []*nodePart {
	// Each target names its node (CommitContext.Node) where it is known.
	nodeAt := map[string]string{}
	for id, pid := range workers {
		nodeAt[pid.Address] = id
	}
	for _, p := range parts {
		if p.to != nil && p.node != "" {
			nodeAt[p.to.Address] = p.node
		}
	}
	here := c.sys.Address()
	out := []*nodePart{{key: here, node: nodeAt[here]}}
	seen := map[string]bool{here: true}
	add := func(pid *actor.PID) {
		if pid != nil && !seen[pid.Address] {
			seen[pid.Address] = true
			out = append(out, &nodePart{key: pid.Address, node: nodeAt[pid.Address], to: pid})
		}
	}
	ids := make([]string, 0, len(workers))
	for id := range workers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		add(workers[id])
	}
	for _, p := range parts {
		if !p.absent {
			add(p.to)
		}
	}
	return out
}

// request is a CommitOnNode for checkpoint m of this committer's sink.
func (c *Committer) request(m *commit) *messages.CommitOnNode {
	return &messages.CommitOnNode{Job: c.job.Spec, Pipeline: int32(c.v.Pipeline.ID), Attempt: int32(c.attempt), Term: c.job.Term,
		Vertex: int32(c.v.ID), CheckpointId: m.checkpoint, Final: m.final}
}

// eachNode runs every part not yet done: those of other nodes by
// CommitOnNode, all sent before this node's part runs here (local), then
// awaited. Parts that succeed are marked done.
func (c *Committer) eachNode(parts []*nodePart, done map[string]bool, local func(*nodePart) error, request func(*nodePart) *messages.CommitOnNode) error {
	timeout := c.cfg.CommitTimeout
	if timeout <= 0 {
		timeout = DefaultConfig().CommitTimeout
	}
	here := c.sys.Address()
	isHere := func(p *nodePart) bool { return p.to == nil || p.to.Address == here }
	type sent struct {
		p *nodePart
		f *actor.Future
	}
	var futures []sent
	// A node not listed is not asked (errWriterAbsent), unless it is
	// this one, alive by definition (a leader without the worker role).
	absent := func(p *nodePart) bool { return p.absent && !isHere(p) }
	var errs []error
	for _, p := range parts {
		if absent(p) && !done[p.key] {
			errs = append(errs, fmt.Errorf("on node %s: %w; its part is committed there once it is back, or here once it has been missing for %s", p.node, errWriterAbsent, c.cfg.NodeGoneAfter))
		}
	}
	for _, p := range parts {
		if !done[p.key] && !absent(p) && !isHere(p) {
			futures = append(futures, sent{p, c.sys.Root.RequestFuture(p.to, request(p), timeout)})
		}
	}
	for _, p := range parts {
		if done[p.key] || !isHere(p) {
			continue
		}
		if err := local(p); err != nil {
			errs = append(errs, err)
			continue
		}
		done[p.key] = true
	}
	for _, s := range futures {
		if err := replyError(s.f.Result()); err != nil {
			errs = append(errs, fmt.Errorf("on node %s (%s): %w", s.p.key, s.p.to.Address, err))
			continue
		}
		done[s.p.key] = true
	}
	return errors.Join(errs...)
}

// replyError is the error a node's CommitOnNodeReply (or its absence)
// stands for.
func replyError(res any, err error) error {
	if err != nil {
		return err
	}
	r, ok := res.(*messages.CommitOnNodeReply)
	if !ok {
		return fmt.Errorf("unexpected reply %T", res)
	}
	switch {
	case r.Error == "":
		return nil
	case r.Permanent:
		return connectors.Permanent(errors.New(r.Error))
	default:
		return errors.New(r.Error)
	}
}
