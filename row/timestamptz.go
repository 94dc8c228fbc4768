package row

// Timestamps with a time zone (timestamp_tz).
//
// A timestamp_tz is SeaTunnel's TIMESTAMP WITH TIME ZONE, Java's
// OffsetDateTime: an instant and the UTC offset it was written at. A column
// holds it in three vectors: Secs, the instant in seconds since
// 1970-01-01T00:00Z (as OffsetDateTime.toEpochSecond), Nanos, the
// nanoseconds within that second, and Offs, the offset in seconds east of
// UTC (ZoneOffset.getTotalSeconds, -18:00..+18:00). Keeping the instant,
// not the wall clock, makes comparisons and formats that store instants
// (Parquet's and ORC's UTC-adjusted timestamps, PostgreSQL's timestamptz)
// a plain read; the wall clock is Secs+Offs.
//
// The range is a timestamp's: the wall clock (Secs+Offs) within
// LocalDateTime.MIN..MAX, as OffsetDateTime's own range is.
//
// The boxed form (Value) is a time.Time at the instant in a fixed zone of
// the offset; at offset 0 that zone is ZoneZ, never time.UTC, which boxed
// timestamps and dates are in: a boxed value tells which of them it is
// where no type is at hand (Text(nil, v), Convert to string, nested values
// in the codec).

import (
	"fmt"
	"time"
)

// ZoneZ is the zone of a boxed timestamp_tz at offset 0 (Z).
var ZoneZ = time.FixedZone("Z", 0)

// MaxOffsetSec is the largest UTC offset, in seconds, Java's ZoneOffset
// allows (±18:00).
const MaxOffsetSec = 18 * 3600

// TimestampTZOf is the stored form of a timestamp_tz: t's instant in
// seconds since 1970-01-01T00:00Z and nanoseconds past them, and the UTC
// offset of t's zone at that instant in seconds.
func TimestampTZOf(t time.Time) (sec int64, nano int32, off int32) {
	_, o := t.Zone()
	return t.Unix(), int32(t.Nanosecond()), int32(o)
}

// TimestampTZTime is a stored timestamp_tz as a time.Time at the instant,
// in a fixed zone of the offset (the boxed form, see Value).
func TimestampTZTime(sec int64, nano int32, off int32) time.Time {
	t := time.Unix(sec, int64(nano))
	if off == 0 {
		return t.In(ZoneZ)
	}
	return t.In(time.FixedZone("", int(off)))
}

// CheckTimestampTZ returns an error when a timestamp_tz is outside the
// range the row model holds: an offset beyond ±18:00 or a wall clock
// outside LocalDateTime's range.
func CheckTimestampTZ(sec int64, off int32) error {
	if off < -MaxOffsetSec || off > MaxOffsetSec {
		return fmt.Errorf("zone offset %s out of range (-18:00..+18:00)", offsetText(off))
	}
	if err := CheckTimestamp(sec + int64(off)); err != nil {
		return fmt.Errorf("timestamp_tz out of range: years %d..%d (OffsetDateTime.MIN..MAX)", MinYear, MaxYear)
	}
	return nil
}

// AppendOffset appends a UTC offset as Java's ZoneOffset.getId: Z for
// zero, else +HH:MM, with :SS when the seconds are not zero.
func AppendOffset(b []byte, off int32) []byte {
	if off == 0 {
		return append(b, 'Z')
	}
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = append(b, sign)
	b = append2(b, int(off/3600))
	b = append(b, ':')
	b = append2(b, int(off/60%60))
	if s := off % 60; s != 0 {
		b = append(b, ':')
		b = append2(b, int(s))
	}
	return b
}

func offsetText(off int32) string {
	var buf [16]byte
	return string(AppendOffset(buf[:0], off))
}

// AppendJavaTimestampTZ appends a stored timestamp_tz as Java's
// OffsetDateTime.toString: the wall clock as LocalDateTime.toString, then
// the offset: 2024-01-01T10:00+08:00, 2024-01-01T10:00:15.250Z.
func AppendJavaTimestampTZ(b []byte, sec int64, nano int32, off int32) []byte {
	b = AppendJavaTimestamp(b, sec+int64(off), nano)
	return AppendOffset(b, off)
}

// AppendTimestampTZ is AppendTimestamp of the wall clock followed by the
// offset (see AppendOffset): 2024-01-01 10:00:00+08:00 with sep ' ' and no
// frac.
func AppendTimestampTZ(b []byte, sec int64, nano int32, off int32, sep byte, frac bool) []byte {
	b = AppendTimestamp(b, sec+int64(off), nano, sep, frac)
	return AppendOffset(b, off)
}

// timestampTZLayouts are the texts ParseTimestampTZ reads: ISO-8601 with an
// offset (Z, +HH:MM, +HHMM, +HH, +HH:MM:SS), 'T' or ' ' between date and
// clock, seconds and fraction optional.
var timestampTZLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00",
	"2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999Z07",
	"2006-01-02T15:04:05.999999999Z07:00:00", "2006-01-02 15:04:05.999999999Z07:00:00",
	"2006-01-02T15:04Z07:00:00", "2006-01-02T15:04Z07",
}

// ParseTimestampTZ reads a timestamp with its offset, as Java's
// OffsetDateTime.parse and PostgreSQL print it: 2024-01-01T10:00:00+08:00,
// 2024-01-01T02:00Z, 2024-01-01 10:00:00.5+05:45, 2024-01-01 10:00:00+08.
// A text without an offset is not a timestamp_tz (Java refuses it too).
func ParseTimestampTZ(s string) (time.Time, error) {
	if t, ok := parseLayouts(timestampTZLayouts, s); ok {
		// Parse may give the Local zone for an offset Local uses: the
		// boxed form is a fixed zone.
		return TimestampTZTime(TimestampTZOf(t)), nil
	}
	return time.Time{}, fmt.Errorf("not a timestamp with an offset (want yyyy-MM-ddTHH:mm:ss+HH:MM)")
}
