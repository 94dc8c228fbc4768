package conformance

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// resolveTimeout bounds a factory's Resolve in the suite, as the master
// bounds it in a job.
const resolveTimeout = 30 * time.Second

// pluginConfig checks body as the options of a block named name, as a
// job file's would be.
func pluginConfig(kind, name string, opts []config.Option, body string) (*config.PluginConfig, error) {
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "conformance.conf"})
	if err != nil {
		return nil, fmt.Errorf("options body does not parse: %w", err)
	}
	cfg, _, err := config.Validate("conformance.conf", kind+" "+name, name, root.Pos, root, opts, config.CommonPluginOptions)
	return cfg, err
}

// NewSource makes f's source from body, as a job's planner does: the
// options checked, Resolve (when there is one) then Create.
func NewSource(f connectors.SourceFactory, body string, job connectors.JobContext) (connectors.Source, error) {
	cfg, err := pluginConfig("source", f.Name, f.Options, body)
	if err != nil {
		return nil, err
	}
	var resolved []byte
	if f.Resolve != nil {
		ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
		defer cancel()
		if resolved, err = guard(func() ([]byte, error) { return f.Resolve(ctx, cfg, job) }); err != nil {
			return nil, err
		}
	}
	return guard(func() (connectors.Source, error) { return f.Create(cfg, resolved, job) })
}

// NewSink makes f's sink for inputs from body, as NewSource.
func NewSink(f connectors.SinkFactory, body string, inputs []*row.Schema, job connectors.JobContext) (connectors.Sink, error) {
	cfg, err := pluginConfig("sink", f.Name, f.Options, body)
	if err != nil {
		return nil, err
	}
	var resolved []byte
	if f.Resolve != nil {
		ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
		defer cancel()
		if resolved, err = guard(func() ([]byte, error) { return f.Resolve(ctx, cfg, inputs, job) }); err != nil {
			return nil, err
		}
	}
	return guard(func() (connectors.Sink, error) { return f.Create(cfg, inputs, resolved, job) })
}

// guard turns a panic in connector code into an error, so that the suite
// reports it as a finding instead of dying.
func guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

func guardErr(f func() error) error {
	_, err := guard(func() (struct{}, error) { return struct{}{}, f() })
	return err
}

// enumCtx records what an enumerator tells its readers.
type enumCtx struct {
	parallelism int
	registered  map[int]bool
	assigned    map[int][]connectors.Split
	noMore      map[int]int
}

func newEnumCtx(p int) *enumCtx {
	return &enumCtx{parallelism: p, registered: map[int]bool{}, assigned: map[int][]connectors.Split{}, noMore: map[int]int{}}
}

func (c *enumCtx) Parallelism() int { return c.parallelism }
func (c *enumCtx) RegisteredReaders() []int {
	out := make([]int, 0, len(c.registered))
	for i := range c.registered {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}
func (c *enumCtx) SignalNoMoreSplits(subtask int) { c.noMore[subtask]++ }
func (c *enumCtx) AssignSplits(subtask int, splits ...connectors.Split) {
	c.assigned[subtask] = append(c.assigned[subtask], splits...)
}

// take is what was assigned to subtask since the last take.
func (c *enumCtx) take(subtask int) []connectors.Split {
	s := c.assigned[subtask]
	delete(c.assigned, subtask)
	return s
}

// readerCtx is a reader's view of the engine. Its split requests and
// source events wait in outbox, in the order sent, until the harness
// hands them to the enumerator (as the engine's messages travel).
type readerCtx struct {
	task    connectors.TaskInfo
	bounded connectors.Boundedness
	ended   int
	outbox  []readerMsg
}

// readerMsg is a split request (event nil) or a source event.
type readerMsg struct{ event []byte }

var _ connectors.SourceEventSender = (*readerCtx)(nil)

func (c *readerCtx) Task() connectors.TaskInfo           { return c.task }
func (c *readerCtx) Boundedness() connectors.Boundedness { return c.bounded }
func (c *readerCtx) SignalNoMoreElement()                { c.ended++ }

// SendSplitRequest queues a request; one already waiting last stands for
// both, as the enumerator would give the same answer.
func (c *readerCtx) SendSplitRequest() {
	if n := len(c.outbox); n > 0 && c.outbox[n-1].event == nil {
		return
	}
	c.outbox = append(c.outbox, readerMsg{})
}

func (c *readerCtx) SendSourceEvent(data []byte) {
	c.outbox = append(c.outbox, readerMsg{event: append([]byte{}, data...)})
}

// collector keeps what a reader emits.
type collector struct {
	size  int
	rows  [][]any
	kinds []row.Kind
	n     int // rows of the last Emit calls since reset
	bad   error
	want  []*row.Schema
}

func (c *collector) BatchSize() int { return c.size }

func (c *collector) Emit(b *row.Batch) {
	if b == nil {
		c.bad = fmt.Errorf("emitted a nil batch")
		return
	}
	if c.bad == nil && b.Schema != nil && len(c.want) > 0 {
		known := false
		for _, s := range c.want {
			known = known || s == b.Schema || s.TableID == b.Schema.TableID
		}
		if !known {
			c.bad = fmt.Errorf("emitted a batch of table %q, which is not one of the source's Tables()", b.Schema.TableID)
		}
	}
	for i := 0; i < b.Len(); i++ {
		c.rows = append(c.rows, b.Row(i))
		c.kinds = append(c.kinds, b.Kind(i))
	}
	c.n += b.Len()
}
