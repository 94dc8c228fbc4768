package sqlengine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/row"
)

// Date and time functions, after SeaTunnel's DateTimeFunction. Dates,
// times and timestamps are wall-clock values without a zone (Java's
// LocalDate, LocalTime, LocalDateTime); the current time is read in the
// system zone.

func registerDateTimeFuncs() {
	register(&fnSpec{0, 0, buildNow(row.TypeDate)}, "CURRENT_DATE")
	register(&fnSpec{0, 0, buildNow(row.TypeTime)}, "CURRENT_TIME")
	register(&fnSpec{0, 0, buildNow(row.TypeTimestamp)}, "CURRENT_TIMESTAMP", "NOW")
	register(&fnSpec{2, 3, buildDateAdd}, "DATEADD", "TIMESTAMPADD")
	register(&fnSpec{2, 3, buildDateDiff}, "DATEDIFF")
	register(&fnSpec{1, 2, buildDateTrunc}, "DATE_TRUNC")
	register(&fnSpec{1, 1, buildDatePart("DAYNAME")}, "DAYNAME")
	register(&fnSpec{1, 1, buildDatePart("DAY_OF_MONTH")}, "DAY_OF_MONTH", "DAYOFMONTH")
	register(&fnSpec{1, 1, buildDatePart("DAY_OF_WEEK")}, "DAY_OF_WEEK", "DAYOFWEEK")
	register(&fnSpec{1, 1, buildDatePart("DAY_OF_YEAR")}, "DAY_OF_YEAR", "DAYOFYEAR")
	register(&fnSpec{1, 1, buildDatePart("MONTH")}, "MONTH")
	register(&fnSpec{1, 1, buildDatePart("MONTHNAME")}, "MONTHNAME")
	register(&fnSpec{1, 1, buildDatePart("QUARTER")}, "QUARTER")
	register(&fnSpec{1, 1, buildDatePart("WEEK")}, "WEEK")
	register(&fnSpec{1, 1, buildDatePart("YEAR")}, "YEAR")
	register(&fnSpec{1, 1, buildTimePart("HOUR")}, "HOUR")
	register(&fnSpec{1, 1, buildTimePart("MINUTE")}, "MINUTE")
	register(&fnSpec{1, 1, buildTimePart("SECOND")}, "SECOND")
	register(&fnSpec{2, 2, buildFormatDateTime}, "FORMATDATETIME")
	register(&fnSpec{2, 2, buildParseDateTime}, "PARSEDATETIME", "TO_DATE")
	register(&fnSpec{2, 2, buildIsDate}, "IS_DATE")
	register(&fnSpec{2, 3, buildFromUnixTime}, "FROM_UNIXTIME")
}

// nowEval is CURRENT_DATE, CURRENT_TIME and CURRENT_TIMESTAMP / NOW(): the
// clock is read once per batch.
type nowEval struct {
	exprBase
}

func buildNow(id row.TypeID) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		e := &nowEval{}
		switch id {
		case row.TypeDate:
			e.t = row.Date
		case row.TypeTime:
			e.t = row.Time
		default:
			e.t = row.Timestamp
		}
		e.src, e.volatile = call, true
		e.derive()
		return c.add(e), nil
	}
}

func (e *nowEval) eval(c *evalCtx) (*row.Column, error) {
	sec, nano := row.TimestampOf(c.now.In(time.Local))
	out := e.out.get(e.t, c.n)
	if e.t.ID == row.TypeTimestamp {
		for i := range out.Secs {
			out.Secs[i], out.Nanos[i] = sec, nano
		}
		return out, nil
	}
	v := floorDiv(sec, secsPerDay) // CURRENT_DATE
	if e.t.ID == row.TypeTime {
		v = floorMod(sec, secsPerDay)*int64(time.Second) + int64(nano)
	}
	for i := range out.Ints {
		out.Ints[i] = v
	}
	return out, nil
}

// errDateRange is what Java's LocalDate and LocalDateTime throw for a result
// past their years (DateTimeException, or ArithmeticException on a long
// overflow on the way there).
var errDateRange = fmt.Errorf("the result is out of range (years %d..%d)", row.MinYear, row.MaxYear)

// addExact and mulExact are Java's Math.addExact and multiplyExact: an
// overflow is an error, never a wrap.
func addExact(a, b int64) (int64, error) {
	s := a + b
	if (s > a) != (b > 0) {
		return 0, errDateRange
	}
	return s, nil
}

func mulExact(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, errDateRange
	}
	return p, nil
}

// plusMonths is Java's plusMonths on a date: the day is clamped to the
// new month's length (Jan 31 + 1 month = Feb 28 or 29); a year past
// LocalDate's is an error.
func plusMonths(days, months int64) (int64, error) {
	p := partsOfDate(days)
	total, err := addExact(int64(p.year)*12+int64(p.month-1), months)
	if err != nil {
		return 0, err
	}
	y, m := floorDiv(total, 12), int(floorMod(total, 12))+1
	if y < row.MinYear || y > row.MaxYear {
		return 0, errDateRange
	}
	d := min(p.day, daysIn(int(y), m))
	return row.DaysFromCivil(y, m, d), nil
}

// plusDays is Java's LocalDate.plusDays: days past LocalDate's range are
// an error.
func plusDays(days, n int64) (int64, error) {
	d, err := addExact(days, n)
	if err == nil && row.CheckDate(d) != nil {
		err = errDateRange
	}
	return d, err
}

// dateAdd is DATEADD on a date: Java's plus(n, unit).
func dateAdd(v, n int64, unit string) (int64, error) {
	switch unit {
	case "YEAR":
		months, err := mulExact(n, 12)
		if err != nil {
			return 0, err
		}
		return plusMonths(v, months)
	case "MONTH":
		return plusMonths(v, n)
	case "WEEK":
		days, err := mulExact(n, 7)
		if err != nil {
			return 0, err
		}
		return plusDays(v, days)
	case "DAY":
		return plusDays(v, n)
	}
	return v, nil
}

// timeUnits are the time units of DATEADD: nanoseconds each, and how many
// make a day.
var timeUnits = map[string]struct{ nanos, perDay int64 }{
	"HOUR":        {int64(time.Hour), 24},
	"MINUTE":      {int64(time.Minute), 24 * 60},
	"SECOND":      {int64(time.Second), secsPerDay},
	"MILLISECOND": {int64(time.Millisecond), secsPerDay * 1000},
}

// timestampAdd is DATEADD on a timestamp: Java's LocalDateTime.plus(n,
// unit), which moves the date by whole days and the time of day by the
// rest, so that only a result past LocalDateTime's range fails.
func timestampAdd(sec int64, nano int32, n int64, unit string) (int64, int32, error) {
	day, sod := floorDiv(sec, secsPerDay), floorMod(sec, secsPerDay)
	if u, ok := timeUnits[unit]; ok {
		days := n / u.perDay
		nod := sod*int64(time.Second) + int64(nano) + (n%u.perDay)*u.nanos // |·| < 2 days of ns
		days += floorDiv(nod, nanosPerDay)
		nod = floorMod(nod, nanosPerDay)
		d, err := plusDays(day, days)
		if err != nil {
			return 0, 0, err
		}
		return d*secsPerDay + nod/int64(time.Second), int32(nod % int64(time.Second)), nil
	}
	d, err := dateAdd(day, n, unit)
	return d*secsPerDay + sod, nano, err
}

var dateUnits = map[string]bool{"YEAR": true, "MONTH": true, "WEEK": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true}

// checkUnit validates a constant unit argument at plan time.
func checkUnit(call *callNode, args []evaluator, k int, units map[string]bool) error {
	if k >= len(args) {
		return nil
	}
	if typeOf(args[k]).ID != row.TypeString && !isNullType(typeOf(args[k])) {
		return errAt(call.args[k].pos(), "function %s: the unit must be a string such as 'DAY', got %s", strings.ToUpper(call.name), typeOf(args[k]))
	}
	if u, ok := constString(args[k]); ok && !units[strings.ToUpper(u)] {
		names := make([]string, 0, len(units))
		for n := range units {
			names = append(names, n)
		}
		sort.Strings(names)
		return &QueryError{Pos: call.args[k].pos(), Msg: fmt.Sprintf("function %s: unsupported unit %q", strings.ToUpper(call.name), u), Hint: "units: " + strings.Join(names, ", ")}
	}
	return nil
}

func unitOf(a []val, k int) string {
	if k < len(a) && !a[k].null {
		return strings.ToUpper(a[k].s)
	}
	return "DAY"
}

func buildDateAdd(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aTemporal, aInt, aString); err != nil {
		return nil, err
	}
	if err := checkUnit(call, args, 2, dateUnits); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	if isNullType(t) {
		return newConst(row.Null, val{null: true}, call), nil
	}
	return c.scalar(call, args, t, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		unit, n, v := unitOf(a, 2), a[1].i, a[0].i
		if !dateUnits[unit] {
			return fmt.Errorf("unsupported unit %q", unit)
		}
		var err error
		o.i, o.nano = v, a[0].nano
		switch t.ID {
		case row.TypeDate:
			o.i, err = dateAdd(v, n, unit)
		case row.TypeTime:
			// LocalTime wraps around midnight: only n modulo a day counts.
			if u, ok := timeUnits[unit]; ok {
				o.i = floorMod(v+floorMod(n, u.perDay)*u.nanos, nanosPerDay)
			}
		default:
			o.i, o.nano, err = timestampAdd(v, a[0].nano, n, unit)
		}
		return err
	}, fnOpts{lenient: true, fails: true}), nil
}

// periodBetween is Java's Period.between(a, b) as years and months.
func periodBetween(a, b int64) (years, months int64) {
	pa, pb := partsOfDate(a), partsOfDate(b)
	total := (int64(pb.year)*12 + int64(pb.month-1)) - (int64(pa.year)*12 + int64(pa.month-1))
	days := pb.day - pa.day
	if total > 0 && days < 0 {
		total--
	} else if total < 0 && days > 0 {
		total++
	}
	return total / 12, total % 12
}

var diffUnits = map[string]bool{"YEAR": true, "MONTH": true, "WEEK": true, "DAY": true, "DAYTIME": true, "HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true}

func buildDateDiff(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aTemporal, aTemporal, aString); err != nil {
		return nil, err
	}
	if err := checkUnit(call, args, 2, diffUnits); err != nil {
		return nil, err
	}
	t0, t1 := typeOf(args[0]), typeOf(args[1])
	return c.scalar(call, args, row.BigInt, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		unit := unitOf(a, 2)
		asDate := func(t *row.Type, v int64) (int64, bool) {
			switch t.ID {
			case row.TypeDate:
				return v, true
			case row.TypeTimestamp:
				return floorDiv(v, secsPerDay), true
			}
			return 0, false
		}
		switch unit {
		case "YEAR", "MONTH", "DAY":
			d0, ok0 := asDate(t0, a[0].i)
			d1, ok1 := asDate(t1, a[1].i)
			if !ok0 || !ok1 {
				o.null = true
				return nil
			}
			y, m := periodBetween(d0, d1)
			switch unit {
			case "YEAR":
				o.i = y
			case "MONTH":
				o.i = m
			default:
				o.i = d1 - d0
			}
			return nil
		case "WEEK", "DAYTIME", "HOUR", "MINUTE", "SECOND", "MILLISECOND":
			// Duration.between: both must have a time, and be of one kind.
			if t0.ID == row.TypeDate || t1.ID == row.TypeDate || t0.ID != t1.ID {
				return fmt.Errorf("DATEDIFF by %s needs two times or two timestamps, got %s and %s", unit, t0, t1)
			}
			// The Duration's seconds and nanoseconds (0..999,999,999).
			var secs, nanos int64
			if t0.ID == row.TypeTime {
				ns := a[1].i - a[0].i
				secs, nanos = floorDiv(ns, int64(time.Second)), floorMod(ns, int64(time.Second))
			} else { // no overflow: both are within LocalDateTime's range
				dn := int64(a[1].nano) - int64(a[0].nano)
				secs = a[1].i - a[0].i + floorDiv(dn, int64(time.Second))
				nanos = floorMod(dn, int64(time.Second))
			}
			switch unit {
			case "WEEK":
				o.i = secs / 86400 / 7
			case "DAYTIME":
				o.i = secs / 86400
			case "HOUR":
				o.i = secs / 3600
			case "MINUTE":
				o.i = secs / 60
			default: // Duration.toMillis, which throws past a long
				ms, err := mulExact(secs, 1000)
				if err == nil {
					ms, err = addExact(ms, nanos/int64(time.Millisecond))
				}
				if err != nil {
					return fmt.Errorf("DATEDIFF by %s overflows a bigint", unit)
				}
				o.i = ms
				if unit == "SECOND" {
					o.i = floorDiv(ms, 1000)
				}
			}
			return nil
		}
		return fmt.Errorf("unsupported unit %q", unit)
	}, fnOpts{lenient: true, fails: true}), nil
}

var truncUnits = map[string]bool{"YEAR": true, "MONTH": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true}

func buildDateTrunc(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aDateLike, aString); err != nil {
		return nil, err
	}
	if err := checkUnit(call, args, 1, truncUnits); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	return c.scalar(call, args, row.Timestamp, func(a []val, o *val) error {
		if a[0].null {
			o.null = true
			return nil
		}
		var p dtParts
		if t.ID == row.TypeDate {
			p = partsOfDate(a[0].i)
		} else {
			p = partsOfTimestamp(a[0].i, a[0].nano)
		}
		p.nano = 0
		switch unitOf(a, 1) {
		case "YEAR":
			p.month, p.day, p.hour, p.minute, p.second = 1, 1, 0, 0, 0
		case "MONTH":
			p.day, p.hour, p.minute, p.second = 1, 0, 0, 0
		case "DAY":
			p.hour, p.minute, p.second = 0, 0, 0
		case "HOUR":
			p.minute, p.second = 0, 0
		case "MINUTE":
			p.second = 0
		case "SECOND":
		default:
			return fmt.Errorf("unsupported unit %q", unitOf(a, 1))
		}
		o.i, o.nano = p.timestamp()
		return nil
	}, fnOpts{lenient: true, fails: true}), nil
}

// isoWeekOfYear is Java's get(WeekFields.ISO.weekOfYear()): weeks start on
// Monday and week 1 is the first with four days of the year; days before
// it are in week 0.
func isoWeekOfYear(p dtParts) int {
	t := time.Date(p.year, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC)
	dow := (int(t.Weekday())+6)%7 + 1
	doy := t.YearDay()
	weekStart := int(floorMod(int64(doy-dow), 7))
	offset := -weekStart
	if weekStart+1 > 4 {
		offset = 7 - weekStart
	}
	return (7 + offset + (doy - 1)) / 7
}

// datePart reads a part of a date (or the date of a timestamp).
func datePart(part string, p dtParts, o *val) {
	t := time.Date(p.year, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC)
	dow := (int(t.Weekday())+6)%7 + 1
	switch part {
	case "DAYNAME":
		o.s = dayNames[dow-1]
	case "DAY_OF_MONTH", "DAY":
		o.i = int64(p.day)
	case "DAY_OF_WEEK", "DAYOFWEEK":
		o.i = int64(dow)
	case "DAY_OF_YEAR", "DAYOFYEAR":
		o.i = int64(t.YearDay())
	case "MONTH":
		o.i = int64(p.month)
	case "MONTHNAME":
		o.s = monthNames[p.month-1]
	case "QUARTER":
		o.i = int64((p.month-1)/3 + 1)
	case "WEEK":
		o.i = int64(isoWeekOfYear(p) + 1)
	case "YEAR":
		o.i = int64(p.year)
	}
}

func buildDatePart(part string) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aDateLike); err != nil {
			return nil, err
		}
		t := typeOf(args[0])
		rt := row.Int
		if part == "DAYNAME" || part == "MONTHNAME" {
			rt = row.String
		}
		return c.scalar(call, args, rt, func(a []val, o *val) error {
			if t.ID == row.TypeDate {
				datePart(part, partsOfDate(a[0].i), o)
			} else {
				datePart(part, partsOfTimestamp(a[0].i, a[0].nano), o)
			}
			return nil
		}, fnOpts{}), nil
	}
}

func timePart(part string, p dtParts) int64 {
	switch part {
	case "HOUR":
		return int64(p.hour)
	case "MINUTE":
		return int64(p.minute)
	case "SECOND":
		return int64(p.second)
	}
	return int64(p.nano / 1e6)
}

func buildTimePart(part string) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aTimeLike); err != nil {
			return nil, err
		}
		t := typeOf(args[0])
		return c.scalar(call, args, row.Int, func(a []val, o *val) error {
			if t.ID == row.TypeTime {
				o.i = timePart(part, partsOfTime(a[0].i))
			} else {
				o.i = timePart(part, partsOfTimestamp(a[0].i, a[0].nano))
			}
			return nil
		}, fnOpts{}), nil
	}
}

// extract is EXTRACT(field FROM x): an int; a field the value does not
// have (the hour of a date) gives NULL, as in SeaTunnel.
func (c *compiler) extract(n *extractNode) (evaluator, error) {
	x, err := c.expr(n.x)
	if err != nil {
		return nil, err
	}
	t := typeOf(x)
	if !isTemporal(t) && !isNullType(t) {
		return nil, errAt(n.x.pos(), "EXTRACT needs a date, time or timestamp, got %s", t)
	}
	field := strings.ToUpper(n.field)
	dateField, timeField := false, false
	switch field {
	case "YEAR", "MONTH", "DAY", "DAYOFWEEK", "DAYOFYEAR":
		dateField = true
	case "HOUR", "MINUTE", "SECOND", "MILLISECOND":
		timeField = true
	default:
		return nil, &QueryError{Pos: n.fAt, Msg: fmt.Sprintf("unsupported EXTRACT field %s", n.field), Hint: "supported: YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, MILLISECOND, DAYOFWEEK, DAYOFYEAR"}
	}
	if t.ID == row.TypeTime && (field == "DAYOFWEEK" || field == "DAYOFYEAR") {
		return nil, errAt(n.fAt, "EXTRACT(%s FROM ...) needs a date or timestamp, got time", field)
	}
	e := &scalarEval{name: "EXTRACT", args: []evaluator{x}, strict: true, fn: func(a []val, o *val) error {
		switch {
		case t.ID == row.TypeDate && dateField:
			datePart(field, partsOfDate(a[0].i), o)
		case t.ID == row.TypeTime && timeField:
			o.i = timePart(field, partsOfTime(a[0].i))
		case t.ID == row.TypeTimestamp:
			p := partsOfTimestamp(a[0].i, a[0].nano)
			if dateField {
				datePart(field, p, o)
			} else {
				o.i = timePart(field, p)
			}
		default:
			o.null = true
		}
		return nil
	}}
	e.t, e.src = row.Int, n
	e.derive(x)
	return c.add(e), nil
}

// javaPattern compiles a constant pattern at plan time, or a varying one
// per row with a one-entry cache.
type patternCache struct {
	pat    string
	fields []fmtField
	err    error
	ok     bool
}

func (p *patternCache) get(pat string) ([]fmtField, error) {
	if !p.ok || p.pat != pat {
		p.pat, p.ok = pat, true
		p.fields, p.err = parseJavaPattern(pat)
	}
	return p.fields, p.err
}

func checkPatternConst(call *callNode, args []evaluator, k int) error {
	if s, ok := constString(args[k]); ok {
		if _, err := parseJavaPattern(s); err != nil {
			return errAt(call.args[k].pos(), "function %s: %v", strings.ToUpper(call.name), err)
		}
	}
	return nil
}

func partsOf(t *row.Type, v *val) dtParts {
	switch t.ID {
	case row.TypeDate:
		return partsOfDate(v.i)
	case row.TypeTime:
		return partsOfTime(v.i)
	}
	return partsOfTimestamp(v.i, v.nano)
}

func buildFormatDateTime(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aTemporal, aString); err != nil {
		return nil, err
	}
	if err := checkPatternConst(call, args, 1); err != nil {
		return nil, err
	}
	t := typeOf(args[0])
	var cache patternCache
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null {
			o.null = true
			return nil
		}
		if a[1].null {
			return fmt.Errorf("the format is NULL")
		}
		fields, err := cache.get(a[1].s)
		if err != nil {
			return err
		}
		s, err := formatJava(fields, partsOf(t, &a[0]))
		o.s = s
		return err
	}, fnOpts{lenient: true, fails: true}), nil
}

// parsedType is the type PARSEDATETIME gives for a format, by SeaTunnel's
// rule: a timestamp when it has both yy and mm, a date with yy, a time
// with mm.
func parsedType(format string) (*row.Type, bool) {
	y, m := strings.Contains(format, "yy"), strings.Contains(format, "mm")
	switch {
	case y && m:
		return row.Timestamp, true
	case y:
		return row.Date, true
	case m:
		return row.Time, true
	}
	return nil, false
}

// parseAs reads s by the pattern into o as a value of type t.
func parseAs(t *row.Type, fields []fmtField, s string, o *val) error {
	p, err := parseJava(fields, s)
	if err != nil {
		return err
	}
	switch t.ID {
	case row.TypeTimestamp:
		if !p.hasDate || !p.hasTime {
			return fmt.Errorf("text %q: unable to obtain a timestamp (date and time) from it", s)
		}
		o.i, o.nano = p.timestamp()
		return nil
	case row.TypeDate:
		if !p.hasDate {
			return fmt.Errorf("text %q: unable to obtain a date from it", s)
		}
		o.i = p.date()
		return nil
	}
	if !p.hasTime {
		return fmt.Errorf("text %q: unable to obtain a time from it", s)
	}
	o.i = p.timeOfDay()
	return nil
}

func buildParseDateTime(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aString); err != nil {
		return nil, err
	}
	format, ok := constString(args[1])
	if !ok {
		return nil, errAt(call.args[1].pos(), "function %s: the format must be a constant string (it decides the result type)", strings.ToUpper(call.name))
	}
	t, ok := parsedType(format)
	if !ok {
		return nil, errAt(call.args[1].pos(), "function %s: format %q has neither a year (yy) nor minutes (mm)", strings.ToUpper(call.name), format)
	}
	fields, err := parseJavaPattern(format)
	if err != nil {
		return nil, errAt(call.args[1].pos(), "function %s: %v", strings.ToUpper(call.name), err)
	}
	return c.scalar(call, args, t, func(a []val, o *val) error {
		if a[0].null {
			o.null = true
			return nil
		}
		return parseAs(t, fields, a[0].s, o)
	}, fnOpts{lenient: true, fails: true}), nil
}

// buildIsDate is IS_DATE(text, format): whether text parses with the
// format (as PARSEDATETIME would read it); FALSE for NULL.
func buildIsDate(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aString, aString); err != nil {
		return nil, err
	}
	if err := checkPatternConst(call, args, 1); err != nil {
		return nil, err
	}
	var cache patternCache
	return c.scalar(call, args, row.Boolean, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.b = false
			return nil
		}
		fields, err := cache.get(a[1].s)
		if err != nil {
			o.b = false
			return nil
		}
		t, ok := parsedType(a[1].s)
		if !ok {
			t = row.Timestamp
		}
		var parsed val
		o.b = parseAs(t, fields, a[0].s, &parsed) == nil
		return nil
	}, fnOpts{lenient: true}), nil
}

// zoneOf reads a zone as Java's ZoneId.of: UTC, GMT, UTC+8, +08:00, or a
// region such as Asia/Shanghai.
func zoneOf(s string) (*time.Location, error) {
	up := strings.ToUpper(s)
	offset := ""
	switch {
	case up == "UTC" || up == "GMT" || up == "Z" || up == "UT":
		return time.UTC, nil
	case strings.HasPrefix(up, "UTC") || strings.HasPrefix(up, "GMT"):
		offset = s[3:]
	case strings.HasPrefix(up, "UT"):
		offset = s[2:]
	case strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-"):
		offset = s
	default:
		loc, err := time.LoadLocation(s)
		if err != nil {
			return nil, fmt.Errorf("unknown time zone %q", s)
		}
		return loc, nil
	}
	if len(offset) < 2 || offset[0] != '+' && offset[0] != '-' {
		return nil, fmt.Errorf("unknown time zone %q", s)
	}
	sign := 1
	if offset[0] == '-' {
		sign = -1
	}
	var h, m, sec int
	parts := strings.Split(offset[1:], ":")
	nums := make([]int, len(parts))
	for k, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || len(parts) > 3 {
			return nil, fmt.Errorf("unknown time zone %q", s)
		}
		nums[k] = v
	}
	switch len(nums) {
	case 1:
		if len(parts[0]) == 4 { // +0800
			h, m = nums[0]/100, nums[0]%100
		} else {
			h = nums[0]
		}
	case 2:
		h, m = nums[0], nums[1]
	case 3:
		h, m, sec = nums[0], nums[1], nums[2]
	}
	if h > 18 || m > 59 || sec > 59 {
		return nil, fmt.Errorf("time zone %q is out of range", s)
	}
	return time.FixedZone(s, sign*(h*3600+m*60+sec)), nil
}

// buildFromUnixTime is FROM_UNIXTIME(seconds, format[, zone]): the moment
// as text in the zone (the system's by default).
func buildFromUnixTime(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	if err := c.checkArgs(call, args, aInt, aString, aString); err != nil {
		return nil, err
	}
	if err := checkPatternConst(call, args, 1); err != nil {
		return nil, err
	}
	if len(args) == 3 {
		if z, ok := constString(args[2]); ok {
			if _, err := zoneOf(z); err != nil {
				return nil, errAt(call.args[2].pos(), "function FROM_UNIXTIME: %v", err)
			}
		}
	}
	var cache patternCache
	var zcache struct {
		name string
		loc  *time.Location
	}
	return c.scalar(call, args, row.String, func(a []val, o *val) error {
		if a[0].null || a[1].null {
			o.null = true
			return nil
		}
		loc := time.Local
		if len(a) == 3 && !a[2].null {
			if zcache.loc == nil || zcache.name != a[2].s {
				z, err := zoneOf(a[2].s)
				if err != nil {
					return err
				}
				zcache.name, zcache.loc = a[2].s, z
			}
			loc = zcache.loc
		}
		fields, err := cache.get(a[1].s)
		if err != nil {
			return err
		}
		sec, nano := row.TimestampOf(time.Unix(a[0].i, 0).In(loc))
		if err := row.CheckTimestamp(sec); err != nil { // Java's Instant and LocalDateTime throw
			return fmt.Errorf("FROM_UNIXTIME(%d): %w", a[0].i, err)
		}
		s, err := formatJava(fields, partsOfTimestamp(sec, nano))
		o.s = s
		return err
	}, fnOpts{lenient: true, fails: true}), nil
}
