package seatunnel_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A mutation changes one Assert rule of a job file so that the job must
// fail: issue 14's bar for every collected file is that its Assert is
// strict enough to catch a wrong row count or a wrong value.
type mutation struct {
	name string
	re   *regexp.Regexp
	// change rewrites the first match; "" when this match cannot be made
	// to fail (the next match is tried).
	change func(m []string) string
}

var mutations = []mutation{
	// a row count out of reach
	{"min-row", regexp.MustCompile(`(rule_type\s*=\s*"?MIN_ROW"?[\s,]+rule_value\s*=\s*)(\d+)`), func(m []string) string {
		n, _ := strconv.Atoi(m[2])
		return m[1] + strconv.Itoa(n+1000000)
	}},
	{"max-row", regexp.MustCompile(`(rule_type\s*=\s*"?MAX_ROW"?[\s,]+rule_value\s*=\s*)(\d+)`), func(m []string) string {
		n, _ := strconv.Atoi(m[2])
		if n == 0 {
			return ""
		}
		return m[1] + "0"
	}},
	// a changed expected value
	{"equals-to", regexp.MustCompile(`(equals_to\s*=\s*)("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)`), func(m []string) string {
		v := m[2]
		if strings.HasPrefix(v, `"`) {
			return m[1] + `"` + v[1:len(v)-1] + `~changed"`
		}
		return m[1] + v + "7"
	}},
	// a table the job does not make (Assert's table-names)
	{"table-names", regexp.MustCompile(`(table-names\s*=\s*\[\s*")([^"]+)"`), func(m []string) string {
		return m[1] + m[2] + `~changed"`
	}},
	// Assert's tables form: the first entry's table_path names no table,
	// so that table falls back to the top-level rules, which are none
	{"tables-path", regexp.MustCompile(`(tables\s*=\s*\[\s*\{\s*table_path\s*=\s*")([^"]+)"`), func(m []string) string {
		return m[1] + m[2] + `~changed"`
	}},
	// a column of a catalog_table_rule with another type
	{"column-type", regexp.MustCompile(`(column_rule\s*=\s*\[\s*\{\s*name\s*=\s*"?\w+"?\s+type\s*=\s*)("?)(\w+)("?)`), func(m []string) string {
		typ := "string"
		if m[3] == "string" {
			typ = "int"
		}
		return m[1] + m[2] + typ + m[4]
	}},
	// a field that holds values asserted to be null
	{"null", regexp.MustCompile(`(rule_type\s*=\s*)"?NOT_NULL"?`), func(m []string) string {
		return m[1] + "NULL"
	}},
}

// assertBlock is where the Assert sink starts: mutations change only what
// comes after it (FakeSource has table-names too).
var assertBlock = regexp.MustCompile(`\bAssert\s*\{`)

// apply returns src with m applied to its first applicable match in the
// Assert sink, and whether one was.
func (m mutation) apply(src string) (string, bool) {
	start := assertBlock.FindStringIndex(src)
	if start == nil {
		return src, false
	}
	for _, loc := range m.re.FindAllStringSubmatchIndex(src, -1) {
		if loc[0] < start[0] {
			continue
		}
		groups := make([]string, len(loc)/2)
		for i := range groups {
			if loc[2*i] >= 0 {
				groups[i] = src[loc[2*i]:loc[2*i+1]]
			}
		}
		if rep := m.change(groups); rep != "" {
			return src[:loc[0]] + rep + src[loc[1]:], true
		}
	}
	return src, false
}

// noRetry makes a mutant fail at once: its env block gets
// job.retry.times = 0.
var envBlock = regexp.MustCompile(`(?m)^env\s*\{`)

// TestMutantsFail runs mutants of the collected SeaTunnel files that end
// in Assert, and of this suite's LocalFile round trips (conformance
// localfile_*: a file format written and read back): each must fail the
// job.
func TestMutantsFail(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "seatunnel", "*.conf"))
	if err != nil {
		t.Fatal(err)
	}
	roundTrips, err := filepath.Glob(filepath.Join("testdata", "conformance", "localfile_*.conf"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, roundTrips...)
	testdata, _ := filepath.Abs("testdata")
	ran := 0
	for _, file := range files {
		s := readSpec(t, file)
		if s.skip != "" || s.knownIssue != "" || len(s.expectFail) > 0 || len(s.writes) > 0 {
			continue
		}
		ok := true
		for _, n := range s.needs {
			ok = ok && registered(n[0], n[1])
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(raw)
		if !ok || !strings.Contains(src, "Assert") || !envBlock.MatchString(src) {
			continue
		}
		src = envBlock.ReplaceAllString(src, "env {\n  job.retry.times = 0\n")
		for _, m := range mutations {
			if strings.HasSuffix(m.name, "-row") && strings.Contains(src, "rule_ruls") {
				// SeaTunnel's own file misspells row_rules: its row
				// counts are ignored there as here.
				continue
			}
			mutant, applied := m.apply(src)
			if !applied {
				continue
			}
			ran++
			name := strings.TrimSuffix(filepath.Base(file), ".conf") + "/" + m.name
			args, spec, dir := s.args, s, filepath.Dir(file)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				work := t.TempDir()
				path := filepath.Join(work, "mutant.conf")
				if err := os.WriteFile(path, []byte(mutant), 0o644); err != nil {
					t.Fatal(err)
				}
				if len(spec.container) > 0 {
					path = prepareContainer(t, spec, path, dir, work, testdata)
				}
				cmdArgs := []string{"run", path}
				for _, a := range args {
					a = strings.ReplaceAll(a, "{tmp}", work)
					a = strings.ReplaceAll(a, "{testdata}", testdata)
					cmdArgs = append(cmdArgs, a)
				}
				ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
				defer cancel()
				cmd := exec.CommandContext(ctx, stactor, cmdArgs...)
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(work, ".stactor"))
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				// exit 1: the job failed; exit 2 naming the Assert sink: the
				// plan refused its rules, where SeaTunnel's AssertSink
				// throws as it is made (catalog_table_rule, tables)
				planned := errors.As(err, &ee) && ee.ExitCode() == 2 && strings.Contains(stderr.String(), "sink Assert:")
				if !errors.As(err, &ee) || (ee.ExitCode() != 1 && !planned) {
					t.Errorf("the mutant did not fail the job (%v); the file's Assert rules let it pass\nstderr:\n%s", err, tail(stderr.String()))
				}
				if crash.MatchString(stderr.String()) {
					t.Errorf("the mutant crashed:\n%s", tail(stderr.String()))
				}
			})
		}
	}
	if ran < 20 {
		t.Fatalf("only %d mutants", ran)
	}
}
