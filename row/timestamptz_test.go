package row

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/batches.v3.bin from the current encoder")

// tzSchema has a timestamp_tz column, a nested one and a plain timestamp
// beside them.
var tzSchema = MustSchema("db.tz",
	Field{Name: "id", Type: BigInt},
	Field{Name: "tz", Type: TimestampTZ, Nullable: true},
	Field{Name: "arr", Type: ArrayOf(TimestampTZ), Nullable: true},
	Field{Name: "m", Type: MapOf(String, TimestampTZ), Nullable: true},
	Field{Name: "ts", Type: Timestamp, Nullable: true},
)

// tzTexts are timestamp_tz values as Java's OffsetDateTime.toString prints
// them: offsets with minutes (+05:45) and at the ends of the range
// (-12:00, +14:00, ±18:00), years 1 and 9999, fractions without trailing
// zeros in groups of three.
var tzTexts = []string{
	"2024-01-01T10:00+08:00",
	"2024-01-01T02:00Z",
	"2024-06-30T23:59:59.999999999+05:45",
	"0001-01-01T00:00-12:00",
	"9999-12-31T23:59:59.999999999+14:00",
	"0001-01-01T00:00+18:00",
	"9999-12-31T23:59:59-18:00",
	"1969-12-31T23:59:59.500-03:30",
	"2024-02-29T12:30:15.123456+01:00",
	"2024-02-29T12:30:15.000001-00:30",
}

func tzBatch(t testing.TB) *Batch {
	t.Helper()
	var rows [][]any
	for i, s := range tzTexts {
		rows = append(rows, []any{int64(i), s, []any{s, nil, tzTexts[(i+1)%len(tzTexts)]}, OrderedMap{{Key: "k", Value: s}}, "2024-01-31T12:30:00"})
	}
	rows = append(rows, []any{int64(99), nil, nil, nil, nil})
	return mustBuild(t, tzSchema, nil, rows...)
}

func TestTimestampTZText(t *testing.T) {
	b := tzBatch(t)
	for i, want := range tzTexts {
		if got := Text(TimestampTZ, b.Value(i, 1)); got != want {
			t.Errorf("row %d: %s, want %s", i, got, want)
		}
		sec, nano, off := b.Col(1).TimestampTZ(i)
		if got := string(AppendJavaTimestampTZ(nil, sec, nano, off)); got != want {
			t.Errorf("row %d: AppendJavaTimestampTZ = %s, want %s", i, got, want)
		}
	}
	// The instant is held, the offset beside it.
	sec, nano, off := b.Col(1).TimestampTZ(0)
	if want := time.Date(2024, 1, 1, 2, 0, 0, 0, time.UTC).Unix(); sec != want || nano != 0 || off != 8*3600 {
		t.Errorf("stored %d %d %d, want %d 0 28800", sec, nano, off, want)
	}
	// Rows 0 and 1 are the same instant at different offsets.
	if s0, _, _ := b.Col(1).TimestampTZ(1); s0 != sec {
		t.Errorf("2024-01-01T02:00Z is %d, 2024-01-01T10:00+08:00 is %d", s0, sec)
	}
	if got := Text(ArrayOf(TimestampTZ), b.Value(0, 2)); got != "[2024-01-01T10:00+08:00, null, 2024-01-01T02:00Z]" {
		t.Errorf("array text %s", got)
	}
	if got := Text(nil, b.Value(2, 1)); got != tzTexts[2] {
		t.Errorf("untyped text %s", got)
	}
	for _, tc := range []struct {
		off  int32
		want string
	}{{0, "Z"}, {3600, "+01:00"}, {-(5*3600 + 45*60), "-05:45"}, {3600 + 1, "+01:00:01"}, {-MaxOffsetSec, "-18:00"}} {
		if got := string(AppendOffset(nil, tc.off)); got != tc.want {
			t.Errorf("offset %d: %s, want %s", tc.off, got, tc.want)
		}
	}
	if got := string(AppendTimestampTZ(nil, sec, nano, off, ' ', false)); got != "2024-01-01 10:00:00+08:00" {
		t.Errorf("AppendTimestampTZ = %s", got)
	}
}

func TestTimestampTZConvert(t *testing.T) {
	for _, in := range []string{"2024-01-01T10:00:00+08:00", "2024-01-01 10:00:00+08:00", "2024-01-01T10:00+08:00", "2024-01-01 10:00:00+0800", "2024-01-01 10:00:00+08"} {
		v, err := Convert(TimestampTZ, in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := Text(TimestampTZ, v); got != "2024-01-01T10:00+08:00" {
			t.Errorf("%s reads as %s", in, got)
		}
	}
	// At offset 0 it is boxed in ZoneZ, not in time.UTC (a timestamp's):
	// untyped, it still prints as a timestamp_tz, and keeps its kind
	// nested in the codec.
	z, _ := Convert(TimestampTZ, "2024-01-01T10:00:00Z")
	if z.(time.Time).Location() != ZoneZ || Text(nil, z) != "2024-01-01T10:00Z" {
		t.Errorf("offset 0 boxed as %v, text %s", z.(time.Time).Location(), Text(nil, z))
	}
	if s, _ := Convert(String, z); s != "2024-01-01T10:00Z" {
		t.Errorf("as string %v", s)
	}
	// The offset is the value's own, not the machine's zone.
	local := time.Date(2024, 7, 1, 12, 0, 0, 0, time.FixedZone("CEST", 7200))
	v, err := Convert(TimestampTZ, local)
	if err != nil || Text(TimestampTZ, v) != "2024-07-01T12:00+02:00" {
		t.Errorf("%v, %v", v, err)
	}
	// To a timestamp it is its wall clock (OffsetDateTime.toLocalDateTime).
	if ts, err := Convert(Timestamp, v); err != nil || Text(Timestamp, ts) != "2024-07-01T12:00" {
		t.Errorf("as timestamp: %v, %v", ts, err)
	}
	// A timestamp becomes the same wall clock at offset 0.
	if tz, err := Convert(TimestampTZ, time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)); err != nil || Text(TimestampTZ, tz) != "2024-07-01T12:00Z" {
		t.Errorf("from timestamp: %v, %v", tz, err)
	}
	if s, _ := Convert(String, v); s != "2024-07-01T12:00+02:00" {
		t.Errorf("as string %v", s)
	}
	for _, bad := range []any{"2024-01-01T10:00:00", "yesterday", true, time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("", 19*3600))} {
		if v, err := Convert(TimestampTZ, bad); err == nil {
			t.Errorf("%v converted to %v", bad, v)
		}
	}
	if err := CheckTimestampTZ(MaxTimestampSec, 3600); err == nil {
		t.Error("a wall clock past LocalDateTime.MAX passed")
	}
	if err := CheckTimestampTZ(MaxTimestampSec, -3600); err != nil {
		t.Error(err)
	}
}

func TestCodecTimestampTZ(t *testing.T) {
	b := tzBatch(t)
	got := roundTrip(t, b)
	for i := range tzTexts {
		if a, b := b.Col(1).Offs[i], got.Col(1).Offs[i]; a != b {
			t.Errorf("row %d: offset %d, want %d", i, b, a)
		}
	}
	if got.Col(1).Offs[len(tzTexts)] != 0 || got.Col(1).Secs[len(tzTexts)] != 0 {
		t.Error("a null timestamp_tz is not zero")
	}
	// Slices, takes and recycled takes keep the offsets.
	roundTrip(t, b.Slice(2, 5))
	if c := b.Col(1).Take([]int{3, 0}); Text(TimestampTZ, c.Value(0)) != tzTexts[3] || Text(TimestampTZ, c.Value(1)) != tzTexts[0] {
		t.Errorf("Take: %v %v", c.Value(0), c.Value(1))
	}
	if c := b.Col(1).TakeRecycled([]int{4}); Text(TimestampTZ, c.Value(0)) != tzTexts[4] {
		t.Errorf("TakeRecycled: %v", c.Value(0))
	}
	// One offset for all rows costs one varint; mixed offsets one per row.
	one := mustBuild(t, MustSchema("t", Field{Name: "tz", Type: TimestampTZ, Nullable: true}), nil,
		[]any{"2024-01-01T10:00+05:45"}, []any{nil}, []any{"2024-01-02T10:00+05:45"})
	mixed := mustBuild(t, MustSchema("t", Field{Name: "tz", Type: TimestampTZ, Nullable: true}), nil,
		[]any{"2024-01-01T10:00+05:45"}, []any{nil}, []any{"2024-01-02T10:00-12:00"})
	if a, b := len(AppendBatch(nil, one)), len(AppendBatch(nil, mixed)); b-a < 2 {
		t.Errorf("one offset %d bytes, mixed %d", a, b)
	}
	roundTrip(t, one)
	roundTrip(t, mixed)
	// Split by size, each part within the limit (a row alone may be over).
	parts := SplitBySize(b, 300)
	if len(parts) < 2 {
		t.Fatalf("%d bytes in %d part", EncodedSize(b), len(parts))
	}
	for _, part := range parts {
		if n := EncodedSize(part); n > 300 && part.Len() > 1 {
			t.Errorf("a part of %d rows is %d bytes", part.Len(), n)
		}
		roundTrip(t, part)
	}
}

// A timestamp_tz encoding whose offsets are beyond ±18:00 is corrupt.
func TestDecodeTimestampTZCorrupt(t *testing.T) {
	b := mustBuild(t, MustSchema("t", Field{Name: "tz", Type: TimestampTZ}), nil, []any{"2024-01-01T10:00+18:00"})
	enc := AppendBatch(nil, b)
	// The last byte is the zigzag varint of 64800's last byte; make the
	// offset larger.
	i := bytes.LastIndex(enc, []byte{0xc0, 0xf4, 0x07})
	if i < 0 {
		t.Fatalf("offset varint not found in % x", enc)
	}
	enc[i+2] = 0x08
	if _, _, err := NewDecoder().Decode(enc); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Decode: %v, want ErrCorrupt", err)
	}
}

// testdata/batches.v3.bin is tzBatch as version 3 wrote it: a later
// version must still read it.
func TestDecodeVersion3(t *testing.T) {
	if *update {
		if err := os.WriteFile("testdata/batches.v3.bin", AppendBatch(nil, tzBatch(t)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile("testdata/batches.v3.bin")
	if err != nil {
		t.Fatal(err)
	}
	if raw[0] != 3 {
		t.Fatalf("version %d", raw[0])
	}
	got, rest, err := NewDecoder().Decode(raw)
	if err != nil || len(rest) != 0 {
		t.Fatalf("%v, %d bytes left", err, len(rest))
	}
	if err := batchEqual(tzBatch(t), got); err != nil {
		t.Fatal(err)
	}
}
