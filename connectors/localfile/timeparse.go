package localfile

import (
	"fmt"
	"strings"
	"time"

	"github.com/stactor/stactor/row"
)

// timeFormats are the layouts of date_format, datetime_format and
// time_format. Parsing tries the configured layout, then the common ISO
// shapes (as SeaTunnel's csv reader matches any known date format);
// rendering uses the configured layout only.
type timeFormats struct {
	date, datetime, tod          string // Go layouts
	datePat, datetimePat, todPat string // as written, for messages
}

// SeaTunnel's defaults (DateUtils, DateTimeUtils and TimeUtils formatters).
const (
	defaultDateFormat     = "yyyy-MM-dd"
	defaultDatetimeFormat = "yyyy-MM-dd HH:mm:ss"
	defaultTimeFormat     = "HH:mm:ss"
)

func newTimeFormats(date, datetime, tod string) (timeFormats, error) {
	f := timeFormats{datePat: date, datetimePat: datetime, todPat: tod}
	var err error
	if f.date, err = javaLayout(date); err != nil {
		return f, fmt.Errorf("date_format: %w", err)
	}
	if f.datetime, err = javaLayout(datetime); err != nil {
		return f, fmt.Errorf("datetime_format: %w", err)
	}
	if f.tod, err = javaLayout(tod); err != nil {
		return f, fmt.Errorf("time_format: %w", err)
	}
	return f, nil
}

func digits(s string, from, n int) (int, bool) {
	v := 0
	for i := from; i < from+n; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian), Howard Hinnant's algorithm.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func validDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	dim := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		dim = 29
	}
	return d <= dim
}

// fastDate reads yyyy-MM-dd.
func fastDate(s string) (int64, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y, ok1 := digits(s, 0, 4)
	m, ok2 := digits(s, 5, 2)
	d, ok3 := digits(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || !validDate(y, m, d) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// fastClock reads HH:mm:ss with an optional fraction of up to 9 digits.
func fastClock(s string) (int64, bool) {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return 0, false
	}
	h, ok1 := digits(s, 0, 2)
	mi, ok2 := digits(s, 3, 2)
	se, ok3 := digits(s, 6, 2)
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	ns := int64(h)*int64(time.Hour) + int64(mi)*int64(time.Minute) + int64(se)*int64(time.Second)
	if len(s) == 8 {
		return ns, true
	}
	if s[8] != '.' || len(s) == 9 || len(s) > 18 {
		return 0, false
	}
	frac, ok := digits(s, 9, len(s)-9)
	if !ok {
		return 0, false
	}
	for i := len(s) - 9; i < 9; i++ {
		frac *= 10
	}
	return ns + int64(frac), true
}

// fastTimestamp reads yyyy-MM-dd HH:mm:ss[.f] with ' ' or 'T'.
func fastTimestamp(s string) (int64, bool) {
	if len(s) < 19 || (s[10] != ' ' && s[10] != 'T') {
		return 0, false
	}
	d, ok := fastDate(s[:10])
	if !ok {
		return 0, false
	}
	c, ok := fastClock(s[11:])
	if !ok {
		return 0, false
	}
	return d*int64(24*time.Hour) + c, true
}

func (f *timeFormats) parseDate(s string) (int64, error) {
	if d, ok := fastDate(s); ok {
		return d, nil
	}
	if t, err := time.Parse(f.date, s); err == nil {
		return row.DateOf(t), nil
	}
	if t, err := row.ParseDate(s); err == nil {
		return row.DateOf(t), nil
	}
	return 0, fmt.Errorf("cannot parse %q as date (date_format %s)", strings.Clone(s), f.datePat)
}

func (f *timeFormats) parseTimestamp(s string) (int64, error) {
	if ts, ok := fastTimestamp(s); ok {
		return ts, nil
	}
	if t, err := time.Parse(f.datetime, s); err == nil {
		return row.TimestampOf(t), nil
	}
	if t, err := row.ParseTimestamp(s); err == nil {
		return row.TimestampOf(t), nil
	}
	return 0, fmt.Errorf("cannot parse %q as timestamp (datetime_format %s)", strings.Clone(s), f.datetimePat)
}

func (f *timeFormats) parseTime(s string) (int64, error) {
	if c, ok := fastClock(s); ok {
		return c, nil
	}
	if t, err := time.Parse(f.tod, s); err == nil {
		h, m, sec := t.Clock()
		return int64(h)*int64(time.Hour) + int64(m)*int64(time.Minute) + int64(sec)*int64(time.Second) + int64(t.Nanosecond()), nil
	}
	if d, err := row.ParseTime(s); err == nil {
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot parse %q as time (time_format %s)", strings.Clone(s), f.todPat)
}

// The stored forms as times, for rendering with a layout.
func dateTime(days int64) time.Time { return time.Unix(days*86400, 0).UTC() }
func stampTime(ns int64) time.Time  { return time.Unix(0, ns).UTC() }
func clockTime(ns int64) time.Time  { return time.Unix(0, ns%int64(24*time.Hour)).UTC() }

// civilFromDays is the date of a day number (Howard Hinnant's algorithm).
func civilFromDays(z int64) (y int64, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
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

// appendISODate appends yyyy-MM-dd (years 0..9999; others by time.Format).
func appendISODate(b []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	if y < 0 || y > 9999 {
		return dateTime(days).AppendFormat(b, "2006-01-02")
	}
	b = append2(b, int(y/100))
	b = append2(b, int(y%100))
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	return append2(b, d)
}

// appendISOClock appends HH:mm:ss of a time of day in nanoseconds, and
// with frac the fraction without trailing zeros (Java's ISO_LOCAL_TIME).
func appendISOClock(b []byte, ns int64, frac bool) []byte {
	ns %= int64(24 * time.Hour)
	if ns < 0 {
		ns += int64(24 * time.Hour)
	}
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

// appendISOTimestamp appends yyyy-MM-dd, sep, then the clock.
func appendISOTimestamp(b []byte, ns int64, sep byte, frac bool) []byte {
	day := ns / int64(24*time.Hour)
	if ns < 0 && ns%int64(24*time.Hour) != 0 {
		day--
	}
	b = appendISODate(b, day)
	b = append(b, sep)
	return appendISOClock(b, ns-day*int64(24*time.Hour), frac)
}
