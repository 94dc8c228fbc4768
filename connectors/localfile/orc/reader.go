package orc

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"time"
	_ "time/tzdata" // writers name their time zone; the reader needs its rules

	"github.com/shopspring/decimal"
)

// magic starts every ORC file and ends its postscript.
const magic = "ORC"

// orcEpoch is 2015-01-01T00:00:00 UTC, from which timestamps count
// seconds (in the writer's time zone).
const orcEpoch = 1420070400

// maxBatchElements bounds the list and map elements one batch may decode,
// so that a damaged LENGTH stream cannot make the reader allocate without
// limit.
const maxBatchElements = 1 << 24

// File is an open ORC file: its tail is read, its stripes are read as
// rows are asked for.
type File struct {
	r           io.ReaderAt
	size        int64
	ps          *postScript
	ft          *footer
	types       []*Type
	schema      *Type
	compression Compression
	blockSize   int
}

// Open reads the tail of an ORC file of size bytes.
func Open(r io.ReaderAt, size int64) (*File, error) {
	if size < int64(len(magic))+1 {
		return nil, fmt.Errorf("not an ORC file: %d bytes", size)
	}
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return nil, err
	}
	psLen := int64(last[0])
	if psLen == 0 || psLen > size-1 {
		return nil, fmt.Errorf("not an ORC file: postscript of %d bytes", psLen)
	}
	psb := make([]byte, psLen)
	if _, err := r.ReadAt(psb, size-1-psLen); err != nil {
		return nil, err
	}
	ps, err := parsePostScript(psb)
	if err != nil || ps.magic != magic {
		// ORC 0.11 files have no magic in the postscript, only at the start
		var head [3]byte
		if _, herr := r.ReadAt(head[:], 0); herr != nil || string(head[:]) != magic || err != nil {
			return nil, fmt.Errorf("not an ORC file: no ORC postscript")
		}
	}
	f := &File{r: r, size: size, ps: ps, compression: ps.compression, blockSize: defaultBlockSize}
	switch ps.compression {
	case None, Zlib, Snappy, LZ4, Zstd:
	case LZO:
		return nil, fmt.Errorf("LZO-compressed ORC files are not supported (NONE, ZLIB, SNAPPY, LZ4, ZSTD)")
	default:
		return nil, fmt.Errorf("unknown compression kind %d", int(ps.compression))
	}
	if ps.blockSize > 0 {
		if ps.blockSize > maxBlockSize {
			return nil, fmt.Errorf("compression block size %d is too large", ps.blockSize)
		}
		f.blockSize = int(ps.blockSize)
	}
	tail := size - 1 - psLen
	if ps.footerLength > uint64(tail) || ps.metadataLength > uint64(tail)-ps.footerLength {
		return nil, fmt.Errorf("footer of %d bytes and metadata of %d bytes in a file of %d bytes", ps.footerLength, ps.metadataLength, size)
	}
	fb, err := f.section(tail-int64(ps.footerLength), int64(ps.footerLength))
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	if f.ft, err = parseFooter(fb); err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	if f.types, err = buildTypes(f.ft.types); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	f.schema = f.types[0]
	if f.schema.Kind != KindStruct {
		// a file of one column without a struct around it (ORC allows
		// any root type): read as a struct of that column, named as Hive
		// names unnamed columns
		f.schema = &Type{ID: -1, Kind: KindStruct, FieldNames: []string{"_col0"}, Children: []*Type{f.types[0]}}
	}
	body := uint64(tail) - ps.footerLength - ps.metadataLength
	var rows uint64
	for i, s := range f.ft.stripes {
		end := s.offset + s.indexLength + s.dataLength + s.footerLength
		if s.offset < uint64(len(magic)) || end < s.offset || end > body || s.indexLength > end || s.dataLength > end || s.footerLength > end {
			return nil, fmt.Errorf("stripe %d lies outside the file body", i)
		}
		if rows+s.rows < rows || s.rows > math.MaxInt64/2 {
			return nil, fmt.Errorf("stripe %d: %d rows", i, s.rows)
		}
		rows += s.rows
	}
	return f, nil
}

// section reads and decompresses a part of the file.
func (f *File) section(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, fmt.Errorf("%d bytes at %d lie outside the file (%d bytes)", n, off, f.size)
	}
	b := make([]byte, n)
	if _, err := f.r.ReadAt(b, off); err != nil {
		return nil, err
	}
	return decompress(f.compression, f.blockSize, b)
}

// Schema is the file's root struct; its children are the top-level
// columns.
func (f *File) Schema() *Type { return f.schema }

// NumRows is the number of rows the stripes hold.
func (f *File) NumRows() int64 {
	var n int64
	for _, s := range f.ft.stripes {
		n += int64(s.rows)
	}
	return n
}

// Compression is the file's compression kind.
func (f *File) Compression() Compression { return f.compression }

// Rows reads the top-level columns cols (indexes into Schema().Children)
// from the first row on.
func (f *File) Rows(cols []int) (*Rows, error) {
	r := &Rows{f: f, stripe: -1}
	for _, c := range cols {
		if c < 0 || c >= len(f.schema.Children) {
			return nil, fmt.Errorf("no top-level column %d", c)
		}
		t := f.schema.Children[c]
		if err := supported(t); err != nil {
			return nil, fmt.Errorf("column %s: %w", f.schema.FieldNames[c], err)
		}
		r.cols = append(r.cols, t)
		r.out = append(r.out, NewVector(t))
	}
	return r, nil
}

func supported(t *Type) error {
	if t.Kind == KindUnion {
		return fmt.Errorf("union types are not supported")
	}
	for _, c := range t.Children {
		if err := supported(c); err != nil {
			return err
		}
	}
	return nil
}

// Rows reads a file's rows a batch at a time.
type Rows struct {
	f       *File
	cols    []*Type
	out     []*Vector
	readers []colReader
	stripe  int
	left    int64 // rows left in the open stripe
}

// Next reads up to n rows into one vector per column asked for; the
// vectors are reused by the next call. It returns no rows at the end.
func (r *Rows) Next(n int) ([]*Vector, int, error) {
	for _, v := range r.out {
		v.Reset()
	}
	for r.left == 0 {
		if r.stripe+1 >= len(r.f.ft.stripes) {
			return r.out, 0, nil
		}
		if err := r.openStripe(r.stripe + 1); err != nil {
			return nil, 0, err
		}
	}
	k := int(min(int64(n), r.left))
	for i, cr := range r.readers {
		if err := cr.read(r.out[i], k, nil); err != nil {
			return nil, 0, fmt.Errorf("stripe %d, column %d (%s): %w", r.stripe, r.cols[i].ID, r.cols[i], err)
		}
	}
	r.left -= int64(k)
	return r.out, k, nil
}

// Skip passes over n rows: whole stripes unread, then rows decoded and
// dropped.
func (r *Rows) Skip(n int64) error {
	for n > 0 {
		if r.left == 0 {
			next := r.stripe + 1
			if next >= len(r.f.ft.stripes) {
				return nil
			}
			if s := int64(r.f.ft.stripes[next].rows); s <= n {
				r.stripe = next
				n -= s
				continue
			}
			if err := r.openStripe(next); err != nil {
				return err
			}
			continue
		}
		_, k, err := r.Next(int(min(n, 4096)))
		if err != nil {
			return err
		}
		n -= int64(k)
	}
	return nil
}

// openStripe reads stripe i's footer and the streams of the columns read.
func (r *Rows) openStripe(i int) error {
	f := r.f
	s := f.ft.stripes[i]
	r.stripe = i
	r.left = int64(s.rows)
	r.readers = r.readers[:0]
	sfb, err := f.section(int64(s.offset+s.indexLength+s.dataLength), int64(s.footerLength))
	if err != nil {
		return fmt.Errorf("stripe %d footer: %w", i, err)
	}
	sf, err := parseStripeFooter(sfb)
	if err != nil {
		return fmt.Errorf("stripe %d footer: %w", i, err)
	}
	want := map[int]bool{}
	var mark func(t *Type)
	mark = func(t *Type) {
		want[t.ID] = true
		for _, c := range t.Children {
			mark(c)
		}
	}
	for _, t := range r.cols {
		mark(t)
	}
	st := &stripe{f: f, index: i, streams: map[streamKey][]byte{}, enc: sf.columns}
	pos := s.offset
	limit := s.offset + s.indexLength + s.dataLength
	for _, m := range sf.streams {
		if m.length > limit-pos {
			return fmt.Errorf("stripe %d: stream of column %d lies past the stripe's data", i, m.column)
		}
		if want[int(m.column)] && m.kind != streamRowIndex && m.kind < 7 {
			b, err := f.section(int64(pos), int64(m.length))
			if err != nil {
				return fmt.Errorf("stripe %d, column %d: %w", i, m.column, err)
			}
			st.streams[streamKey{int(m.column), m.kind}] = b
		}
		pos += m.length
	}
	if st.loc, err = zoneOf(sf.timezone); err != nil {
		return fmt.Errorf("stripe %d: %w", i, err)
	}
	for _, t := range r.cols {
		cr, err := st.reader(t)
		if err != nil {
			return fmt.Errorf("stripe %d, column %d (%s): %w", i, t.ID, t, err)
		}
		r.readers = append(r.readers, cr)
	}
	return nil
}

// zoneOf is the writer's time zone; UTC when the file does not name one.
func zoneOf(name string) (*time.Location, error) {
	switch name {
	case "", "UTC", "GMT", "Z", "Etc/UTC":
		return nil, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("writer time zone %q: %w", name, err)
	}
	return loc, nil
}

type streamKey struct {
	column int
	kind   streamKind
}

// stripe is one open stripe's streams.
type stripe struct {
	f       *File
	index   int
	streams map[streamKey][]byte
	enc     []columnEncoding
	loc     *time.Location // nil: UTC
}

func (st *stripe) stream(t *Type, kind streamKind) []byte {
	// writers leave out empty streams (a column whose values are all null
	// or empty in a stripe); a stream that is needed and missing ends at
	// once, which reading its values reports
	return st.streams[streamKey{t.ID, kind}]
}

// colReader decodes one column of a stripe.
type colReader interface {
	// read appends n rows to v; absent (nil: none) marks rows whose parent
	// is null: they are null and take nothing from the streams.
	read(v *Vector, n int, absent []bool) error
}

// base handles the PRESENT stream common to every column.
type base struct {
	present *boolReader // nil: every value is present
	nulls   []bool
}

// presence appends n rows' null flags to v.Nulls and returns them and the
// number of values present.
func (b *base) presence(v *Vector, n int, absent []bool) ([]bool, int, error) {
	b.nulls = b.nulls[:0]
	k := 0
	for i := 0; i < n; i++ {
		null := absent != nil && absent[i]
		if !null && b.present != nil {
			p, err := b.present.next()
			if err != nil {
				return nil, 0, fmt.Errorf("PRESENT: %w", err)
			}
			null = !p
		}
		if !null {
			k++
		}
		b.nulls = append(b.nulls, null)
	}
	v.Nulls = append(v.Nulls, b.nulls...)
	v.Len += n
	return b.nulls, k, nil
}

func (st *stripe) encoding(t *Type) (encoding, uint32, error) {
	if t.ID >= len(st.enc) {
		return 0, 0, fmt.Errorf("the stripe footer has no encoding for column %d", t.ID)
	}
	e := st.enc[t.ID]
	if e.kind < encDirect || e.kind > encDictionaryV2 {
		return 0, 0, fmt.Errorf("unknown column encoding %d", e.kind)
	}
	return e.kind, e.dictSize, nil
}

func (st *stripe) reader(t *Type) (colReader, error) {
	var b base
	if p, ok := st.streams[streamKey{t.ID, streamPresent}]; ok {
		b.present = &boolReader{bytes: byteReader{b: p}}
	}
	enc, dictSize, err := st.encoding(t)
	if err != nil {
		return nil, err
	}
	dictionary := enc == encDictionary || enc == encDictionaryV2
	if dictionary && t.Kind != KindString && t.Kind != KindVarchar && t.Kind != KindChar {
		return nil, fmt.Errorf("%s column with a dictionary encoding", t.Kind)
	}
	switch t.Kind {
	case KindStruct:
		r := &structReader{base: b}
		for _, c := range t.Children {
			cr, err := st.reader(c)
			if err != nil {
				return nil, err
			}
			r.children = append(r.children, cr)
		}
		return r, nil
	case KindList, KindMap:
		lb := st.stream(t, streamLength)
		r := &listReader{base: b, lengths: newIntReader(lb, false, enc)}
		for _, c := range t.Children {
			cr, err := st.reader(c)
			if err != nil {
				return nil, err
			}
			r.children = append(r.children, cr)
		}
		return r, nil
	}
	data := st.stream(t, streamData)
	switch t.Kind {
	case KindBoolean:
		return &boolColumn{base: b, data: boolReader{bytes: byteReader{b: data}}}, nil
	case KindByte:
		return &byteColumn{base: b, data: byteReader{b: data}}, nil
	case KindShort, KindInt, KindLong, KindDate:
		return &intColumn{base: b, data: newIntReader(data, true, enc)}, nil
	case KindFloat:
		return &floatColumn{base: b, data: data, width: 4}, nil
	case KindDouble:
		return &floatColumn{base: b, data: data, width: 8}, nil
	case KindString, KindVarchar, KindChar, KindBinary:
		lb := st.stream(t, streamLength)
		if !dictionary {
			return &bytesColumn{base: b, data: data, lengths: newIntReader(lb, false, enc)}, nil
		}
		db, ok := st.streams[streamKey{t.ID, streamDictionary}]
		if !ok && dictSize > 0 {
			return nil, fmt.Errorf("no DICTIONARY_DATA stream")
		}
		dict, err := readDictionary(db, newIntReader(lb, false, enc), int(dictSize))
		if err != nil {
			return nil, err
		}
		return &dictColumn{base: b, index: newIntReader(data, false, enc), dict: dict}, nil
	case KindDecimal:
		sb := st.stream(t, streamSecondary)
		return &decimalColumn{base: b, data: data, scales: newIntReader(sb, true, enc), scale: t.Scale}, nil
	case KindTimestamp, KindTimestampInstant:
		sb := st.stream(t, streamSecondary)
		c := &timestampColumn{base: b, secs: newIntReader(data, true, enc), nanos: newIntReader(sb, false, enc), loc: st.loc}
		if t.Kind == KindTimestampInstant {
			c.loc = nil // instants are written in UTC
		}
		c.epoch = orcEpoch
		if c.loc != nil {
			c.epoch = time.Date(2015, 1, 1, 0, 0, 0, 0, c.loc).Unix()
		}
		return c, nil
	}
	return nil, fmt.Errorf("%s columns are not supported", t.Kind)
}

func readDictionary(data []byte, lengths intReader, size int) ([][]byte, error) {
	if size > len(data)+1 && size > 1<<20 {
		// more entries than bytes: only empty strings could fit so many
		return nil, fmt.Errorf("dictionary of %d entries in %d bytes", size, len(data))
	}
	dict := make([][]byte, size)
	off := 0
	for i := range dict {
		n, err := lengths.next()
		if err != nil {
			return nil, fmt.Errorf("dictionary LENGTH: %w", err)
		}
		if n < 0 || n > int64(len(data)-off) {
			return nil, fmt.Errorf("dictionary entry %d of %d bytes past the end of DICTIONARY_DATA", i, n)
		}
		dict[i] = data[off : off+int(n) : off+int(n)]
		off += int(n)
	}
	return dict, nil
}

type structReader struct {
	base
	children []colReader
}

func (r *structReader) read(v *Vector, n int, absent []bool) error {
	nulls, _, err := r.presence(v, n, absent)
	if err != nil {
		return err
	}
	// the children hold values only where the struct is present
	mask := append([]bool(nil), nulls...)
	for i, c := range r.children {
		if err := c.read(v.Children[i], n, mask); err != nil {
			return fmt.Errorf("field %s: %w", v.Type.FieldNames[i], err)
		}
	}
	return nil
}

type listReader struct {
	base
	lengths  intReader
	children []colReader
}

func (r *listReader) read(v *Vector, n int, absent []bool) error {
	nulls, _, err := r.presence(v, n, absent)
	if err != nil {
		return err
	}
	total := 0
	end := v.Offsets[len(v.Offsets)-1]
	for _, null := range nulls {
		if !null {
			l, err := r.lengths.next()
			if err != nil {
				return fmt.Errorf("LENGTH: %w", err)
			}
			if l < 0 || l > maxBatchElements-int64(total) {
				return fmt.Errorf("LENGTH: %d elements in one batch, more than %d", int64(total)+l, maxBatchElements)
			}
			total += int(l)
			end += int(l)
		}
		v.Offsets = append(v.Offsets, end)
	}
	for i, c := range r.children {
		if err := c.read(v.Children[i], total, nil); err != nil {
			return err
		}
	}
	return nil
}

// fill appends n rows to dst: next's value for each row present, the zero
// value for each null.
func fill[T any](b *base, v *Vector, n int, absent []bool, dst *[]T, next func() (T, error)) error {
	nulls, _, err := b.presence(v, n, absent)
	if err != nil {
		return err
	}
	for _, null := range nulls {
		var x T
		if !null {
			if x, err = next(); err != nil {
				return err
			}
		}
		*dst = append(*dst, x)
	}
	return nil
}

type boolColumn struct {
	base
	data boolReader
}

func (c *boolColumn) read(v *Vector, n int, absent []bool) error {
	return fill(&c.base, v, n, absent, &v.Ints, func() (int64, error) {
		b, err := c.data.next()
		if err != nil {
			return 0, fmt.Errorf("DATA: %w", err)
		}
		if b {
			return 1, nil
		}
		return 0, nil
	})
}

type byteColumn struct {
	base
	data byteReader
}

func (c *byteColumn) read(v *Vector, n int, absent []bool) error {
	return fill(&c.base, v, n, absent, &v.Ints, func() (int64, error) {
		b, err := c.data.next()
		if err != nil {
			return 0, fmt.Errorf("DATA: %w", err)
		}
		return int64(int8(b)), nil
	})
}

type intColumn struct {
	base
	data intReader
}

func (c *intColumn) read(v *Vector, n int, absent []bool) error {
	return fill(&c.base, v, n, absent, &v.Ints, func() (int64, error) {
		x, err := c.data.next()
		if err != nil {
			return 0, fmt.Errorf("DATA: %w", err)
		}
		return x, nil
	})
}

type floatColumn struct {
	base
	data  []byte
	width int
}

func (c *floatColumn) read(v *Vector, n int, absent []bool) error {
	return fill(&c.base, v, n, absent, &v.Floats, func() (float64, error) {
		if len(c.data) < c.width {
			return 0, fmt.Errorf("DATA: %w", errEOS)
		}
		var x float64
		if c.width == 4 {
			x = float64(math.Float32frombits(binary.LittleEndian.Uint32(c.data)))
		} else {
			x = math.Float64frombits(binary.LittleEndian.Uint64(c.data))
		}
		c.data = c.data[c.width:]
		return x, nil
	})
}

type bytesColumn struct {
	base
	data    []byte
	lengths intReader
}

func (c *bytesColumn) read(v *Vector, n int, absent []bool) error {
	return fill(&c.base, v, n, absent, &v.Bytes, func() ([]byte, error) {
		l, err := c.lengths.next()
		if err != nil {
			return nil, fmt.Errorf("LENGTH: %w", err)
		}
		if l < 0 || l > int64(len(c.data)) {
			return nil, fmt.Errorf("value of %d bytes past the end of DATA (%d left)", l, len(c.data))
		}
		x := c.data[:l:l]
		c.data = c.data[l:]
		return x, nil
	})
}

type dictColumn struct {
	base
	index intReader
	dict  [][]byte
}

func (c *dictColumn) read(v *Vector, n int, absent []bool) error {
	return fill(&c.base, v, n, absent, &v.Bytes, func() ([]byte, error) {
		i, err := c.index.next()
		if err != nil {
			return nil, fmt.Errorf("DATA: %w", err)
		}
		if i < 0 || i >= int64(len(c.dict)) {
			return nil, fmt.Errorf("dictionary index %d of a dictionary of %d", i, len(c.dict))
		}
		return c.dict[i], nil
	})
}

type decimalColumn struct {
	base
	data   []byte
	scales intReader
	scale  int
	u      big.Int
}

func (c *decimalColumn) read(v *Vector, n int, absent []bool) error {
	return fill(&c.base, v, n, absent, &v.Decimals, func() (decimal.Decimal, error) {
		k, err := readDecimal(c.data, &c.u)
		if err != nil {
			return decimal.Decimal{}, fmt.Errorf("DATA: %w", err)
		}
		c.data = c.data[k:]
		s, err := c.scales.next()
		if err != nil {
			return decimal.Decimal{}, fmt.Errorf("SECONDARY: %w", err)
		}
		if s < -38 || s > 38 {
			return decimal.Decimal{}, fmt.Errorf("SECONDARY: decimal scale %d", s)
		}
		return decimal.NewFromBigInt(new(big.Int).Set(&c.u), int32(-s)), nil
	})
}

type timestampColumn struct {
	base
	secs, nanos intReader
	loc         *time.Location
	epoch       int64
}

// maxSeconds keeps seconds well inside int64 (±292 billion years).
const maxSeconds = 1 << 53

func (c *timestampColumn) read(v *Vector, n int, absent []bool) error {
	nulls, _, err := c.presence(v, n, absent)
	if err != nil {
		return err
	}
	for _, null := range nulls {
		var sec int64
		var nano int32
		if !null {
			s, err := c.secs.next()
			if err != nil {
				return fmt.Errorf("DATA: %w", err)
			}
			z, err := c.nanos.next()
			if err != nil {
				return fmt.Errorf("SECONDARY: %w", err)
			}
			ns := z >> 3
			if zeros := z & 7; zeros != 0 {
				for k := int64(0); k <= zeros; k++ {
					ns *= 10
				}
			}
			if ns < 0 || ns > 999_999_999 || s > maxSeconds || s < -maxSeconds {
				return fmt.Errorf("timestamp of %d seconds and %d nanoseconds", s, ns)
			}
			sec = s + c.epoch
			// writers store seconds rounded toward zero with positive
			// nanoseconds (ORC's TimestampColumnWriter)
			if sec < 0 && ns > 999_999 {
				sec--
			}
			if c.loc != nil {
				_, off := time.Unix(sec, 0).In(c.loc).Zone()
				sec += int64(off)
			}
			nano = int32(ns)
		}
		v.Secs = append(v.Secs, sec)
		v.Nanos = append(v.Nanos, nano)
	}
	return nil
}
