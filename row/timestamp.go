package row

// Timestamps, dates and the civil calendar.
//
// A timestamp is SeaTunnel's LocalDateTime: a wall clock without zone. A
// column holds it in two vectors, Secs (seconds since 1970-01-01T00:00 of
// that clock, as LocalDateTime.toEpochSecond(UTC)) and Nanos (the
// nanoseconds within the second, 0..999,999,999). Int64 nanoseconds, the
// obvious single vector, span only 1677-09-21..2262-04-11 and wrap silently
// outside it — `9999-12-31 23:59:59`, the usual "valid until" sentinel,
// would read back as 1816. Two plain vectors keep appends and reads free of
// allocation and let the codec pack the seconds frame-of-reference like any
// int column.
//
// The range held is Java's: LocalDateTime.MIN (-999999999-01-01T00:00) to
// LocalDateTime.MAX (+999999999-12-31T23:59:59.999999999); a value outside
// it is an error where it is made (Convert, SQL arithmetic), never a wrap.
// Dates are days since 1970-01-01 in Ints, over the same years.

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

const secsPerDay = 86400

// The range of timestamps and dates, Java's LocalDateTime.MIN and MAX.
const (
	MinYear = -999_999_999
	MaxYear = 999_999_999
	// MinDateDays and MaxDateDays are LocalDate.MIN and MAX in days since
	// 1970-01-01.
	MinDateDays int64 = -365_243_219_162
	MaxDateDays int64 = 365_241_780_471
	// MinTimestampSec and MaxTimestampSec are the seconds of
	// LocalDateTime.MIN and MAX.
	MinTimestampSec = MinDateDays * secsPerDay
	MaxTimestampSec = (MaxDateDays+1)*secsPerDay - 1
)

// TimestampOf is the stored form of a timestamp: the wall clock of t read
// as UTC, in seconds since 1970-01-01T00:00 and nanoseconds past them.
func TimestampOf(t time.Time) (sec int64, nano int32) {
	_, off := t.Zone()
	return t.Unix() + int64(off), int32(t.Nanosecond())
}

// TimestampTime is a stored timestamp as a time.Time in UTC (the boxed
// form, see Value).
func TimestampTime(sec int64, nano int32) time.Time {
	return time.Unix(sec, int64(nano)).UTC()
}

// CheckTimestamp returns an error when a timestamp of sec seconds is
// outside the range the row model holds (Java's LocalDateTime).
func CheckTimestamp(sec int64) error {
	if sec < MinTimestampSec || sec > MaxTimestampSec {
		return fmt.Errorf("timestamp out of range: years %d..%d (LocalDateTime.MIN..MAX)", MinYear, MaxYear)
	}
	return nil
}

// CheckDate returns an error when a date of days since 1970-01-01 is outside
// the range the row model holds (Java's LocalDate).
func CheckDate(days int64) error {
	if days < MinDateDays || days > MaxDateDays {
		return fmt.Errorf("date out of range: years %d..%d (LocalDate.MIN..MAX)", MinYear, MaxYear)
	}
	return nil
}

// FloorDiv is a/b rounded toward negative infinity (Java's Math.floorDiv):
// the day of a second before 1970 is the one before its truncated quotient.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorMod is a - FloorDiv(a, b)*b (Java's Math.floorMod).
func FloorMod(a, b int64) int64 { return a - FloorDiv(a, b)*b }

// DaysFromCivil is the day number (days since 1970-01-01) of the proleptic
// Gregorian date y-m-d, for any year (H. Hinnant's algorithm); m and d
// must be valid.
func DaysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := FloorDiv(y, 400)
	yoe := y - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// CivilFromDays is the proleptic Gregorian date of a day number.
func CivilFromDays(days int64) (y int64, m, d int) {
	z := days + 719468
	era := FloorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// AppendYear appends a year as Java's LocalDate.toString does: four digits
// at least, a '-' before years below 0 and a '+' before years above 9999.
func AppendYear(b []byte, y int64) []byte {
	switch {
	case y >= 0 && y <= 9999:
		b = append2(b, int(y/100))
		return append2(b, int(y%100))
	case y < 0 && y > -1000:
		b = append(b, '-')
		return AppendYear(b, -y)
	case y > 9999:
		b = append(b, '+')
	}
	return strconv.AppendInt(b, y, 10)
}

// AppendDate appends a date as Java's LocalDate.toString: 2024-01-31 (see
// AppendYear for years outside 0..9999).
func AppendDate(b []byte, days int64) []byte {
	y, m, d := CivilFromDays(days)
	b = AppendYear(b, y)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	return append2(b, d)
}

// AppendClock appends a time of day in nanoseconds as HH:mm:ss, and with
// frac the fraction of the second without trailing zeros (Java's
// ISO_LOCAL_TIME, with the seconds always there).
func AppendClock(b []byte, ns int64, frac bool) []byte {
	s := ns / int64(time.Second)
	b = append2(b, int(s/3600))
	b = append(b, ':')
	b = append2(b, int(s/60%60))
	b = append(b, ':')
	b = append2(b, int(s%60))
	if f := ns % int64(time.Second); frac && f != 0 {
		var tmp [9]byte
		for i := 8; i >= 0; i-- {
			tmp[i] = byte('0' + f%10)
			f /= 10
		}
		n := 9
		for n > 0 && tmp[n-1] == '0' {
			n--
		}
		b = append(b, '.')
		b = append(b, tmp[:n]...)
	}
	return b
}

// AppendTimestamp appends a stored timestamp as date, sep, clock (see
// AppendDate and AppendClock): 2024-01-31 12:30:00 with sep ' ' and no
// frac, SeaTunnel's default datetime format.
func AppendTimestamp(b []byte, sec int64, nano int32, sep byte, frac bool) []byte {
	day := FloorDiv(sec, secsPerDay)
	b = AppendDate(b, day)
	b = append(b, sep)
	return AppendClock(b, (sec-day*secsPerDay)*int64(time.Second)+int64(nano), frac)
}

// AppendJavaTimestamp appends a stored timestamp as Java's
// LocalDateTime.toString: 2024-01-31T12:30, 2024-01-31T12:30:15.250.
func AppendJavaTimestamp(b []byte, sec int64, nano int32) []byte {
	day := FloorDiv(sec, secsPerDay)
	b = AppendDate(b, day)
	b = append(b, 'T')
	return append(b, JavaTime(time.Duration((sec-day*secsPerDay)*int64(time.Second)+int64(nano)))...)
}

// TimestampNanos is a stored timestamp in nanoseconds since 1970-01-01,
// or an error when it is outside the 1677-09-21..2262-04-11 that int64
// nanoseconds hold: for formats that store timestamps so.
func TimestampNanos(sec int64, nano int32) (int64, error) {
	const lo, hi int64 = math.MinInt64/1_000_000_000 - 1, math.MaxInt64 / 1_000_000_000
	if sec < lo || sec > hi || (sec == hi && nano > math.MaxInt64%1_000_000_000) || (sec == lo && nano < 145_224_192) /* MinInt64 - lo*1e9 */ {
		var buf [40]byte
		return 0, fmt.Errorf("timestamp %s does not fit int64 nanoseconds (1677-09-21..2262-04-11)", AppendJavaTimestamp(buf[:0], sec, nano))
	}
	return sec*1_000_000_000 + int64(nano), nil // sec*1e9 may wrap when sec == lo; the sum does not
}

// TimestampFromNanos is the stored form of ns nanoseconds since 1970-01-01.
func TimestampFromNanos(ns int64) (sec int64, nano int32) {
	return FloorDiv(ns, int64(time.Second)), int32(FloorMod(ns, int64(time.Second)))
}
