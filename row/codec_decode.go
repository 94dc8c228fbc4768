package row

// The decoder: Decoder reads batches back, schema first, then column by
// column.

import (
	"fmt"
	"math"
	"slices"
)

// Decoder decodes batches. It caches the schemas it has seen, so a stream of
// batches of one table parses the schema once, and batches decoded from one
// schema encoding share one *Schema. A Decoder is used by one goroutine.
type Decoder struct {
	schemas map[string]*Schema // by their encoding
	recycle bool
}

// NewDecoder is a Decoder with an empty schema cache.
func NewDecoder() *Decoder { return &Decoder{schemas: make(map[string]*Schema)} }

// Recycle makes d decode into recycled batches (NewRecycledBatch) whose
// columns come from the pool: for a receiver that hands each batch on
// whole, to a reader that releases it. It returns d.
func (d *Decoder) Recycle() *Decoder {
	d.recycle = true
	return d
}

// Decode reads one batch from src and returns it and the rest of src. The
// batch does not share memory with src; the strings of a column share one
// allocation, which a string kept from it keeps alive. Errors wrap
// ErrTruncated (src ends inside the batch), ErrCorrupt or ErrVersion; Decode
// never panics on bad input.
func (d *Decoder) Decode(src []byte) (*Batch, []byte, error) {
	return d.decode(src, false)
}

// DecodeOwned is Decode for a caller that hands src over: the batch's
// string and byte values point into src instead of into a copy of it, so
// src must never be written again (a NATS message's payload, which
// nats.go allocates per message and never reuses, qualifies; a reused read
// buffer does not). It saves the copy of every string and byte column; a
// value kept from the batch keeps all of src alive.
func (d *Decoder) DecodeOwned(src []byte) (*Batch, []byte, error) {
	return d.decode(src, true)
}

func (d *Decoder) decode(src []byte, alias bool) (*Batch, []byte, error) {
	r := &reader[[]byte]{b: src, recycle: d.recycle, alias: alias}
	v, err := r.byte()
	if err != nil {
		return nil, src, err
	}
	if v < minCodecVersion || v > codecVersion {
		return nil, src, fmt.Errorf("%w %d (want %d..%d)", ErrVersion, v, minCodecVersion, codecVersion)
	}
	r.ver = v
	raw, err := r.str()
	if err != nil {
		return nil, src, fmt.Errorf("schema: %w", err)
	}
	schema, err := d.schema(raw)
	if err != nil {
		return nil, src, err
	}
	b, err := r.batch(schema)
	if err != nil {
		return nil, src, fmt.Errorf("table %s: %w", schema.TableID, err)
	}
	return b, src[r.p:], nil
}

func (d *Decoder) schema(raw []byte) (*Schema, error) {
	if s, ok := d.schemas[string(raw)]; ok {
		return s, nil
	}
	r := &reader[[]byte]{b: raw}
	s, err := r.schema()
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if r.p != len(raw) {
		return nil, corrupt("schema: %d bytes left over", len(raw)-r.p)
	}
	if d.schemas == nil || len(d.schemas) >= maxSchemas {
		d.schemas = make(map[string]*Schema)
	}
	d.schemas[string(raw)] = s
	return s, nil
}

func (r *reader[T]) schema() (*Schema, error) {
	table, err := r.str()
	if err != nil {
		return nil, err
	}
	npk, err := r.count(1)
	if err != nil {
		return nil, err
	}
	var pk []string
	for range npk {
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		pk = append(pk, string(k))
	}
	nf, err := r.count(4) // name, flags, comment, type: a byte each at least
	if err != nil {
		return nil, err
	}
	fields := make([]Field, nf)
	for i := range fields {
		if fields[i], err = r.field(); err != nil {
			return nil, err
		}
	}
	s, err := NewSchema(string(table), fields...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	s.PrimaryKey = pk
	return s, nil
}

// field reads what appendField wrote.
func (r *reader[T]) field() (Field, error) {
	name, err := r.str()
	if err != nil {
		return Field{}, err
	}
	flags, err := r.byte()
	if err != nil {
		return Field{}, err
	}
	if flags&^fieldNull != 0 {
		return Field{}, corrupt("field %q: flags %#x", name, flags)
	}
	comment, err := r.str()
	if err != nil {
		return Field{}, err
	}
	ts, err := r.str()
	if err != nil {
		return Field{}, err
	}
	t, err := ParseType(string(ts))
	if err != nil {
		return Field{}, fmt.Errorf("%w: field %q: %v", ErrCorrupt, name, err)
	}
	return Field{Name: string(name), Type: t, Nullable: flags&fieldNull != 0, Comment: string(comment)}, nil
}

// change reads what appendChange wrote after the flags.
func (r *reader[T]) change(c *SchemaChange) error {
	v, err := r.varint()
	if err != nil {
		return err
	}
	c.Version = v
	nc, err := r.count(5) // op, name, default, first, after, type: a byte each at least
	if err != nil {
		return err
	}
	for range nc {
		var cc ColumnChange
		op, err := r.byte()
		if err != nil {
			return err
		}
		cc.Op = ColumnOp(op)
		if cc.Op < AddColumn || cc.Op > RenameColumn {
			return corrupt("column operation %d", op)
		}
		name, err := r.str()
		if err != nil {
			return err
		}
		cc.Name = string(name)
		if cc.Op != DropColumn {
			if cc.Field, err = r.field(); err != nil {
				return err
			}
		}
		def, err := r.str()
		if err != nil {
			return err
		}
		first, err := r.byte()
		if err != nil {
			return err
		}
		if first > 1 {
			return corrupt("column %q: first %d", cc.Name, first)
		}
		after, err := r.str()
		if err != nil {
			return err
		}
		mt, err := r.str()
		if err != nil {
			return err
		}
		cc.Default, cc.First, cc.After, cc.MySQLType = string(def), first == 1, string(after), string(mt)
		c.Columns = append(c.Columns, cc)
	}
	return nil
}

func (r *reader[T]) batch(s *Schema) (*Batch, error) {
	u, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if u > math.MaxInt32 {
		return nil, corrupt("%d rows", u)
	}
	n := int(u)
	flags, err := r.byte()
	if err != nil {
		return nil, err
	}
	if flags&^(batchKinds|batchSchemaChange|batchChangeDetail) != 0 || flags&batchSchemaChange != 0 && (n != 0 || flags&batchKinds != 0) || flags&batchChangeDetail != 0 && flags&batchSchemaChange == 0 {
		return nil, corrupt("batch flags %#x", flags)
	}
	if flags&batchSchemaChange != 0 {
		c := &SchemaChange{After: s}
		if flags&batchChangeDetail != 0 {
			if err := r.change(c); err != nil {
				return nil, fmt.Errorf("schema change: %w", err)
			}
		}
		return NewSchemaChange(c), nil
	}
	var b *Batch
	if r.recycle {
		b = NewRecycledBatch(s, nil, n)
	} else {
		b = &Batch{Schema: s, N: n, Cols: make([]*Column, len(s.Fields))}
	}
	if flags&batchKinds != 0 {
		raw, err := r.take(n)
		if err != nil {
			return nil, fmt.Errorf("kinds: %w", err)
		}
		b.Kinds = make([]Kind, n)
		for i := range b.Kinds {
			k := raw[i]
			if k > byte(Delete) {
				return nil, corrupt("row %d: kind %d", i, k)
			}
			b.Kinds[i] = Kind(k)
		}
	}
	for j, f := range s.Fields {
		c, err := r.column(f.Type, n)
		if err != nil {
			b.Release()
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		b.Cols[j] = c
		b.Own(c)
	}
	return b, nil
}

// bitmap reads n flags.
func (r *reader[T]) bitmap(n int) ([]bool, error) {
	raw, err := r.take(bitmapLen(n))
	if err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = raw[i>>3]&(1<<(i&7)) != 0
	}
	return out, nil
}

func (r *reader[T]) column(t *Type, n int) (*Column, error) {
	flags, err := r.byte()
	if err != nil {
		return nil, err
	}
	if flags&^colNulls != 0 {
		return nil, corrupt("column flags %#x", flags)
	}
	var c *Column
	if r.recycle {
		c = recycledColumn(t, n, t.Storage() != StoreString) // strings are packed
	} else {
		c = &Column{Type: t}
	}
	if flags&colNulls != 0 {
		if c.Nulls, err = r.bitmap(n); err != nil {
			return nil, err
		}
	}
	switch t.Storage() {
	case StoreNone:
		if c.Nulls == nil || slices.Contains(c.Nulls, false) {
			return nil, corrupt("a null column with values")
		}
	case StoreInt:
		c.Ints, err = r.ints(c.Ints, n, c.Nulls)
	case StoreTimestamp:
		c.Secs, c.Nanos, err = r.timestamps(n, c.Nulls)
	case StoreTimestampTZ:
		if c.Secs, c.Nanos, err = r.timestamps(n, c.Nulls); err == nil {
			c.Offs, err = r.offsets(n, c.Nulls)
		}
	case StoreFloat:
		var raw T
		if raw, err = r.take(8 * n); err == nil {
			c.Floats = sized(c.Floats, n)
			if littleEndian && n > 0 {
				copy(floatBytes(c.Floats), raw)
			} else {
				for i := range c.Floats {
					c.Floats[i] = math.Float64frombits(le64(raw, 8*i))
				}
			}
		}
	case StoreBool:
		c.Bools, err = r.bitmap(n)
	case StoreString:
		room := c.spareBounds
		c.spareBounds = nil
		c.Text, c.Bounds, err = r.strs(room, n)
	case StoreBytes:
		c.Bins, err = r.bins(n, c.Nulls)
	case StoreDecimal:
		c.Decs, err = r.decimals(n, c.Nulls)
	case StoreAny:
		c.Anys, err = r.anys(n)
	}
	return c, err
}

// lengths reads n uvarint lengths and returns where they start and the sum,
// checking that the bytes they measure follow.
func (r *reader[T]) lengths(n int) (int, int, error) {
	start, total := r.p, 0
	// Lengths under 128 take one byte: sum them without a call each.
	i := 0
	for src := r.b[r.p:]; i < n && i < len(src) && src[i] < 0x80; i++ {
		total += int(src[i])
	}
	r.p += i
	for range n - i {
		k, err := r.count(1)
		if err != nil {
			return 0, 0, err
		}
		total += k
	}
	if total > r.left() {
		return 0, 0, ErrTruncated
	}
	return start, total, nil
}

// strs reads a string column's n values packed (packed.go): their bytes
// as one string (a copy, or the source's own bytes when the reader may
// alias them) and n+1 bounds, filled into room (a recycled column's). The
// lengths are read in one pass that writes the bounds as it goes.
func (r *reader[T]) strs(room []uint32, n int) (string, []uint32, error) {
	if n > r.left() { // every value has a length of one byte at least
		return "", nil, ErrTruncated
	}
	bounds := sized(room, n+1)
	bounds[0] = 0
	ends := bounds[1 : n+1]
	var total uint64
	i := 0
	// Lengths under 128 take one byte (the common case): no call each.
	for lens := r.b[r.p : r.p+n]; i < len(lens); i++ {
		c := lens[i]
		if c >= 0x80 {
			break
		}
		total += uint64(c)
		ends[i] = uint32(total)
	}
	r.p += i
	for ; i < n; i++ {
		k, err := r.count(1)
		if err != nil {
			return "", nil, err
		}
		total += uint64(k)
		ends[i] = uint32(total) // checked below
	}
	if total > uint64(r.left()) {
		return "", nil, ErrTruncated
	}
	if total > math.MaxUint32 {
		return "", nil, corrupt("a string column of %d bytes", total)
	}
	all := r.sharedString(r.p, int(total))
	r.p += int(total)
	return all, bounds, nil
}

func (r *reader[T]) bins(n int, nulls []bool) ([][]byte, error) {
	start, total, err := r.lengths(n)
	if err != nil {
		return nil, err
	}
	all := r.sharedBytes(r.p, total) // the one copy, or none (alias)
	out := make([][]byte, n)
	lr := reader[T]{b: r.b, p: start}
	off := 0
	for i := range out {
		u, _ := lr.uvarint() // checked by lengths
		k := int(u)
		if nulls == nil || !nulls[i] {
			out[i] = all[off : off+k : off+k]
		}
		off += k
	}
	r.p += total
	return out, nil
}

// sized is dst with n elements, reusing its room (a recycled column's).
func sized[T any](dst []T, n int) []T {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]T, n)
}
