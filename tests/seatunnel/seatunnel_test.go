// Package seatunnel_test runs SeaTunnel job files through the stactor
// binary: stactor must run them unchanged and give SeaTunnel's rows.
//
// testdata/seatunnel holds SeaTunnel's own job files (its documentation
// examples, config templates and e2e resources), byte for byte but for a
// leading "# source:" line naming where each came from. Most end in an
// Assert sink, so exit 0 means the rows matched what SeaTunnel's own test
// expects. testdata/conformance holds this suite's files: FakeSource with
// fixed rows → one transform → Assert with the exact expected value of every
// field of every row, taken from SeaTunnel's documented semantics and source.
// Assert applies each rule to every row of a table, so each conformance row
// sits in a table of its own (FakeSource tables_configs) and Assert's
// tables_configs checks it there: exact count (MIN_ROW = MAX_ROW), a NULL
// rule or NOT_NULL + equals_to per field (equals_to alone passes nulls).
//
// Each file may start with directive comments, read up to the first line
// that is not one:
//
//	# source: <path in apache/seatunnel> @ <commit>   where the file came from
//	# known-issue: <what>  stactor does not yet do what SeaTunnel does; the
//	                       case is skipped with this reason
//	# skip: <why>          the file cannot run here at all (it never ends in
//	                       SeaTunnel either, say); skipped with this reason
//	# needs: transform Sql skip until that plugin is registered
//	# args: -i k=v         extra arguments after "run FILE"; {tmp} is a fresh
//	                       temp dir, {testdata} this package's testdata dir
//	# expect-stdout: <s>   stdout must contain s (repeatable)
//	# expect-rows: <re>    every row Console printed must match the regular
//	                       expression (repeatable; each is checked)
//	# expect-row-count: N  Console printed exactly N rows
//	# expect-fail: <s>     the job must fail instead: exit code 1 and s in
//	                       stderr (SeaTunnel fails the job the same way)
//	# writes: <path>       the job writes this fixed path (SeaTunnel's own
//	                       file says so); it is removed after the run if it
//	                       did not exist before
//	# container: <prefix>  paths under this absolute prefix (repeatable)
//	                       live in the run's own folder, as in the
//	                       container SeaTunnel's IT runs the file in: the
//	                       job text the binary gets has them moved there
//	# input: <file> <path> before the run, copy testdata/<file> to path (in
//	                       the container), as the IT's copyFileIntoContainers
//	# input-zip: <path> <file>...  the same, as a zip of the files (the
//	                       IT's convertToZipFile)
//	# input-lzo: <file> <path>  the same, lzop-compressed (the IT's
//	                       convertToLzoFile, aircompressor's LzopCodec)
//	# input-gz: <file> <path>  the same, gzipped (the IT's convertToGzFile)
//	# input-tar: <path> <file>...  the same, as a tar of the files (the
//	                       IT's convertToTarFile); input-tar-gz: gzipped
//	                       too (convertToTarGzFile)
//	# after: <file.conf>   run that file first, in the same container (the
//	                       IT runs both in one container, in that order)
//	# runs: N              run the file N times in the same container, each
//	                       checked as below (the IT executes it N times)
//	# expect-files: <path> <n>  after each run, path (in the container)
//	                       holds exactly n entries, as the IT's "ls -1"
//
// Every run gets its own STACTOR_HOME and working directory and a 60 s
// limit; it must exit 0 (or fail as expect-fail says) with no panic or
// goroutine dump in its output.
package seatunnel_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
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

// runTimeout bounds one job run.
const runTimeout = 60 * time.Second

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	return stactorbin.Main(m.Run, &stactor)
}

// spec is what a job file's directives ask for.
type spec struct {
	knownIssue, skip string
	needs            [][2]string // kind, name
	args             []string
	expectStdout     []string
	expectRows       []*regexp.Regexp
	expectRowCount   int // -1: any
	expectFail       []string
	writes           []string
	container        []string
	inputs           []input
	after            []string
	runs             int
	expectFiles      []fileCount
}

// fileCount is an expect-files directive.
type fileCount struct {
	path string
	n    int
}

var directive = regexp.MustCompile(`^#\s*(source|known-issue|skip|needs|args|expect-stdout|expect-rows|expect-row-count|expect-fail|writes|container|input|input-zip|input-lzo|input-gz|input-tar|input-tar-gz|after|runs|expect-files):(.*)$`)

func readSpec(t *testing.T, file string) spec {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := spec{expectRowCount: -1, runs: 1}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := directive.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			break // directives are the first lines only
		}
		val := strings.TrimSpace(m[2])
		switch m[1] {
		case "known-issue":
			s.knownIssue = val
		case "skip":
			s.skip = val
		case "needs":
			kind, name, _ := strings.Cut(val, " ")
			s.needs = append(s.needs, [2]string{kind, strings.TrimSpace(name)})
		case "args":
			s.args = append(s.args, strings.Fields(val)...)
		case "expect-stdout":
			s.expectStdout = append(s.expectStdout, val)
		case "expect-rows":
			re, err := regexp.Compile(val)
			if err != nil {
				t.Fatalf("%s: bad expect-rows: %v", file, err)
			}
			s.expectRows = append(s.expectRows, re)
		case "writes":
			s.writes = append(s.writes, val)
		case "container":
			s.container = append(s.container, val)
		case "input", "input-lzo", "input-gz":
			f := strings.Fields(val)
			if len(f) != 2 {
				t.Fatalf("%s: %s wants <file> <path>, got %q", file, m[1], val)
			}
			s.inputs = append(s.inputs, input{kind: m[1], dest: f[1], files: f[:1]})
		case "input-zip", "input-tar", "input-tar-gz":
			f := strings.Fields(val)
			if len(f) < 2 {
				t.Fatalf("%s: %s wants <path> <file>..., got %q", file, m[1], val)
			}
			s.inputs = append(s.inputs, input{kind: m[1], dest: f[0], files: f[1:]})
		case "after":
			s.after = append(s.after, val)
		case "runs":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				t.Fatalf("%s: bad runs %q", file, val)
			}
			s.runs = n
		case "expect-files":
			f := strings.Fields(val)
			n, err := 0, error(nil)
			if len(f) == 2 {
				n, err = strconv.Atoi(f[1])
			}
			if len(f) != 2 || err != nil || n < 0 {
				t.Fatalf("%s: expect-files wants <path> <n>, got %q", file, val)
			}
			s.expectFiles = append(s.expectFiles, fileCount{f[0], n})
		case "expect-fail":
			s.expectFail = append(s.expectFail, val)
		case "expect-row-count":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				t.Fatalf("%s: bad expect-row-count %q", file, val)
			}
			s.expectRowCount = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
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

// crash matches what a Go panic or runtime fatal error prints.
var crash = regexp.MustCompile(`(?m)^panic: |^fatal error: |^goroutine \d+ \[`)

// runFile runs one job file as its directives say and checks the outcome.
func runFile(t *testing.T, file string) {
	t.Parallel()
	s := readSpec(t, file)
	for _, n := range s.needs {
		if !registered(n[0], n[1]) {
			t.Skipf("needs %s %s, which is not registered yet", n[0], n[1])
		}
	}
	if s.skip != "" {
		t.Skip(s.skip)
	}
	if s.knownIssue != "" {
		t.Skip("known issue: " + s.knownIssue)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, p := range s.writes {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			t.Cleanup(func() { os.RemoveAll(p) })
		}
	}
	if len(s.container) > 0 {
		abs = prepareContainer(t, s, abs, filepath.Dir(abs), work, testdata)
	}
	args := []string{"run", abs}
	for _, a := range s.args {
		a = strings.ReplaceAll(a, "{tmp}", work)
		a = strings.ReplaceAll(a, "{testdata}", testdata)
		args = append(args, a)
	}

	for i := 1; i <= s.runs; i++ {
		if s.runs > 1 {
			t.Logf("run %d of %d", i, s.runs)
		}
		runOnce(t, s, args, work)
		checkFiles(t, s, work)
	}
}

// runOnce runs the binary with args in work and checks its outcome.
func runOnce(t *testing.T, s spec, args []string, work string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, stactor, args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(work, ".stactor"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("stactor %s did not finish within %v\nstderr:\n%s", strings.Join(args, " "), runTimeout, tail(stderr.String()))
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("stactor %s: %v", strings.Join(args, " "), err)
	}
	if len(s.expectFail) > 0 {
		if code != 1 {
			t.Errorf("exit code %d, want 1 (the job must fail)\nstderr:\n%s", code, tail(stderr.String()))
		}
		for _, want := range s.expectFail {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr does not contain %q:\n%s", want, tail(stderr.String()))
			}
		}
	} else if code != 0 {
		t.Errorf("exit code %d, want 0\nstderr:\n%s", code, tail(stderr.String()))
	}
	for _, out := range []string{stdout.String(), stderr.String()} {
		if loc := crash.FindStringIndex(out); loc != nil {
			t.Errorf("output has a panic or stack trace:\n%s", tail(out[loc[0]:]))
		}
	}
	for _, want := range s.expectStdout {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout does not contain %q:\n%s", want, tail(stdout.String()))
		}
	}
	checkRows(t, s, stdout.String())
}

// checkFiles checks the expect-files directives: the entries "ls -1"
// lists (hidden ones left out) in each path, mapped into the container.
func checkFiles(t *testing.T, s spec, work string) {
	t.Helper()
	for _, fc := range s.expectFiles {
		path := inContainer(s, fc.path, work)
		entries, err := os.ReadDir(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				names = append(names, e.Name())
			}
		}
		if len(names) != fc.n {
			t.Errorf("%s holds %d entries %v, want %d", fc.path, len(names), names, fc.n)
		}
	}
}

// consoleRow matches a row as SeaTunnel's Console sink prints it:
// "subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=... SeaTunnelRow#kind=INSERT : v1, v2".
var consoleRow = regexp.MustCompile(`(?m)^subtaskIndex=\d+\s+rowIndex=\d+:.*$`)

// checkRows checks the rows Console printed against expect-rows and
// expect-row-count.
func checkRows(t *testing.T, s spec, stdout string) {
	t.Helper()
	rows := consoleRow.FindAllString(stdout, -1)
	if s.expectRowCount >= 0 && len(rows) != s.expectRowCount {
		t.Errorf("Console printed %d rows, want %d:\n%s", len(rows), s.expectRowCount, tail(stdout))
	}
	if len(s.expectRows) > 0 && len(rows) == 0 {
		t.Errorf("Console printed no rows; expect-rows wants some:\n%s", tail(stdout))
	}
	for _, re := range s.expectRows {
		for _, r := range rows {
			if !re.MatchString(r) {
				t.Errorf("row does not match %q:\n%s", re, r)
				break
			}
		}
	}
}

// tail keeps the last lines of a long output, where the cause usually is.
func tail(s string) string {
	const max = 60
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= max {
		return s
	}
	return fmt.Sprintf("[%d lines left out]\n%s", len(lines)-max, strings.Join(lines[len(lines)-max:], "\n"))
}

// runDir runs every *.conf in dir as a subtest.
func runDir(t *testing.T, dir string, atLeast int) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < atLeast {
		t.Fatalf("only %d job files in testdata/%s, want at least %d", len(files), dir, atLeast)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".conf"), func(t *testing.T) {
			runFile(t, file)
		})
	}
}

// TestSeaTunnelFiles runs SeaTunnel's own job files unchanged.
func TestSeaTunnelFiles(t *testing.T) {
	runDir(t, "seatunnel", 30)
}

// TestConformance runs this suite's per-transform cases: exact rows, from
// SeaTunnel's semantics.
func TestConformance(t *testing.T) {
	runDir(t, "conformance", 8)
}
