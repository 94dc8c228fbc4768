// Package assert is SeaTunnel's Assert sink: it checks the rows it is
// given against rules and fails the job when one does not hold.
//
// Field rules (NULL, NOT_NULL, MIN, MAX, MIN_LENGTH, MAX_LENGTH, equals_to
// and the field's type) are checked row by row in Write. Row-count rules
// (MIN_ROW, MAX_ROW) and table-names need the total over all parallel
// writers, so they run in the AggregatedCommitter: every writer reports its
// row counts as its commit info, Combine adds them up, and Commit checks
// MAX_ROW at every checkpoint and everything at the final one. Catalog
// table rules compare the input table's schema at plan time, where field
// names, rule types, types and equals_to values are checked too.
//
// `tables = [{ table_path = ..., rules = {...} }]` gives each input table
// the rules of the entry naming it, and a table no entry names the
// top-level rules, which it must then have: the AssertSinkFactory of
// SeaTunnel's multi-table transform work (the branch that added
// multitable_copy_transform.conf) picks one config per table so, and makes
// one AssertSink of it, with its own counts and table-names.
//
// SeaTunnel's writers count into JVM-wide static accumulators and judge
// the count when the last writer closes; checkpoints give stactor the same
// total without shared memory, and one that survives restores.
package assert

import (
	"context"
	"fmt"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	connectors.RegisterSink(Factory)
}

// Factory makes Assert sinks.
var Factory = connectors.SinkFactory{
	Name: "Assert",
	Options: []config.Option{
		{Key: "rules", Type: config.TypeObject,
			Doc: "row_rules, field_rules, catalog_table_rule, table-names, or tables_configs of those per table_path"},
		{Key: "tables", Type: config.TypeList,
			Doc: "[{ table_path = ..., rules = {...} }]: the rules of each table; a table no entry names gets the top-level rules"},
	},
	Delivery: connectors.Delivery{Summary: "exactly-once: checks the rows the final checkpoint covers, and nothing else", Best: connectors.ExactlyOnce},
	Create:   create,
}

func create(cfg *config.PluginConfig, inputs []*row.Schema, _ []byte, job connectors.JobContext) (connectors.Sink, error) {
	p := &parser{cfg: cfg}
	s := &sink{cfg: cfg, multi: len(inputs) > 1}
	if rules := cfg.Raw("rules"); rules != nil {
		rs, err := p.parse(rules, "rules")
		if err != nil {
			return nil, err
		}
		s.rules = rs
	}
	if tables := cfg.Raw("tables"); tables != nil {
		var err error
		if s.perTable, err = p.tables(tables); err != nil {
			return nil, err
		}
	}
	if s.rules == nil && s.perTable == nil {
		return nil, cfg.Errorf("rules", "missing: Assert needs rules { ... } (or tables = [{ table_path = ..., rules = { ... } }])")
	}
	for _, in := range inputs {
		s.tables = append(s.tables, in.TableID)
		rs := s.rulesFor(in.TableID)
		switch {
		case rs == nil:
			// SeaTunnel falls back to the top-level config, which has no
			// rules: ConfigException.Missing("rules").
			return nil, cfg.ErrorAt(cfg.Raw("tables"), "tables", "no entry has table_path %q, and there are no top-level rules for it (No configuration setting found for key 'rules')", in.TableID)
		case rs.empty():
			at := cfg.Raw("rules")
			if e, ok := s.perTable[in.TableID]; ok {
				at = e.at
			}
			return nil, cfg.ErrorAt(at, "rules", "Assert rule config is empty, please add rule config")
		}
		// Catalog rules are checked once, when the sink is made, as in
		// SeaTunnel. Field rules bind per batch in the writers: what does
		// not fit a value fails on the first row, not here. A table_path that is
		// no input gets no rows, which only its MIN_ROW rules can fail.
		tr := rs.forTable(in.TableID)
		if tr != nil && tr.catalog != nil {
			if err := p.checkCatalog(tr.catalog, in); err != nil {
				return nil, err
			}
		}
		// A field the rules written for this table name is not in it: a
		// mistake SeaTunnel meets on the first row. Say it now, with its
		// line. (Rules that reach a table only because they are the single
		// tables_configs entry with field_rules fail on its first row.)
		if tr != nil {
			for _, f := range tr.fields {
				idx := in.Index(f.name)
				if idx < 0 {
					return nil, p.errAt(f.nameAt, "rules.field_rules", "field %q is not in table %s (fields: %s)", f.name, in.TableID, strings.Join(in.Names(), ", "))
				}
				// A column that holds no null and whose type never fits
				// field_type fails on every row: say so now. (Nulls pass
				// the type check, so a nullable column is checked per
				// value, as in SeaTunnel.)
				col := in.Fields[idx]
				if f.fieldType != nil && !col.Nullable && neverFits(col.Type, f.fieldType) {
					return nil, p.errAt(f.typeAt, "rules.field_rules", "field %q of table %s is %s NOT NULL, not %s: every row would fail this rule", f.name, in.TableID, col.Type, f.fieldType)
				}
			}
		}
	}
	return s, nil
}

// sink is a configured Assert.
type sink struct {
	cfg      *config.PluginConfig
	rules    *ruleSet            // the top-level rules; nil when there are none
	perTable map[string]*ruleSet // tables, by table_path
	tables   []string            // the input tables, as planned
	multi    bool                // several input tables: messages name the table
}

// rulesFor is the rules of a table: its tables entry's, else the
// top-level ones (nil when there are none).
func (s *sink) rulesFor(table string) *ruleSet {
	if rs, ok := s.perTable[table]; ok {
		return rs
	}
	return s.rules
}

var _ connectors.SinkWithAggregatedCommitter = (*sink)(nil)

func (s *sink) CreateWriter(_ context.Context, task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	w := &writer{sink: s, task: task, total: map[string]int64{}, written: map[string]int64{}}
	for _, st := range states {
		c, err := decodeCounts(st)
		if err != nil {
			return nil, fmt.Errorf("Assert writer state: %w", err)
		}
		for t, n := range c.Rows {
			w.total[t] += n
		}
	}
	return w, nil
}

func (s *sink) CreateAggregatedCommitter() (connectors.AggregatedCommitter, error) {
	return &committer{sink: s, last: -1, total: map[string]int64{}}, nil
}
