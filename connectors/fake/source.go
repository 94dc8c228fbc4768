package fake

import (
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	connectors.RegisterSource(Factory)
}

// Factory makes FakeSource sources.
var Factory = connectors.SourceFactory{
	Name:     "FakeSource",
	Options:  options,
	Delivery: connectors.Replayable,
	Create:   create,
}

func create(cfg *config.PluginConfig, _ []byte, job connectors.JobContext) (connectors.Source, error) {
	tables, err := parseTables(cfg)
	if err != nil {
		return nil, err
	}
	s := &source{tables: tables, bounded: connectors.Bounded}
	if job.Mode == connectors.Streaming {
		s.bounded = connectors.Unbounded
	}
	return s, nil
}

// source is a configured FakeSource: one or more tables.
type source struct {
	tables  []*tableConfig
	bounded connectors.Boundedness
}

var _ connectors.Source = (*source)(nil)

func (s *source) Tables() []*row.Schema {
	out := make([]*row.Schema, len(s.tables))
	for i, t := range s.tables {
		out[i] = t.schema
	}
	return out
}

// Boundedness is Bounded in a BATCH job and Unbounded in a STREAMING one,
// as SeaTunnel's FakeSource: a streaming reader emits its rows and then
// stays idle until the job is cancelled.
func (s *source) Boundedness() connectors.Boundedness { return s.bounded }

func (s *source) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	return newEnumerator(ctx, s.tables, state)
}

func (s *source) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return newReader(ctx, s.tables), nil
}
