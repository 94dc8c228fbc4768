package localfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/row"
)

// sourceBody reads the files under dir in format, with schema unless the
// format carries its own (parquet).
func sourceBody(dir, format string, schema *row.Schema) string {
	body := sinkBody(dir, format)
	if format != formatParquet {
		body += conformance.SchemaOption(schema)
	}
	return body
}

// sinkBody writes format under dir; text formats with milliseconds, so
// that times and timestamps round trip (the defaults are whole seconds,
// as SeaTunnel's).
func sinkBody(dir, format string) string {
	body := fmt.Sprintf("path = %q\nfile_format_type = %s\n", dir, format)
	if format == formatText || format == formatCSV {
		body += "time_format = \"HH:mm:ss.SSS\"\ndatetime_format = \"yyyy-MM-dd HH:mm:ss.SSS\"\n"
	}
	return body
}

// readBack reads what the sink committed under dir (none yet: no rows).
func readBack(dir, format string, schema *row.Schema) func() ([][]any, error) {
	return func() ([][]any, error) {
		if entries, err := listVisible(dir); err != nil || len(entries) == 0 {
			return nil, err
		}
		return conformance.ReadAll(SourceFactory, sourceBody(dir, format, schema))
	}
}

// listVisible is the committed files under dir: not the staging folder.
func listVisible(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		if d.Name()[0] == '.' && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// formatTypes: every type, but text's bytes are written as they are
// (SeaTunnel's new String(bytes)), so binary values holding the \u0001
// field delimiter cannot round trip.
func formatTypes(format string) []*row.Type {
	switch format {
	case formatText:
		return conformance.Without(conformance.AllTypes(), "bytes")
	case formatORC:
		// SeaTunnel's OrcWriteStrategy has no null type
		return conformance.Without(conformance.AllTypes(), "null")
	}
	return conformance.AllTypes()
}

// badCodec is a compress_codec the format's sink refuses.
func badCodec(format string) string {
	if format == formatORC {
		return "lzo"
	}
	return "zlib"
}

// expected is what text and csv read back, as SeaTunnel's readers do: a
// blank field is null (StringUtils.isBlank), and an empty string, bytes,
// array or map is written as an empty field, also inside arrays, maps and
// rows, except that csv quotes a top-level empty string; an array loses
// its trailing empty elements (Java's String.split).
func expected(format string) func(*row.Schema, [][]any) [][]any {
	switch format {
	case formatParquet, formatORC:
		return conformance.TimestampTZAtUTC
	case formatText, formatCSV:
	default:
		return nil
	}
	var blank func(t *row.Type, v any, top bool) any
	blank = func(t *row.Type, v any, top bool) any {
		switch t.ID {
		case row.TypeString:
			if s, _ := v.(string); isBlank(s) && !(top && format == formatCSV) {
				return nil
			}
		case row.TypeBytes:
			if b, _ := v.([]byte); b != nil && len(b) == 0 {
				return nil
			}
		case row.TypeArray:
			x, _ := v.([]any)
			if x == nil {
				return v
			}
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = blank(t.Elem, e, false)
			}
			for len(out) > 0 && out[len(out)-1] == nil {
				out = out[:len(out)-1]
			}
			if len(out) == 0 {
				return nil
			}
			return out
		case row.TypeMap:
			x, _ := v.(*row.MapValue)
			if x == nil {
				return v
			}
			if len(x.Keys) == 0 {
				return nil
			}
			m := &row.MapValue{}
			for i := range x.Keys {
				m.Keys, m.Values = append(m.Keys, blank(t.Key, x.Keys[i], false)), append(m.Values, blank(t.Elem, x.Values[i], false))
			}
			return m
		case row.TypeRow:
			x, _ := v.([]any)
			if x == nil {
				return v
			}
			out := make([]any, len(x))
			for i, f := range t.Fields {
				out[i] = blank(f.Type, x[i], false)
			}
			return out
		}
		return v
	}
	return func(schema *row.Schema, rows [][]any) [][]any {
		out := make([][]any, len(rows))
		for i, r := range rows {
			out[i] = make([]any, len(r))
			for j, v := range r {
				out[i][j] = blank(schema.Fields[j].Type, v, true)
			}
		}
		return out
	}
}

// Parquet and ORC write a timestamp_tz as its instant (a UTC-adjusted
// TIMESTAMP, a TIMESTAMP_INSTANT) and read it back as a timestamp, the
// wall clock in UTC.
func readsAs(format string) func(*row.Type) *row.Type {
	if format != formatParquet && format != formatORC {
		return nil
	}
	return conformance.TimestampTZAsTimestamp
}

// Every format is a source and a sink: the source's test data is written
// by the sink, so each source test is a round trip, and the sink's
// committed files are read back by the source.
func TestConformance(t *testing.T) {
	// xml, excel and binary have tests of their own (docformat_test.go):
	// xml has no null string and cannot hold control characters (U+0000
	// ...) at all, excel keeps dates to the millisecond and numbers as
	// doubles, binary writes only the binary source's rows.
	for _, format := range []string{formatText, formatCSV, formatJSON, formatParquet, formatORC} {
		t.Run(format, func(t *testing.T) {
			t.Run("Source", func(t *testing.T) {
				conformance.RunSource(t, conformance.Source{
					Factory:  SourceFactory,
					Types:    formatTypes(format),
					Expected: expected(format),
					ReadsAs:  readsAs(format),
					Table: func(dir string, schema *row.Schema, rows [][]any) (string, error) {
						if err := conformance.Commit(SinkFactory, sinkBody(dir, format), schema, rows); err != nil {
							return "", err
						}
						return sourceBody(dir, format, schema), nil
					},
					BadOptions: []conformance.BadOption{
						{Name: "MissingPath", Body: fmt.Sprintf("path = %q\nfile_format_type = %s\n", filepath.Join(t.TempDir(), "nowhere"), format), Error: "nowhere"},
						{Name: "UnknownFormat", Body: "path = \"/tmp\"\nfile_format_type = xls\n", Error: "file_format_type"},
						{Name: "NoPath", Body: "file_format_type = " + format, Error: "path"},
					},
				})
			})
			t.Run("Sink", func(t *testing.T) {
				conformance.RunSink(t, conformance.Sink{
					Factory:     SinkFactory,
					Types:       formatTypes(format),
					Expected:    expected(format),
					ExactlyOnce: true,
					Target: func(dir string, schema *row.Schema) (string, func() ([][]any, error), error) {
						return sinkBody(dir, format), readBack(dir, format, schema), nil
					},
					BadOptions: []conformance.BadOption{
						{Name: "BadCompression", Body: sinkBody(t.TempDir(), format) + "compress_codec = " + badCodec(format) + "\n", Error: badCodec(format)},
						{Name: "UnknownSinkColumn", Body: sinkBody(t.TempDir(), format) + "sink_columns = [nope]\n", Error: "nope"},
					},
				})
			})
		})
	}
}

// The sink's exactly-once through the stactor binary, SIGKILLed and
// restored (conformance.KillsEnv for more kills).
func TestConformanceCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	const n = 6000
	conformance.RunCrash(t, conformance.Crash{
		Job: func(dir string) (string, error) {
			in := filepath.Join(dir, "in")
			if err := os.MkdirAll(in, 0o755); err != nil {
				return "", err
			}
			for f := 0; f < 3; f++ {
				var b strings.Builder
				for i := f; i < n; i += 3 {
					fmt.Fprintf(&b, "%d,name-%d\n", i, i)
				}
				if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%d.csv", f)), []byte(b.String()), 0o644); err != nil {
					return "", err
				}
			}
			return fmt.Sprintf(`
env {
  job.mode = BATCH
  checkpoint.interval = 200
  read_limit.rows_per_second = 1000
}
source {
  LocalFile {
    path = %q
    file_format_type = csv
    schema = { fields { id = bigint, name = string } }
    parallelism = 2
  }
}
sink {
  LocalFile {
    path = %q
    file_format_type = csv
    parallelism = 2
  }
}
`, in, filepath.Join(dir, "out")), nil
		},
		Verify: func(dir string) error {
			rows, err := conformance.ReadAll(SourceFactory, sourceBody(filepath.Join(dir, "out"), formatCSV,
				row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "name", Type: row.String})))
			if err != nil {
				return err
			}
			ids := make([]int64, len(rows))
			for i, r := range rows {
				ids[i], _ = r[0].(int64)
			}
			return conformance.ExactlyOnce(ids, n)
		},
	})
}

// Strings with line breaks round trip in csv (quoted), json and parquet;
// text has no quoting (as SeaTunnel's), so the suite's values hold none.
func TestLineBreaksRoundTrip(t *testing.T) {
	schema := conformance.TypeSchema(row.String)
	rows := [][]any{{int64(0), "a\nb"}, {int64(1), "c\r\nd"}, {int64(2), "\n"}, {int64(3), "x"}}
	for _, format := range []string{formatCSV, formatJSON, formatParquet} {
		dir := t.TempDir()
		if err := conformance.Commit(SinkFactory, sinkBody(dir, format), schema, rows); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		got, err := conformance.ReadAll(SourceFactory, sourceBody(dir, format, schema))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if d := conformance.Diff(rows, got); d != "" {
			t.Errorf("%s: %s", format, d)
		}
	}
}
