package jdbc

import (
	"context"
	"fmt"

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
	Name:     "Jdbc",
	Options:  sourceOptions,
	Delivery: connectors.Delivery{Summary: "exactly-once: replayable, the position inside each split is in the checkpoints", Best: connectors.ExactlyOnce},
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
	Name:     "Jdbc",
	Options:  sinkOptions,
	Delivery: sinkDelivery,
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
	if s.r.Replicas <= 1 {
		return newWriter(ctx, s.r, task)
	}
	ws := make([]*writer, s.r.Replicas)
	for k := range ws {
		w, err := newWriter(ctx, s.r, task)
		if err != nil {
			return nil, err
		}
		ws[k] = w
	}
	return newReplicaWriter(ws), nil
}

func (s *sink) CreateCommitter() (connectors.Committer, error) {
	return &committer{r: s.r}, nil
}

// sinkDelivery: is_exactly_once writes each checkpoint in one prepared
// transaction; without it, upserts by a key (generated statements with
// enable_upsert, and primary_keys or the input's primary key) make writes
// repeated by a restore overwrite themselves; anything else may repeat.
var sinkDelivery = connectors.Delivery{
	Summary: "exactly-once with is_exactly_once (XA / PREPARE TRANSACTION); idempotent with enable_upsert and keys; else at-least-once",
	Best:    connectors.ExactlyOnce,
	Of: func(cfg *config.PluginConfig, inputs []*row.Schema) (connectors.Guarantee, string) {
		if cfg.Bool("is_exactly_once") {
			return connectors.ExactlyOnce, ""
		}
		generate := cfg.Bool("generate_sink_sql") || cfg.Has("table")
		switch {
		case !generate:
			return connectors.AtLeastOnce, "is_exactly_once is off and the statement is the user's query: a restore runs it again for some rows"
		case !cfg.Bool("enable_upsert"):
			return connectors.AtLeastOnce, "is_exactly_once and enable_upsert are off: a restore inserts some rows again"
		}
		if len(cfg.Strings("primary_keys")) == 0 {
			for _, in := range inputs {
				if len(in.PrimaryKey) == 0 {
					return connectors.AtLeastOnce, fmt.Sprintf("is_exactly_once is off and table %s has no key to upsert by (primary_keys)", in.TableID)
				}
			}
		}
		return connectors.Idempotent, "is_exactly_once is off: rows a restore writes again are upserts by key"
	},
}
