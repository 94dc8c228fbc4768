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

// The row model keeps a timestamp as nanoseconds since 1970-01-01 (a wall
// clock without zone). These two functions are the only place that knows
// it: the model's range is being widened, and only they change then.

// storeTimestamp is the stored form of t's wall clock (read as UTC).
func storeTimestamp(t time.Time) (int64, error) {
	if y := t.Year(); y < 1678 || y > 2261 {
		return 0, fmt.Errorf("timestamp %s is outside the range stactor holds (years 1678..2261)", t.Format("2006-01-02 15:04:05.999999"))
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC).UnixNano(), nil
}

// loadTimestamp is the wall clock of a stored timestamp, in UTC.
func loadTimestamp(v int64) time.Time { return time.Unix(0, v).UTC() }

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
