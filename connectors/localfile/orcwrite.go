package localfile

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unsafe"

	"github.com/stactor/stactor/connectors/localfile/orc"
	"github.com/stactor/stactor/row"
)

// orcWriteSchema is the ORC schema SeaTunnel's OrcWriteStrategy writes for
// fields (buildSchemaWithRowType): names in lower case, time as a
// timestamp on 1970-01-01.
func orcWriteSchema(fields []row.Field) (*orc.Type, error) {
	names := make([]string, len(fields))
	types := make([]*orc.Type, len(fields))
	for i, f := range fields {
		t, err := orcTypeOf(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		names[i], types[i] = strings.ToLower(f.Name), t
	}
	return orc.Struct(names, types...), nil
}

// orcTypeOf is OrcWriteStrategy.buildFieldWithRowType.
func orcTypeOf(t *row.Type) (*orc.Type, error) {
	switch t.ID {
	case row.TypeString:
		return orc.Primitive(orc.KindString), nil
	case row.TypeBoolean:
		return orc.Primitive(orc.KindBoolean), nil
	case row.TypeTinyInt:
		return orc.Primitive(orc.KindByte), nil
	case row.TypeSmallInt:
		return orc.Primitive(orc.KindShort), nil
	case row.TypeInt:
		return orc.Primitive(orc.KindInt), nil
	case row.TypeBigInt:
		return orc.Primitive(orc.KindLong), nil
	case row.TypeFloat:
		return orc.Primitive(orc.KindFloat), nil
	case row.TypeDouble:
		return orc.Primitive(orc.KindDouble), nil
	case row.TypeDecimal:
		if t.Precision < 1 || t.Precision > 38 {
			return nil, fmt.Errorf("orc decimals have a precision of 1 to 38, not %s", t)
		}
		return orc.Decimal(t.Precision, t.Scale), nil
	case row.TypeBytes:
		return orc.Primitive(orc.KindBinary), nil
	case row.TypeDate:
		return orc.Primitive(orc.KindDate), nil
	case row.TypeTime, row.TypeTimestamp:
		return orc.Primitive(orc.KindTimestamp), nil
	case row.TypeTimestampTZ: // the instant ("timestamp with local time zone")
		return orc.Primitive(orc.KindTimestampInstant), nil
	case row.TypeArray:
		e, err := orcTypeOf(t.Elem)
		if err != nil {
			return nil, err
		}
		return orc.List(e), nil
	case row.TypeMap:
		k, err := orcTypeOf(t.Key)
		if err != nil {
			return nil, err
		}
		v, err := orcTypeOf(t.Elem)
		if err != nil {
			return nil, err
		}
		return orc.Map(k, v), nil
	case row.TypeRow:
		return orcWriteSchema(t.Fields)
	}
	return nil, fmt.Errorf("Orc file not support this type [%s]", t)
}

// orcCodecs are SeaTunnel's CompressFormat for orc: the ORC compression
// of each codec name. gzip, zstd and brotli are parquet codecs in
// SeaTunnel: an orc file named with them is not compressed.
var orcCodecs = map[string]orc.Compression{
	"none":   orc.None,
	"zlib":   orc.Zlib,
	"snappy": orc.Snappy,
	"lz4":    orc.LZ4,
	"gzip":   orc.None,
	"zstd":   orc.None,
	"brotli": orc.None,
}

// orcOut writes batches to one ORC file.
type orcOut struct {
	w     *orc.Writer
	types []*orc.Type
	vecs  []*orc.Vector
}

func newORCOut(out io.Writer, schema *orc.Type, comp orc.Compression) (*orcOut, error) {
	w, err := orc.NewWriter(out, schema, orc.WriterOptions{Compression: comp})
	if err != nil {
		return nil, err
	}
	o := &orcOut{w: w, types: schema.Children}
	for _, t := range schema.Children {
		o.vecs = append(o.vecs, orc.NewVector(t))
	}
	return o, nil
}

// write appends rows idx of b; cols[j] is the batch column of the file's
// field j.
func (o *orcOut) write(b *row.Batch, cols []int, idx []int) error {
	for j, v := range o.vecs {
		v.Reset()
		c := b.Cols[cols[j]]
		for _, i := range idx {
			if err := appendORCValue(v, c, i); err != nil {
				return fmt.Errorf("field %s: %w", b.Schema.Fields[cols[j]].Name, err)
			}
		}
	}
	return o.w.Write(o.vecs)
}

// close writes the file's tail (not closing the file below).
func (o *orcOut) close() error { return o.w.Close() }

// appendORCValue appends value i of c to v.
func appendORCValue(v *orc.Vector, c *row.Column, i int) error {
	if c.IsNull(i) {
		v.AppendNull()
		return nil
	}
	switch c.Type.Storage() {
	case row.StoreInt:
		if c.Type.ID == row.TypeTime {
			v.Nulls = append(v.Nulls, false)
			v.Len++
			v.Secs = append(v.Secs, c.Ints[i]/int64(time.Second))
			v.Nanos = append(v.Nanos, int32(c.Ints[i]%int64(time.Second)))
			return nil
		}
		appendPresent(v)
		v.Ints = append(v.Ints, c.Ints[i])
	case row.StoreBool:
		appendPresent(v)
		var x int64
		if c.Bools[i] {
			x = 1
		}
		v.Ints = append(v.Ints, x)
	case row.StoreFloat:
		appendPresent(v)
		v.Floats = append(v.Floats, c.Floats[i])
	case row.StoreString:
		appendPresent(v)
		s := c.Str(i)
		// the writer copies the bytes; the batch's strings are immutable
		v.Bytes = append(v.Bytes, unsafe.Slice(unsafe.StringData(s), len(s)))
	case row.StoreBytes:
		appendPresent(v)
		v.Bytes = append(v.Bytes, c.Bins[i])
	case row.StoreDecimal:
		appendPresent(v)
		v.Decimals = append(v.Decimals, c.Decs[i])
	case row.StoreTimestamp, row.StoreTimestampTZ: // a timestamp_tz's instant
		appendPresent(v)
		v.Secs = append(v.Secs, c.Secs[i])
		v.Nanos = append(v.Nanos, c.Nanos[i])
	default:
		return appendORCBoxed(v, c.Type, c.Value(i))
	}
	return nil
}

func appendPresent(v *orc.Vector) {
	v.Nulls = append(v.Nulls, false)
	v.Len++
}

// appendORCBoxed appends a boxed value (row.Value) of type t to v.
func appendORCBoxed(v *orc.Vector, t *row.Type, x any) error {
	if x == nil {
		v.AppendNull()
		return nil
	}
	switch t.ID {
	case row.TypeArray:
		elems, ok := x.([]any)
		if !ok {
			return fmt.Errorf("not an array: %T", x)
		}
		appendPresent(v)
		for _, e := range elems {
			if err := appendORCBoxed(v.Children[0], t.Elem, e); err != nil {
				return err
			}
		}
		v.Offsets = append(v.Offsets, v.Children[0].Len)
		return nil
	case row.TypeMap:
		m, ok := x.(*row.MapValue)
		if !ok {
			return fmt.Errorf("not a map: %T", x)
		}
		appendPresent(v)
		for k := range m.Keys {
			if err := appendORCBoxed(v.Children[0], t.Key, m.Keys[k]); err != nil {
				return fmt.Errorf("map key: %w", err)
			}
			if err := appendORCBoxed(v.Children[1], t.Elem, m.Values[k]); err != nil {
				return err
			}
		}
		v.Offsets = append(v.Offsets, v.Children[0].Len)
		return nil
	case row.TypeRow:
		fields, ok := x.([]any)
		if !ok || len(fields) != len(t.Fields) {
			return fmt.Errorf("not a row of %d fields: %v", len(t.Fields), x)
		}
		appendPresent(v)
		for k, f := range fields {
			if err := appendORCBoxed(v.Children[k], t.Fields[k].Type, f); err != nil {
				return fmt.Errorf("%s: %w", t.Fields[k].Name, err)
			}
		}
		return nil
	}
	c := row.NewColumn(t, 1)
	if err := c.AppendValue(x); err != nil {
		return err
	}
	return appendORCValue(v, c, 0)
}
