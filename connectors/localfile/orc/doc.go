// Package orc reads and writes Apache ORC files (the ORCv1 specification,
// https://orc.apache.org/specification/ORCv1/), written from the
// specification for LocalFile's orc format: there is no maintained pure-Go
// ORC library with a permissive licence.
//
// The reader takes files of every ORC writer: compression NONE, ZLIB,
// SNAPPY, LZ4 and ZSTD (LZO is refused with the reason), integer RLE v1 and
// v2 (all four v2 sub-encodings), byte and boolean RLE, strings and binary
// direct and dictionary-encoded, decimals, dates, timestamps (seconds from
// the ORC epoch 2015-01-01 in the writer's time zone, nanoseconds with
// their trailing zeros folded), lists, maps, structs, unions and PRESENT
// streams. It decodes only the columns asked for, a batch at a time, into
// column vectors (Vector). Every length, offset and count read from a file
// is checked against the file before it is used: a damaged file is an
// error naming what is wrong, never a panic or an unbounded allocation.
//
// The writer writes what Apache ORC's Java writer writes for SeaTunnel
// (file version 0.12): RLE v2, direct string encoding, one stripe per
// StripeBytes of buffered data, file statistics with value counts, no row
// index (rowIndexStride 0, which every ORC reader accepts), timestamps as
// wall clock in UTC (writerTimezone "UTC"), and compression NONE, ZLIB,
// SNAPPY, LZ4 or ZSTD in chunks of 256 KiB.
//
// The protobuf messages of the file tail and stripe footers are decoded
// and encoded by hand with protowire: only the few fields ORC readers need
// (proto.go), which keeps the schema in this package without generated
// code.
package orc
