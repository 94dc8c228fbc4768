package row

import (
	"math"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"
)

// The timestamps the issue names: the "valid until" sentinel, the first
// instant of year 1, and the edges of int64 nanoseconds, which the row
// model held before and wrapped outside of.
var edgeTimestamps = []struct{ in, text string }{
	{"9999-12-31 23:59:59.999999999", "9999-12-31T23:59:59.999999999"},
	{"9999-12-31 23:59:59", "9999-12-31T23:59:59"},
	{"0001-01-01 00:00:00", "0001-01-01T00:00"},
	{"1677-09-21 00:12:43.145224191", "1677-09-21T00:12:43.145224191"},
	{"1677-09-21 00:12:43.145224192", "1677-09-21T00:12:43.145224192"},
	{"1677-01-01 00:00:00", "1677-01-01T00:00"},
	{"2262-04-11 23:47:16.854775807", "2262-04-11T23:47:16.854775807"},
	{"2262-04-11 23:47:16.854775808", "2262-04-11T23:47:16.854775808"},
	{"2263-01-01 00:00:00.5", "2263-01-01T00:00:00.500"},
	{"1969-12-31 23:59:59.999999", "1969-12-31T23:59:59.999999"},
	{"1970-01-01 00:00:00", "1970-01-01T00:00"},
}

var tsSchema = MustSchema("ts", Field{Name: "id", Type: BigInt}, Field{Name: "at", Type: Timestamp, Nullable: true})

func TestTimestampsFromYear1To9999(t *testing.T) {
	b := NewBuilder(tsSchema, len(edgeTimestamps))
	for i, e := range edgeTimestamps {
		if err := b.AppendRow(Insert, []any{int64(i), e.in}); err != nil {
			t.Fatalf("%s: %v", e.in, err)
		}
	}
	if err := b.AppendRow(Insert, []any{int64(99), nil}); err != nil {
		t.Fatal(err)
	}
	batch := b.Build()
	for _, got := range []*Batch{batch, roundTrip(t, batch)} {
		for i, e := range edgeTimestamps {
			v := got.Value(i, 1)
			want, _ := time.Parse("2006-01-02 15:04:05.999999999", e.in)
			if tm, ok := v.(time.Time); !ok || !tm.Equal(want) || tm.Location() != time.UTC {
				t.Errorf("%s: value %v, want %v", e.in, v, want)
			}
			if s := Text(Timestamp, v); s != e.text {
				t.Errorf("%s: Text %s, want %s", e.in, s, e.text)
			}
			sec, nano := got.Col(1).Timestamp(i)
			if got, w := string(AppendTimestamp(nil, sec, nano, ' ', true)), want.Format("2006-01-02 15:04:05.999999999"); got != w {
				t.Errorf("%s: AppendTimestamp %s, want %s", e.in, got, w)
			}
		}
		if got.Value(len(edgeTimestamps), 1) != nil {
			t.Error("null lost")
		}
	}
}

func TestTimestampCodecSizes(t *testing.T) {
	// Timestamps to the second cost one flag byte for their nanoseconds,
	// others 4 bytes a row.
	whole := MustSchema("w", Field{Name: "at", Type: Timestamp})
	c := NewColumn(Timestamp, 100)
	for i := range 100 {
		c.AppendTimestamp(1_700_000_000+int64(i), 0)
	}
	b := NewBatch(whole, nil, []*Column{c})
	sec := EncodedSize(b)
	c.Nanos[50] = 1
	frac := EncodedSize(b)
	if frac-sec != 4*100 {
		t.Errorf("nanoseconds cost %d bytes for 100 rows", frac-sec)
	}
	roundTrip(t, b)
	for _, part := range SplitBySize(b, 200) {
		if EncodedSize(part) > 200 {
			t.Errorf("part of %d bytes", EncodedSize(part))
		}
	}
}

// decodeTestdata reads a testdata file of an older codec version: what it
// wrote for everyTypeRows and a batch of timestamps (want, as text), which
// a checkpoint taken with it holds and which must restore.
func decodeTestdata(t *testing.T, path string, version byte, want []string) *Batch {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if raw[0] != version {
		t.Fatalf("version %d", raw[0])
	}
	d := NewDecoder()
	got, rest, err := d.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := batchEqual(everyTypeRows(t), got); err != nil {
		t.Fatal(err)
	}
	ts, rest, err := d.Decode(rest)
	if err != nil || len(rest) != 0 {
		t.Fatalf("%v, %d bytes left", err, len(rest))
	}
	for i, w := range want {
		if s := Text(Timestamp, ts.Value(i, 0)); s != w {
			t.Errorf("row %d: %s, want %s", i, s, w)
		}
	}
	if ts.Col(0).Nanos[1] != 0 || ts.Col(0).Secs[1] != 0 {
		t.Error("a null timestamp is not zero")
	}
	// Re-encoded, it is the current version and the same rows.
	again := roundTrip(t, ts)
	if again.Value(3, 0).(time.Time).Nanosecond() != 999999999 {
		t.Error("nanoseconds lost")
	}
	if AppendBatch(nil, ts)[0] != codecVersion {
		t.Error("not written at the current version")
	}
	return ts
}

// testdata/batches.v1.bin is what the version 1 codec (timestamps as int64
// nanoseconds) wrote.
func TestDecodeVersion1(t *testing.T) {
	decodeTestdata(t, "testdata/batches.v1.bin", 1, []string{"1677-09-21T00:12:43.145224192", "null", "2262-04-11T23:47:16.854775807", "1969-12-31T23:59:59.999999999", "2024-01-31T12:30"})
}

// testdata/batches.v2.bin is what the version 2 codec (before timestamp_tz)
// wrote, with timestamps of years 1 and 9999 too.
func TestDecodeVersion2(t *testing.T) {
	decodeTestdata(t, "testdata/batches.v2.bin", 2, []string{"1677-09-21T00:12:43.145224192", "null", "2262-04-11T23:47:16.854775807", "1969-12-31T23:59:59.999999999", "2024-01-31T12:30", "9999-12-31T23:59:59.999999999", "0001-01-01T00:00"})
}

func TestCivilCalendar(t *testing.T) {
	if got := DaysFromCivil(MinYear, 1, 1); got != MinDateDays {
		t.Errorf("LocalDate.MIN is day %d, want %d", got, MinDateDays)
	}
	if got := DaysFromCivil(MaxYear, 12, 31); got != MaxDateDays {
		t.Errorf("LocalDate.MAX is day %d, want %d", got, MaxDateDays)
	}
	if MinTimestampSec != time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC).Unix() || MaxTimestampSec != time.Date(MaxYear, 12, 31, 23, 59, 59, 0, time.UTC).Unix() {
		t.Errorf("LocalDateTime range %d..%d", MinTimestampSec, MaxTimestampSec)
	}
	rng := rand.New(rand.NewSource(1))
	for range 20000 {
		days := rng.Int63n(2*4_000_000) - 4_000_000 // years -9000..12900
		tm := time.Unix(days*86400, 0).UTC()
		y, m, d := CivilFromDays(days)
		if y != int64(tm.Year()) || m != int(tm.Month()) || d != tm.Day() {
			t.Fatalf("day %d: %d-%d-%d, want %s", days, y, m, d, tm)
		}
		if back := DaysFromCivil(y, m, d); back != days {
			t.Fatalf("%d-%d-%d: day %d, want %d", y, m, d, back, days)
		}
		if DateOf(tm) != days {
			t.Fatalf("DateOf(%s) = %d", tm, DateOf(tm))
		}
	}
	for y, want := range map[int64]string{0: "0000", 1: "0001", 999: "0999", 9999: "9999", 10000: "+10000", -1: "-0001", -999: "-0999", -1000: "-1000", MaxYear: "+999999999", MinYear: "-999999999"} {
		if got := string(AppendYear(nil, y)); got != want {
			t.Errorf("year %d: %s, want %s", y, got, want)
		}
	}
	if got := string(AppendJavaTimestamp(nil, MaxTimestampSec, 999_999_999)); got != "+999999999-12-31T23:59:59.999999999" {
		t.Errorf("LocalDateTime.MAX: %s", got)
	}
	if got := string(AppendJavaTimestamp(nil, MinTimestampSec, 0)); got != "-999999999-01-01T00:00" {
		t.Errorf("LocalDateTime.MIN: %s", got)
	}
}

func TestTimestampNanos(t *testing.T) {
	for _, ns := range []int64{0, -1, 1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1e9, math.MinInt64 + 1e9, -1e9, 1e9} {
		sec, nano := TimestampFromNanos(ns)
		if nano < 0 || nano >= 1e9 {
			t.Fatalf("%d: nano %d", ns, nano)
		}
		if back, err := TimestampNanos(sec, nano); err != nil || back != ns {
			t.Errorf("%d: %d, %v", ns, back, err)
		}
		if want := time.Unix(0, ns).UTC(); !TimestampTime(sec, nano).Equal(want) {
			t.Errorf("%d: %s, want %s", ns, TimestampTime(sec, nano), want)
		}
	}
	maxSec, maxNano := TimestampFromNanos(math.MaxInt64)
	minSec, minNano := TimestampFromNanos(math.MinInt64)
	for _, c := range [][2]int64{{maxSec, int64(maxNano) + 1}, {maxSec + 1, 0}, {minSec, int64(minNano) - 1}, {minSec - 1, 999_999_999}, {253402300799, 0}} {
		if _, err := TimestampNanos(c[0], int32(c[1])); err == nil {
			t.Errorf("%d s %d ns fit int64 nanoseconds", c[0], c[1])
		}
	}
	_, err := TimestampNanos(253402300799, 0)
	if err == nil || !strings.Contains(err.Error(), "9999-12-31T23:59:59") {
		t.Errorf("error %v does not name the value", err)
	}
}

func TestTimestampOutOfRange(t *testing.T) {
	far := time.Date(MaxYear+1, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBuilder(tsSchema, 1)
	err := b.AppendRow(Insert, []any{int64(1), far})
	if err == nil || !strings.Contains(err.Error(), "field at") || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("year %d: %v", MaxYear+1, err)
	}
	if _, err := Convert(Date, far); err == nil {
		t.Error("date out of range accepted")
	}
	// The wall clock is read as is, whatever the zone.
	loc := time.FixedZone("x", -8*3600)
	sec, nano := TimestampOf(time.Date(9999, 12, 31, 23, 59, 59, 999999999, loc))
	if got := string(AppendJavaTimestamp(nil, sec, nano)); got != "9999-12-31T23:59:59.999999999" {
		t.Errorf("zoned wall clock: %s", got)
	}
}

func TestTimestampAppendAllocates(t *testing.T) {
	c := NewColumn(Timestamp, 1024)
	if n := testing.AllocsPerRun(10, func() {
		c.Secs, c.Nanos = c.Secs[:0], c.Nanos[:0]
		for i := range 1024 {
			c.AppendTimestamp(int64(i), int32(i))
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
