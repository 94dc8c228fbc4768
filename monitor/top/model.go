package top

import (
	"sort"
	"sync"
	"time"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

// Forget is how long a job stays on screen after its last snapshot when
// it has ended, or when its snapshots stopped (its JobMaster is gone).
const Forget = 30 * time.Second

// Model is the latest snapshot of every job heard of. Safe for concurrent
// use: Update runs on the NATS subscription's goroutine.
type Model struct {
	mu   sync.Mutex // protects jobs
	jobs map[string]entry
}

type entry struct {
	m  *messages.JobMetrics
	at time.Time
}

// Update keeps m as its job's latest snapshot, received at at.
func (md *Model) Update(m *messages.JobMetrics, at time.Time) {
	md.mu.Lock()
	defer md.mu.Unlock()
	if md.jobs == nil {
		md.jobs = map[string]entry{}
	}
	if old, ok := md.jobs[m.JobId]; ok && old.m.UnixMs > m.UnixMs {
		return // an older snapshot overtaken by a newer one
	}
	md.jobs[m.JobId] = entry{m, at}
}

// Jobs are the snapshots to show at now, newest job first (by id, which
// grows with time), without jobs that ended or went silent more than
// Forget ago.
func (md *Model) Jobs(now time.Time) []*messages.JobMetrics {
	md.mu.Lock()
	defer md.mu.Unlock()
	var out []*messages.JobMetrics
	for id, e := range md.jobs {
		if now.Sub(e.at) > Forget {
			delete(md.jobs, id)
			continue
		}
		out = append(out, e.m)
	}
	sort.Slice(out, func(i, j int) bool {
		ei, ej := state.JobEnded(out[i].State), state.JobEnded(out[j].State)
		if ei != ej {
			return !ei // running jobs first
		}
		if len(out[i].JobId) != len(out[j].JobId) {
			return len(out[i].JobId) > len(out[j].JobId)
		}
		return out[i].JobId > out[j].JobId
	})
	return out
}
