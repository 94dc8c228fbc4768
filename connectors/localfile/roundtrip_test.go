package localfile

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// allTypes is a table of every SeaTunnel type.
func allTypes(t testing.TB) *row.Schema {
	t.Helper()
	types := []string{"null", "string", "boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
		"decimal(30, 8)", "bytes", "date", "time", "timestamp", "array<int>", "map<string, string>",
		"row<a int, b string, c array<string>>"}
	var fields []row.Field
	for _, s := range types {
		ty, err := row.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		name := "c_" + strings.NewReplacer("(", "", ")", "", ", ", "_", "<", "_", ">", "", " ", "_").Replace(s)
		if ty.ID == row.TypeRow {
			name = "c_row"
		}
		fields = append(fields, row.Field{Name: name, Type: ty, Nullable: true})
	}
	return row.MustSchema("t", fields...)
}

func ts(s string) time.Time {
	v, err := row.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return v
}

func allTypesRows(format string) [][]any {
	str := "plain"
	if format == "csv" || format == "json" || format == "parquet" {
		str = "a, \"quoted\"\nline, # and more "
	}
	rows := [][]any{
		{nil, str, true, int64(-128), int64(32767), int64(-2147483648), int64(9223372036854775807),
			float64(float32(3.1)), 9.33333, decimal.RequireFromString("99999.99999999"), []byte("bytes"),
			ts("2012-12-21"), 12*time.Hour + 34*time.Minute + 56*time.Second + 123456*time.Microsecond, ts("2012-12-21T12:34:56.654321"),
			[]any{int64(0), int64(1), int64(2)}, &row.MapValue{Keys: []any{"k0", "k1"}, Values: []any{"v0", "v1"}},
			[]any{int64(7), "in row", []any{"x", "y"}}},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{nil, "second", false, int64(0), int64(-1), int64(42), int64(-42),
			1e10, -1.5e-7, decimal.RequireFromString("-0.00000001"), []byte("b"),
			ts("1969-07-20"), time.Duration(0), ts("1969-07-20T20:17:40"),
			[]any{int64(5), nil, int64(6)}, &row.MapValue{Keys: []any{"k"}, Values: []any{nil}},
			[]any{nil, "x", nil}},
	}
	if format == "json" || format == "parquet" {
		// Formats that tell an empty string and an empty array from null.
		rows = append(rows, []any{nil, "", true, int64(1), int64(1), int64(1), int64(1), 0.0, 0.0, decimal.Zero, []byte{},
			ts("2000-01-01"), time.Duration(1000), ts("2000-01-01T00:00:00.000001"), []any{}, &row.MapValue{}, []any{int64(1), "", []any{}}})
	}
	return rows
}

func TestRoundTripEveryFormatEveryType(t *testing.T) {
	for _, format := range []string{"text", "csv", "json", "parquet"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			schema := allTypes(t)
			fmts := `datetime_format = "yyyy-MM-dd HH:mm:ss.SSSSSS"
				time_format = "HH:mm:ss.SSSSSS"`
			k := newTestSink(t, `path = `+q(dir)+`
				file_format_type = `+format+`
				`+fmts, schema)
			want := allTypesRows(format)
			writeAndCommit(t, k, task(0, 0), 1, batchOf(t, schema, want...))
			got := files(t, dir)
			if len(got) != 1 || !strings.HasPrefix(got[0], "T_job1_1_0_1_0.") {
				t.Fatalf("files: %v", got)
			}

			var schemaBlock strings.Builder
			schemaBlock.WriteString("schema { fields {\n")
			for _, f := range schema.Fields {
				schemaBlock.WriteString("  " + f.Name + " = \"" + f.Type.String() + "\"\n")
			}
			schemaBlock.WriteString("} }\n")
			src := newTestSource(t, `path = `+q(dir)+`
				file_format_type = `+format+`
				`+fmts+`
				`+schemaBlock.String())
			rows := readAll(t, src, 1)
			compareRows(t, schema.Names(), rows, want)
			if format == "parquet" {
				// parquet also reads its own schema.
				src := newTestSource(t, `path = `+q(filepath.Join(dir, got[0]))+`
					file_format_type = parquet`)
				if !src.cfg.schema.Fields[16].Type.Equal(schema.Fields[16].Type) || src.cfg.schema.Len() != schema.Len() {
					t.Fatalf("parquet schema: %s", src.cfg.schema)
				}
				compareRows(t, schema.Names(), readAll(t, src, 1), want)
			}
		})
	}
}
