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
	return row.DaysFromCivil(int64(y), m, d), true
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

// fastTimestamp reads yyyy-MM-dd HH:mm:ss[.f] with ' ' or 'T' into a
// stored timestamp.
func fastTimestamp(s string) (sec int64, nano int32, ok bool) {
	if len(s) < 19 || (s[10] != ' ' && s[10] != 'T') {
		return 0, 0, false
	}
	d, ok := fastDate(s[:10])
	if !ok {
		return 0, 0, false
	}
	c, ok := fastClock(s[11:])
	if !ok {
		return 0, 0, false
	}
	return d*86400 + c/int64(time.Second), int32(c % int64(time.Second)), true
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

func (f *timeFormats) parseTimestamp(s string) (sec int64, nano int32, err error) {
	if sec, nano, ok := fastTimestamp(s); ok {
		return sec, nano, nil
	}
	if t, err := time.Parse(f.datetime, s); err == nil {
		sec, nano = row.TimestampOf(t)
		return sec, nano, nil
	}
	if t, err := row.ParseTimestamp(s); err == nil {
		sec, nano = row.TimestampOf(t)
		return sec, nano, nil
	}
	return 0, 0, fmt.Errorf("cannot parse %q as timestamp (datetime_format %s)", strings.Clone(s), f.datetimePat)
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
func clockTime(ns int64) time.Time  { return time.Unix(0, ns%int64(24*time.Hour)).UTC() }
