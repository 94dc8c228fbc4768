package jobmaster

import (
	"time"

	"github.com/stactor/stactor/messages"
)

// MetricsPublisher carries a job's metrics snapshots to the metrics
// subject (monitor/metrics.Publisher, DESIGN §9). Publish is called from
// the JobMaster's goroutine and must not block for long; a snapshot it
// cannot deliver is lost, the next one follows.
type MetricsPublisher interface {
	Publish(m *messages.JobMetrics)
}

// DefaultMetricsInterval is how often a JobMaster publishes its job's
// metrics when Options.MetricsInterval is 0.
const DefaultMetricsInterval = 2 * time.Second

type publishTick struct{}

// startPublishing publishes a snapshot now and every metrics interval
// while the JobMaster lives.
func (j *JobMaster) startPublishing() {
	if j.opts.Metrics == nil {
		return
	}
	d := j.opts.MetricsInterval
	if d <= 0 {
		d = DefaultMetricsInterval
	}
	j.timers.Every(d, &publishTick{})
}

func (j *JobMaster) publish(m *messages.JobMetrics) {
	if j.opts.Metrics != nil {
		j.opts.Metrics.Publish(m)
	}
}
