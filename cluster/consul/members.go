package consul

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/hashicorp/consul/api"
)

// watchWait is how long one blocking query may wait on the server.
const watchWait = 5 * time.Minute

// Members returns the cluster's registered nodes, healthy and failing,
// sorted by ID. It reads from the agent's servers through the health
// endpoint; an error means Consul could not be asked.
func Members(ctx context.Context, client *api.Client, cluster string) ([]Member, error) {
	ms, _, err := members(ctx, client, cluster, 0)
	return ms, err
}

// members runs one (blocking, when index > 0) health query.
func members(ctx context.Context, client *api.Client, cluster string, index uint64) ([]Member, uint64, error) {
	q := (&api.QueryOptions{WaitIndex: index, WaitTime: watchWait}).WithContext(ctx)
	entries, meta, err := client.Health().Service(ServiceName(cluster), "", false, q)
	if err != nil {
		return nil, 0, fmt.Errorf("consul: members of %s: %w", cluster, err)
	}
	ms := make([]Member, 0, len(entries))
	for _, e := range entries {
		ms = append(ms, member(cluster, e))
	}
	sortMembers(ms)
	return ms, meta.LastIndex, nil
}

// Watch emits the cluster's members (as Members returns them) now and again
// on every change: a node joins, fails, recovers, leaves or changes its
// metadata. It follows the health endpoint with blocking queries, so a
// change is seen as soon as the servers know it. Errors are retried with a
// backoff of up to 5s, the last list staying valid meanwhile.
//
// One goroutine sends on the returned, unbuffered channel and closes it when
// ctx ends; the caller reads until it is closed. A slow reader only delays
// the next query: it always gets the current list, never a backlog.
func Watch(ctx context.Context, client *api.Client, cluster string) <-chan []Member {
	out := make(chan []Member)
	go func() {
		defer close(out)
		var (
			index uint64
			last  []Member
			sent  bool
			b     backoff
		)
		for ctx.Err() == nil {
			ms, got, err := members(ctx, client, cluster, index)
			if err != nil {
				if !sleep(ctx, b.next()) {
					return
				}
				continue
			}
			b.reset()
			index = nextIndex(index, got)
			if sent && reflect.DeepEqual(ms, last) {
				continue
			}
			select {
			case out <- ms:
				last, sent = ms, true
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
