package conformance

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// AllTypes is every row type (row/types.go), nested ones with a
// primitive inside: what a connector that supports everything declares.
func AllTypes() []*row.Type {
	return append(PrimitiveTypes(),
		row.ArrayOf(row.Int), row.ArrayOf(row.String),
		row.MapOf(row.String, row.Int),
		row.RowOf(row.Field{Name: "a", Type: row.Int, Nullable: true}, row.Field{Name: "b", Type: row.String, Nullable: true}),
	)
}

// PrimitiveTypes is every type but array, map and row.
func PrimitiveTypes() []*row.Type {
	return []*row.Type{
		row.String, row.Boolean, row.TinyInt, row.SmallInt, row.Int, row.BigInt,
		row.Float, row.Double, row.DecimalOf(10, 2), row.DecimalOf(38, 18), row.Bytes,
		row.Date, row.Time, row.Timestamp, row.TimestampTZ, row.Null,
	}
}

// TimestampTZAtUTC is an Expected for a connector that keeps a
// timestamp_tz's instant but not its offset (PostgreSQL's timestamptz,
// Parquet's UTC-adjusted timestamps): each timestamp_tz value at offset Z.
func TimestampTZAtUTC(schema *row.Schema, rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
		for j, f := range schema.Fields {
			if tz, ok := r[j].(time.Time); ok && f.Type.ID == row.TypeTimestampTZ {
				out[i][j] = tz.In(row.ZoneZ)
			}
		}
	}
	return out
}

// TimestampTZAsTimestamp is a ReadsAs for a source that reads a
// timestamp_tz its sink wrote back as a timestamp (the instant's wall
// clock in UTC, with TimestampTZAtUTC): a format or database without a
// type that holds an offset.
func TimestampTZAsTimestamp(t *row.Type) *row.Type {
	if t.ID == row.TypeTimestampTZ {
		return row.Timestamp
	}
	return t
}

// Without is types less those whose String is one of names ("bytes",
// "map<string, int>"): for a connector that supports all but a few.
func Without(types []*row.Type, names ...string) []*row.Type {
	var out []*row.Type
	for _, t := range types {
		if !slices.Contains(names, t.String()) {
			out = append(out, t)
		}
	}
	return out
}

// TypeSchema is the table the suite writes and reads for type t: a
// non-null bigint id (the row's number) and a nullable column v of t.
func TypeSchema(t *row.Type) *row.Schema {
	return row.MustSchema("conformance", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: t, Nullable: true})
}

// AllTypesSchema is one table with a nullable column of each of types
// (c0, c1 ...) after a non-null bigint id.
func AllTypesSchema(types []*row.Type) *row.Schema {
	fields := []row.Field{{Name: "id", Type: row.BigInt}}
	for i, t := range types {
		fields = append(fields, row.Field{Name: "c" + strconv.Itoa(i), Type: t, Nullable: true})
	}
	return row.MustSchema("conformance", fields...)
}

// Rows are n rows of schema: column 0 (a bigint) is the row's number
// from 0, the others deterministic values of their types, edge values
// included, null every fifth row.
func Rows(schema *row.Schema, n int) [][]any {
	out := make([][]any, n)
	for i := range out {
		r := make([]any, schema.Len())
		r[0] = int64(i)
		for j := 1; j < schema.Len(); j++ {
			if (i+j)%5 != 4 {
				r[j] = Value(schema.Fields[j].Type, i+j)
			}
		}
		out[i] = r
	}
	return out
}

// Value is the i-th test value of type t, boxed as row.Column.Value
// returns it (nil for the null type).
func Value(t *row.Type, i int) any {
	pick := func(vals ...any) any { return vals[i%len(vals)] }
	switch t.ID {
	case row.TypeString:
		return pick("plain", "", "with, comma", `quote " and \ backslash`, "ünïcødé ✓", "tab\there", fmt.Sprintf("s-%d", i))
	case row.TypeBoolean:
		return i%2 == 0
	case row.TypeTinyInt:
		return pick(int64(0), int64(math.MinInt8), int64(math.MaxInt8), int64(i%100))
	case row.TypeSmallInt:
		return pick(int64(0), int64(math.MinInt16), int64(math.MaxInt16), int64(i))
	case row.TypeInt:
		return pick(int64(0), int64(math.MinInt32), int64(math.MaxInt32), int64(i*1000))
	case row.TypeBigInt:
		return pick(int64(0), int64(math.MinInt64), int64(math.MaxInt64), int64(i)*1e12)
	case row.TypeFloat:
		return pick(0.0, 1.5, -0.25, float64(float32(3.4e38)), float64(float32(i)/8))
	case row.TypeDouble:
		return pick(0.0, 0.1, -1e300, 123456.789, float64(i)/3)
	case row.TypeDecimal:
		max := strings.Repeat("9", t.Precision-t.Scale)
		if t.Scale > 0 {
			max += "." + strings.Repeat("9", t.Scale)
		}
		small := decimal.New(int64(i)*7-30, -int32(min(t.Scale, 2)))
		return pick(decimal.Zero, decimal.RequireFromString(max), decimal.RequireFromString("-"+max), small)
	case row.TypeBytes:
		return pick([]byte{}, []byte("bytes"), []byte{0, 1, 2, 0xfe, 0xff}, []byte(strconv.Itoa(i)))
	case row.TypeDate:
		return pick(date(1970, 1, 1), date(2024, 2, 29), date(1900, 1, 1), date(9999, 12, 31), date(1, 1, 1), date(2000+i%30, 1+i%12, 1+i%28))
	case row.TypeTime:
		return pick(time.Duration(0), 23*time.Hour+59*time.Minute+59*time.Second, 12*time.Hour+34*time.Minute+56*time.Second+789*time.Millisecond, time.Duration(i)*time.Second)
	case row.TypeTimestamp:
		return pick(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC),
			time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(2026, 1, 1+i%28, i%24, i%60, 0, 0, time.UTC),
			time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999000000, time.UTC))
	case row.TypeTimestampTZ: // offsets with minutes, at both ends of the zones, and years 1 and 9999
		zone := func(h, m int) *time.Location { return time.FixedZone("", h*3600+m*60) }
		return pick(time.Date(2024, 1, 1, 10, 0, 0, 0, zone(8, 0)), time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC),
			time.Date(1999, 12, 31, 23, 59, 59, 0, zone(5, 45)), time.Date(2026, 1, 1+i%28, i%24, i%60, 0, 0, zone(-12, 0)),
			time.Date(1, 1, 1, 12, 0, 0, 0, zone(14, 0)), time.Date(9999, 12, 31, 11, 59, 59, 999000000, zone(-3, -30)))
	case row.TypeArray:
		n := i % 4
		out := make([]any, n)
		for k := range out {
			out[k] = Value(t.Elem, i+k+1)
		}
		return out
	case row.TypeMap:
		m := &row.MapValue{}
		for k := 0; k < i%3+1; k++ {
			m.Keys = append(m.Keys, Value(t.Key, i*3+k))
			m.Values = append(m.Values, Value(t.Elem, i+k))
		}
		// a map's keys are distinct
		seen := map[string]bool{}
		keep := &row.MapValue{}
		for k := range m.Keys {
			if key := Key(m.Keys[k]); !seen[key] {
				seen[key] = true
				keep.Keys, keep.Values = append(keep.Keys, m.Keys[k]), append(keep.Values, m.Values[k])
			}
		}
		return keep
	case row.TypeRow:
		out := make([]any, len(t.Fields))
		for k, f := range t.Fields {
			out[k] = Value(f.Type, i+k)
		}
		return out
	}
	return nil
}

func date(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }

// Key is a canonical text of a boxed value, equal for equal values:
// rows are compared by it. A map's entries are sorted (a map has no
// order a connector must keep), a decimal is its exact value.
func Key(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case []byte:
		return fmt.Sprintf("0x%x", x)
	case bool, int64:
		return fmt.Sprint(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case decimal.Decimal:
		return "dec:" + x.String()
	case time.Time:
		return x.Format(time.RFC3339Nano) // a timestamp_tz keeps its offset; other times are UTC
	case time.Duration:
		return "time:" + x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Key(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *row.MapValue:
		parts := make([]string, len(x.Keys))
		for i := range x.Keys {
			parts[i] = Key(x.Keys[i]) + ": " + Key(x.Values[i])
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// RowKey is the key of a row: its values' keys.
func RowKey(r []any) string { return Key(r) }

// CheckValue tells whether v is a value of type t as row.Column.Value
// boxes it (nil is any nullable value).
func CheckValue(t *row.Type, v any) error {
	if v == nil {
		return nil
	}
	bad := func() error { return fmt.Errorf("%s value %s is a %T", t, Key(v), v) }
	switch t.ID {
	case row.TypeNull:
		return bad()
	case row.TypeString:
		if _, ok := v.(string); !ok {
			return bad()
		}
	case row.TypeBoolean:
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		bits := map[row.TypeID]uint{row.TypeTinyInt: 8, row.TypeSmallInt: 16, row.TypeInt: 32, row.TypeBigInt: 64}[t.ID]
		if bits < 64 && (x < -(1<<(bits-1)) || x >= 1<<(bits-1)) {
			return fmt.Errorf("%s value %d is out of range", t, x)
		}
	case row.TypeFloat, row.TypeDouble:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		if t.ID == row.TypeFloat && !math.IsNaN(x) && float64(float32(x)) != x {
			return fmt.Errorf("float value %v is not a float32", x)
		}
	case row.TypeDecimal:
		x, ok := v.(decimal.Decimal)
		if !ok {
			return bad()
		}
		if -x.Exponent() > int32(t.Scale) {
			return fmt.Errorf("%s value %s has more than %d decimals", t, x, t.Scale)
		}
		if digits := len(x.Abs().Truncate(0).String()); x.Abs().Cmp(decimal.NewFromInt(1)) >= 0 && digits > t.Precision-t.Scale {
			return fmt.Errorf("%s value %s has more than %d integer digits", t, x, t.Precision-t.Scale)
		}
	case row.TypeBytes:
		if _, ok := v.([]byte); !ok {
			return bad()
		}
	case row.TypeDate:
		x, ok := v.(time.Time)
		if !ok {
			return bad()
		}
		if x.Location() != time.UTC || x.Hour()+x.Minute()+x.Second()+x.Nanosecond() != 0 {
			return fmt.Errorf("date value %s is not midnight UTC", Key(v))
		}
	case row.TypeTime:
		x, ok := v.(time.Duration)
		if !ok {
			return bad()
		}
		if x < 0 || x >= 24*time.Hour {
			return fmt.Errorf("time value %s is not within a day", x)
		}
	case row.TypeTimestamp:
		x, ok := v.(time.Time)
		if !ok {
			return bad()
		}
		if x.Location() != time.UTC {
			return fmt.Errorf("timestamp value %s is not UTC", Key(v))
		}
	case row.TypeTimestampTZ:
		if _, ok := v.(time.Time); !ok {
			return bad()
		}
	case row.TypeArray:
		x, ok := v.([]any)
		if !ok {
			return bad()
		}
		for _, e := range x {
			if err := CheckValue(t.Elem, e); err != nil {
				return fmt.Errorf("%s element: %w", t, err)
			}
		}
	case row.TypeMap:
		x, ok := v.(*row.MapValue)
		if !ok || len(x.Keys) != len(x.Values) {
			return bad()
		}
		for i := range x.Keys {
			if err := CheckValue(t.Key, x.Keys[i]); err != nil {
				return fmt.Errorf("%s key: %w", t, err)
			}
			if err := CheckValue(t.Elem, x.Values[i]); err != nil {
				return fmt.Errorf("%s value: %w", t, err)
			}
		}
	case row.TypeRow:
		x, ok := v.([]any)
		if !ok || len(x) != len(t.Fields) {
			return bad()
		}
		for i, f := range t.Fields {
			if err := CheckValue(f.Type, x[i]); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	}
	return nil
}

// CheckRows tells whether every row is of schema: its width, and each
// value of its field's type (null only where the field is nullable).
func CheckRows(schema *row.Schema, rows [][]any) error {
	for i, r := range rows {
		if len(r) != schema.Len() {
			return fmt.Errorf("row %d has %d values for %d fields", i, len(r), schema.Len())
		}
		for j, f := range schema.Fields {
			if r[j] == nil && !f.Nullable && f.Type.ID != row.TypeNull {
				return fmt.Errorf("row %d: field %s is not nullable but null", i, f.Name)
			}
			if err := CheckValue(f.Type, r[j]); err != nil {
				return fmt.Errorf("row %d field %s: %w", i, f.Name, err)
			}
		}
	}
	return nil
}

// Diff compares two multisets of rows: "" when they hold the same rows
// as often, otherwise what is missing and what is extra (the first few).
func Diff(want, got [][]any) string {
	count := map[string]int{}
	for _, r := range want {
		count[RowKey(r)]++
	}
	for _, r := range got {
		count[RowKey(r)]--
	}
	var missing, extra []string
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for c := count[k]; c > 0; c-- {
			missing = append(missing, k)
		}
		for c := count[k]; c < 0; c++ {
			extra = append(extra, k)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d rows wanted, %d got: %d missing, %d extra", len(want), len(got), len(missing), len(extra))
	for i, k := range missing {
		if i == 5 {
			break
		}
		fmt.Fprintf(&b, "\n  missing %s", k)
	}
	for i, k := range extra {
		if i == 5 {
			break
		}
		fmt.Fprintf(&b, "\n  extra   %s", k)
	}
	return b.String()
}

// Batches cuts rows of schema into batches of size rows (all INSERT).
func Batches(schema *row.Schema, rows [][]any, size int) ([]*row.Batch, error) {
	var out []*row.Batch
	for from := 0; from < len(rows); from += size {
		b := row.NewBuilder(schema, size)
		for _, r := range rows[from:min(from+size, len(rows))] {
			if err := b.AppendRow(row.Insert, r); err != nil {
				return nil, fmt.Errorf("row %v: %w", r, err)
			}
		}
		out = append(out, b.Build())
	}
	return out, nil
}

// SchemaOption is schema as a `schema = { fields { ... } }` option of a
// job file, for a source that takes its schema there.
func SchemaOption(schema *row.Schema) string {
	var b strings.Builder
	b.WriteString("schema = {\n  fields {\n")
	for _, f := range schema.Fields {
		fmt.Fprintf(&b, "    %s = %s\n", strconv.Quote(f.Name), strconv.Quote(f.Type.String()))
	}
	b.WriteString("  }\n}\n")
	return b.String()
}
