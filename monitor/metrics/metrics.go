package metrics

import (
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/stactor/stactor/messages"
)

// Subject is the metrics subject of a job.
func Subject(prefix, job string) string { return prefix + ".metrics." + job }

// AllSubjects matches the metrics subjects of every job.
func AllSubjects(prefix string) string { return prefix + ".metrics.*" }

var marshal = protojson.MarshalOptions{EmitUnpopulated: true}

// Encode is a snapshot as it travels.
func Encode(m *messages.JobMetrics) ([]byte, error) { return marshal.Marshal(m) }

// Decode reads a snapshot.
func Decode(data []byte) (*messages.JobMetrics, error) {
	m := &messages.JobMetrics{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("metrics snapshot: %w", err)
	}
	return m, nil
}

// Publisher publishes snapshots on a NATS connection
// (jobmaster.MetricsPublisher). Safe for concurrent use.
type Publisher struct {
	nc     *nats.Conn
	prefix string
	log    zerolog.Logger
}

// NewPublisher publishes under prefix (stactor.<cluster>).
func NewPublisher(nc *nats.Conn, prefix string, log zerolog.Logger) *Publisher {
	return &Publisher{nc: nc, prefix: prefix, log: log}
}

// Publish sends m without waiting for anyone; a snapshot NATS cannot take
// (disconnected past its reconnect buffer) is dropped: the next follows.
func (p *Publisher) Publish(m *messages.JobMetrics) {
	data, err := Encode(m)
	if err != nil {
		p.log.Debug().Err(err).Msg("metrics: cannot encode a snapshot")
		return
	}
	if err := p.nc.Publish(Subject(p.prefix, m.JobId), data); err != nil {
		p.log.Debug().Err(err).Str("job", m.JobId).Msg("metrics: publish failed")
	}
}

// Subscribe calls fn with every snapshot published under prefix, of job
// (or of every job for ""), on the subscription's goroutine, until the
// subscription is closed. Malformed messages are skipped.
func Subscribe(nc *nats.Conn, prefix, job string, fn func(*messages.JobMetrics)) (*nats.Subscription, error) {
	subj := AllSubjects(prefix)
	if job != "" {
		subj = Subject(prefix, job)
	}
	sub, err := nc.Subscribe(subj, func(msg *nats.Msg) {
		if m, err := Decode(msg.Data); err == nil {
			fn(m)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("subscribing to %s: %w", subj, err)
	}
	return sub, nil
}
