package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stactor/stactor/tests/internal/stactorbin"
)

// TestPluginsAgainstReadme: the README's connector table names exactly
// the plugins `stactor plugins` lists, each kind apart, with the
// guarantee each declares.
func TestPluginsAgainstReadme(t *testing.T) {
	r := run(t, t.TempDir(), "plugins")
	if r.code != 0 {
		t.Fatalf("stactor plugins: exit %d\n%s", r.code, r.stderr)
	}
	listed := map[string]string{} // "kind name" → guarantee
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n")[1:] {
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), 3)
		if len(f) != 3 {
			t.Fatalf("stactor plugins line %q: want KIND PLUGIN GUARANTEE", line)
		}
		listed[f[0]+" "+f[1]] = f[2]
	}
	root, err := stactorbin.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	inTable := map[string]string{}
	row := regexp.MustCompile(`(?m)^\| (source|transform|sink) \| ([^|]+) \| ([^|]+) \| [^|]+ \|$`)
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		names := m[2]
		if i := strings.Index(names, " ("); i >= 0 {
			names = names[:i] // "LocalFile (text, csv, ...)"
		}
		for _, n := range strings.Split(names, ", ") {
			inTable[m[1]+" "+strings.TrimSpace(n)] = strings.TrimSpace(m[3])
		}
	}
	if len(inTable) == 0 {
		t.Fatal("no connector table in README.md")
	}
	var problems []string
	for k, g := range listed {
		switch rg, ok := inTable[k]; {
		case !ok:
			problems = append(problems, k+": listed by stactor plugins, missing from the README's table")
		case rg != g:
			problems = append(problems, k+": the README says "+rg+"; the plugin declares "+g)
		}
	}
	for k := range inTable {
		if _, ok := listed[k]; !ok {
			problems = append(problems, k+": in the README's table, not a plugin")
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Fatal(strings.Join(problems, "\n"))
	}
}

// TestPluginOptions: `stactor plugins NAME` prints the plugin's options
// as the validator declares them; an unknown name is a usage error.
func TestPluginOptions(t *testing.T) {
	home := t.TempDir()
	r := run(t, home, "plugins", "jdbc", "--kind", "sink")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^sink Jdbc\ndelivery guarantee: exactly-once with is_exactly_once`),
		regexp.MustCompile(`(?m)^url\s+string\s+required\s+the JDBC URL`),
		regexp.MustCompile(`(?m)^is_exactly_once\s+boolean\s+false\s+\S`),
		regexp.MustCompile(`(?m)^schema_save_mode\s+RECREATE_SCHEMA\|CREATE_SCHEMA_WHEN_NOT_EXIST\|\S+\s+CREATE_SCHEMA_WHEN_NOT_EXIST\s+\S`),
		regexp.MustCompile(`(?m)^plugin_input \(or source_table_name\)\s+list of strings\s+\S`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("stactor plugins jdbc --kind sink: no %s in:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "source Jdbc") {
		t.Errorf("--kind sink printed the source too")
	}
	r = run(t, home, "plugins", "LocalFile")
	if !strings.Contains(r.stdout, "source LocalFile") || !strings.Contains(r.stdout, "sink LocalFile") {
		t.Errorf("plugins LocalFile: want the source and the sink:\n%s", r.stdout)
	}
	r = run(t, home, "plugins", "NoSuchPlugin")
	if r.code != 2 || !strings.Contains(r.stderr, `no plugin "NoSuchPlugin" (known: `) {
		t.Errorf("unknown plugin: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCheckGuarantees: run --check prints what each pipeline guarantees
// and which connector limits it, and warns about an exactly-once option a
// sink cannot honour.
func TestCheckGuarantees(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `env { job.mode = "BATCH" }
source {
  FakeSource { plugin_output = "a", row.num = 3, schema = { fields { id = bigint } } }
  FakeSource { plugin_output = "b", row.num = 3, schema = { fields { id = bigint } } }
}
sink {
  LocalFile { plugin_input = "a", path = "`+filepath.Join(dir, "out")+`", file_format_type = "csv" }
  Console { plugin_input = "b", is_exactly_once = true }
}
`)
	r := run(t, dir, "run", "--check", job)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := "delivery guarantee:\n  pipeline 1: exactly-once\n  pipeline 2: none, limited by Sink[1]-Console: prints rows as they arrive; a restore prints some again\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("want\n%s\nin:\n%s", want, r.stdout)
	}
	if !strings.Contains(r.stderr, "job.conf:8:51: sink Console: is_exactly_once = true asks for exactly-once, but Sink[1]-Console cannot honour it: it gives none") {
		t.Errorf("no warning about is_exactly_once on Console:\n%s", r.stderr)
	}
}
