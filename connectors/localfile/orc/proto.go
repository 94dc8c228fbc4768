package orc

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The messages of orc_proto.proto that a reader and a writer need, with
// their field numbers as the specification gives them. Fields not listed
// are skipped on read and not written.

// Compression is a file's CompressionKind.
type Compression int

// The compression kinds (CompressionKind).
const (
	None   Compression = 0
	Zlib   Compression = 1
	Snappy Compression = 2
	LZO    Compression = 3
	LZ4    Compression = 4
	Zstd   Compression = 5
)

func (c Compression) String() string {
	switch c {
	case None:
		return "NONE"
	case Zlib:
		return "ZLIB"
	case Snappy:
		return "SNAPPY"
	case LZO:
		return "LZO"
	case LZ4:
		return "LZ4"
	case Zstd:
		return "ZSTD"
	}
	return fmt.Sprintf("compression %d", int(c))
}

type postScript struct {
	footerLength   uint64
	compression    Compression
	blockSize      uint64
	version        []uint32
	metadataLength uint64
	writerVersion  uint32
	magic          string
}

type stripeInfo struct {
	offset, indexLength, dataLength, footerLength, rows uint64
}

type footer struct {
	headerLength, contentLength uint64
	stripes                     []stripeInfo
	types                       []typeMsg
	rows                        uint64
	stats                       []colStats
	rowIndexStride              uint32
	writer                      uint32
}

type typeMsg struct {
	kind                        Kind
	subtypes                    []uint32
	fieldNames                  []string
	maxLength, precision, scale uint32
	hasScale                    bool
}

type colStats struct {
	values  uint64
	hasNull bool
}

// StreamKind is a stream's kind (Stream.Kind).
type streamKind int

const (
	streamPresent    streamKind = 0
	streamData       streamKind = 1
	streamLength     streamKind = 2
	streamDictionary streamKind = 3
	streamSecondary  streamKind = 5
	streamRowIndex   streamKind = 6
)

type streamMsg struct {
	kind   streamKind
	column uint32
	length uint64
}

// encoding is a column's ColumnEncoding.Kind.
type encoding int

const (
	encDirect       encoding = 0
	encDictionary   encoding = 1
	encDirectV2     encoding = 2
	encDictionaryV2 encoding = 3
)

type columnEncoding struct {
	kind     encoding
	dictSize uint32
}

type stripeFooter struct {
	streams  []streamMsg
	columns  []columnEncoding
	timezone string
}

var errProto = errors.New("damaged protobuf message")

// fields calls fn for each field of message b: its number, wire type,
// varint value (varint fields) and bytes (length-delimited fields).
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errProto
		}
		b = b[n:]
		var v uint64
		var data []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			data, n = protowire.ConsumeBytes(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v = uint64(x)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return errProto
		}
		b = b[n:]
		if err := fn(num, typ, v, data); err != nil {
			return err
		}
	}
	return nil
}

// varints reads the varint fields of message b into dst by number.
func varints(b []byte, dst map[protowire.Number]*uint64) error {
	return fields(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
		if p, ok := dst[num]; ok {
			*p = v
		}
		return nil
	})
}

// uint32s reads a repeated uint32 field, packed or not.
func uint32s(dst []uint32, typ protowire.Type, v uint64, data []byte) ([]uint32, error) {
	if typ == protowire.VarintType {
		return append(dst, uint32(v)), nil
	}
	for len(data) > 0 {
		x, n := protowire.ConsumeVarint(data)
		if n < 0 {
			return nil, errProto
		}
		dst = append(dst, uint32(x))
		data = data[n:]
	}
	return dst, nil
}

func parsePostScript(b []byte) (*postScript, error) {
	ps := &postScript{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		var err error
		switch num {
		case 1:
			ps.footerLength = v
		case 2:
			ps.compression = Compression(v)
		case 3:
			ps.blockSize = v
		case 4:
			ps.version, err = uint32s(ps.version, typ, v, data)
		case 5:
			ps.metadataLength = v
		case 6:
			ps.writerVersion = uint32(v)
		case 8000:
			ps.magic = string(data)
		}
		return err
	})
	return ps, err
}

func parseFooter(b []byte) (*footer, error) {
	f := &footer{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			f.headerLength = v
		case 2:
			f.contentLength = v
		case 3:
			var s stripeInfo
			if err := varints(data, map[protowire.Number]*uint64{1: &s.offset, 2: &s.indexLength, 3: &s.dataLength, 4: &s.footerLength, 5: &s.rows}); err != nil {
				return err
			}
			f.stripes = append(f.stripes, s)
		case 4:
			t, err := parseType(data)
			if err != nil {
				return err
			}
			f.types = append(f.types, t)
		case 6:
			f.rows = v
		case 8:
			f.rowIndexStride = uint32(v)
		case 9:
			f.writer = uint32(v)
		}
		return nil
	})
	return f, err
}

func parseType(b []byte) (typeMsg, error) {
	var t typeMsg
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		var err error
		switch num {
		case 1:
			t.kind = Kind(v)
		case 2:
			t.subtypes, err = uint32s(t.subtypes, typ, v, data)
		case 3:
			t.fieldNames = append(t.fieldNames, string(data))
		case 4:
			t.maxLength = uint32(v)
		case 5:
			t.precision = uint32(v)
		case 6:
			t.scale, t.hasScale = uint32(v), true
		}
		return err
	})
	return t, err
}

func parseStripeFooter(b []byte) (*stripeFooter, error) {
	sf := &stripeFooter{}
	err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			var kind, column, length uint64
			if err := varints(data, map[protowire.Number]*uint64{1: &kind, 2: &column, 3: &length}); err != nil {
				return err
			}
			if column > 1<<31 {
				return fmt.Errorf("stream of column %d", column)
			}
			sf.streams = append(sf.streams, streamMsg{kind: streamKind(kind), column: uint32(column), length: length})
		case 2:
			var kind, size uint64
			if err := varints(data, map[protowire.Number]*uint64{1: &kind, 2: &size}); err != nil {
				return err
			}
			if kind > 3 || size > 1<<31 {
				return fmt.Errorf("column encoding %d with a dictionary of %d", kind, size)
			}
			sf.columns = append(sf.columns, columnEncoding{kind: encoding(kind), dictSize: uint32(size)})
		case 3:
			sf.timezone = string(data)
		}
		return nil
	})
	return sf, err
}

// Encoders, for the writer.

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendPacked(b []byte, num protowire.Number, vs []uint32) []byte {
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return appendBytesField(b, num, p)
}

func (ps *postScript) marshal() []byte {
	var b []byte
	b = appendVarintField(b, 1, ps.footerLength)
	b = appendVarintField(b, 2, uint64(ps.compression))
	if ps.compression != None {
		b = appendVarintField(b, 3, ps.blockSize)
	}
	b = appendPacked(b, 4, ps.version)
	b = appendVarintField(b, 5, ps.metadataLength)
	b = appendVarintField(b, 6, uint64(ps.writerVersion))
	b = protowire.AppendTag(b, 8000, protowire.BytesType)
	return protowire.AppendString(b, ps.magic)
}

func (f *footer) marshal() []byte {
	var b []byte
	b = appendVarintField(b, 1, f.headerLength)
	b = appendVarintField(b, 2, f.contentLength)
	for _, s := range f.stripes {
		var m []byte
		m = appendVarintField(m, 1, s.offset)
		m = appendVarintField(m, 2, s.indexLength)
		m = appendVarintField(m, 3, s.dataLength)
		m = appendVarintField(m, 4, s.footerLength)
		m = appendVarintField(m, 5, s.rows)
		b = appendBytesField(b, 3, m)
	}
	for _, t := range f.types {
		var m []byte
		m = appendVarintField(m, 1, uint64(t.kind))
		if len(t.subtypes) > 0 {
			m = appendPacked(m, 2, t.subtypes)
		}
		for _, n := range t.fieldNames {
			m = appendBytesField(m, 3, []byte(n))
		}
		if t.kind == KindDecimal {
			m = appendVarintField(m, 5, uint64(t.precision))
			m = appendVarintField(m, 6, uint64(t.scale))
		}
		b = appendBytesField(b, 4, m)
	}
	b = appendVarintField(b, 6, f.rows)
	for _, s := range f.stats {
		var m []byte
		m = appendVarintField(m, 1, s.values)
		m = appendVarintField(m, 10, uint64(protowire.EncodeBool(s.hasNull)))
		b = appendBytesField(b, 7, m)
	}
	b = appendVarintField(b, 8, uint64(f.rowIndexStride))
	return b
}

func (sf *stripeFooter) marshal() []byte {
	var b []byte
	for _, s := range sf.streams {
		var m []byte
		m = appendVarintField(m, 1, uint64(s.kind))
		m = appendVarintField(m, 2, uint64(s.column))
		m = appendVarintField(m, 3, s.length)
		b = appendBytesField(b, 1, m)
	}
	for _, e := range sf.columns {
		var m []byte
		m = appendVarintField(m, 1, uint64(e.kind))
		if e.kind == encDictionary || e.kind == encDictionaryV2 {
			m = appendVarintField(m, 2, uint64(e.dictSize))
		}
		b = appendBytesField(b, 2, m)
	}
	if sf.timezone != "" {
		b = appendBytesField(b, 3, []byte(sf.timezone))
	}
	return b
}
