package task

import (
	"fmt"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// Schema changes through the chain (connectors/schemachange.go, DESIGN
// §4). A schema-change batch is handed to each operator in order with the
// rows, like a batch: a source vertex passes it on; a transform that is a
// connectors.SchemaEvolver gets a new instance for the new schema and
// announces that instance's output schema downstream (nothing when its
// output did not change); a sink's writer that is a
// connectors.SchemaChangeWriter applies it. Any other transform or sink
// fails the subtask with an error naming the table, the change and the
// operator, never writing rows of a schema it was not built for.
//
// Each operator remembers the newest change of every table that changed,
// as it enters and as it leaves (schemas): its version orders the changes
// (row/schemachange.go), so one of a version the operator has passed is a
// replay and changes nothing. A checkpoint's channel state starts with
// those schemas as announcements (a change without clauses;
// channelContext), so a restore that replays rows of a new schema into
// operators made anew from the plan announces the schema to them first;
// an announcement runs no DDL. The sources keep the schema and its
// version in their own state and announce it again on a restore (the CDC
// reader does).

// schemas is an operator's record of the tables whose schema changed.
type schemas struct {
	in, out map[string]*row.SchemaChange // the newest, by table id
	// older are transform instances for schemas other than the newest
	// of a changed table (rows still arriving from another channel).
	older map[*row.Schema]connectors.Transform
}

// inSchema is the schema of table id as it enters p and its version: the
// newest it changed to, else the plan's (version 0).
func (p *op) inSchema(id string) (*row.Schema, int64) {
	if c := p.schemas.in[id]; c != nil {
		return c.After, c.Version
	}
	tables := p.v.InTables
	if p.v.Kind == plan.SourceVertex {
		tables = p.v.OutTables
	}
	for _, s := range tables {
		if s.TableID == id {
			return s, 0
		}
	}
	return nil, 0
}

// schemaChange hands schema-change batch b to p (push's part for them).
func (o *operators) schemaChange(p *op, b *row.Batch) error {
	id := b.Schema.TableID
	before, version := p.inSchema(id)
	if before == nil {
		return fmt.Errorf("%s: a schema change of table %s, which is not an input of it", p.v.Name, id)
	}
	in := b.SchemaChange()
	if in.Version < version || in.Version == version && (version > 0 || row.SameColumns(before, in.After)) {
		return nil // a version it has passed: a replay
	}
	// Version 0 of other columns than the plan's: a plan resolved afresh
	// on a restore (its tables as they are now) and the source's
	// checkpoint announcing them as they were: an announcement too.
	c := &row.SchemaChange{Version: in.Version, Before: before, After: in.After, Columns: in.Columns}
	if p.schemas.in == nil {
		p.schemas.in, p.schemas.out = map[string]*row.SchemaChange{}, map[string]*row.SchemaChange{}
	}
	switch p.v.Kind {
	case plan.TransformVertex:
		tr := p.transforms[id]
		var err error
		if tr == nil {
			if tr, err = p.v.NewTransform(before); err != nil {
				return fmt.Errorf("%s: table %s: %w", p.v.Name, id, err)
			}
		}
		if _, ok := tr.(connectors.SchemaEvolver); !ok {
			return fmt.Errorf("%s: cannot pass the schema change of table %s (%s): transform %s does not follow schema changes; leave it out of a job whose source has schema-changes.enabled, or turn that off", p.v.Name, id, c, p.v.Plugin.Name)
		}
		next, err := p.v.NewTransform(c.After)
		if err != nil {
			return fmt.Errorf("%s: after the schema change of table %s (%s): %w", p.v.Name, id, c, err)
		}
		if p.schemas.older == nil {
			p.schemas.older = map[*row.Schema]connectors.Transform{}
		}
		p.schemas.older[before] = tr
		p.transforms[id] = next
		p.schemas.in[id] = c
		out, prev := next.OutputSchema(), tr.OutputSchema()
		if s := p.schemas.out[out.TableID]; s != nil {
			prev = s.After
		}
		if row.SameColumns(out, prev) {
			return nil // the change does not reach the output
		}
		// The output's clauses: the input's where the transform passes
		// the columns through, else what tells the two outputs apart.
		oc := &row.SchemaChange{Version: c.Version, Before: prev, After: out, Columns: c.Columns}
		if !row.SameColumns(out, c.After.WithTableID(out.TableID)) && len(c.Columns) > 0 {
			oc.Columns = row.Diff(prev, out)
		}
		p.schemas.out[out.TableID] = oc
		return o.emit(p, row.NewSchemaChange(oc))
	case plan.SinkVertex:
		w, ok := p.writer.(connectors.SchemaChangeWriter)
		if !ok {
			return fmt.Errorf("%s: cannot take the schema change of table %s (%s): sink %s does not follow schema changes; turn schema-changes.enabled off on the source", p.v.Name, id, c, p.v.Plugin.Name)
		}
		if err := w.ApplySchemaChange(c); err != nil {
			return fmt.Errorf("%s: schema change of table %s (%s): %w", p.v.Name, id, c, err)
		}
		p.schemas.in[id] = c
		return nil
	}
	p.schemas.in[id], p.schemas.out[id] = c, c
	return o.emit(p, b)
}

// transformFor is the instance of p for a batch of schema s of a table
// whose schema changed: the newest, or one for an older schema.
func (p *op) transformFor(s *row.Schema) (connectors.Transform, error) {
	id := s.TableID
	cur := p.schemas.in[id].After
	if s == cur || row.SameColumns(s, cur) {
		return p.transforms[id], nil
	}
	if tr := p.schemas.older[s]; tr != nil {
		return tr, nil
	}
	for k, tr := range p.schemas.older {
		if row.SameColumns(k, s) {
			p.schemas.older[s] = tr
			return tr, nil
		}
	}
	if len(p.schemas.older) > 64 { // decoders' schemas come and go: bound it
		clear(p.schemas.older)
	}
	tr, err := p.v.NewTransform(s)
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: %w", p.v.Name, id, err)
	}
	p.schemas.older[s] = tr
	return tr, nil
}

// channelContext are the schema-change batches a checkpoint's channel
// state of an edge starts with: the newest schemas of the tables that
// changed, as they leave the edge's sender (output state) or enter its
// receiver (input state).
func channelContext(p *op, output bool) [][]byte {
	m := p.schemas.in
	if output {
		m = p.schemas.out
	}
	var out [][]byte
	for _, c := range m {
		out = append(out, row.AppendBatch(nil, row.NewSchemaChange(&row.SchemaChange{Version: c.Version, After: c.After})))
	}
	return out
}
