package jdbc

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stactor/stactor/row"
)

// argFunc is the statement argument for row i of a column (never null:
// the caller passes nil for nulls).
type argFunc func(c *row.Column, i int) any

// argOf is how a column of type t is sent to a database of dialect.
// PostgreSQL takes pgx's native values; MySQL, whose statements carry
// their values inline, takes text for dates and times so that no time
// zone is applied.
func argOf(dialect string, t *row.Type) (argFunc, error) {
	switch t.ID {
	case row.TypeBoolean:
		return func(c *row.Column, i int) any { return c.Bools[i] }, nil
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return func(c *row.Column, i int) any { return c.Ints[i] }, nil
	case row.TypeFloat:
		if dialect == dialectPostgres {
			return func(c *row.Column, i int) any { return float32(c.Floats[i]) }, nil
		}
		return func(c *row.Column, i int) any { return c.Floats[i] }, nil
	case row.TypeDouble:
		return func(c *row.Column, i int) any { return c.Floats[i] }, nil
	case row.TypeDecimal:
		if dialect == dialectPostgres {
			return func(c *row.Column, i int) any {
				d := c.Decs[i]
				return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
			}, nil
		}
		return func(c *row.Column, i int) any { return c.Decs[i].String() }, nil
	case row.TypeString:
		return func(c *row.Column, i int) any { return c.Str(i) }, nil
	case row.TypeBytes:
		return func(c *row.Column, i int) any { return c.Bins[i] }, nil
	case row.TypeNull:
		return func(c *row.Column, i int) any { return nil }, nil
	case row.TypeDate:
		if dialect == dialectPostgres {
			return func(c *row.Column, i int) any { return time.Unix(c.Ints[i]*86400, 0).UTC() }, nil
		}
		return func(c *row.Column, i int) any { return time.Unix(c.Ints[i]*86400, 0).UTC().Format("2006-01-02") }, nil
	case row.TypeTime:
		if dialect == dialectPostgres {
			return func(c *row.Column, i int) any {
				return pgtype.Time{Microseconds: c.Ints[i] / 1000, Valid: true}
			}, nil
		}
		return func(c *row.Column, i int) any { return formatClock(time.Duration(c.Ints[i])) }, nil
	case row.TypeTimestamp:
		if dialect == dialectPostgres {
			return func(c *row.Column, i int) any { return loadTimestamp(c, i) }, nil
		}
		return func(c *row.Column, i int) any {
			return loadTimestamp(c, i).Format("2006-01-02 15:04:05.999999")
		}, nil
	case row.TypeTimestampTZ: // the instant; MySQL has no zone type, a datetime holds it in UTC
		if dialect == dialectPostgres {
			return func(c *row.Column, i int) any { return loadInstant(c, i) }, nil
		}
		return func(c *row.Column, i int) any {
			return loadInstant(c, i).Format("2006-01-02 15:04:05.999999")
		}, nil
	case row.TypeArray:
		if dialect == dialectPostgres {
			return func(c *row.Column, i int) any { return pgArrayArg(t.Elem, c.Anys[i]) }, nil
		}
	}
	return nil, fmt.Errorf("cannot write %s values to %s", t, dialect)
}

// formatClock writes a time of day as HH:MM:SS.ffffff.
func formatClock(d time.Duration) string {
	us := int64(d / time.Microsecond)
	return fmt.Sprintf("%02d:%02d:%02d.%06d", us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000)
}

// pgArrayArg is a boxed array as a typed slice pgx encodes, nulls kept.
func pgArrayArg(elem *row.Type, v any) any {
	xs, _ := v.([]any)
	switch elem.ID {
	case row.TypeBoolean:
		return typed[bool](xs)
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return typed[int64](xs)
	case row.TypeFloat, row.TypeDouble:
		return typed[float64](xs)
	case row.TypeString:
		return typed[string](xs)
	}
	return xs
}

func typed[T any](xs []any) []*T {
	out := make([]*T, len(xs))
	for i, x := range xs {
		if v, ok := x.(T); ok {
			out[i] = &v
		}
	}
	return out
}
