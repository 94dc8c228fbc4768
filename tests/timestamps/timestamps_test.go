// Package timestamps runs timestamps from year 1 to 9999 through the stactor
// binary, as a user's jobs do: FakeSource rows → LocalFile text, csv, json
// and parquet → LocalFile back → Console, checking the files written and what
// Console prints. Timestamps were int64 nanoseconds once, and
// `9999-12-31 23:59:59` (the usual "valid until" sentinel) came out of every
// sink as 1816-03-30 05:56:07; these are the values around every edge of
// that old range, and the range the row model holds now (issue 14).
package timestamps

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var binary string

func TestMain(m *testing.M) {
	os.Exit(stactorbin.Main(m.Run, &binary))
}

// runJob runs a job file with its own STACTOR_HOME and returns stdout; the
// job must succeed.
func runJob(t *testing.T, job string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "job.conf")
	if err := os.WriteFile(file, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(dir, "home"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("stactor run: %v\njob:\n%s\nstdout:\n%s\nstderr:\n%s", err, job, out.String(), errb.String())
	}
	return out.String()
}

// The rows: the sentinel, year 1, a nanosecond outside each end of int64
// nanoseconds, a fraction before 1970, and a null.
const fakeRows = `
        rows = [
          { kind = INSERT, fields = [1, "9999-12-31T23:59:59.999999999", "9999-12-31"] }
          { kind = INSERT, fields = [2, "0001-01-01T00:00:00", "0001-01-01"] }
          { kind = INSERT, fields = [3, "1677-09-21T00:12:43.145224191", "1677-09-21"] }
          { kind = INSERT, fields = [4, "2262-04-11T23:47:16.854775808", "2262-04-11"] }
          { kind = INSERT, fields = [5, "1969-12-31T23:59:59.5", "1969-12-31"] }
          { kind = INSERT, fields = [6, null, null] }
        ]`

const schema = `schema = { fields { id = int, ts = timestamp, d = date } }`

func writeJob(out, format string) string {
	return `
env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  FakeSource {
    ` + schema + fakeRows + `
  }
}
sink {
  LocalFile {
    path = "` + out + `"
    file_format_type = "` + format + `"
    datetime_format = "yyyy-MM-dd HH:mm:ss.SSSSSSSSS"
  }
}
`
}

func readJob(in, format string) string {
	sch := schema
	if format == "parquet" {
		sch = "" // the file's own
	}
	return `
env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  LocalFile {
    path = "` + in + `"
    file_format_type = "` + format + `"
    datetime_format = "yyyy-MM-dd HH:mm:ss.SSSSSSSSS"
    ` + sch + `
  }
}
sink {
  Console {}
}
`
}

// printed is what Console prints of each row (Java's LocalDateTime and
// LocalDate toString), by id.
var printed = map[string][]string{
	"csv": {
		"1, 9999-12-31T23:59:59.999999999, 9999-12-31",
		"2, 0001-01-01T00:00, 0001-01-01",
		"3, 1677-09-21T00:12:43.145224191, 1677-09-21",
		"4, 2262-04-11T23:47:16.854775808, 2262-04-11",
		"5, 1969-12-31T23:59:59.500, 1969-12-31",
		"6, ,", // Console prints a null as nothing
	},
	// Parquet timestamps are TIMESTAMP(MICROS): the nanoseconds go.
	"parquet": {
		"1, 9999-12-31T23:59:59.999999, 9999-12-31",
		"2, 0001-01-01T00:00, 0001-01-01",
		"3, 1677-09-21T00:12:43.145224, 1677-09-21",
		"4, 2262-04-11T23:47:16.854775, 2262-04-11",
		"5, 1969-12-31T23:59:59.500, 1969-12-31",
		"6, ,", // Console prints a null as nothing
	},
}

// inFile is what the file of each format holds for the sentinel.
var inFile = map[string]string{
	"text": "1\x019999-12-31 23:59:59.999999999\x019999-12-31\n",
	"csv":  "1,9999-12-31 23:59:59.999999999,9999-12-31\n",
	"json": `{"id":1,"ts":"9999-12-31T23:59:59.999999999","d":"9999-12-31"}`,
}

var consoleRow = regexp.MustCompile(`SeaTunnelRow#kind=INSERT : (.*)`)

func TestFakeSourceToLocalFileAndBack(t *testing.T) {
	for _, format := range []string{"text", "csv", "json", "parquet"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			runJob(t, writeJob(dir, format))
			names, err := filepath.Glob(filepath.Join(dir, "*"))
			if err != nil || len(names) != 1 {
				t.Fatalf("files %v, %v", names, err)
			}
			if want, ok := inFile[format]; ok {
				raw, err := os.ReadFile(names[0])
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(raw), want) {
					t.Errorf("the %s file lacks %q:\n%s", format, want, raw)
				}
			}
			out := runJob(t, readJob(dir, format))
			var got []string
			for _, m := range consoleRow.FindAllStringSubmatch(out, -1) {
				got = append(got, strings.TrimSpace(m[1]))
			}
			want := printed[format]
			if want == nil {
				want = printed["csv"]
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("Console printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// FakeSource's random timestamps take their year from date.year.template:
// years 1 and 9999 generate instead of failing.
func TestFakeSourceRandomYears(t *testing.T) {
	out := runJob(t, `
env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  FakeSource {
    row.num = 40
    date.year.template = [1, 9999]
    schema = { fields { ts = timestamp, d = date } }
  }
}
sink {
  Console {}
}
`)
	rows := consoleRow.FindAllStringSubmatch(out, -1)
	if len(rows) != 40 {
		t.Fatalf("%d rows:\n%s", len(rows), out)
	}
	valid := regexp.MustCompile(`^(0001|9999)-\d\d-\d\dT\d\d:\d\d(:\d\d)?, (0001|9999)-\d\d-\d\d$`)
	years := map[string]bool{}
	for _, m := range rows {
		if !valid.MatchString(m[1]) {
			t.Errorf("row %q", m[1])
		}
		years[m[1][:4]] = true
	}
	if !years["0001"] || !years["9999"] {
		t.Errorf("years %v in 40 rows", years)
	}
}
