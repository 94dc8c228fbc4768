package row

import (
	"errors"
	"fmt"
)

// The batch codec writes a Batch as bytes for checkpoint channel state and
// for batches crossing nodes (DESIGN §4, §5). An encoding is self-describing:
// it carries its schema, so a restore or another node needs nothing else.
//
// Version 3 layout. uvarint and varint are encoding/binary's (varint is
// zigzag); fixed-width numbers are little-endian; a bitmap holds row i in
// bit i%8 of byte i/8, (rows+7)/8 bytes.
//
//	batch   version:u8  schemaLen:uvarint schema  rows:uvarint  flags:u8 (1: kinds follow,
//	        2: a schema-change batch, rows 0 and nothing after the flags but,
//	        with 4, its change)
//	        [kinds: rows × u8]  column × len(fields)
//	schema  table:str  pkCount:uvarint pk:str…  fieldCount:uvarint
//	        (name:str  flags:u8 (1: nullable)  comment:str  type:str (Type.String))…
//	change  version:varint  clauses:uvarint  (op:u8 (1 add, 2 drop, 3 change, 4 rename)  name:str
//	        [field: as in schema, not for drop]  default:str  first:u8  after:str  mysqlType:str)…
//	str     len:uvarint bytes
//	column  flags:u8 (1: null bitmap follows)  [nulls:bitmap]  values by storage:
//	  none      nothing (the bitmap is always there, all set)
//	  int       base:varint width:u8 (1..8), then rows × width bytes of v-base
//	  timestamp the seconds as int, then flags:u8 (1: nanoseconds follow) and
//	            [rows × 4 bytes of nanoseconds]
//	  timestamp_tz  the instants as a timestamp, then flags:u8 (1: an offset
//	            per row) and the UTC offsets in seconds: one varint for all
//	            rows (flags 0) or rows × varint (null rows 0)
//	  float     rows × 8 bytes, the IEEE bits (NaN payloads and -0 kept)
//	  bool      bitmap
//	  string,   rows × len:uvarint, then all the bytes: a decoder makes one
//	  bytes     string (or []byte) of them and slices it, no copy per value
//	  decimal   a dec per row that is not null
//	  any       size:uvarint, then a value per row (size bytes in all)
//	dec     head:uvarint = zigzag(exponent)<<1 | big, then the coefficient:
//	        varint (big=0), or uvarint(n<<1 | negative) + n bytes of its
//	        magnitude, big-endian (big=1)
//	value   tag:u8 and a payload by tag: null, false, true (none); int (varint);
//	        float (8 bytes); decimal (dec); string, bytes (str); time (unix
//	        seconds:varint, nanoseconds:uvarint; decoded in UTC); time with
//	        an offset, a timestamp_tz (as time, then offset seconds:varint);
//	        duration (varint); list (count:uvarint, values: an array or a
//	        row); map (count:uvarint, key and value × count)
//
// Integers are packed frame-of-reference: the column's minimum, then each
// value's distance from it in the fewest whole bytes that hold the largest
// distance. That is as fast to write and read as fixed 8 bytes (a masked
// 8-byte load per value, no branch per value, unlike varints) and as small as
// varints or smaller for ids, dates, timestamps within a batch. Null rows are
// left out of the range and decode as 0, which Column keeps there.
//
// Nested values carry their boxed Go type in the tag byte that a null flag
// would take anyway: the same size as an encoding driven by the field type,
// and a value that does not match its declared type still round-trips
// instead of failing AppendBatch, which has no error to return.
//
// Version 3 added timestamp_tz: its column and the time-with-offset value
// tag. Version 2 is version 3 without them, so Decode reads it as is.
// Version 1, which Decode still reads (checkpoints written before version
// 2), is version 2 but for timestamp columns: they were an int column of
// nanoseconds since 1970-01-01, the row model's timestamps then.
// testdata/batches.v1.bin and batches.v2.bin pin both.
const codecVersion = 3

// minCodecVersion is the oldest version Decode reads.
const minCodecVersion = 1

const (
	batchKinds        = 1 << 0 // batch flag: kinds follow
	batchSchemaChange = 1 << 1 // batch flag: a schema-change batch (schemachange.go), no columns follow
	batchChangeDetail = 1 << 2 // batch flag: a schema-change batch's version and clauses follow
	colNulls          = 1 << 0 // column flag: a null bitmap follows
	fieldNull         = 1 << 0 // field flag: nullable
	tsNanos           = 1 << 0 // timestamp column flag: nanoseconds follow
	tsOffsets         = 1 << 0 // timestamp_tz offsets flag: an offset per row follows
)

// Tags of nested values.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagDecimal
	tagString
	tagBytes
	tagTime
	tagDuration
	tagList
	tagMap
	tagTimeTZ // version 3
)

// maxDepth bounds the nesting of decoded values, so hostile input cannot
// recurse without end; real types nest a few levels.
const maxDepth = 100

// maxSchemas bounds a Decoder's schema cache.
const maxSchemas = 64

var (
	// ErrCorrupt is returned (wrapped) when bytes are not a batch encoding.
	ErrCorrupt = errors.New("row codec: corrupt batch")
	// ErrTruncated is returned (wrapped) when the input ends inside a batch;
	// it wraps ErrCorrupt.
	ErrTruncated = fmt.Errorf("%w: truncated", ErrCorrupt)
	// ErrVersion is returned (wrapped) for an encoding of a version this
	// build does not read.
	ErrVersion = errors.New("row codec: unsupported encoding version")
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}
