package jdbc

import (
	"context"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	connectors.RegisterSource(SourceFactory)
	connectors.RegisterSink(SinkFactory)
}

// SourceFactory makes Jdbc sources. Resolve connects and reads the
// catalog tables; Create only decodes what Resolve found.
var SourceFactory = connectors.SourceFactory{
	Name:    "Jdbc",
	Options: sourceOptions,
	Resolve: func(ctx context.Context, cfg *config.PluginConfig, job connectors.JobContext) ([]byte, error) {
		r, err := resolveSource(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return r.encode()
	},
	Create: func(cfg *config.PluginConfig, resolved []byte, job connectors.JobContext) (connectors.Source, error) {
		r, err := decodeSourceResolved(cfg, resolved)
		if err != nil {
			return nil, err
		}
		return &source{r: r}, nil
	},
}

// SinkFactory makes Jdbc sinks. Resolve checks the server (and that it
// keeps prepared transactions, for exactly-once); Create decodes.
var SinkFactory = connectors.SinkFactory{
	Name:    "Jdbc",
	Options: sinkOptions,
	Resolve: func(ctx context.Context, cfg *config.PluginConfig, inputs []*row.Schema, job connectors.JobContext) ([]byte, error) {
		r, err := resolveSink(ctx, cfg, inputs)
		if err != nil {
			return nil, err
		}
		return r.encode()
	},
	Create: func(cfg *config.PluginConfig, inputs []*row.Schema, resolved []byte, job connectors.JobContext) (connectors.Sink, error) {
		r, err := decodeSinkResolved(cfg, resolved, inputs)
		if err != nil {
			return nil, err
		}
		return &sink{r: r}, nil
	},
}

var (
	_ connectors.Source            = (*source)(nil)
	_ connectors.SplitEnumerator   = (*enumerator)(nil)
	_ connectors.Reader            = (*reader)(nil)
	_ connectors.SinkWithCommitter = (*sink)(nil)
	_ connectors.SaveModeHandler   = (*sink)(nil)
	_ connectors.Writer            = (*writer)(nil)
	_ connectors.Committer         = (*committer)(nil)
	_ connectors.StaleAborter      = (*committer)(nil)
)

func (s *source) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	return newEnumerator(ctx, s.r, state)
}

func (s *source) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return newReader(ctx, s.r), nil
}

func (s *sink) CreateWriter(ctx context.Context, task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	return newWriter(ctx, s.r, task)
}

func (s *sink) CreateCommitter() (connectors.Committer, error) {
	return &committer{r: s.r}, nil
}
