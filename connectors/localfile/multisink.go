package localfile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// multiSink is a LocalFile sink fed by several tables, as SeaTunnel's
// multi-table sink: each table has its own sink (its options with the
// table placeholders of path filled for it, so ${table_name} gives each
// its own folder) and every writer writes each batch with the writer of
// its table. Commit infos and states are the per-table ones, bundled; the
// files' moves are self-contained in their infos, so one committer commits
// them all.
type multiSink struct {
	tables []string
	sinks  map[string]*sink
}

var (
	_ connectors.WriterNodeCommitter = (*multiSink)(nil)
	_ connectors.SaveModeHandler     = (*multiSink)(nil)
	_ connectors.StaleAborter        = (*multiCommitter)(nil)
)

func newMultiSink(cfg *config.PluginConfig, inputs []*row.Schema) (*multiSink, error) {
	m := &multiSink{sinks: map[string]*sink{}}
	byRoot := map[string]string{}
	for _, in := range inputs {
		sc, err := newSinkConfig(cfg, []*row.Schema{in})
		if err != nil {
			return nil, err
		}
		if other, dup := byRoot[sc.root]; dup {
			return nil, cfg.Errorf("path", "tables %s and %s would both be written to %s: put ${table_name} (or ${database_name}, ${schema_name}) in path to give each table its folder", other, in.TableID, sc.root)
		}
		byRoot[sc.root] = in.TableID
		m.tables = append(m.tables, in.TableID)
		m.sinks[in.TableID] = &sink{cfg: sc}
	}
	return m, nil
}

func (m *multiSink) CommitsOnWriterNode() bool { return m.sinks[m.tables[0]].CommitsOnWriterNode() }

func (m *multiSink) HandleSaveMode(ctx context.Context) error {
	for _, t := range m.tables {
		if err := m.sinks[t].HandleSaveMode(ctx); err != nil {
			return fmt.Errorf("table %s: %w", t, err)
		}
	}
	return nil
}

// multiState is a multi-table writer's state: each table's writer states.
type multiState struct {
	Tables map[string][][]byte `json:"tables"`
}

func (m *multiSink) CreateWriter(ctx context.Context, task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	per := map[string][][]byte{}
	for _, st := range states {
		var ms multiState
		if err := json.Unmarshal(st, &ms); err != nil {
			return nil, fmt.Errorf("LocalFile multi-table writer state: %w", err)
		}
		for t, s := range ms.Tables {
			per[t] = append(per[t], s...)
		}
	}
	w := &multiWriter{tables: m.tables, writers: map[string]*writer{}}
	for _, t := range m.tables {
		tw, err := newWriter(m.sinks[t].cfg, task, per[t])
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t, err)
		}
		w.writers[t] = tw
	}
	return w, nil
}

func (m *multiSink) CreateCommitter() (connectors.Committer, error) {
	c := &multiCommitter{}
	for _, t := range m.tables {
		c.roots = append(c.roots, m.sinks[t].cfg.root)
	}
	return c, nil
}

func (m *multiSink) String() string {
	var parts []string
	for _, t := range m.tables {
		parts = append(parts, t+": "+m.sinks[t].cfg.root)
	}
	return "LocalFile(" + strings.Join(parts, ", ") + ")"
}

// multiWriter writes each batch with its table's writer.
type multiWriter struct {
	tables  []string
	writers map[string]*writer
}

var (
	_ connectors.Writer        = (*multiWriter)(nil)
	_ connectors.BatchBorrower = (*multiWriter)(nil)
)

// BorrowsBatches: each table's writer does (writer.BorrowsBatches).
func (w *multiWriter) BorrowsBatches() {}

func (w *multiWriter) Write(b *row.Batch) error {
	tw, ok := w.writers[b.Schema.TableID]
	if !ok {
		return fmt.Errorf("LocalFile: a batch of table %s, which is not an input of this sink (inputs: %s)", b.Schema.TableID, strings.Join(w.tables, ", "))
	}
	return tw.Write(b)
}

// PrepareCommit bundles the tables' commit infos (nil when none has one).
func (w *multiWriter) PrepareCommit(checkpointID int64) ([]byte, error) {
	var infos [][]byte
	for _, t := range w.tables {
		info, err := w.writers[t].PrepareCommit(checkpointID)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t, err)
		}
		if info != nil {
			infos = append(infos, info)
		}
	}
	if len(infos) == 0 {
		return nil, nil
	}
	return json.Marshal(infos)
}

func (w *multiWriter) SnapshotState(checkpointID int64) ([][]byte, error) {
	ms := multiState{Tables: map[string][][]byte{}}
	for _, t := range w.tables {
		st, err := w.writers[t].SnapshotState(checkpointID)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t, err)
		}
		ms.Tables[t] = st
	}
	b, err := json.Marshal(ms)
	if err != nil {
		return nil, err
	}
	return [][]byte{b}, nil
}

func (w *multiWriter) AbortPrepare() error {
	var first error
	for _, t := range w.tables {
		if err := w.writers[t].AbortPrepare(); err != nil && first == nil {
			first = fmt.Errorf("table %s: %w", t, err)
		}
	}
	return first
}

func (w *multiWriter) Close() error {
	var first error
	for _, t := range w.tables {
		if err := w.writers[t].Close(); err != nil && first == nil {
			first = fmt.Errorf("table %s: %w", t, err)
		}
	}
	return first
}

// multiCommitter commits the bundled infos of a multi-table writer; each
// info names its own files, so the single-table committer does the moves.
// Stale staging is looked for under every table's path.
type multiCommitter struct {
	roots []string
}

func unbundle(infos [][]byte) ([][]byte, error) {
	var out [][]byte
	for _, raw := range infos {
		var inner [][]byte
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, fmt.Errorf("LocalFile multi-table commit info: %w", err)
		}
		out = append(out, inner...)
	}
	return out, nil
}

func (c *multiCommitter) Commit(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	inner, err := unbundle(infos)
	if err != nil {
		return err
	}
	return (&committer{}).Commit(ctx, cc, inner)
}

func (c *multiCommitter) Abort(ctx context.Context, cc connectors.CommitContext, infos [][]byte) error {
	inner, err := unbundle(infos)
	if err != nil {
		return err
	}
	return (&committer{}).Abort(ctx, cc, inner)
}

func (c *multiCommitter) AbortStale(ctx context.Context, cc connectors.CommitContext) error {
	for _, root := range c.roots {
		if err := (&committer{root: root}).AbortStale(ctx, cc); err != nil {
			return err
		}
	}
	return nil
}
