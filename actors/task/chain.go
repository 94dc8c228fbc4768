package task

import (
	"fmt"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/monitor/tap"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/row"
)

// operators are the chain's transforms and sink writers, called as plain
// functions (fusion, DESIGN §2).
type operators struct {
	t    *Task
	ops  map[int]*op // by vertex id
	list []*op       // in the chain's order
}

type op struct {
	v          *plan.Vertex
	transforms map[string]connectors.Transform // by input table id
	writer     connectors.Writer
	next       []*op      // fused downstream operators
	outs       []*outEdge // channels leaving from this vertex
	tap        *tap.Point // nil without taps (taps.go)
	schemas    schemas    // the tables whose schema changed (schemachange.go)

	// cumulative counts (messages.VertexCounts)
	rowsIn, rowsOut, bytesIn int64
}

func buildOperators(t *Task) (*operators, error) {
	o := &operators{t: t, ops: map[int]*op{}}
	for _, v := range t.chain.Vertices {
		p := &op{v: v}
		o.ops[v.ID] = p
		o.list = append(o.list, p)
		if v.Kind == plan.TransformVertex {
			p.transforms = map[string]connectors.Transform{}
			for _, tbl := range v.InTables {
				tr, err := v.NewTransform(tbl)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", v.Name, err)
				}
				p.transforms[tbl.TableID] = tr
			}
		}
	}
	for _, p := range o.list {
		for _, e := range p.v.Out {
			if !e.Channel() {
				p.next = append(p.next, o.ops[e.To.ID])
			}
		}
	}
	return o, nil
}

func (o *operators) taskInfo(v *plan.Vertex) connectors.TaskInfo {
	l := o.t.loc
	return connectors.TaskInfo{JobID: l.JobId, Pipeline: int(l.Pipeline), Attempt: int(l.Attempt), Term: l.Term, SubtaskIndex: o.t.index,
		Parallelism: v.Parallelism, Node: o.t.opts.Node}
}

// open creates the sink writers.
func (o *operators) open() error {
	for _, p := range o.list {
		if p.v.Kind != plan.SinkVertex {
			continue
		}
		snk, err := p.v.NewSink()
		if err != nil {
			return fmt.Errorf("%s: %w", p.v.Name, err)
		}
		w, err := snk.CreateWriter(o.t.io, o.taskInfo(p.v), o.t.writerStates(p.v))
		if err != nil {
			return fmt.Errorf("%s: creating writer: %w", p.v.Name, err)
		}
		p.writer = w
	}
	return nil
}

// push runs batch b through operator p and everything fused after it.
// The caller hands over one reference to b (row.Batch.Release): push
// gives it up once the operators are done with b, or passes it on to
// those that keep it. An operator that is not a connectors.BatchBorrower
// may keep what it is given, so its reference is never given up and the
// batch is left to the garbage collector.
func (o *operators) push(p *op, b *row.Batch) error {
	if b.IsSchemaChange() {
		return o.schemaChange(p, b)
	}
	p.rowsIn += int64(b.Len())
	switch p.v.Kind {
	case plan.TransformVertex:
		tr := p.transforms[b.Schema.TableID]
		if p.schemas.in[b.Schema.TableID] != nil {
			var err error
			if tr, err = p.transformFor(b.Schema); err != nil {
				b.Release()
				return err
			}
		}
		if tr == nil {
			var err error
			if tr, err = p.v.NewTransform(b.Schema); err != nil {
				return fmt.Errorf("%s: table %s: %w", p.v.Name, b.Schema.TableID, err)
			}
			p.transforms[b.Schema.TableID] = tr
		}
		if _, ok := tr.(connectors.BatchBorrower); !ok {
			b.Retain() // the transform's, for good
		}
		out, err := tr.Process(b)
		if out != b {
			b.Release()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p.v.Name, err)
		}
		if out == nil || out.Len() == 0 {
			out.Release()
			return nil
		}
		b = out
	case plan.SinkVertex:
		if p.tap != nil && p.tap.On() {
			p.tap.Offer(b) // a sink's tap shows what it writes (it retains b)
		}
		n, sz := int64(b.Len()), int64(b.ApproxByteSize())
		if err := p.writer.Write(b); err != nil {
			return fmt.Errorf("%s: %w", p.v.Name, err)
		}
		if _, ok := p.writer.(connectors.BatchBorrower); ok {
			b.Release()
		}
		p.bytesIn += sz
		o.t.metrics.writeRows += n
		o.t.metrics.writeBytes += sz
		return nil
	}
	p.rowsOut += int64(b.Len())
	return o.emit(p, b)
}

// emit hands p's output, and the caller's reference to it, to its fused
// successors and its channels: each of them gets a reference.
func (o *operators) emit(p *op, b *row.Batch) error {
	if p.tap != nil && p.tap.On() && !b.IsSchemaChange() {
		p.tap.Offer(b) // it retains b until published
	}
	readers := len(p.next) + len(p.outs)
	if readers == 0 {
		b.Release()
		return nil
	}
	for range readers - 1 {
		b.Retain()
	}
	for _, n := range p.next {
		if err := o.push(n, b); err != nil {
			return err
		}
	}
	for _, out := range p.outs {
		out.send(b)
	}
	return nil
}

func (o *operators) close() error {
	var first error
	for _, p := range o.list {
		if p.writer != nil {
			if err := p.writer.Close(); err != nil && first == nil {
				first = fmt.Errorf("%s: close: %w", p.v.Name, err)
			}
			p.writer = nil
		}
		for k, tr := range p.transforms {
			if c, ok := tr.(connectors.TransformCloser); ok {
				if err := c.Close(); err != nil && first == nil {
					first = fmt.Errorf("%s: close: %w", p.v.Name, err)
				}
			}
			delete(p.transforms, k)
		}
	}
	return first
}
