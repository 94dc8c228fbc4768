package orc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
)

// DefaultStripeBytes is how much buffered column data makes a stripe.
const DefaultStripeBytes = 64 << 20

// WriterOptions are a Writer's settings.
type WriterOptions struct {
	Compression Compression
	// BlockSize is the compression chunk size (256 KiB when 0).
	BlockSize int
	// StripeBytes is the buffered size that ends a stripe
	// (DefaultStripeBytes when 0).
	StripeBytes int
}

// Writer writes an ORC file: stripes as data is buffered, the tail on
// Close.
type Writer struct {
	out     io.Writer
	opts    WriterOptions
	schema  *Type
	types   []*Type
	root    *structWriter
	all     []colWriter // by column id
	offset  uint64
	stripes []stripeInfo
	rows    uint64 // rows of the open stripe
	total   uint64
	stats   []colStats
	body    []byte // scratch for a stripe
	err     error
}

// NewWriter starts an ORC file of the given schema (a struct of the
// top-level columns) on out and writes its header.
func NewWriter(out io.Writer, schema *Type, opts WriterOptions) (*Writer, error) {
	if schema.Kind != KindStruct {
		return nil, fmt.Errorf("the schema must be a struct, not %s", schema.Kind)
	}
	switch opts.Compression {
	case None, Zlib, Snappy, LZ4, Zstd:
	default:
		return nil, fmt.Errorf("cannot write %s compression (NONE, ZLIB, SNAPPY, LZ4, ZSTD)", opts.Compression)
	}
	if opts.BlockSize <= 0 {
		opts.BlockSize = defaultBlockSize
	}
	if opts.BlockSize >= 1<<22 {
		return nil, fmt.Errorf("compression block size %d is too large (a chunk header holds less than 4 MiB)", opts.BlockSize)
	}
	if opts.StripeBytes <= 0 {
		opts.StripeBytes = DefaultStripeBytes
	}
	schema = schema.clone()
	w := &Writer{out: out, opts: opts, schema: schema}
	w.types = schema.number(nil)
	w.stats = make([]colStats, len(w.types))
	w.all = make([]colWriter, len(w.types))
	root, err := w.newColumn(schema)
	if err != nil {
		return nil, err
	}
	w.root = root.(*structWriter)
	if _, err := out.Write([]byte(magic)); err != nil {
		return nil, err
	}
	w.offset = uint64(len(magic))
	return w, nil
}

func (w *Writer) newColumn(t *Type) (colWriter, error) {
	var c colWriter
	b := colBase{t: t, stats: &w.stats[t.ID]}
	switch t.Kind {
	case KindStruct:
		if len(t.FieldNames) != len(t.Children) {
			return nil, fmt.Errorf("struct with %d fields and %d names", len(t.Children), len(t.FieldNames))
		}
		s := &structWriter{colBase: b}
		for _, ct := range t.Children {
			cc, err := w.newColumn(ct)
			if err != nil {
				return nil, err
			}
			s.children = append(s.children, cc)
		}
		c = s
	case KindList, KindMap:
		l := &listWriter{colBase: b}
		for _, ct := range t.Children {
			cc, err := w.newColumn(ct)
			if err != nil {
				return nil, err
			}
			l.children = append(l.children, cc)
		}
		c = l
	case KindBoolean, KindByte, KindShort, KindInt, KindLong, KindDate:
		c = &intWriter{colBase: b}
	case KindFloat, KindDouble:
		c = &floatWriter{colBase: b}
	case KindString, KindVarchar, KindChar, KindBinary:
		c = &bytesWriter{colBase: b}
	case KindDecimal:
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return nil, fmt.Errorf("decimal(%d,%d) is not an ORC decimal (precision 1 to 38, scale 0 to precision)", t.Precision, t.Scale)
		}
		c = &decimalWriter{colBase: b}
	case KindTimestamp, KindTimestampInstant: // the same encoding: the writer's zone is UTC
		c = &timestampWriter{colBase: b}
	default:
		return nil, fmt.Errorf("cannot write %s columns", t.Kind)
	}
	w.all[t.ID] = c
	return c, nil
}

// Write appends rows: one vector per top-level column, all of one length.
func (w *Writer) Write(cols []*Vector) error {
	if w.err != nil {
		return w.err
	}
	if len(cols) != len(w.root.children) {
		return fmt.Errorf("%d columns written to a schema of %d", len(cols), len(w.root.children))
	}
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len
	}
	for i, c := range cols {
		if c.Len != n {
			return fmt.Errorf("column %s has %d rows, column %s %d", w.schema.FieldNames[i], c.Len, w.schema.FieldNames[0], n)
		}
		if err := w.root.children[i].write(c, 0, n); err != nil {
			return fmt.Errorf("column %s: %w", w.schema.FieldNames[i], err)
		}
	}
	w.root.count(n, nil, 0)
	w.rows += uint64(n)
	size := 0
	for _, c := range w.all {
		size += c.size()
	}
	if size >= w.opts.StripeBytes {
		return w.flush()
	}
	return nil
}

// flush writes the buffered rows as a stripe.
func (w *Writer) flush() error {
	if w.rows == 0 {
		return nil
	}
	sf := &stripeFooter{timezone: "UTC"}
	body := w.body[:0]
	var err error
	for _, c := range w.all {
		for _, s := range c.finish() {
			start := len(body)
			if body, err = compress(w.opts.Compression, w.opts.BlockSize, body, s.data); err != nil {
				return w.fail(err)
			}
			sf.streams = append(sf.streams, streamMsg{kind: s.kind, column: uint32(c.base().t.ID), length: uint64(len(body) - start)})
		}
		sf.columns = append(sf.columns, columnEncoding{kind: c.encoding()})
	}
	dataLen := len(body)
	if body, err = compress(w.opts.Compression, w.opts.BlockSize, body, sf.marshal()); err != nil {
		return w.fail(err)
	}
	if _, err := w.out.Write(body); err != nil {
		return w.fail(err)
	}
	w.stripes = append(w.stripes, stripeInfo{offset: w.offset, dataLength: uint64(dataLen), footerLength: uint64(len(body) - dataLen), rows: w.rows})
	w.offset += uint64(len(body))
	w.total += w.rows
	w.rows = 0
	w.body = body[:0]
	return nil
}

func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// Close writes the last stripe and the file tail (not closing out).
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if err := w.flush(); err != nil {
		return err
	}
	ft := &footer{headerLength: uint64(len(magic)), contentLength: w.offset, stripes: w.stripes, rows: w.total, stats: w.stats}
	for _, t := range w.types {
		m := typeMsg{kind: t.Kind, fieldNames: t.FieldNames, precision: uint32(t.Precision), scale: uint32(t.Scale)}
		for _, c := range t.Children {
			m.subtypes = append(m.subtypes, uint32(c.ID))
		}
		ft.types = append(ft.types, m)
	}
	tail, err := compress(w.opts.Compression, w.opts.BlockSize, nil, ft.marshal())
	if err != nil {
		return w.fail(err)
	}
	ps := &postScript{footerLength: uint64(len(tail)), compression: w.opts.Compression, blockSize: uint64(w.opts.BlockSize),
		version: []uint32{0, 12}, writerVersion: 6, magic: magic}
	psb := ps.marshal()
	if len(psb) > 255 {
		return w.fail(errors.New("postscript longer than 255 bytes"))
	}
	tail = append(tail, psb...)
	tail = append(tail, byte(len(psb)))
	if _, err := w.out.Write(tail); err != nil {
		return w.fail(err)
	}
	w.err = errors.New("the ORC writer is closed")
	return nil
}

type outStream struct {
	kind streamKind
	data []byte
}

// colWriter buffers one column's values of the open stripe.
type colWriter interface {
	// write appends rows [from, to) of v.
	write(v *Vector, from, to int) error
	// size is the bytes buffered.
	size() int
	// finish returns the stripe's streams and starts the next stripe.
	finish() []outStream
	encoding() encoding
	base() *colBase
}

// colBase keeps the PRESENT bits and the statistics.
type colBase struct {
	t       *Type
	stats   *colStats
	present []bool
	nulls   bool
}

func (b *colBase) base() *colBase { return b }

// count records rows [from, to) of v's null flags (nulls nil: none).
func (b *colBase) count(n int, nulls []bool, from int) {
	for i := 0; i < n; i++ {
		null := nulls != nil && nulls[from+i]
		b.present = append(b.present, !null)
		if null {
			b.nulls = true
			b.stats.hasNull = true
		} else {
			b.stats.values++
		}
	}
}

func (b *colBase) presentStream() []outStream {
	var s []outStream
	if b.nulls {
		s = append(s, outStream{streamPresent, appendBoolRLE(nil, b.present)})
	}
	b.present, b.nulls = b.present[:0], false
	return s
}

func nullsOf(v *Vector) []bool {
	if len(v.Nulls) == 0 {
		return nil
	}
	return v.Nulls
}

// each counts rows [from, to) of v and calls fn for each row present;
// have is the length of v's vector of values.
func (b *colBase) each(v *Vector, from, to, have int, fn func(i int) error) error {
	nulls := nullsOf(v)
	b.count(to-from, nulls, from)
	if have < to {
		return fmt.Errorf("%s column of %d values for %d rows", b.t.Kind, have, to)
	}
	for i := from; i < to; i++ {
		if nulls == nil || !nulls[i] {
			if err := fn(i); err != nil {
				return err
			}
		}
	}
	return nil
}

type structWriter struct {
	colBase
	children []colWriter
}

func (c *structWriter) write(v *Vector, from, to int) error {
	nulls := nullsOf(v)
	c.count(to-from, nulls, from)
	if len(v.Children) != len(c.children) {
		return fmt.Errorf("struct of %d fields written with %d", len(c.children), len(v.Children))
	}
	// the children get the rows where the struct is present, in runs
	for i, cw := range c.children {
		cv := v.Children[i]
		if cv.Len < to {
			return fmt.Errorf("field %s has %d rows, the struct %d", c.t.FieldNames[i], cv.Len, to)
		}
		for r := from; r < to; {
			if nulls != nil && nulls[r] {
				r++
				continue
			}
			e := r
			for e < to && (nulls == nil || !nulls[e]) {
				e++
			}
			if err := cw.write(cv, r, e); err != nil {
				return fmt.Errorf("field %s: %w", c.t.FieldNames[i], err)
			}
			r = e
		}
	}
	return nil
}

func (c *structWriter) size() int           { return len(c.present) / 8 }
func (c *structWriter) finish() []outStream { return c.presentStream() }
func (c *structWriter) encoding() encoding  { return encDirect }

type listWriter struct {
	colBase
	lengths  []int64
	children []colWriter
}

func (c *listWriter) write(v *Vector, from, to int) error {
	nulls := nullsOf(v)
	c.count(to-from, nulls, from)
	if len(v.Offsets) < to+1 {
		return fmt.Errorf("%s of %d offsets for %d rows", c.t.Kind, len(v.Offsets), to)
	}
	for i := from; i < to; i++ {
		if nulls == nil || !nulls[i] {
			c.lengths = append(c.lengths, int64(v.Offsets[i+1]-v.Offsets[i]))
		}
	}
	a, b := v.Offsets[from], v.Offsets[to]
	for i, cw := range c.children {
		if v.Children[i].Len < b {
			return fmt.Errorf("%s of %d elements written with %d", c.t.Kind, b, v.Children[i].Len)
		}
		if err := cw.write(v.Children[i], a, b); err != nil {
			if c.t.Kind == KindMap && i == 0 {
				return fmt.Errorf("map key: %w", err)
			}
			return err
		}
	}
	return nil
}

func (c *listWriter) size() int { return len(c.present)/8 + 8*len(c.lengths) }
func (c *listWriter) finish() []outStream {
	s := append(c.presentStream(), outStream{streamLength, appendRLEv2(nil, c.lengths, false)})
	c.lengths = c.lengths[:0]
	return s
}
func (c *listWriter) encoding() encoding { return encDirectV2 }

// intWriter writes booleans, bytes, integers and dates.
type intWriter struct {
	colBase
	vals []int64
}

func (c *intWriter) write(v *Vector, from, to int) error {
	return c.each(v, from, to, len(v.Ints), func(i int) error {
		c.vals = append(c.vals, v.Ints[i])
		return nil
	})
}

func (c *intWriter) size() int { return len(c.present)/8 + 8*len(c.vals) }
func (c *intWriter) finish() []outStream {
	s := c.presentStream()
	var data []byte
	switch c.t.Kind {
	case KindBoolean:
		bs := make([]bool, len(c.vals))
		for i, x := range c.vals {
			bs[i] = x != 0
		}
		data = appendBoolRLE(nil, bs)
	case KindByte:
		bs := make([]byte, len(c.vals))
		for i, x := range c.vals {
			bs[i] = byte(x)
		}
		data = appendByteRLE(nil, bs)
	default:
		data = appendRLEv2(nil, c.vals, true)
	}
	c.vals = c.vals[:0]
	return append(s, outStream{streamData, data})
}
func (c *intWriter) encoding() encoding {
	if c.t.Kind == KindBoolean || c.t.Kind == KindByte {
		return encDirect
	}
	return encDirectV2
}

type floatWriter struct {
	colBase
	data []byte
}

func (c *floatWriter) write(v *Vector, from, to int) error {
	return c.each(v, from, to, len(v.Floats), func(i int) error {
		if c.t.Kind == KindFloat {
			c.data = binary.LittleEndian.AppendUint32(c.data, math.Float32bits(float32(v.Floats[i])))
		} else {
			c.data = binary.LittleEndian.AppendUint64(c.data, math.Float64bits(v.Floats[i]))
		}
		return nil
	})
}

func (c *floatWriter) size() int { return len(c.present)/8 + len(c.data) }
func (c *floatWriter) finish() []outStream {
	s := append(c.presentStream(), outStream{streamData, c.data})
	c.data = nil
	return s
}
func (c *floatWriter) encoding() encoding { return encDirect }

type bytesWriter struct {
	colBase
	data    []byte
	lengths []int64
}

func (c *bytesWriter) write(v *Vector, from, to int) error {
	return c.each(v, from, to, len(v.Bytes), func(i int) error {
		c.data = append(c.data, v.Bytes[i]...)
		c.lengths = append(c.lengths, int64(len(v.Bytes[i])))
		return nil
	})
}

func (c *bytesWriter) size() int { return len(c.present)/8 + len(c.data) + 8*len(c.lengths) }
func (c *bytesWriter) finish() []outStream {
	s := append(c.presentStream(), outStream{streamData, c.data}, outStream{streamLength, appendRLEv2(nil, c.lengths, false)})
	c.data, c.lengths = nil, c.lengths[:0]
	return s
}
func (c *bytesWriter) encoding() encoding { return encDirectV2 }

type decimalWriter struct {
	colBase
	data   []byte
	scales []int64
}

func (c *decimalWriter) write(v *Vector, from, to int) error {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.t.Precision)), nil)
	return c.each(v, from, to, len(v.Decimals), func(i int) error {
		d := v.Decimals[i].Round(int32(c.t.Scale))
		u := d.Coefficient()
		// Coefficient is at d's exponent; bring it to the column's scale
		if e := int(d.Exponent()) + c.t.Scale; e > 0 {
			u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil))
		}
		if new(big.Int).Abs(u).Cmp(limit) >= 0 {
			return fmt.Errorf("decimal %s does not fit decimal(%d,%d)", v.Decimals[i], c.t.Precision, c.t.Scale)
		}
		c.data = appendDecimal(c.data, u)
		c.scales = append(c.scales, int64(c.t.Scale))
		return nil
	})
}

func (c *decimalWriter) size() int { return len(c.present)/8 + len(c.data) + 8*len(c.scales) }
func (c *decimalWriter) finish() []outStream {
	s := append(c.presentStream(), outStream{streamData, c.data}, outStream{streamSecondary, appendRLEv2(nil, c.scales, true)})
	c.data, c.scales = nil, c.scales[:0]
	return s
}
func (c *decimalWriter) encoding() encoding { return encDirectV2 }

type timestampWriter struct {
	colBase
	secs, nanos []int64
}

func (c *timestampWriter) write(v *Vector, from, to int) error {
	return c.each(v, from, to, min(len(v.Secs), len(v.Nanos)), func(i int) error {
		s, ns := v.Secs[i], int64(v.Nanos[i])
		if ns < 0 || ns > 999_999_999 {
			return fmt.Errorf("timestamp with %d nanoseconds", ns)
		}
		if s > maxSeconds || s < -maxSeconds {
			return fmt.Errorf("timestamp of %d seconds", s)
		}
		if s == -1 && ns > 999_999 {
			// readers take a stored second of 0 with a fraction for a
			// time after 1970-01-01T00:00:00, so ORC cannot hold the
			// second before it (its Java and C++ writers shift it by a
			// second without a word)
			return fmt.Errorf("timestamp 1969-12-31T23:59:59.%09d cannot be held in an ORC file: ORC readers take the last second before 1970 with a fraction of more than a millisecond for the first second after it", ns)
		}
		// seconds rounded toward zero, as ORC's writers store them
		if s < 0 && ns > 999_999 {
			s++
		}
		c.secs = append(c.secs, s-orcEpoch)
		c.nanos = append(c.nanos, formatNanos(ns))
		return nil
	})
}

func (c *timestampWriter) size() int { return len(c.present)/8 + 16*len(c.secs) }
func (c *timestampWriter) finish() []outStream {
	s := append(c.presentStream(), outStream{streamData, appendRLEv2(nil, c.secs, true)}, outStream{streamSecondary, appendRLEv2(nil, c.nanos, false)})
	c.secs, c.nanos = c.secs[:0], c.nanos[:0]
	return s
}
func (c *timestampWriter) encoding() encoding { return encDirectV2 }
