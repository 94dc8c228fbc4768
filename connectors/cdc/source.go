package cdc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Register makes a database's CDC source known under spec.Name, with the
// common options and the dialect's. Call it from init().
func Register(spec Spec) {
	connectors.RegisterSource(Factory(spec))
}

// Factory is the source factory of spec (Register registers it).
func Factory(spec Spec) connectors.SourceFactory {
	opts := append(append([]config.Option{}, CommonOptions...), spec.Options...)
	return connectors.SourceFactory{
		Name:    spec.Name,
		Options: opts,
		Delivery: connectors.Delivery{Summary: "exactly-once with exactly_once (chunks backfilled between watermarks; the log position acknowledged only after checkpoints); else at-least-once", Best: connectors.ExactlyOnce,
			Of: func(cfg *config.PluginConfig, _ []*row.Schema) (connectors.Guarantee, string) {
				if cfg.Bool("exactly_once") {
					return connectors.ExactlyOnce, ""
				}
				return connectors.AtLeastOnce, "exactly_once is off: a restore may apply some changes again"
			}},
		Resolve: func(ctx context.Context, cfg *config.PluginConfig, job connectors.JobContext) ([]byte, error) {
			o, err := ParseOptions(cfg)
			if err != nil {
				return nil, err
			}
			tables, private, err := spec.Resolve(ctx, cfg, o)
			if err != nil {
				return nil, err
			}
			if err := checkTables(cfg, o, tables); err != nil {
				return nil, err
			}
			return encodeResolved(tables, private)
		},
		Create: func(cfg *config.PluginConfig, resolved []byte, job connectors.JobContext) (connectors.Source, error) {
			o, err := ParseOptions(cfg)
			if err != nil {
				return nil, err
			}
			tables, private, err := DecodeResolved(resolved)
			if err != nil {
				return nil, fmt.Errorf("%s resolved source: %w", spec.Name, err)
			}
			if err := checkTables(cfg, o, tables); err != nil {
				return nil, err
			}
			s := &source{spec: spec, cfg: cfg, o: o, tables: tables, private: private}
			if o.Format == FormatDebezium {
				if s.dbz, err = newDebezium(cfg, spec); err != nil {
					return nil, err
				}
			}
			return s, nil
		},
	}
}

// checkTables checks what the framework needs of the tables: a chunk key
// that is a column, and a primary key for exactly_once's backfill.
func checkTables(cfg *config.PluginConfig, o *Options, tables []*Table) error {
	if len(tables) == 0 {
		return cfg.Errorf("table-names", "names no table")
	}
	for _, t := range tables {
		if t.ChunkKey != "" && t.KeyIndex() < 0 {
			return cfg.Errorf("table-names", "chunk key %q is not a column of %s", t.ChunkKey, t.ID)
		}
		if o.ExactlyOnce && len(t.Schema.PrimaryKey) == 0 {
			return cfg.Errorf("exactly_once", "table %s has no primary key; exactly_once needs one to apply the changes made during its snapshot (set primaryKeys in table-names-config)", t.ID)
		}
	}
	return nil
}

type resolvedTable struct {
	Table
	SchemaBytes []byte `json:"schema"`
}

type resolvedForm struct {
	Tables  []resolvedTable `json:"tables"`
	Private []byte          `json:"private,omitempty"`
}

func encodeResolved(tables []*Table, private []byte) ([]byte, error) {
	f := resolvedForm{Private: private}
	for _, t := range tables {
		f.Tables = append(f.Tables, resolvedTable{Table: *t, SchemaBytes: row.EncodeSchema(t.Schema)})
	}
	return json.Marshal(f)
}

// DecodeResolved reads the resolved form back: the tables and the
// dialect's private bytes (for a dialect's own tests, which make their
// dialect from it as the framework does).
func DecodeResolved(b []byte) ([]*Table, []byte, error) {
	var f resolvedForm
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, nil, err
	}
	out := make([]*Table, len(f.Tables))
	for i, rt := range f.Tables {
		s, err := row.DecodeSchema(rt.SchemaBytes)
		if err != nil {
			return nil, nil, fmt.Errorf("table %s: %w", rt.ID, err)
		}
		t := rt.Table
		t.Schema = s
		out[i] = &t
	}
	return out, f.Private, nil
}

// source is a configured CDC source.
type source struct {
	spec    Spec
	cfg     *config.PluginConfig
	o       *Options
	tables  []*Table
	private []byte
	dbz     *debezium // format COMPATIBLE_DEBEZIUM_JSON, else nil
}

var (
	_ connectors.Source             = (*source)(nil)
	_ connectors.SplitEnumerator    = (*enumerator)(nil)
	_ connectors.SourceEventHandler = (*enumerator)(nil)
	_ connectors.Reader             = (*reader)(nil)
)

func (s *source) Tables() []*row.Schema {
	if s.dbz != nil {
		return []*row.Schema{debeziumTable}
	}
	out := make([]*row.Schema, len(s.tables))
	for i, t := range s.tables {
		out[i] = t.Schema
	}
	return out
}

// Boundedness: a stop.mode makes the stream end.
func (s *source) Boundedness() connectors.Boundedness {
	if s.o.Stop == StopNever {
		return connectors.Unbounded
	}
	return connectors.Bounded
}

func (s *source) dialect() (Dialect, error) {
	return s.spec.New(s.cfg, s.o, s.tables, s.private)
}

func (s *source) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	d, err := s.dialect()
	if err != nil {
		return nil, err
	}
	return newEnumerator(ctx, s, d, state)
}

func (s *source) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	d, err := s.dialect()
	if err != nil {
		return nil, err
	}
	return newReader(ctx, s, d), nil
}

var _ connectors.SchemaChangeSource = (*source)(nil)

// EmitsSchemaChanges: with schema-changes.enabled, in format DEFAULT
// (Debezium's events carry their columns, no schema change).
func (s *source) EmitsSchemaChanges() (bool, string) {
	return s.o.SchemaChanges && s.dbz == nil, "schema-changes.enabled"
}
