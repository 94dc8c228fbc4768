package localfile

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go/format"

	"github.com/stactor/stactor/row"
)

// TestTimestampTZFormats writes timestamp_tz values (offsets with minutes,
// -12:00, years 1 and 9999) in every format and reads them back: with
// their offsets from the text formats, as the UTC wall clock (a
// timestamp) from parquet and orc, which hold the instant.
func TestTimestampTZFormats(t *testing.T) {
	s := row.MustSchema("t",
		row.Field{Name: "id", Type: row.BigInt, Nullable: true},
		row.Field{Name: "tz", Type: row.TimestampTZ, Nullable: true},
		row.Field{Name: "arr", Type: row.ArrayOf(row.TimestampTZ), Nullable: true},
	)
	texts := []string{"2024-01-01T10:00+05:45", "0001-01-01T00:00:00.500-12:00", "9999-12-31T23:59:59.999999+14:00"}
	var in [][]any
	for i, x := range texts {
		v, err := row.Convert(row.TimestampTZ, x)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, []any{int64(i), v, []any{v}})
	}
	in = append(in, []any{int64(9), nil, nil})
	for _, tc := range []struct {
		format, read, content string // content: what the file holds of row 0
		asTimestamp           bool
	}{
		{"text", "", "2024-01-01T10:00+05:45", false},
		{"csv", "", "2024-01-01T10:00+05:45", false},
		{"json", "", `"tz":"2024-01-01T10:00:00+05:45"`, false},
		{"xml", "xml_row_tag = RECORD\nxml_use_attr_format = false\n", "<tz>2024-01-01T10:00+05:45</tz>", false},
		{"excel", "skip_header_row_number = 1\n", "", false},
		{"parquet", "", "", true},
		{"orc", "", "", true},
	} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			schema := s
			if tc.format == "text" || tc.format == "csv" || tc.format == "excel" || tc.format == "orc" {
				// text arrays are split text, orc's reader takes no
				// arrays of timestamps (SeaTunnel's): the column is enough
				schema = row.MustSchema("t", s.Fields[:2]...)
			}
			rows := make([][]any, len(in))
			for i, r := range in {
				rows[i] = r[:schema.Len()]
			}
			opts := ""
			if tc.format == "xml" {
				opts = "xml_use_attr_format = false\n"
			}
			k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = "+tc.format+"\n"+opts, schema)
			writeAndCommit(t, k, task(0, 0), 1, batchOf(t, schema, rows...))
			got := files(t, dir)
			if len(got) != 1 {
				t.Fatalf("files %v", got)
			}
			if tc.content != "" {
				if text := readFile(t, filepath.Join(dir, got[0])); !strings.Contains(text, tc.content) {
					t.Fatalf("the file does not hold %s:\n%s", tc.content, text)
				}
			}
			if tc.format == "parquet" {
				_, pf, _, err := openParquet(filepath.Join(dir, got[0]))
				if err != nil {
					t.Fatal(err)
				}
				ts, ok := pf.Schema().Fields()[1].Type().LogicalType().Value.(*format.TimestampType)
				if !ok || !ts.IsAdjustedToUTC {
					t.Fatalf("parquet logical type %v, want a TIMESTAMP adjusted to UTC", pf.Schema().Fields()[1].Type().LogicalType())
				}
			}
			body := "path = " + q(dir) + "\nfile_format_type = " + tc.format + "\n" + tc.read
			if !tc.asTimestamp {
				body += schemaBlock(schema)
			}
			src := newTestSource(t, body)
			want := rows
			if tc.asTimestamp {
				if typ := src.Tables()[0].Fields[1].Type; typ.ID != row.TypeTimestamp {
					t.Fatalf("read as %s, want timestamp", typ)
				}
				want = make([][]any, len(rows))
				for i, r := range rows {
					want[i] = slices.Clone(r)
					if r[1] != nil {
						v, _ := row.Convert(row.Timestamp, r[1].(time.Time).UTC())
						want[i] = []any{r[0], v, []any{v}}[:len(r)]
					}
				}
			}
			read := readAll(t, src, 1)
			compareRows(t, schema.Names(), read, want)
			if !tc.asTimestamp {
				for i, x := range texts {
					if got := row.Text(row.TimestampTZ, read[i][1]); got != x {
						t.Errorf("row %d reads as %s, want %s", i, got, x)
					}
				}
			}
		})
	}
}
