// Package errors_test runs the stactor binary on malformed job files and
// checks that each mistake is reported the way a user should see it: a
// non-zero exit and one paragraph on stderr, "Error: file:line:col: ...",
// never a panic or a stack trace.
//
// Each testdata/*.conf (or *.json) file starts with directive comments
// ("#" or "//"):
//
//	# expect: <substring>   the error must contain it (repeatable)
//	# expect-line: N        the error must name file:N:
//	# args: run {file} -i x extra command-line arguments; {file} is the
//	                        job file (default: run {file})
//	# no-position           the mistake is not in the file (a bad flag):
//	                        the message names no file:line
//	# needs: transform Copy skip until that plugin is registered
//
// The files in testdata/good must run and exit 0.
package errors_test

import (
	"bufio"
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
	"time"

	"github.com/stactor/stactor/connectors"
	_ "github.com/stactor/stactor/connectors/all"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

// stactor is the binary built by TestMain.
var stactor string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	return stactorbin.Main(m.Run, &stactor)
}

// result is what one run of the binary did.
type result struct {
	code           int
	stdout, stderr string
}

// runStactor runs the binary with a 30 s limit.
func runStactor(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, stactor, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("stactor %s did not finish within 30 s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), &stdout, &stderr)
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("stactor %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// spec is what a bad job file's directives ask for.
type spec struct {
	args       []string
	expects    []string
	line       int // 0: any line
	noPosition bool
	needs      [2]string // kind, name
}

var directive = regexp.MustCompile(`^(?:#|//)\s*(?:(expect-line|expect|args|needs):(.*)|(no-position))$`)

func readSpec(t *testing.T, file string) spec {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := spec{args: []string{"run", file}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := directive.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			break // directives are the first lines only
		}
		name, val := m[1]+m[3], strings.TrimSpace(m[2])
		switch name {
		case "expect":
			s.expects = append(s.expects, val)
		case "expect-line":
			n, err := strconv.Atoi(val)
			if err != nil {
				t.Fatalf("%s: bad expect-line %q", file, val)
			}
			s.line = n
		case "args":
			s.args = nil
			for _, a := range strings.Fields(val) {
				s.args = append(s.args, strings.ReplaceAll(a, "{file}", file))
			}
		case "no-position":
			s.noPosition = true
		case "needs":
			kind, name, _ := strings.Cut(val, " ")
			s.needs = [2]string{kind, strings.TrimSpace(name)}
		}
	}
	if len(s.expects) == 0 {
		t.Fatalf("%s: no # expect: line", file)
	}
	return s
}

// registered tells whether the binary has a plugin (it links the same
// connectors/all as this test).
func registered(kind, name string) bool {
	var err error
	switch kind {
	case "source":
		_, err = connectors.LookupSource(name)
	case "transform":
		_, err = connectors.LookupTransform(name)
	case "sink":
		_, err = connectors.LookupSink(name)
	default:
		return false
	}
	return err == nil
}

// checkError checks what every failed run must look like: exit code,
// a one-paragraph "Error: " message, no panic or stack trace, and the
// expected substrings.
func checkError(t *testing.T, r result, expects []string) string {
	t.Helper()
	if r.code == 0 {
		t.Errorf("exit code 0, want non-zero\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	msg := strings.TrimRight(r.stderr, "\n")
	if !strings.HasPrefix(msg, "Error: ") {
		t.Errorf("stderr does not start with \"Error: \":\n%s", r.stderr)
	}
	if strings.Contains(msg, "\n\n") || strings.TrimSpace(msg) == "" {
		t.Errorf("stderr is not one paragraph:\n%s", r.stderr)
	}
	// The mistake is told once: not logged and then printed again, nor
	// printed on stdout as well (issue 14 saw check errors printed twice).
	if first, _, _ := strings.Cut(msg, "\n"); first != "" {
		body := strings.TrimPrefix(first, "Error: ")
		if n := strings.Count(r.stderr, body) + strings.Count(r.stdout, body); n != 1 {
			t.Errorf("the error is printed %d times:\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
		}
	}
	for _, bad := range []string{"panic", "goroutine ", ".go:"} {
		if strings.Contains(r.stderr, bad) || strings.Contains(r.stdout, bad) {
			t.Errorf("output contains %q (a crash or stack trace):\nstdout:\n%s\nstderr:\n%s", bad, r.stdout, r.stderr)
		}
	}
	for _, e := range expects {
		if !strings.Contains(msg, e) {
			t.Errorf("stderr does not contain %q:\n%s", e, r.stderr)
		}
	}
	return msg
}

func TestBadJobFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.conf"))
	if err != nil {
		t.Fatal(err)
	}
	jsons, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	files = append(files, jsons...)
	if len(files) < 30 {
		t.Fatalf("only %d bad job files in testdata", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			s := readSpec(t, file)
			if s.needs[0] != "" && !registered(s.needs[0], s.needs[1]) {
				t.Skipf("needs %s %s, which is not registered yet", s.needs[0], s.needs[1])
			}
			r := runStactor(t, s.args...)
			msg := checkError(t, r, s.expects)
			if s.noPosition {
				return
			}
			at := regexp.MustCompile(regexp.QuoteMeta(file) + `:(\d+):\d+: `).FindStringSubmatch(msg)
			switch {
			case at == nil:
				t.Errorf("the error does not name %s:LINE:COL:\n%s", file, msg)
			case s.line > 0 && at[1] != strconv.Itoa(s.line):
				t.Errorf("the error names line %s, want %d:\n%s", at[1], s.line, msg)
			}
		})
	}
}

// TestBadInvocations are mistakes that cannot carry their own directives.
func TestBadInvocations(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.conf")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "does-not-exist.conf")
	tests := []struct {
		name    string
		args    []string
		expects []string
	}{
		{"missing job file", []string{"run", missing}, []string{"cannot read job file", "does-not-exist.conf", "no such file"}},
		{"missing job file with -c", []string{"run", "-c", missing}, []string{"does-not-exist.conf"}},
		{"zero-byte file", []string{"run", empty}, []string{empty + ":1:1: ", "the job has no source"}},
		{"no job file", []string{"run"}, []string{"no job file"}},
		{"two job files", []string{"run", "-c", empty, missing}, []string{"give the job file once"}},
		{"-i without =", []string{"run", empty, "-i", "novalue"}, []string{`-i "novalue": expected name=value`}},
		{"-i with empty name", []string{"run", empty, "-i", "=x"}, []string{"expected name=value"}},
		{"unknown flag", []string{"run", empty, "--no-such-flag"}, []string{"unknown flag", "--no-such-flag"}},
		{"two positional files", []string{"run", empty, missing}, []string{"received 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkError(t, runStactor(t, tt.args...), tt.expects)
		})
	}
}

// TestGoodJob proves the harness can pass: a tiny FakeSource → Console job
// runs, and its unknown env option is a warning on stderr, not an error.
func TestGoodJob(t *testing.T) {
	file := filepath.Join("testdata", "good", "fake_to_console.conf")
	r := runStactor(t, "run", file)
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, `unknown option \"spark\" is ignored`) && !strings.Contains(r.stderr, `unknown option "spark" is ignored`) {
		t.Errorf("stderr has no warning about spark.app.name:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, file+":6:") {
		t.Errorf("the warning does not name %s:6:\n%s", file, r.stderr)
	}
	if strings.Contains(r.stderr, "Error: ") {
		t.Errorf("stderr has an error:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "Total Read Count          :                   3") || !strings.Contains(r.stdout, "Total Write Count         :                   3") {
		t.Errorf("stdout does not report 3 rows read and written:\n%s", r.stdout)
	}

	r = runStactor(t, "run", "--check", file)
	if r.code != 0 || !strings.Contains(r.stdout, "OK") {
		t.Errorf("--check: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
