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
// Each operator remembers the newest schema of every table that changed,
// as it enters and as it leaves (schemas); a checkpoint's channel state
// starts with those schemas as schema-change batches (channelContext), so
// a restore that replays rows of the new schema into operators made anew
// from the plan announces the schema to them first. The sources keep the
// schema in their own state and announce it again on a restore (the CDC
// reader does); both announcements are idempotent (row.ChangeOf).

// schemas is an operator's record of the tables whose schema changed.
type schemas struct {
	in, out map[string]*row.Schema // the newest, by table id
	// older are transform instances for schemas other than the newest
	// of a changed table (rows still arriving from another channel).
	older map[*row.Schema]connectors.Transform
}

// inSchema is the schema of table id as it enters p: the newest it
// changed to, else the plan's.
func (p *op) inSchema(id string) *row.Schema {
	if s := p.schemas.in[id]; s != nil {
		return s
	}
	tables := p.v.InTables
	if p.v.Kind == plan.SourceVertex {
		tables = p.v.OutTables
	}
	for _, s := range tables {
		if s.TableID == id {
			return s
		}
	}
	return nil
}

// schemaChange hands schema-change batch b to p (push's part for them).
func (o *operators) schemaChange(p *op, b *row.Batch) error {
	id := b.Schema.TableID
	before := p.inSchema(id)
	if before == nil {
		return fmt.Errorf("%s: a schema change of table %s, which is not an input of it", p.v.Name, id)
	}
	c, err := row.ChangeOf(before, b.Schema)
	if err != nil {
		return fmt.Errorf("%s: %w", p.v.Name, err)
	}
	if c == nil {
		return nil // a schema it has, or an older one: a replay
	}
	if p.schemas.in == nil {
		p.schemas.in, p.schemas.out = map[string]*row.Schema{}, map[string]*row.Schema{}
	}
	switch p.v.Kind {
	case plan.TransformVertex:
		tr := p.transforms[id]
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
		p.schemas.in[id] = c.After
		out, prev := next.OutputSchema(), tr.OutputSchema()
		if s := p.schemas.out[out.TableID]; s != nil {
			prev = s
		}
		if row.SameColumns(out, prev) {
			return nil // the new columns do not reach the output
		}
		p.schemas.out[out.TableID] = out
		return o.emit(p, row.NewSchemaChange(out))
	case plan.SinkVertex:
		w, ok := p.writer.(connectors.SchemaChangeWriter)
		if !ok {
			return fmt.Errorf("%s: cannot take the schema change of table %s (%s): sink %s does not follow schema changes; turn schema-changes.enabled off on the source", p.v.Name, id, c, p.v.Plugin.Name)
		}
		if err := w.ApplySchemaChange(c); err != nil {
			return fmt.Errorf("%s: schema change of table %s (%s): %w", p.v.Name, id, c, err)
		}
		p.schemas.in[id] = c.After
		return nil
	}
	p.schemas.in[id], p.schemas.out[id] = c.After, c.After
	return o.emit(p, b)
}

// transformFor is the instance of p for a batch of schema s of a table
// whose schema changed: the newest, or one for an older schema.
func (p *op) transformFor(s *row.Schema) (connectors.Transform, error) {
	id := s.TableID
	cur := p.schemas.in[id]
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
	for _, s := range m {
		out = append(out, row.AppendBatch(nil, row.NewSchemaChange(s)))
	}
	return out
}
