package monitor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/internal/natstest"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/monitor/metrics"
)

// job is a BATCH job of rows rows, paced so that it runs for seconds:
// FakeSource (2 subtasks) → Sql → Console printing every row.
func job(t *testing.T, rows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.conf")
	conf := fmt.Sprintf(`env { job.mode = "BATCH", parallelism = 2, read_limit.rows_per_second = 1500, checkpoint.interval = 1000 }
source { FakeSource { plugin_output = "fake", row.num = %d, double.max = 1000, schema = { fields { id = bigint, name = string, score = double } } } }
transform { Sql { plugin_input = "fake", plugin_output = "doubled", query = "SELECT id, name, score, score * 2 AS s2 FROM fake" } }
sink { Console { plugin_input = "doubled" } }
`, rows/2)
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type running struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan error
}

// start runs the binary with args and a private STACTOR_HOME.
func start(t *testing.T, home string, args ...string) *running {
	t.Helper()
	r := &running{cmd: exec.Command(bin, args...), done: make(chan error, 1)}
	r.cmd.Env = append(os.Environ(), "STACTOR_HOME="+home)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

func (r *running) wait(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("%s: %v\n%s", r.cmd.Args, err, r.stderr.String())
		}
	case <-time.After(within):
		_ = r.cmd.Process.Kill()
		t.Fatalf("%s did not end within %s\n%s", r.cmd.Args, within, r.stderr.String())
	}
}

// stop interrupts a run (a savepoint) and waits for it to end.
func (r *running) stop(t *testing.T) {
	t.Helper()
	_ = r.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		_ = r.cmd.Process.Kill()
		t.Fatalf("%s did not stop on an interrupt\n%s", r.cmd.Args, r.stderr.String())
	}
}

// server starts a NATS server for the run and a connection to it.
func server(t *testing.T) (string, *nats.Conn) {
	t.Helper()
	s, err := natstest.Start("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return s.ClientURL(), nc
}

// waitRunning waits for a snapshot of job with rows read on the metrics
// subject.
func waitRunning(t *testing.T, nc *nats.Conn, job string) *messages.JobMetrics {
	t.Helper()
	got := make(chan *messages.JobMetrics, 16)
	sub, err := metrics.Subscribe(nc, "stactor.stactor", job, func(m *messages.JobMetrics) {
		select {
		case got <- m:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe() //nolint:errcheck
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-got:
			if m.State == "RUNNING" && m.ReadRows > 0 {
				return m
			}
		case <-deadline:
			t.Fatalf("no snapshot of job %s running on the metrics subject", job)
		}
	}
}

// consoleRows counts the rows Console printed.
func consoleRows(out string) int { return strings.Count(out, "SeaTunnelRow#kind=") }

// `stactor tap` in another process shows rows of the running job within
// a second, with their kind, table and fields, and the job's output is
// complete.
func TestTapSeesRowsWithinASecond(t *testing.T) {
	url, nc := server(t)
	home := t.TempDir()
	const rows = 12000
	run := start(t, home, "run", "--nats", url, "--job-id", "7001", job(t, rows))
	waitRunning(t, nc, "7001")

	tap := exec.Command(bin, "tap", "7001", "Sql", "--rows", "20", "--format", "json", "--nats", url)
	tap.Env = append(os.Environ(), "STACTOR_HOME="+home)
	var tapErr bytes.Buffer
	tap.Stderr = &tapErr
	out, err := tap.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := tap.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var first time.Duration
	n := 0
	for sc.Scan() {
		if n == 0 {
			first = time.Since(began)
		}
		n++
		var r struct {
			Vertex, Table, Kind string
			Subtask             int
			Row                 map[string]any
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("tap printed %q: %v", sc.Text(), err)
		}
		if r.Vertex != "Transform[0]-Sql" || r.Kind != "INSERT" || r.Table == "" || len(r.Row) != 4 {
			t.Fatalf("tapped row %s", sc.Text())
		}
		score, _ := r.Row["score"].(float64)
		s2, _ := r.Row["s2"].(float64)
		if s2 != 2*score || score == 0 {
			t.Fatalf("tapped row %s: s2 is not score * 2", sc.Text())
		}
	}
	if err := tap.Wait(); err != nil {
		t.Fatalf("tap: %v\n%s", err, tapErr.String())
	}
	if n != 20 {
		t.Fatalf("tap printed %d rows, want 20 (--rows 20)\n%s", n, tapErr.String())
	}
	t.Logf("first tapped row %s after the tap process started", first)
	if first > time.Second {
		t.Fatalf("the first tapped row came %s after the tap started, want within 1 s\n%s", first, tapErr.String())
	}
	if !strings.Contains(tapErr.String(), "tapping Transform[0]-Sql") {
		t.Fatalf("tap did not name what it taps:\n%s", tapErr.String())
	}
	run.wait(t, 60*time.Second)
	if got := consoleRows(run.stdout.String()); got != rows {
		t.Fatalf("the job printed %d rows, want %d", got, rows)
	}
}

// A local run given no --nats serves NATS itself (monitor/natsserver):
// `stactor tap JOB` and `stactor top --job JOB` find it and its token
// through STACTOR_HOME/run/JOB.nats, and any NATS client with the token
// can subscribe there; one without it is refused.
func TestTapAndTopOnTheRunsOwnServer(t *testing.T) {
	home := t.TempDir()
	const rows = 12000
	run := start(t, home, "run", "--job-id", "7004", job(t, rows))
	file := filepath.Join(home, "run", "7004.nats")
	var lines []string
	deadline := time.Now().Add(30 * time.Second)
	for len(lines) < 3 {
		if b, err := os.ReadFile(file); err == nil {
			lines = strings.Fields(string(b))
		} else if time.Now().After(deadline) {
			t.Fatalf("no %s 30 s after the run started: %v\n%s", file, err, run.stderr.String())
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	url, token := lines[0], lines[2]
	if !strings.HasPrefix(url, "nats://127.0.0.1:") || lines[1] != "stactor.stactor" {
		t.Fatalf("%s says %q, want a loopback NATS URL, the prefix and a token", file, lines)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, mode %v; want it readable by its user only (it holds the token)", file, err, fi.Mode())
	}
	// Its rows are for whoever can read the file.
	if nc, err := nats.Connect(url, nats.NoReconnect()); err == nil {
		nc.Close()
		t.Fatal("connected to the run's server without its token")
	}
	nc, err := nats.Connect(url, nats.Token(token))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	waitRunning(t, nc, "7004")

	tap := exec.Command(bin, "tap", "7004", "Sql", "--rows", "20", "--format", "json")
	tap.Env = append(os.Environ(), "STACTOR_HOME="+home)
	out, err := tap.CombinedOutput()
	if err != nil {
		t.Fatalf("tap: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), `"vertex":"Transform[0]-Sql"`); n != 20 {
		t.Fatalf("tap printed %d rows of the Sql vertex, want 20:\n%s", n, out)
	}
	top := exec.Command(bin, "top", "--job", "7004", "--once")
	top.Env = append(os.Environ(), "STACTOR_HOME="+home)
	frame, err := top.CombinedOutput()
	if err != nil || !strings.Contains(string(frame), "JOB 7004") || !strings.Contains(string(frame), "Transform[0]-Sql") {
		t.Fatalf("top --once: %v\n%s", err, frame)
	}
	run.wait(t, 60*time.Second)
	if got := consoleRows(run.stdout.String()); got != rows {
		t.Fatalf("the job printed %d rows, want %d", got, rows)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("%s left after the run ended: %v", file, err)
	}
}

// A listener that stops reading does not hold the job up or cost it a
// row: the tap skips what it cannot deliver and says how many rows it
// missed.
func TestSlowListenerMissesRowsNotTheJob(t *testing.T) {
	url, nc := server(t)
	home := t.TempDir()
	const rows = 12000
	run := start(t, home, "run", "--nats", url, "--job-id", "7002", job(t, rows))
	waitRunning(t, nc, "7002")

	tap := exec.Command(bin, "tap", "7002", "--nats", url) // every vertex, every row
	tap.Env = append(os.Environ(), "STACTOR_HOME="+home)
	var tapErr syncBuffer
	tap.Stderr = &tapErr
	out, err := tap.StdoutPipe() // not read until the job has ended
	if err != nil {
		t.Fatal(err)
	}
	if err := tap.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tap.Process.Kill(); _ = tap.Wait() })
	run.wait(t, 60*time.Second)
	if got := consoleRows(run.stdout.String()); got != rows {
		t.Fatalf("the job printed %d rows with a stuck listener, want %d", got, rows)
	}
	// The listener catches up and learns what it missed.
	go func() { _, _ = io.Copy(io.Discard, out) }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(tapErr.String(), "missed") {
		if time.Now().After(deadline) {
			t.Fatalf("the stuck listener was not told it missed rows:\n%s", tapErr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = tap.Process.Signal(syscall.SIGINT)
}

// `stactor top` draws the running job on a terminal and quits on q,
// giving the terminal back; --once prints one frame.
func TestTop(t *testing.T) {
	url, nc := server(t)
	home := t.TempDir()
	run := start(t, home, "run", "--nats", url, "--job-id", "7003", job(t, 120000)) // 40 s: stopped below
	waitRunning(t, nc, "7003")

	once := exec.Command(bin, "top", "--once", "--nats", url)
	once.Env = append(os.Environ(), "STACTOR_HOME="+home)
	frame, err := once.CombinedOutput()
	if err != nil {
		t.Fatalf("top --once: %v\n%s", err, frame)
	}
	for _, want := range []string{"JOB 7003", "RUNNING", "Source[0]-FakeSource", "Transform[0]-Sql", "Sink[0]-Console", "BACKPRESSURED", "QUEUED IN", "LAST CHECKPOINT"} {
		if !strings.Contains(string(frame), want) {
			t.Fatalf("top --once lacks %q:\n%s", want, frame)
		}
	}

	top := exec.Command(bin, "top", "--nats", url)
	top.Env = append(os.Environ(), "STACTOR_HOME="+home, "TERM=xterm")
	tty, err := pty.StartWithSize(top, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var screen syncBuffer
	go func() { _, _ = io.Copy(&screen, tty) }()
	deadline := time.Now().Add(15 * time.Second)
	for !(strings.Contains(screen.String(), "JOB 7003") && strings.Contains(screen.String(), "Transform[0]-Sql")) {
		if time.Now().After(deadline) {
			t.Fatalf("top on a terminal never showed the job:\n%q", screen.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := tty.Write([]byte("s")); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(screen.String(), "QUEUED IN") {
		if time.Now().After(deadline) {
			t.Fatalf("s did not show the subtasks:\n%q", screen.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := tty.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- top.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("top exited with %v", err)
		}
	case <-time.After(5 * time.Second):
		_ = top.Process.Kill()
		t.Fatal("top did not quit on q")
	}
	time.Sleep(100 * time.Millisecond)
	if !strings.Contains(screen.String(), "\x1b[?1049l") {
		t.Fatal("top did not leave the alternate screen")
	}
	run.stop(t)
}

// syncBuffer is a bytes.Buffer for one writer goroutine and a polling
// reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
