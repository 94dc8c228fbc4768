package sqlengine

import (
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// TestTimestampTZ: a timestamp_tz column passes through SELECT and WHERE
// with its offset, prints as OffsetDateTime.toString, casts to and from
// text, timestamp, date and time, and compares as OffsetDateTime.compareTo.
func TestTimestampTZ(t *testing.T) {
	s := row.MustSchema("fake",
		row.Field{Name: "id", Type: row.Int},
		row.Field{Name: "tz", Type: row.TimestampTZ, Nullable: true},
		row.Field{Name: "other", Type: row.TimestampTZ, Nullable: true},
		row.Field{Name: "ts", Type: row.Timestamp, Nullable: true},
	)
	rows := [][]any{
		{1, "2024-01-01T10:00:00+08:00", "2024-01-01T02:00:00Z", "2024-01-01T10:00:00"},
		{2, "2024-01-01T02:00:00Z", "2024-01-01T02:00:00Z", "2024-01-01T02:00:00"},
		{3, "0001-01-01T00:00:00.5-12:00", "9999-12-31T23:59:59.999999999+05:45", "0001-01-01T00:00:00"},
		{4, nil, "2024-01-01T07:45:00+05:45", nil},
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"select * from fake where id > 0", []string{
			"1 | 2024-01-01T10:00+08:00 | 2024-01-01T02:00Z | 2024-01-01T10:00",
			"2 | 2024-01-01T02:00Z | 2024-01-01T02:00Z | 2024-01-01T02:00",
			"3 | 0001-01-01T00:00:00.500-12:00 | 9999-12-31T23:59:59.999999999+05:45 | 0001-01-01T00:00",
			"4 | null | 2024-01-01T07:45+05:45 | null"}},
		{"select id, tz from fake where id % 2 = 1", []string{"1 | 2024-01-01T10:00+08:00", "3 | 0001-01-01T00:00:00.500-12:00"}},
		{"select cast(tz as string), cast(tz as timestamp), cast(tz as date), cast(tz as time) from fake where id = 1", []string{"2024-01-01T10:00+08:00 | 2024-01-01T10:00 | 2024-01-01 | 10:00"}},
		{"select cast(tz as timestamp) from fake where id = 3", []string{"0001-01-01T00:00:00.500"}},
		{"select cast(ts as timestamp_tz), cast('2024-06-30 23:59:59.25-03:30' as timestamp_tz) from fake where id = 1", []string{"2024-01-01T10:00Z | 2024-06-30T23:59:59.250-03:30"}},
		{"select concat(id, ' ', tz) from fake where id = 2", []string{"2 2024-01-01T02:00Z"}},
		// The same instant at another offset is neither equal nor unequal
		// by instant alone: = is OffsetDateTime.equals.
		{"select id from fake where tz = other", []string{"2"}},
		{"select id from fake where tz > other", []string{"1"}},
		{"select id from fake where tz < other", []string{"3"}},
		{"select id from fake where tz <> other", []string{"1", "3", "4"}},
		{"select id from fake where tz = '2024-01-01T10:00:00+08:00'", []string{"1"}},
		{"select id from fake where other >= '2024-01-01T02:00:00Z'", []string{"1", "2", "3", "4"}},
		{"select id from fake where other > '2024-01-01T02:00:00Z'", []string{"3", "4"}},
		{"select id from fake where tz is null", []string{"4"}},
		{"select id from fake where tz in ('2024-01-01T02:00:00Z', '0001-01-01T00:00:00.5-12:00')", []string{"2", "3"}},
		{"select id from fake where tz in (other)", []string{"2"}},
		{"select coalesce(tz, other), case when id = 1 then other else tz end from fake where id in (1, 4)", []string{
			"2024-01-01T10:00+08:00 | 2024-01-01T02:00Z", "2024-01-01T07:45+05:45 | null"}},
		{"select id from fake where tz not in ('2024-01-01T10:00:00+08:00')", []string{"2", "3"}},
		{"select id from fake where cast(tz as timestamp) = ts", []string{"1", "2"}},
	} {
		got, _, err := run(t, tc.q, s, rows)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if strings.Join(got, ";") != strings.Join(tc.want, ";") {
			t.Errorf("%s:\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
	// A timestamp_tz is not a timestamp: comparing them, or a date
	// function of one, is a plan-time error; the text must have an offset.
	for _, tc := range []struct{ q, msg string }{
		{"select id from fake where tz = ts", "cannot compare timestamp_tz with timestamp"},
		{"select id from fake where tz = '2024-01-01T10:00:00'", "cannot compare timestamp_tz"},
		{"select year(tz) from fake", "function YEAR: argument 1 must be a date or timestamp, got timestamp_tz at 1:13 of query (CAST(x AS TIMESTAMP) is its wall clock)"},
		{"select extract(hour from tz) from fake", "EXTRACT needs a date, time or timestamp, got timestamp_tz"},
	} {
		if _, err := Compile(tc.q, s); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error with %q", tc.q, err, tc.msg)
		}
	}
	names := row.MustSchema("fake", row.Field{Name: "name", Type: row.String})
	if _, _, err := run(t, "select cast(name as timestamp_tz) from fake", names, [][]any{{"2024-01-01T10:00:00"}}); err == nil || !strings.Contains(err.Error(), "TIMESTAMP_TZ") {
		t.Errorf("text without an offset cast: %v", err)
	}
}
