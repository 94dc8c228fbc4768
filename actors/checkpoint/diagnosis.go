package checkpoint

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
)

// committing is a completed checkpoint whose commits are under way: when
// they began (the checkpoint's completion) and how long each sink's took.
type committing struct {
	cp      *messages.CompletedCheckpoint
	began   time.Time
	commits []*messages.CommitTiming
}

// committedBy records that vertex's commit of checkpoint id is in.
func (c *Coordinator) committedBy(id int64, vertex int) {
	if w := c.committing[id]; w != nil {
		w.commits = append(w.commits, &messages.CommitTiming{Vertex: int32(vertex), CommitUs: time.Since(w.began).Microseconds()})
	}
}

// storeCommitTimes stores checkpoint id again, now with its commit times,
// so that `stactor checkpoints --detail` and the REST API can tell a
// checkpoint whose output became visible late because a sink committed
// slowly (DESIGN §9). The metadata is otherwise the same (a copy: the
// JobMaster holds the one sent with Completed), and Complete replaces it
// atomically. A failure loses only the commit times.
// A checkpoint without commit infos is not stored again.
func (c *Coordinator) storeCommitTimes(id int64) {
	w := c.committing[id]
	delete(c.committing, id)
	// A checkpoint that carried no commit info made every sink commit
	// nothing: its commit times say nothing, and rewriting it would cost
	// a metadata write and sync per checkpoint (benchmarks/RESULTS.md,
	// workload 3).
	if w == nil || len(w.commits) == 0 || len(w.cp.Pending) == 0 || c.stopping {
		return
	}
	cp := proto.Clone(w.cp).(*messages.CompletedCheckpoint)
	cp.Commits, cp.CommittedUnixMs = w.commits, time.Now().UnixMilli()
	// Off the actor, after the calls queued before (storeio.go), so it
	// never delays a checkpoint's own store calls but those behind it.
	store, log := c.store, c.log
	c.io.call(c.callDeadline(), func(ctx context.Context) any {
		if err := store.Complete(ctx, cp); err != nil {
			log.Debug().Err(err).Int64("checkpoint", id).Msg("storing the commit times")
		}
		return nil
	})
}
