package row

// Batch is a run of rows of one table, stored column by column. It is
// immutable once handed on: readers of a batch never write to it, and a
// transform that changes rows builds a new one (sharing unchanged columns).
type Batch struct {
	Schema *Schema
	Kinds  []Kind // nil: every row is an INSERT
	Cols   []*Column
	N      int

	rc     *recycling    // nil: not recycled (recycle.go)
	change *SchemaChange // a schema-change batch's change (schemachange.go)
}

// NewBatch assembles a batch from columns of equal length; kinds may be nil.
func NewBatch(schema *Schema, kinds []Kind, cols []*Column) *Batch {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	} else if kinds != nil {
		n = len(kinds)
	}
	return &Batch{Schema: schema, Kinds: kinds, Cols: cols, N: n}
}

// Len is the number of rows.
func (b *Batch) Len() int { return b.N }

// Kind is row i's kind.
func (b *Batch) Kind(i int) Kind {
	if b.Kinds == nil {
		return Insert
	}
	return b.Kinds[i]
}

// Col is field j's column.
func (b *Batch) Col(j int) *Column { return b.Cols[j] }

// Value is field j of row i, boxed.
func (b *Batch) Value(i, j int) any { return b.Cols[j].Value(i) }

// Row is row i's fields, boxed. It allocates: for tests, sinks that print,
// and other paths where a row at a time is the natural unit.
func (b *Batch) Row(i int) []any {
	out := make([]any, len(b.Cols))
	for j, c := range b.Cols {
		out[j] = c.Value(i)
	}
	return out
}

// Slice is rows [from, to) as a batch sharing storage with b.
func (b *Batch) Slice(from, to int) *Batch {
	s := &Batch{Schema: b.Schema, N: to - from, Cols: make([]*Column, len(b.Cols))}
	if b.Kinds != nil {
		s.Kinds = b.Kinds[from:to:to]
	}
	for j, c := range b.Cols {
		s.Cols[j] = c.Slice(from, to)
	}
	return s
}

// Take is a new batch of the rows at the given indexes, in order.
func (b *Batch) Take(idx []int) *Batch {
	s := &Batch{Schema: b.Schema, N: len(idx), Cols: make([]*Column, len(b.Cols))}
	if b.Kinds != nil {
		s.Kinds = takeSlice(b.Kinds, idx)
	}
	for j, c := range b.Cols {
		s.Cols[j] = c.Take(idx)
	}
	return s
}

// WithColumns is a batch of the same rows under another schema with the
// given columns (a projection or added fields); kinds are shared.
func (b *Batch) WithColumns(schema *Schema, cols []*Column) *Batch {
	return &Batch{Schema: schema, Kinds: b.Kinds, Cols: cols, N: b.N}
}

// WithKinds is the same rows with other kinds.
func (b *Batch) WithKinds(kinds []Kind) *Batch {
	return &Batch{Schema: b.Schema, Kinds: kinds, Cols: b.Cols, N: b.N}
}

// ByteSize estimates the batch's size in memory, walking every string and
// bytes value: for splitting batches by bytes and for
// read_limit.bytes_per_second. Metrics use ApproxByteSize.
func (b *Batch) ByteSize() int {
	n := len(b.Kinds)
	for _, c := range b.Cols {
		n += c.ByteSize()
	}
	return n
}

// ApproxByteSize is ByteSize estimated from the columns' lengths, with
// the mean size of a few sampled values standing for variable-length ones:
// a cost per column, not per value, for byte metrics.
func (b *Batch) ApproxByteSize() int {
	n := len(b.Kinds)
	for _, c := range b.Cols {
		n += c.ApproxByteSize()
	}
	return n
}
