package localfile

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// multiSource is a LocalFile source with tables_configs: each entry is a
// whole source of its own (path, format, schema...), and this source
// reads them all, as SeaTunnel's MultipleTableFileSource. The tables'
// enumerators and readers are the single-table ones; a split carries the
// index of its table in front of the table's own split.
type multiSource struct {
	srcs []*source
}

var _ connectors.Source = (*multiSource)(nil)

// tableEntryOptions are the options of one tables_configs entry: the
// source's, with path and file_format_type required.
func tableEntryOptions() []config.Option {
	var out []config.Option
	for _, o := range sourceOptions {
		switch o.Key {
		case "tables_configs":
			continue
		case "path", "file_format_type":
			o.Required = true
		}
		out = append(out, o)
	}
	return out
}

// tableConfigs validates the tables of a plugin block: the block itself
// (path and file_format_type required at the top), or each entry of
// tables_configs with its own position and Where.
func tableConfigs(cfg *config.PluginConfig) ([]*config.PluginConfig, error) {
	tc := cfg.Raw("tables_configs")
	if tc == nil {
		top, _, err := config.Validate(cfg.File, cfg.Where, cfg.Name, cfg.Pos, cfg.Body, tableEntryOptions(), config.CommonPluginOptions)
		if err != nil {
			return nil, err
		}
		return []*config.PluginConfig{top}, nil
	}
	var out []*config.PluginConfig
	for i, entry := range tc.Items {
		where := fmt.Sprintf("%s tables_configs[%d]", cfg.Where, i)
		ecfg, _, err := config.Validate(cfg.File, where, cfg.Name, entry.Pos, entry, tableEntryOptions(), config.CommonPluginOptions)
		if err != nil {
			return nil, err
		}
		out = append(out, ecfg)
	}
	if len(out) == 0 {
		return nil, cfg.Errorf("tables_configs", "must list at least one table")
	}
	return out, nil
}

// createSources makes the source of a plugin block from the files Resolve
// listed for each of its tables: one table, or several with
// tables_configs.
func createSources(cfg *config.PluginConfig, listed []resolvedTable) (connectors.Source, error) {
	tables, err := tableConfigs(cfg)
	if err != nil {
		return nil, err
	}
	if len(listed) != len(tables) {
		return nil, cfg.Errorf("tables_configs", "the resolved plan lists the files of %d tables, the block has %d: resolve the job again", len(listed), len(tables))
	}
	if cfg.Raw("tables_configs") == nil {
		sc, err := newSourceConfig(tables[0], listed[0])
		if err != nil {
			return nil, err
		}
		return &source{cfg: sc}, nil
	}
	m := &multiSource{}
	seen := map[string]bool{}
	for i, ecfg := range tables {
		sc, err := newSourceConfig(ecfg, listed[i])
		if err != nil {
			return nil, err
		}
		if seen[sc.schema.TableID] {
			return nil, ecfg.Errorf("schema", "table %s is read by two entries of tables_configs: give each its own schema.table", sc.schema.TableID)
		}
		seen[sc.schema.TableID] = true
		m.srcs = append(m.srcs, &source{cfg: sc})
	}
	return m, nil
}

func (m *multiSource) Tables() []*row.Schema {
	var out []*row.Schema
	for _, s := range m.srcs {
		out = append(out, s.cfg.schema)
	}
	return out
}

func (m *multiSource) Boundedness() connectors.Boundedness { return connectors.Bounded }

// wrapSplit puts table index t in front of a table's split.
func wrapSplit(t int, s connectors.Split) connectors.Split {
	b := binary.AppendUvarint(make([]byte, 0, len(s.Data)+2), uint64(t))
	return connectors.Split{ID: fmt.Sprintf("%d/%s", t, s.ID), Data: append(b, s.Data...)}
}

func (m *multiSource) unwrapSplit(s connectors.Split) (int, connectors.Split, error) {
	t, k := binary.Uvarint(s.Data)
	if k <= 0 || t >= uint64(len(m.srcs)) {
		return 0, s, fmt.Errorf("split %q: %w (no table of this source)", s.ID, errBadSplit)
	}
	_, id, _ := strings.Cut(s.ID, "/")
	return int(t), connectors.Split{ID: id, Data: s.Data[k:]}, nil
}

func (m *multiSource) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	var states [][]byte
	if state != nil {
		if err := json.Unmarshal(state, &states); err != nil || len(states) != len(m.srcs) {
			return nil, fmt.Errorf("LocalFile multi-table enumerator state: %d tables now, state %q", len(m.srcs), state)
		}
	}
	e := &multiEnumerator{src: m, parent: ctx, signaled: map[int]map[int]bool{}, pending: map[int]bool{}}
	for i, s := range m.srcs {
		var st []byte
		if states != nil {
			st = states[i]
		}
		inner, err := newEnumerator(&tableEnumCtx{e: e, table: i}, s.cfg, st)
		if err != nil {
			return nil, err
		}
		e.inner = append(e.inner, inner)
	}
	return e, nil
}

// multiEnumerator runs the tables' enumerators side by side. A reader is
// told there are no more splits only once every table's enumerator has
// said so for it, within the same call, so it never ends between two
// tables' assignments.
type multiEnumerator struct {
	src    *multiSource
	parent connectors.EnumeratorContext
	inner  []connectors.SplitEnumerator
	// signaled[subtask] are the tables whose enumerator said "no more"
	// for that reader; pending the readers told so during this call.
	signaled map[int]map[int]bool
	pending  map[int]bool
}

var _ connectors.SplitEnumerator = (*multiEnumerator)(nil)

type tableEnumCtx struct {
	e     *multiEnumerator
	table int
}

func (c *tableEnumCtx) Parallelism() int           { return c.e.parent.Parallelism() }
func (c *tableEnumCtx) RegisteredReaders() []int   { return c.e.parent.RegisteredReaders() }
func (c *tableEnumCtx) SignalNoMoreSplits(sub int) { c.e.noMore(sub, c.table) }
func (c *tableEnumCtx) AssignSplits(sub int, splits ...connectors.Split) {
	out := make([]connectors.Split, len(splits))
	for i, s := range splits {
		out[i] = wrapSplit(c.table, s)
	}
	c.e.parent.AssignSplits(sub, out...)
}

func (e *multiEnumerator) noMore(sub, table int) {
	if e.signaled[sub] == nil {
		e.signaled[sub] = map[int]bool{}
	}
	e.signaled[sub][table] = true
	e.pending[sub] = true
}

// each calls f on every table's enumerator, then passes on the "no more
// splits" of the readers every table has finished.
func (e *multiEnumerator) each(f func(i int, inner connectors.SplitEnumerator) error) error {
	for i, inner := range e.inner {
		if err := f(i, inner); err != nil {
			return err
		}
	}
	for sub := range e.pending {
		if len(e.signaled[sub]) == len(e.inner) {
			e.parent.SignalNoMoreSplits(sub)
		}
	}
	clear(e.pending)
	return nil
}

func (e *multiEnumerator) Open(ctx context.Context) error {
	return e.each(func(_ int, in connectors.SplitEnumerator) error { return in.Open(ctx) })
}

func (e *multiEnumerator) Run() error {
	return e.each(func(_ int, in connectors.SplitEnumerator) error { return in.Run() })
}

func (e *multiEnumerator) RegisterReader(sub int) error {
	return e.each(func(_ int, in connectors.SplitEnumerator) error { return in.RegisterReader(sub) })
}

func (e *multiEnumerator) HandleSplitRequest(sub int) error {
	return e.each(func(_ int, in connectors.SplitEnumerator) error { return in.HandleSplitRequest(sub) })
}

func (e *multiEnumerator) AddSplitsBack(splits []connectors.Split, sub int) error {
	per := make([][]connectors.Split, len(e.inner))
	for _, s := range splits {
		t, inner, err := e.src.unwrapSplit(s)
		if err != nil {
			return err
		}
		per[t] = append(per[t], inner)
	}
	return e.each(func(i int, in connectors.SplitEnumerator) error {
		if len(per[i]) == 0 {
			return nil
		}
		return in.AddSplitsBack(per[i], sub)
	})
}

func (e *multiEnumerator) SnapshotState(id int64) ([]byte, error) {
	states := make([][]byte, len(e.inner))
	for i, in := range e.inner {
		st, err := in.SnapshotState(id)
		if err != nil {
			return nil, err
		}
		states[i] = st
	}
	return json.Marshal(states)
}

func (e *multiEnumerator) NotifyCheckpointComplete(id int64) error {
	return e.each(func(_ int, in connectors.SplitEnumerator) error { return in.NotifyCheckpointComplete(id) })
}

func (e *multiEnumerator) Close() error {
	return e.each(func(_ int, in connectors.SplitEnumerator) error { return in.Close() })
}

func (m *multiSource) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	r := &multiReader{src: m, ctx: ctx}
	for _, s := range m.srcs {
		r.inner = append(r.inner, newReader(&tableReaderCtx{r: r}, s.cfg))
	}
	return r, nil
}

// multiReader reads the splits of every table, each with its table's
// reader, one batch per PollNext; it ends when every table's reader has.
type multiReader struct {
	src   *multiSource
	ctx   connectors.ReaderContext
	inner []*reader
	ended int
}

var _ connectors.Reader = (*multiReader)(nil)

type tableReaderCtx struct{ r *multiReader }

func (c *tableReaderCtx) Task() connectors.TaskInfo           { return c.r.ctx.Task() }
func (c *tableReaderCtx) Boundedness() connectors.Boundedness { return c.r.ctx.Boundedness() }
func (c *tableReaderCtx) SendSplitRequest()                   { c.r.ctx.SendSplitRequest() }
func (c *tableReaderCtx) SignalNoMoreElement() {
	c.r.ended++
	if c.r.ended == len(c.r.inner) {
		c.r.ctx.SignalNoMoreElement()
	}
}

func (r *multiReader) Open(ctx context.Context) error {
	for _, in := range r.inner {
		if err := in.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// PollNext polls the first table's reader that has a split; with none, it
// lets the readers end (or waits a little, as one reader does).
func (r *multiReader) PollNext(out connectors.Collector) error {
	for _, in := range r.inner {
		if len(in.splits) > 0 {
			return in.PollNext(out)
		}
	}
	for _, in := range r.inner {
		in.maybeEnd()
	}
	if r.ended < len(r.inner) {
		r.inner[0].sleep(idleWait)
	}
	return nil
}

func (r *multiReader) AddSplits(splits []connectors.Split) error {
	for _, s := range splits {
		t, inner, err := r.src.unwrapSplit(s)
		if err != nil {
			return err
		}
		if err := r.inner[t].AddSplits([]connectors.Split{inner}); err != nil {
			return err
		}
	}
	return nil
}

func (r *multiReader) HandleNoMoreSplits() error {
	for _, in := range r.inner {
		if err := in.HandleNoMoreSplits(); err != nil {
			return err
		}
	}
	return nil
}

func (r *multiReader) SnapshotState(id int64) ([]connectors.Split, error) {
	var out []connectors.Split
	for t, in := range r.inner {
		splits, err := in.SnapshotState(id)
		if err != nil {
			return nil, err
		}
		for _, s := range splits {
			out = append(out, wrapSplit(t, s))
		}
	}
	return out, nil
}

func (r *multiReader) NotifyCheckpointComplete(id int64) error { return nil }

func (r *multiReader) Close() error {
	var first error
	for _, in := range r.inner {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
