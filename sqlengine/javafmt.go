package sqlengine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/row"
)

// Java's DateTimeFormatter patterns (FORMATDATETIME, PARSEDATETIME,
// TO_CHAR, FROM_UNIXTIME, IS_DATE): the common letters with Java's
// meaning and widths, in English.
//
//	y u   year (yy: two digits)      M L  month (MMM Jan, MMMM January)
//	d     day of month               D    day of year
//	E     day name (EEEE Monday)     a    AM/PM
//	H     hour 0-23   k 1-24         K    hour 0-11   h 1-12
//	m     minute      s second       S    fraction (SSS milliseconds)
//	n     nano of second             Q q  quarter
//	'x'   literal text ('' is a quote)

type fmtField struct {
	letter byte // 0: literal
	count  int
	lit    string
}

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
var dayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// patternLimits are the supported letters and how many of each Java allows.
var patternLimits = map[byte]int{
	'y': 19, 'u': 19, 'M': 5, 'L': 5, 'd': 2, 'D': 3, 'E': 5, 'a': 1,
	'H': 2, 'k': 2, 'K': 2, 'h': 2, 'm': 2, 's': 2, 'S': 9, 'n': 9, 'Q': 5, 'q': 5,
}

func parseJavaPattern(p string) ([]fmtField, error) {
	var out []fmtField
	lit := func(s string) {
		if n := len(out); n > 0 && out[n-1].letter == 0 {
			out[n-1].lit += s
			return
		}
		out = append(out, fmtField{lit: s})
	}
	for i := 0; i < len(p); {
		ch := p[i]
		switch {
		case ch == '\'':
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(p) {
					return nil, fmt.Errorf("pattern %q: quote is not closed", p)
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(p[j])
				j++
			}
			if j == i+1 {
				lit("'")
			} else {
				lit(b.String())
			}
			i = j + 1
		case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			j := i
			for j < len(p) && p[j] == ch {
				j++
			}
			n := j - i
			limit, ok := patternLimits[ch]
			if !ok {
				return nil, fmt.Errorf("pattern %q: unsupported pattern letter %q", p, ch)
			}
			if n > limit {
				return nil, fmt.Errorf("pattern %q: too many pattern letters %q", p, ch)
			}
			out = append(out, fmtField{letter: ch, count: n})
			i = j
		case ch == '[' || ch == ']' || ch == '{' || ch == '}' || ch == '#':
			return nil, fmt.Errorf("pattern %q: %q is not supported", p, ch)
		default:
			lit(string(ch))
			i++
		}
	}
	return out, nil
}

// dtParts is a date-time taken apart; has* say which parts a value has.
type dtParts struct {
	year, month, day, hour, minute, second, nano int
	hasDate, hasTime                             bool
}

func partsOfDate(days int64) dtParts {
	y, m, d := row.CivilFromDays(days)
	return dtParts{year: int(y), month: m, day: d, hasDate: true}
}

func partsOfTime(ns int64) dtParts {
	return dtParts{hour: int(ns / int64(time.Hour)), minute: int(ns / int64(time.Minute) % 60),
		second: int(ns / int64(time.Second) % 60), nano: int(ns % int64(time.Second)), hasTime: true}
}

func partsOfTimestamp(sec int64, nano int32) dtParts {
	p := partsOfDate(floorDiv(sec, secsPerDay))
	q := partsOfTime(floorMod(sec, secsPerDay)*int64(time.Second) + int64(nano))
	q.year, q.month, q.day, q.hasDate = p.year, p.month, p.day, true
	return q
}

func pad(b []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	neg := v < 0
	if neg {
		s = s[1:]
		b = append(b, '-')
	}
	for k := len(s); k < width; k++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func formatJava(fields []fmtField, p dtParts) (string, error) {
	var b []byte
	needDate := func(f fmtField) error {
		if !p.hasDate {
			return fmt.Errorf("unsupported field for a time: %s", strings.Repeat(string(f.letter), f.count))
		}
		return nil
	}
	needTime := func(f fmtField) error {
		if !p.hasTime {
			return fmt.Errorf("unsupported field for a date: %s", strings.Repeat(string(f.letter), f.count))
		}
		return nil
	}
	for _, f := range fields {
		switch f.letter {
		case 0:
			b = append(b, f.lit...)
			continue
		case 'y', 'u', 'M', 'L', 'd', 'D', 'E', 'Q', 'q':
			if err := needDate(f); err != nil {
				return "", err
			}
		default:
			if err := needTime(f); err != nil {
				return "", err
			}
		}
		switch f.letter {
		case 'y', 'u':
			y := p.year
			if f.letter == 'y' && y <= 0 {
				y = 1 - y
			}
			if f.count == 2 {
				b = pad(b, ((y%100)+100)%100, 2)
			} else {
				b = pad(b, y, f.count)
			}
		case 'M', 'L':
			switch f.count {
			case 1, 2:
				b = pad(b, p.month, f.count)
			case 3:
				b = append(b, monthNames[p.month-1][:3]...)
			case 4:
				b = append(b, monthNames[p.month-1]...)
			default:
				b = append(b, monthNames[p.month-1][:1]...)
			}
		case 'd':
			b = pad(b, p.day, f.count)
		case 'D':
			t := time.Date(p.year, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC)
			b = pad(b, t.YearDay(), f.count)
		case 'E':
			wd := (int(time.Date(p.year, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC).Weekday()) + 6) % 7
			switch {
			case f.count <= 3:
				b = append(b, dayNames[wd][:3]...)
			case f.count == 4:
				b = append(b, dayNames[wd]...)
			default:
				b = append(b, dayNames[wd][:1]...)
			}
		case 'Q', 'q':
			q := (p.month-1)/3 + 1
			switch f.count {
			case 1, 2:
				b = pad(b, q, f.count)
			case 3:
				b = append(b, 'Q')
				b = strconv.AppendInt(b, int64(q), 10)
			default:
				b = append(b, []string{"1st", "2nd", "3rd", "4th"}[q-1]+" quarter"...)
			}
		case 'a':
			if p.hour < 12 {
				b = append(b, "AM"...)
			} else {
				b = append(b, "PM"...)
			}
		case 'H':
			b = pad(b, p.hour, f.count)
		case 'k':
			h := p.hour
			if h == 0 {
				h = 24
			}
			b = pad(b, h, f.count)
		case 'K':
			b = pad(b, p.hour%12, f.count)
		case 'h':
			h := p.hour % 12
			if h == 0 {
				h = 12
			}
			b = pad(b, h, f.count)
		case 'm':
			b = pad(b, p.minute, f.count)
		case 's':
			b = pad(b, p.second, f.count)
		case 'S':
			frac := fmt.Sprintf("%09d", p.nano)
			if f.count <= 9 {
				b = append(b, frac[:f.count]...)
			}
		case 'n':
			b = pad(b, p.nano, f.count)
		}
	}
	return string(b), nil
}

// parseJava reads s with the pattern into its parts, resolving as Java's
// SMART style does (a day past the month's end becomes its last day).
func parseJava(fields []fmtField, s string) (dtParts, error) {
	var p dtParts
	year, month, day, doy := -1, -1, -1, -1
	hour, hour12, ampm := -1, -1, -1
	pos := 0
	bad := func() (dtParts, error) {
		return dtParts{}, fmt.Errorf("text %q could not be parsed at index %d", s, pos)
	}
	isNumeric := func(f fmtField) bool {
		return f.letter != 0 && f.letter != 'a' && f.letter != 'E' && !((f.letter == 'M' || f.letter == 'L') && f.count >= 3) && !((f.letter == 'Q' || f.letter == 'q') && f.count >= 3)
	}
	for k, f := range fields {
		if f.letter == 0 {
			if !strings.HasPrefix(s[pos:], f.lit) {
				return bad()
			}
			pos += len(f.lit)
			continue
		}
		if isNumeric(f) {
			minW, maxW := f.count, f.count
			adjacent := k+1 < len(fields) && isNumeric(fields[k+1])
			switch {
			case f.letter == 'y' || f.letter == 'u':
				if f.count != 2 && !adjacent {
					maxW = 10
				}
			case f.count == 1 && !adjacent:
				maxW = 2
				if f.letter == 'D' {
					maxW = 3
				}
				if f.letter == 'n' {
					maxW = 9
				}
			}
			neg := false
			if (f.letter == 'y' || f.letter == 'u') && f.count > 2 && pos < len(s) && (s[pos] == '-' || s[pos] == '+') {
				neg = s[pos] == '-'
				pos++
			}
			j := pos
			for j < len(s) && j-pos < maxW && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-pos < minW {
				return bad()
			}
			v, err := strconv.Atoi(s[pos:j])
			if err != nil {
				return bad()
			}
			if neg {
				v = -v
			}
			digits := j - pos
			pos = j
			switch f.letter {
			case 'y', 'u':
				if f.count == 2 {
					v += 2000
				}
				year = v
			case 'M', 'L':
				month = v
			case 'd':
				day = v
			case 'D':
				doy = v
			case 'H':
				hour = v
			case 'k':
				hour = v % 24
			case 'K':
				hour12 = v
			case 'h':
				hour12 = v % 12
			case 'm':
				p.minute = v
			case 's':
				p.second = v
			case 'S':
				for ; digits < 9; digits++ {
					v *= 10
				}
				p.nano = v
			case 'n':
				p.nano = v
			case 'Q', 'q':
				// A quarter alone says nothing the other fields do not.
			}
			continue
		}
		switch f.letter {
		case 'a':
			switch {
			case strings.HasPrefix(s[pos:], "AM"):
				ampm = 0
			case strings.HasPrefix(s[pos:], "PM"):
				ampm = 1
			default:
				return bad()
			}
			pos += 2
		case 'E':
			found := false
			for _, d := range dayNames {
				name := d
				if f.count <= 3 {
					name = d[:3]
				}
				if strings.HasPrefix(s[pos:], name) {
					pos += len(name)
					found = true
					break
				}
			}
			if !found {
				return bad()
			}
		case 'M', 'L':
			found := false
			for m, name := range monthNames {
				if f.count == 3 {
					name = name[:3]
				}
				if strings.HasPrefix(s[pos:], name) {
					pos += len(name)
					month = m + 1
					found = true
					break
				}
			}
			if !found {
				return bad()
			}
		case 'Q', 'q':
			return bad()
		}
	}
	if pos != len(s) {
		return dtParts{}, fmt.Errorf("text %q could not be parsed, unparsed text found at index %d", s, pos)
	}
	if hour12 >= 0 {
		if ampm < 0 {
			return dtParts{}, fmt.Errorf("text %q: an hour of AM/PM without AM or PM", s)
		}
		hour = hour12 + 12*ampm
	}
	if hour >= 0 {
		if hour > 23 || p.minute > 59 || p.second > 59 {
			return dtParts{}, fmt.Errorf("text %q: invalid time", s)
		}
		p.hour, p.hasTime = hour, true
	}
	if year != -1 || month != -1 || day != -1 || doy != -1 {
		switch {
		case year != -1 && doy != -1 && month == -1 && day == -1:
			t := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, doy-1)
			if doy < 1 || doy > 366 || t.Year() != year {
				return dtParts{}, fmt.Errorf("text %q: invalid day of year %d", s, doy)
			}
			p.year, p.month, p.day = t.Year(), int(t.Month()), t.Day()
		case year != -1 && month != -1 && day != -1:
			if month < 1 || month > 12 || day < 1 || day > 31 {
				return dtParts{}, fmt.Errorf("text %q: invalid date", s)
			}
			p.year, p.month, p.day = year, month, min(day, daysIn(year, month))
		default:
			return dtParts{}, fmt.Errorf("text %q: the pattern does not give a whole date", s)
		}
		p.hasDate = true
	}
	return p, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func (p dtParts) date() int64 {
	return row.DaysFromCivil(int64(p.year), p.month, p.day)
}

// timestamp is the stored timestamp of the date and time of day.
func (p dtParts) timestamp() (sec int64, nano int32) {
	return p.date()*secsPerDay + int64(p.hour*3600+p.minute*60+p.second), int32(p.nano)
}

func (p dtParts) timeOfDay() int64 {
	return int64(p.hour)*int64(time.Hour) + int64(p.minute)*int64(time.Minute) + int64(p.second)*int64(time.Second) + int64(p.nano)
}
