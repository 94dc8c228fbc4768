package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/config"
)

// minimal is the smallest valid job body after env: one source, one sink.
const minimal = `
source { FakeSource { } }
sink { Console { } }
`

func parse(t *testing.T, src string, vars map[string]string) *config.Job {
	t.Helper()
	job, err := config.Parse("job.conf", []byte(src), vars)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return job
}

// wantError checks that err is a *config.Error whose message names the
// file, the line (when line > 0) and contains every one of wants.
func wantError(t *testing.T, err error, line int, wants ...string) *config.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", wants)
	}
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %q is not a *config.Error", err, err)
	}
	msg := err.Error()
	t.Log(msg)
	if !strings.HasPrefix(msg, "job.conf:") {
		t.Errorf("error %q does not start with the file name", msg)
	}
	if line > 0 && ce.Pos.Line != line {
		t.Errorf("error %q is at line %d, want %d", msg, ce.Pos.Line, line)
	}
	if line > 0 && !strings.Contains(msg, "job.conf:"+strconv.Itoa(line)+":") {
		t.Errorf("error %q does not name job.conf:%d:col", msg, line)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
	return ce
}

func TestEnvDefaults(t *testing.T) {
	for name, src := range map[string]string{
		"no env":    minimal,
		"empty env": "env {}\n" + minimal,
	} {
		t.Run(name, func(t *testing.T) {
			job := parse(t, src, nil)
			if job.Mode != "BATCH" || job.Name != "SeaTunnel" || job.Parallelism != 1 {
				t.Errorf("mode, name, parallelism = %q, %q, %d; want BATCH, SeaTunnel, 1", job.Mode, job.Name, job.Parallelism)
			}
			if job.CheckpointInterval != 0 || job.CheckpointTimeout != 0 || job.MinPause != 0 {
				t.Errorf("checkpoint settings = %v, %v, %v; want all 0 (engine default)", job.CheckpointInterval, job.CheckpointTimeout, job.MinPause)
			}
			if job.RowsPerSecond != 0 || job.BytesPerSecond != 0 {
				t.Errorf("read limits = %d, %d; want none", job.RowsPerSecond, job.BytesPerSecond)
			}
			if job.RetryTimes != 3 || job.RetryInterval != 3*time.Second {
				t.Errorf("retry = %d, %v; want 3, 3s", job.RetryTimes, job.RetryInterval)
			}
			if job.TagFilter != nil {
				t.Errorf("tag filter = %v, want nil", job.TagFilter)
			}
			if len(job.Warnings) != 0 {
				t.Errorf("warnings = %v, want none", job.Warnings)
			}
		})
	}
}

func TestEnvOptions(t *testing.T) {
	tests := []struct {
		name  string
		env   string
		check func(*config.Job) bool
		want  string
	}{
		{"mode streaming", `job.mode = STREAMING`, func(j *config.Job) bool { return j.Mode == "STREAMING" }, "STREAMING"},
		{"mode lower case", `job.mode = "streaming"`, func(j *config.Job) bool { return j.Mode == "STREAMING" }, "STREAMING"},
		{"mode mixed case", `job.mode = Batch`, func(j *config.Job) bool { return j.Mode == "BATCH" }, "BATCH"},
		{"mode quoted key", `"job.mode" = streaming`, func(j *config.Job) bool { return j.Mode == "STREAMING" }, "STREAMING"},
		{"mode nested", `job { mode = STREAMING }`, func(j *config.Job) bool { return j.Mode == "STREAMING" }, "STREAMING"},
		{"name", `job.name = "nightly load"`, func(j *config.Job) bool { return j.Name == "nightly load" }, "nightly load"},
		{"parallelism", `parallelism = 4`, func(j *config.Job) bool { return j.Parallelism == 4 }, "4"},
		{"parallelism quoted", `parallelism = "3"`, func(j *config.Job) bool { return j.Parallelism == 3 }, "3"},
		{"execution.parallelism", `execution.parallelism = 2`, func(j *config.Job) bool { return j.Parallelism == 2 }, "2"},
		{"parallelism wins over execution.parallelism", "parallelism = 5\nexecution.parallelism = 2", func(j *config.Job) bool { return j.Parallelism == 5 }, "5"},
		{"checkpoint ms", `checkpoint.interval = 10000`, func(j *config.Job) bool { return j.CheckpointInterval == 10*time.Second }, "10s"},
		{"checkpoint ms quoted", `checkpoint.interval = "2000"`, func(j *config.Job) bool { return j.CheckpointInterval == 2*time.Second }, "2s"},
		{"checkpoint 10s", `checkpoint.interval = "10s"`, func(j *config.Job) bool { return j.CheckpointInterval == 10*time.Second }, "10s"},
		{"checkpoint 500ms unquoted", `checkpoint.interval = 500ms`, func(j *config.Job) bool { return j.CheckpointInterval == 500*time.Millisecond }, "500ms"},
		{"execution.checkpoint.interval", `execution.checkpoint.interval = 3000`, func(j *config.Job) bool { return j.CheckpointInterval == 3*time.Second }, "3s"},
		{"checkpoint timeout", `checkpoint.timeout = 60000`, func(j *config.Job) bool { return j.CheckpointTimeout == time.Minute }, "1m"},
		{"min-pause", `min-pause = 100`, func(j *config.Job) bool { return j.MinPause == 100*time.Millisecond }, "100ms"},
		{"read limits", "read_limit.rows_per_second = 100\nread_limit.bytes_per_second = 7000", func(j *config.Job) bool { return j.RowsPerSecond == 100 && j.BytesPerSecond == 7000 }, "100, 7000"},
		{"read limits nested", "read_limit { rows_per_second = 9 }", func(j *config.Job) bool { return j.RowsPerSecond == 9 && j.BytesPerSecond == 0 }, "9, 0"},
		{"retry", "job.retry.times = 5\njob.retry.interval.seconds = 10", func(j *config.Job) bool { return j.RetryTimes == 5 && j.RetryInterval == 10*time.Second }, "5, 10s"},
		{"retry zero", "job.retry.times = 0", func(j *config.Job) bool { return j.RetryTimes == 0 }, "0"},
		{"tag filter", `tag_filter { group = "g1", zone = z }`, func(j *config.Job) bool {
			return reflect.DeepEqual(j.TagFilter, map[string]string{"group": "g1", "zone": "z"})
		}, "group=g1 zone=z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := parse(t, "env {\n"+tt.env+"\n}\n"+minimal, nil)
			if !tt.check(job) {
				t.Errorf("env { %s }: got %+v, want %s", tt.env, *job, tt.want)
			}
			if len(job.Warnings) != 0 {
				t.Errorf("warnings = %v, want none", job.Warnings)
			}
		})
	}
}

func TestEnvErrors(t *testing.T) {
	tests := []struct {
		name  string
		env   string // on line 2 of the file
		wants []string
	}{
		{"bad mode", `job.mode = MICRO`, []string{`"job.mode"`, "BATCH, STREAMING", `"MICRO"`}},
		{"mode object", `job.mode { a = 1 }`, []string{`"job.mode"`, "an object"}},
		{"parallelism string", `parallelism = "x"`, []string{`"parallelism"`, "expected an integer", `"x"`}},
		{"parallelism fraction", `parallelism = 1.5`, []string{`"parallelism"`, "expected an integer"}},
		{"parallelism zero", `parallelism = 0`, []string{`"parallelism"`, "at least 1", "0"}},
		{"parallelism negative", `parallelism = -2`, []string{`"parallelism"`, "at least 1"}},
		{"execution.parallelism string", `execution.parallelism = many`, []string{`"execution.parallelism"`, "expected an integer"}},
		{"checkpoint word", `checkpoint.interval = soon`, []string{`"checkpoint.interval"`, "duration", `"soon"`}},
		{"checkpoint negative", `checkpoint.interval = -1`, []string{`"checkpoint.interval"`, "negative"}},
		{"checkpoint list", `checkpoint.interval = [1]`, []string{`"checkpoint.interval"`, "a list"}},
		{"rows per second negative", `read_limit.rows_per_second = -5`, []string{`"read_limit.rows_per_second"`, "negative"}},
		{"bytes per second word", `read_limit.bytes_per_second = lots`, []string{`"read_limit.bytes_per_second"`, "expected an integer"}},
		{"retry negative", `job.retry.times = -1`, []string{`"job.retry.times"`, "negative"}},
		{"retry interval too long", `job.retry.interval.seconds = 9223372036`, []string{`"job.retry.interval.seconds"`, "too long", "at most 86400"}},
		{"retry interval overflow", `job.retry.interval.seconds = 9223372037`, []string{`"job.retry.interval.seconds"`, "too long"}},
		{"checkpoint overflow", `checkpoint.interval = 9223372036855`, []string{`"checkpoint.interval"`, "too long"}},
		{"checkpoint overflow quoted", `checkpoint.timeout = "9223372036855"`, []string{`"checkpoint.timeout"`, "too long"}},
		{"name object", `job.name { a = 1 }`, []string{`"job.name"`, "expected a string, got an object"}},
		{"tag filter string", `tag_filter = "x"`, []string{`"tag_filter"`, "expected an object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse("job.conf", []byte("env {\n"+tt.env+"\n}\n"+minimal), nil)
			ce := wantError(t, err, 2, tt.wants...)
			if ce != nil && ce.Where != "env" {
				t.Errorf("Where = %q, want env", ce.Where)
			}
		})
	}
}

func TestUnknownEnvKeysWarn(t *testing.T) {
	src := `env {
  job.mode = BATCH
  spark.app.name = "SeaTunnel"
  spark.executor.instances = 2
  execution.planner = blink
  flink.execution.checkpointing.interval = 10000
}
` + minimal
	job := parse(t, src, nil)
	want := map[int]string{3: `"spark`, 5: `"execution.planner"`, 6: `"flink`}
	got := map[int]string{}
	for _, w := range job.Warnings {
		t.Log(w)
		got[w.Pos.Line] = w.String()
		if w.Pos.File != "job.conf" {
			t.Errorf("warning %q has no file", w)
		}
		if !strings.Contains(w.Msg, "unknown option") || !strings.Contains(w.Msg, "env") {
			t.Errorf("warning %q does not say it is an unknown env option", w)
		}
	}
	for line, key := range want {
		s, ok := got[line]
		if !ok {
			t.Errorf("no warning on line %d (warnings: %v)", line, job.Warnings)
			continue
		}
		if !strings.Contains(s, key) || !strings.HasPrefix(s, "job.conf:"+strconv.Itoa(line)+":") {
			t.Errorf("warning %q: want job.conf:%d:... naming %s", s, line, key)
		}
	}
	if job.Mode != "BATCH" {
		t.Errorf("mode = %q", job.Mode)
	}
}

func TestUnknownTopLevelBlockWarns(t *testing.T) {
	job := parse(t, "env {}\n"+minimal+"transforms { }\n", nil)
	if len(job.Warnings) != 1 || !strings.Contains(job.Warnings[0].Msg, `"transforms"`) || job.Warnings[0].Pos.Line != 5 {
		t.Errorf("warnings = %v, want one about \"transforms\" on line 5", job.Warnings)
	}
}

func TestPlugins(t *testing.T) {
	src := `env { parallelism = 2 }
source {
  FakeSource { plugin_output = "a" }
  FakeSource2 { result_table_name = b, parallelism = 4 }
}
transform {
  Sql { plugin_input = "a", plugin_output = c }
  Filter { source_table_name = [a, b] }
  Copy { plugin_input = "a, b ,c" }
  Replace { source_table_name = "b" }
}
sink {
  Console { plugin_input = [c] }
  Assert { }
}
`
	job := parse(t, src, nil)
	type want struct {
		kind, name string
		index      int
		line       int
		output     string
		inputs     []string
		par        int
	}
	wants := []want{
		{"source", "FakeSource", 0, 3, "a", nil, 0},
		{"source", "FakeSource2", 1, 4, "b", nil, 4},
		{"transform", "Sql", 0, 7, "c", []string{"a"}, 0},
		{"transform", "Filter", 1, 8, "", []string{"a", "b"}, 0},
		{"transform", "Copy", 2, 9, "", []string{"a", "b", "c"}, 0},
		{"transform", "Replace", 3, 10, "", []string{"b"}, 0},
		{"sink", "Console", 0, 13, "", []string{"c"}, 0},
		{"sink", "Assert", 1, 14, "", nil, 0},
	}
	var got []*config.Plugin
	got = append(got, job.Sources...)
	got = append(got, job.Transforms...)
	got = append(got, job.Sinks...)
	if len(got) != len(wants) {
		t.Fatalf("got %d plugins, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		p := got[i]
		if p.Kind != w.kind || p.Name != w.name || p.Index != w.index || p.Pos.Line != w.line || p.Pos.Col != 3 {
			t.Errorf("plugin %d = %s %s #%d at %v; want %s %s #%d at line %d col 3", i, p.Kind, p.Name, p.Index, p.Pos, w.kind, w.name, w.index, w.line)
		}
		if p.Output != w.output || !reflect.DeepEqual(p.Inputs, w.inputs) || p.Parallelism != w.par {
			t.Errorf("%s: output %q inputs %q parallelism %d; want %q %q %d", p.Where(), p.Output, p.Inputs, p.Parallelism, w.output, w.inputs, w.par)
		}
		if p.Body == nil {
			t.Errorf("%s has no body", p.Where())
		}
	}
	if job.Parallelism != 2 {
		t.Errorf("env parallelism = %d", job.Parallelism)
	}
	if got[0].Where() != "source FakeSource" || got[6].Where() != "sink Console" {
		t.Errorf("Where() = %q, %q", got[0].Where(), got[6].Where())
	}
}

// TestRepeatedPlugins checks that plugins of one name in a block stay
// separate, as SeaTunnel keeps them, while everything else still merges.
func TestRepeatedPlugins(t *testing.T) {
	src := `env { parallelism = 2 }
source {
  FakeSource {
    plugin_output = a
    row.num = 5
  }
  FakeSource {
    plugin_output = b
  }
}
transform {
  Filter { plugin_input = a, plugin_output = fa }
  Filter { plugin_input = b, plugin_output = fb }
}
sink {
  Console { plugin_input = fa }
  Console { plugin_input = fb, parallelism = 3 }
}
env { job.mode = STREAMING }
`
	job := parse(t, src, nil)
	type want struct {
		where  string
		index  int
		line   int
		output string
		inputs []string
		par    int
	}
	wants := []want{
		{"source FakeSource #1", 0, 3, "a", nil, 0},
		{"source FakeSource #2", 1, 7, "b", nil, 0},
		{"transform Filter #1", 0, 12, "fa", []string{"a"}, 0},
		{"transform Filter #2", 1, 13, "fb", []string{"b"}, 0},
		{"sink Console #1", 0, 16, "", []string{"fa"}, 0},
		{"sink Console #2", 1, 17, "", []string{"fb"}, 3},
	}
	var got []*config.Plugin
	got = append(got, job.Sources...)
	got = append(got, job.Transforms...)
	got = append(got, job.Sinks...)
	if len(job.Sources) != 2 || len(job.Transforms) != 2 || len(job.Sinks) != 2 {
		t.Fatalf("got %d sources, %d transforms, %d sinks; want 2 of each", len(job.Sources), len(job.Transforms), len(job.Sinks))
	}
	for i, w := range wants {
		p := got[i]
		if p.Where() != w.where || p.Index != w.index || p.Pos.Line != w.line || p.Pos.Col != 3 {
			t.Errorf("plugin %d = %s #%d at %v; want %s #%d at line %d col 3", i, p.Where(), p.Index, p.Pos, w.where, w.index, w.line)
		}
		if p.Output != w.output || !reflect.DeepEqual(p.Inputs, w.inputs) || p.Parallelism != w.par {
			t.Errorf("%s: output %q inputs %q parallelism %d; want %q %q %d", p.Where(), p.Output, p.Inputs, p.Parallelism, w.output, w.inputs, w.par)
		}
	}
	// Each body is its own: the second FakeSource has no row.num.
	if job.Sources[0].Body.Lookup("row.num").String() != "5" || job.Sources[1].Body.Lookup("row.num") != nil {
		t.Errorf("bodies merged: %s, %s", job.Sources[0].Body, job.Sources[1].Body)
	}
	// Other blocks still merge.
	if job.Parallelism != 2 || job.Mode != "STREAMING" {
		t.Errorf("env not merged: parallelism %d, mode %s", job.Parallelism, job.Mode)
	}
	// Plugins of one name are numbered in errors too.
	_, err := config.Parse("job.conf", []byte("source {\n  FakeSource {}\n  FakeSource { parallelism = 0 }\n}\nsink { Console {} }\n"), nil)
	wantError(t, err, 3, "source FakeSource #2", `"parallelism"`, "at least 1")
}

func TestPluginErrors(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		line  int
		wants []string
	}{
		{"no source block", "env {}\nsink { Console {} }\n", 1, []string{"no source"}},
		{"empty source block", "source {\n}\nsink { Console {} }\n", 1, []string{"no source"}},
		{"no sink block", "source { FakeSource {} }\n", 1, []string{"no sink"}},
		{"empty sink block", "source { FakeSource {} }\nsink {}\n", 2, []string{"no sink"}},
		{"source not an object", "source = FakeSource\nsink { Console {} }\n", 1, []string{"source", "expected a block"}},
		{"source a list", "source = [ { FakeSource {} } ]\nsink { Console {} }\n", 1, []string{"source", "expected a block"}},
		{"env not an object", "env = 5\n" + minimal, 1, []string{"env", "expected a block"}},
		{"transform not an object", "transform = x\n" + minimal, 1, []string{"transform", "expected a block"}},
		{"plugin not an object", "source {\n  FakeSource = 5\n}\nsink { Console {} }\n", 2, []string{"source FakeSource", "expected the plugin's options"}},
		{"plugin parallelism zero", "source {\n  FakeSource { parallelism = 0 }\n}\nsink { Console {} }\n", 2, []string{"source FakeSource", `"parallelism"`, "at least 1"}},
		{"plugin parallelism string", "source { FakeSource {} }\nsink {\n  Console { parallelism = x }\n}\n", 3, []string{"sink Console", `"parallelism"`, "expected an integer"}},
		{"plugin_output object", "source {\n  FakeSource { plugin_output { a = 1 } }\n}\nsink { Console {} }\n", 2, []string{`"plugin_output"`, "expected a string, got an object"}},
		{"plugin_input object", "source { FakeSource {} }\nsink {\n  Console { plugin_input { a = 1 } }\n}\n", 3, []string{`"plugin_input"`, "got an object"}},
		{"plugin_input twice", "source { FakeSource { plugin_output = fake } }\nsink {\n  Console { plugin_input = [\"fake\", \"fake\"] }\n}\n", 3, []string{`"plugin_input"`, `names table "fake" twice`}},
		{"plugin_input twice in one", "source { FakeSource { plugin_output = fake } }\nsink {\n  Console { plugin_input = \"fake, fake\" }\n}\n", 3, []string{`names table "fake" twice`}},
		{"source_table_name nested list", "source { FakeSource {} }\nsink {\n  Console { source_table_name = [[a]] }\n}\n", 3, []string{`"source_table_name"`, "item 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse("job.conf", []byte(tt.src), nil)
			wantError(t, err, tt.line, tt.wants...)
		})
	}
}

func TestVariables(t *testing.T) {
	t.Setenv("STACTOR_TEST_ROWS", "17")
	t.Setenv("STACTOR_TEST_TABLE", "from_env")
	t.Setenv("STACTOR_TEST_BOTH", "env")
	vars := map[string]string{"par": "3", "mode": "STREAMING", "dt": "2024-01-01", "STACTOR_TEST_BOTH": "var"}
	tests := []struct {
		name string
		line string // in FakeSource's block
		key  string
		want string
	}{
		{"var", "a = ${dt}", "a", "2024-01-01"},
		{"var in quotes", `a = "day=${dt}/x"`, "a", "day=2024-01-01/x"},
		{"var in concatenation", `a = "day="${dt}`, "a", "day=2024-01-01"},
		{"env var", "a = ${STACTOR_TEST_ROWS}", "a", "17"},
		{"env var in quotes", `a = "t_${STACTOR_TEST_TABLE}"`, "a", "t_from_env"},
		{"var wins over env", "a = ${STACTOR_TEST_BOTH}", "a", "var"},
		{"default unused", "a = ${dt:1999-12-31}", "a", "2024-01-01"},
		{"default used", "a = ${nope:fallback}", "a", "fallback"},
		{"default quoted", `a = "${nope:fallback}"`, "a", "fallback"},
		{"default quoted value", `a = ${nope:"x y"}`, "a", "x y"},
		{"env default unused", "a = ${STACTOR_TEST_ROWS:5}", "a", "17"},
		{"unknown in quotes kept", `a = "${table_name}"`, "a", "${table_name}"},
		{"document path", "b = 7\na = ${source.FakeSource.b}", "a", "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "env {\n  parallelism = ${par}\n  job.mode = ${mode}\n}\nsource {\n  FakeSource {\n" + tt.line + "\n  }\n}\nsink { Console {} }\n"
			job := parse(t, src, vars)
			if job.Parallelism != 3 || job.Mode != "STREAMING" {
				t.Errorf("parallelism, mode = %d, %q; want 3, STREAMING", job.Parallelism, job.Mode)
			}
			if got := job.Sources[0].Body.Get(tt.key).String(); got != tt.want {
				t.Errorf("%s: got %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestUndefinedVariable(t *testing.T) {
	src := "source {\n  FakeSource {\n    row.num = ${undefined_var}\n  }\n}\nsink { Console {} }\n"
	_, err := config.Parse("job.conf", []byte(src), map[string]string{"other": "1"})
	if err == nil {
		t.Fatal("no error for ${undefined_var}")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "job.conf:3:") || !strings.Contains(msg, "undefined_var") {
		t.Errorf("error %q: want job.conf:3:... naming undefined_var", msg)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.conf")
	if err := os.WriteFile(filepath.Join(dir, "common.conf"), []byte("env { parallelism = 6 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("include \"common.conf\"\n"+minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	job, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if job.File != path || job.Parallelism != 6 {
		t.Errorf("file %q parallelism %d; want %q 6 (from the include)", job.File, job.Parallelism, path)
	}

	// A relative job path: includes are relative to the job file, not to
	// the working directory, and not twice.
	sub := filepath.Join(dir, "jobs", "nightly")
	if err := os.MkdirAll(filepath.Join(sub, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"jobs/nightly/job.conf":         "include \"shared/env.conf\"\n" + minimal,
		"jobs/nightly/shared/env.conf":  "include \"more.conf\"\nenv { job.mode = STREAMING }\n",
		"jobs/nightly/shared/more.conf": "env { parallelism = 7 }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	job, err = config.Load(filepath.Join("jobs", "nightly", "job.conf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if job.Mode != "STREAMING" || job.Parallelism != 7 {
		t.Errorf("mode %q parallelism %d; want STREAMING 7 from the nested includes", job.Mode, job.Parallelism)
	}

	_, err = config.Load(filepath.Join(dir, "missing.conf"), nil)
	if err == nil || !strings.Contains(err.Error(), "missing.conf") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want one naming the file and wrapping os.ErrNotExist", err)
	}
}

func TestJSONJob(t *testing.T) {
	src := `{
  "env": { "job.mode": "STREAMING", "parallelism": 2 },
  "source": [ ],
  "sink": { "Console": {} }
}`
	_, err := config.Parse("job.conf", []byte(src), nil)
	wantError(t, err, 3, "source", "expected a block")

	src = `{
  "env": { "job.mode": "STREAMING", "parallelism": 2 },
  "source": { "FakeSource": { "plugin_output": "t", "row.num": 3 } },
  "sink": { "Console": { "plugin_input": ["t"] } }
}`
	job := parse(t, src, nil)
	if job.Mode != "STREAMING" || job.Parallelism != 2 || job.Sources[0].Output != "t" || job.Sinks[0].Inputs[0] != "t" {
		t.Errorf("JSON job read as %+v", *job)
	}
}

// FuzzParse checks that no job file makes Parse panic, and that every
// mistake is reported at a position in the file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		minimal,
		"env { parallelism = 2, job.mode = streaming, checkpoint.interval = 10s }\n" + minimal,
		"env { spark.app.name = x, execution.parallelism = ${p:3} }\nsource { A { plugin_output = a } }\ntransform { B { plugin_input = \"a,b\" } }\nsink { C { source_table_name = [a] } }",
		`{"env": {"parallelism": 1}, "source": {"FakeSource": {"result_table_name": "t"}}, "sink": {"Console": {}}}`,
		"source = x\nsink {}",
		"env = [1]",
		"source { A = 5 }",
		"source { A { plugin_output = a }, A { plugin_output = b } }\nsink { C { plugin_input = a }, C { plugin_input = b } }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		job, err := config.Parse("job.conf", []byte(src), map[string]string{"p": "2"})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "job.conf:") {
				t.Fatalf("error without position: %q", err)
			}
			return
		}
		if len(job.Sources) == 0 || len(job.Sinks) == 0 || job.Parallelism < 1 {
			t.Fatalf("accepted a job with %d sources, %d sinks, parallelism %d", len(job.Sources), len(job.Sinks), job.Parallelism)
		}
	})
}
