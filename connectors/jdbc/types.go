package jdbc

import (
	"fmt"
	"math"
	"time"

	"github.com/stactor/stactor/row"
)

// column is one column of a table or query as the database describes it,
// and the row type it maps to.
type column struct {
	Name     string    `json:"name"`
	DBType   string    `json:"db_type"` // as the database writes it: numeric(10,2), int(11) unsigned, integer[]
	Type     *row.Type `json:"-"`
	TypeText string    `json:"type"` // Type as text, for the resolved form
	Nullable bool      `json:"nullable"`
	// OID and Mod are PostgreSQL's type oid and modifier (0 for MySQL);
	// Read says how the reader decodes the column.
	OID  uint32 `json:"oid,omitempty"`
	Mod  int32  `json:"mod,omitempty"`
	Read string `json:"read,omitempty"`
}

// errUnmappable says a column has a type the connector cannot map.
func errUnmappable(table string, c column, why string) error {
	if why != "" {
		why = ": " + why
	}
	return fmt.Errorf("table %s column %q has type %s, which Jdbc cannot map%s", table, c.Name, c.DBType, why)
}

// The row model keeps a timestamp as seconds and nanoseconds of a wall
// clock without zone (row.TimestampOf), a timestamp_tz as the instant and
// its offset (row.TimestampTZOf). These functions are the only place here
// that knows it.

// appendTimestamp appends t's wall clock (read as UTC) to c.
func appendTimestamp(c *row.Column, t time.Time) error {
	sec, nano := row.TimestampOf(t)
	if err := row.CheckTimestamp(sec); err != nil {
		return fmt.Errorf("timestamp %s: %w", t.Format("2006-01-02 15:04:05.999999"), err)
	}
	c.AppendTimestamp(sec, nano)
	return nil
}

// loadTimestamp is the wall clock of row i's timestamp, in UTC.
func loadTimestamp(c *row.Column, i int) time.Time { return row.TimestampTime(c.Secs[i], c.Nanos[i]) }

// appendTimestampTZ appends t's instant, at t's offset, to c.
func appendTimestampTZ(c *row.Column, t time.Time) error {
	sec, nano, off := row.TimestampTZOf(t)
	if err := row.CheckTimestampTZ(sec, off); err != nil {
		return fmt.Errorf("timestamp_tz %s: %w", t.Format(time.RFC3339Nano), err)
	}
	c.AppendTimestampTZ(sec, nano, off)
	return nil
}

// loadInstant is row i's timestamp_tz as its instant in UTC: what
// PostgreSQL's timestamptz and a MySQL datetime (sessions run in UTC)
// store.
func loadInstant(c *row.Column, i int) time.Time {
	return time.Unix(c.Secs[i], int64(c.Nanos[i])).UTC()
}

// storeTime is the stored form of a time of day; 24:00:00 (which
// PostgreSQL allows) is kept as the end of the day.
func storeTime(d time.Duration) (int64, error) {
	if d < 0 || d > 24*time.Hour {
		return 0, fmt.Errorf("time %v is not a time of day", d)
	}
	return int64(d), nil
}

// storeDate is the stored form of a date: days since 1970-01-01.
func storeDate(y int, mo time.Month, d int) int64 {
	return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// float32Of narrows a double to float as the row model holds floats.
func float32Of(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	return float64(float32(f))
}
