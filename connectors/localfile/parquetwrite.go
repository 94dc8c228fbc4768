package localfile

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// parquetRowGroupRows is how many rows a parquet file buffers before it
// writes them out as a row group (a variable so that tests can lower it).
var parquetRowGroupRows = 256 * 1024

// parquetOut writes batches to one parquet file, column by column: each
// leaf's values of a batch go to its column writer in one call.
type parquetOut struct {
	w       *parquet.Writer
	nodes   []*pnode
	cols    [][]parquet.Value // per leaf column, the values of the batch
	inGroup int
}

func newParquetOut(out io.Writer, schema *parquet.Schema, codec compress.Codec) (*parquetOut, error) {
	nodes, err := planNodes(schema)
	if err != nil {
		return nil, err
	}
	w := parquet.NewWriter(out, schema, parquet.Compression(codec), parquet.CreatedBy("stactor", "", ""))
	n := 0
	for _, nd := range nodes {
		n += len(nd.leaves)
	}
	return &parquetOut{w: w, nodes: nodes, cols: make([][]parquet.Value, n)}, nil
}

// write appends rows idx of b (all rows when idx is nil); cols[j] is the
// batch column of the file's field j.
func (p *parquetOut) write(b *row.Batch, cols []int, idx []int) error {
	for k := range p.cols {
		p.cols[k] = p.cols[k][:0]
	}
	n := b.Len()
	if idx != nil {
		n = len(idx)
	}
	for j, nd := range p.nodes {
		c := b.Cols[cols[j]]
		for r := 0; r < n; r++ {
			i := r
			if idx != nil {
				i = idx[r]
			}
			if nd.kind == pLeaf {
				if c.IsNull(i) || nd.conv == cNull {
					p.cols[nd.col] = append(p.cols[nd.col], parquet.NullValue().Level(0, 0, nd.col))
					continue
				}
				v, err := columnLeaf(nd, c, i)
				if err != nil {
					return fmt.Errorf("field %s: %w", nd.name, err)
				}
				p.cols[nd.col] = append(p.cols[nd.col], v.Level(0, nd.def, nd.col))
				continue
			}
			if err := p.shred(nd, c.Value(i), 0, 0); err != nil {
				return fmt.Errorf("field %s: %w", nd.name, err)
			}
		}
	}
	writers := p.w.ColumnWriters()
	for k, vals := range p.cols {
		if _, err := writers[k].WriteRowValues(vals); err != nil {
			return err
		}
	}
	p.inGroup += n
	if p.inGroup >= parquetRowGroupRows {
		p.inGroup = 0
		return p.w.Flush()
	}
	return nil
}

// close writes the footer (not closing the file below).
func (p *parquetOut) close() error { return p.w.Close() }

func (p *parquetOut) emitNulls(n *pnode, r, d int) {
	for _, c := range n.leaves {
		p.cols[c] = append(p.cols[c], parquet.NullValue().Level(r, d, c))
	}
}

// shred writes a boxed value of node n as Dremel levels: r is the
// repetition level of its first value, d the definition level of its
// parent.
func (p *parquetOut) shred(n *pnode, v any, r, d int) error {
	if v == nil {
		if !n.optional && n.kind == pLeaf {
			return fmt.Errorf("%s must not be null", n.name)
		}
		p.emitNulls(n, r, d)
		return nil
	}
	switch n.kind {
	case pLeaf:
		pv, err := boxedLeaf(n, v)
		if err != nil {
			return err
		}
		if n.conv == cNull {
			p.emitNulls(n, r, d)
			return nil
		}
		p.cols[n.col] = append(p.cols[n.col], pv.Level(r, n.def, n.col))
	case pGroup:
		fields, ok := v.([]any)
		if !ok || len(fields) != len(n.children) {
			return fmt.Errorf("%s: not a row of %d fields", n.name, len(n.children))
		}
		for i, c := range n.children {
			if err := p.shred(c, fields[i], r, n.def); err != nil {
				return err
			}
		}
	case pList:
		elems, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", n.name)
		}
		if len(elems) == 0 {
			p.emitNulls(n, r, n.def)
			return nil
		}
		for k, e := range elems {
			rk := r
			if k > 0 {
				rk = n.rrep
			}
			if err := p.shred(n.children[0], e, rk, n.rdef); err != nil {
				return err
			}
		}
	case pMap:
		m, ok := v.(*row.MapValue)
		if !ok {
			return fmt.Errorf("%s: not a map", n.name)
		}
		if len(m.Keys) == 0 {
			p.emitNulls(n, r, n.def)
			return nil
		}
		for k := range m.Keys {
			rk := r
			if k > 0 {
				rk = n.rrep
			}
			if err := p.shred(n.children[0], m.Keys[k], rk, n.rdef); err != nil {
				return fmt.Errorf("map key: %w", err)
			}
			if err := p.shred(n.children[1], m.Values[k], rk, n.rdef); err != nil {
				return err
			}
		}
	}
	return nil
}

// columnLeaf is value i of a typed column as a parquet value.
func columnLeaf(n *pnode, c *row.Column, i int) (parquet.Value, error) {
	switch n.conv {
	case cBool:
		return parquet.BooleanValue(c.Bools[i]), nil
	case cInt32:
		return parquet.Int32Value(int32(c.Ints[i])), nil
	case cDate: // days in an int32: ±5.8 million years
		d := c.Ints[i]
		if d < math.MinInt32 || d > math.MaxInt32 {
			var buf [24]byte
			return parquet.Value{}, fmt.Errorf("date %s does not fit parquet DATE", row.AppendDate(buf[:0], d))
		}
		return parquet.Int32Value(int32(d)), nil
	case cInt64:
		return parquet.Int64Value(c.Ints[i]), nil
	case cFloat:
		return parquet.FloatValue(float32(c.Floats[i])), nil
	case cDouble:
		return parquet.DoubleValue(c.Floats[i]), nil
	case cString:
		s := c.Str(i)
		// The writer copies the bytes; the batch's strings are immutable.
		return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s))), nil
	case cBytes:
		return parquet.ByteArrayValue(c.Bins[i]), nil
	case cDecBytes:
		b, err := decimalBytes(c.Decs[i], n.scale, n.size)
		return parquet.FixedLenByteArrayValue(b), err
	case cTimeMicros:
		return parquet.Int64Value(c.Ints[i] / 1000), nil
	case cTsMicros:
		us, err := timestampMicros(c.Timestamp(i))
		return parquet.Int64Value(us), err
	}
	return parquet.Value{}, fmt.Errorf("cannot write %s", c.Type)
}

// boxedLeaf is a boxed value (see row.Value) as a parquet value.
func boxedLeaf(n *pnode, v any) (parquet.Value, error) {
	if t, ok := v.(time.Time); ok && n.typ.ID == row.TypeTimestamp {
		v = t.UTC() // a timestamp_tz's instant (boxed timestamps are UTC already)
	}
	c := row.NewColumn(n.typ, 1)
	if err := c.AppendValue(v); err != nil {
		return parquet.Value{}, err
	}
	if c.IsNull(0) {
		return parquet.NullValue(), nil
	}
	return columnLeaf(n, c, 0)
}

// timestampMicros is a stored timestamp as parquet's TIMESTAMP(MICROS), or
// an error past the ±292,000 years an int64 of microseconds holds.
func timestampMicros(sec int64, nano int32) (int64, error) {
	const lim = math.MaxInt64/1_000_000 - 1
	if sec < -lim || sec > lim {
		var buf [40]byte
		return 0, fmt.Errorf("timestamp %s does not fit parquet TIMESTAMP(MICROS)", row.AppendJavaTimestamp(buf[:0], sec, nano))
	}
	return sec*1_000_000 + int64(nano/1000), nil
}

var one = big.NewInt(1)

// decimalBytes is d at scale as a big-endian two's complement integer of
// size bytes (parquet's FIXED_LEN_BYTE_ARRAY decimal).
func decimalBytes(d decimal.Decimal, scale, size int) ([]byte, error) {
	u := unscaled(d, scale)
	if u.Sign() < 0 {
		u = new(big.Int).Add(u, new(big.Int).Lsh(one, uint(8*size)))
	}
	if u.Sign() < 0 || u.BitLen() > 8*size {
		return nil, fmt.Errorf("decimal %s does not fit %d bytes", d, size)
	}
	return u.FillBytes(make([]byte, size)), nil
}

// decimalOf reads a big-endian two's complement unscaled integer.
func decimalOf(b []byte, scale int) decimal.Decimal {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(one, uint(8*len(b))))
	}
	return decimal.NewFromBigInt(u, int32(-scale))
}

// julianEpoch is the Julian day of 1970-01-01, for INT96 timestamps.
const julianEpoch = 2440588

// int96Timestamp is an INT96 timestamp (nanoseconds of the day, then the
// Julian day) in the stored form.
func int96Timestamp(lo, mid, hi uint32) (sec int64, nano int32) {
	nanos := int64(uint64(mid)<<32 | uint64(lo))
	day := int64(int32(hi)) - julianEpoch
	return day*86400 + row.FloorDiv(nanos, int64(time.Second)), int32(row.FloorMod(nanos, int64(time.Second)))
}
