package jdbc

// Temporary: the factories on today's connector API, until the resolve
// API lands (then factory.go replaces this file).

import (
	"context"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	connectors.RegisterSource(connectors.SourceFactory{Name: "Jdbc", Options: sourceOptions,
		Create: func(cfg *config.PluginConfig, job connectors.JobContext) (connectors.Source, error) {
			r, err := resolveSource(context.Background(), cfg)
			if err != nil {
				return nil, err
			}
			b, err := r.encode()
			if err != nil {
				return nil, err
			}
			r, err = decodeSourceResolved(b)
			if err != nil {
				return nil, err
			}
			return &oldSource{&source{r: r}}, nil
		}})
	connectors.RegisterSink(connectors.SinkFactory{Name: "Jdbc", Options: sinkOptions,
		Create: func(cfg *config.PluginConfig, inputs []*row.Schema, job connectors.JobContext) (connectors.Sink, error) {
			r, err := resolveSink(context.Background(), cfg, inputs)
			if err != nil {
				return nil, err
			}
			b, err := r.encode()
			if err != nil {
				return nil, err
			}
			r, err = decodeSinkResolved(b, inputs)
			if err != nil {
				return nil, err
			}
			return &oldSink{&sink{r: r}}, nil
		}})
}

type oldSource struct{ *source }

func (s *oldSource) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	e, err := newEnumerator(ctx, s.r, state)
	return oldEnum{e}, err
}
func (s *oldSource) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return oldReader{newReader(ctx, s.r)}, nil
}

type oldEnum struct{ *enumerator }

func (e oldEnum) Open() error { return e.enumerator.Open(context.Background()) }

type oldReader struct{ *reader }

func (r oldReader) Open() error { return r.reader.Open(context.Background()) }

type oldSink struct{ *sink }

func (s *oldSink) CreateWriter(task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	return newWriter(context.Background(), s.r, task)
}
func (s *oldSink) CreateCommitter() (connectors.Committer, error) {
	return oldCommitter{&committer{r: s.r}}, nil
}
func (s *oldSink) HandleSaveMode() error { return s.sink.HandleSaveMode(context.Background()) }

type oldCommitter struct{ *committer }

func (c oldCommitter) Commit(cc connectors.CommitContext, infos [][]byte) error {
	return c.committer.Commit(context.Background(), cc, infos)
}
func (c oldCommitter) Abort(cc connectors.CommitContext, infos [][]byte) error {
	return c.committer.Abort(context.Background(), cc, infos)
}
func (c oldCommitter) AbortStale(cc connectors.CommitContext) error {
	return c.committer.AbortStale(context.Background(), cc)
}
