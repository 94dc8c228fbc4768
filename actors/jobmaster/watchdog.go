package jobmaster

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/state"
)

// The no-progress watchdog (DESIGN §3).

type watchdogTick struct{}

// watchdog fails over a RUNNING pipeline in which neither rows nor
// checkpoints have moved for NoProgressTimeout.
func (j *JobMaster) watchdog(ctx actor.Context) {
	if state.JobEnded(j.state) {
		return
	}
	now := time.Now()
	for _, p := range j.pipelines {
		if p.state != state.PipelineRunning {
			continue
		}
		var rows int64
		for _, t := range p.tasks {
			if t.metrics != nil {
				rows += t.metrics.ReadRows + t.metrics.WriteRows
			}
		}
		if rows != p.lastRows || p.lastProgress.IsZero() {
			p.lastRows, p.lastProgress = rows, now
			continue
		}
		if idle := now.Sub(p.lastProgress); idle > j.opts.NoProgressTimeout {
			j.failPipeline(ctx, p, fmt.Sprintf("no progress for %s: no row moved and no checkpoint completed", idle.Truncate(time.Second)))
		}
	}
	j.scheduleWatchdog()
}

func (j *JobMaster) scheduleWatchdog() {
	if j.opts.NoProgressTimeout <= 0 {
		return
	}
	j.timers.After(min(j.opts.NoProgressTimeout/4, time.Second), &watchdogTick{})
}
