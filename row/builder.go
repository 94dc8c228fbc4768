package row

import "fmt"

// Builder accumulates rows into a Batch. Append values to the columns (the
// typed Append methods on Col(j) for speed, or AppendRow for boxed values),
// then call EndRow with the row's kind; Build hands the batch over and
// starts a new one. A Builder is used by one goroutine.
type Builder struct {
	schema   *Schema
	capacity int
	recycle  bool
	cols     []*Column
	kinds    []Kind // nil while every row is an INSERT
	n        int
}

// BuilderOption changes how a Builder builds.
type BuilderOption func(*Builder)

// Recycling makes Build hand over recycled batches (NewRecycledBatch)
// whose columns come from the pool and go back to it when the batch is
// released. The caller of Build promises to hand the batch on whole and
// not to read it again: a reader emitting it to the engine does.
func Recycling() BuilderOption {
	return func(b *Builder) { b.recycle = true }
}

// NewBuilder starts a batch of schema with room for capacity rows.
func NewBuilder(schema *Schema, capacity int, opts ...BuilderOption) *Builder {
	b := &Builder{schema: schema, capacity: capacity}
	for _, o := range opts {
		o(b)
	}
	b.reset()
	return b
}

func (b *Builder) reset() {
	if !b.recycle || b.cols == nil {
		b.cols = make([]*Column, len(b.schema.Fields))
	}
	for j, f := range b.schema.Fields {
		if b.recycle {
			b.cols[j] = NewRecycledColumn(f.Type, b.capacity)
		} else {
			b.cols[j] = NewColumn(f.Type, b.capacity)
		}
	}
	b.kinds = nil
	b.n = 0
}

// Schema is the schema being built.
func (b *Builder) Schema() *Schema { return b.schema }

// Col is field j's column, to append a value to.
func (b *Builder) Col(j int) *Column { return b.cols[j] }

// EndRow closes the row whose values were appended, with kind k.
func (b *Builder) EndRow(k Kind) {
	if k != Insert && b.kinds == nil {
		b.kinds = make([]Kind, b.n, b.capacity)
	}
	if b.kinds != nil {
		b.kinds = append(b.kinds, k)
	}
	b.n++
}

// AppendRow appends a row of boxed values, converted to the fields' types.
// On error nothing is appended.
func (b *Builder) AppendRow(k Kind, vals []any) error {
	if len(vals) != len(b.cols) {
		return fmt.Errorf("row has %d values, table %s has %d fields", len(vals), b.schema.TableID, len(b.cols))
	}
	conv := make([]any, len(vals))
	for j, v := range vals {
		c, err := Convert(b.cols[j].Type, v)
		if err != nil {
			return fmt.Errorf("field %s: %w", b.schema.Fields[j].Name, err)
		}
		conv[j] = c
	}
	for j, v := range conv {
		if err := b.cols[j].AppendValue(v); err != nil {
			return fmt.Errorf("field %s: %w", b.schema.Fields[j].Name, err)
		}
	}
	b.EndRow(k)
	return nil
}

// Capacity is the room for rows the Builder was made with.
func (b *Builder) Capacity() int { return b.capacity }

// Reset drops the rows appended since the last Build (a reader that failed
// part way through a batch); a recycling Builder's columns go back to the
// pool.
func (b *Builder) Reset() {
	if b.recycle {
		for _, c := range b.cols {
			putColumn(c)
		}
	}
	b.reset()
}

// Len is the number of rows so far.
func (b *Builder) Len() int { return b.n }

// Build hands over the rows so far as a batch and starts a new one; it
// returns nil when there are none.
func (b *Builder) Build() *Batch {
	if b.n == 0 {
		return nil
	}
	var out *Batch
	if b.recycle {
		out = NewRecycledBatch(b.schema, b.kinds, b.n)
		for j, c := range b.cols {
			out.Cols[j] = c
			out.Own(c)
		}
	} else {
		out = &Batch{Schema: b.schema, Kinds: b.kinds, Cols: b.cols, N: b.n}
	}
	b.reset()
	return out
}
