package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec is one process to run.
type Spec struct {
	Path string
	Args []string
	Env  []string // added to the harness's own environment
	Dir  string
	// Timeout kills the process (SIGKILL) when it has run this long; 0 is
	// no limit, which only a caller with its own bound should use.
	Timeout time.Duration
	// StopAfter sends SIGINT after this long; Grace later, if the process
	// is still there, SIGKILL. 0: the process runs to its end (or Timeout).
	StopAfter time.Duration
	Grace     time.Duration
	// SampleEvery reads the process's resident memory (VmRSS and RssAnon)
	// this often into Result.Samples; 0: no sampling (MaxRSS is still
	// known).
	SampleEvery time.Duration
}

// Sample is the resident memory at a moment of a run.
type Sample struct {
	At  time.Duration
	RSS int64 // bytes
	// Anon is the anonymous part of RSS (heap, stacks: what the process
	// allocated), without the pages of files it maps, such as its own
	// executable, which the kernel shares and can drop at will.
	Anon int64
}

// PeakAnon is the largest anonymous resident memory of the samples.
func (r Result) PeakAnon() int64 {
	var p int64
	for _, s := range r.Samples {
		p = max(p, s.Anon)
	}
	return p
}

// Result is what a run took.
type Result struct {
	Wall      time.Duration
	User, Sys time.Duration
	MaxRSS    int64 // bytes, from rusage
	ExitCode  int   // -1 when ended by a signal
	Signal    syscall.Signal
	TimedOut  bool
	// StopLatency is the time from SIGINT to the end, when StopAfter sent one.
	StopLatency time.Duration
	Killed      bool // SIGKILL was sent after StopAfter's grace
	Samples     []Sample
	// Output is stdout and stderr together (their last 256 KiB).
	Output []byte
}

// CPU is user plus system time.
func (r Result) CPU() time.Duration { return r.User + r.Sys }

// Run starts the process and waits for it.
func Run(s Spec) (Result, error) {
	var res Result
	out := &tail{max: 256 << 10}
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("starting %s: %w", s.Path, err)
	}
	pid := cmd.Process.Pid
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var samples []Sample
	if s.SampleEvery > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(s.SampleEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if rss, anon, ok := procMemory(pid); ok {
						samples = append(samples, Sample{At: time.Since(start), RSS: rss, Anon: anon})
					}
				}
			}
		}()
	}
	var interrupted time.Time
	var killed, timedOut bool
	var mu sync.Mutex // guards interrupted, killed, timedOut
	wg.Add(1)
	go func() {
		defer wg.Done()
		var stopC, limitC <-chan time.Time
		if s.StopAfter > 0 {
			stopC = time.After(s.StopAfter)
		}
		if s.Timeout > 0 {
			limitC = time.After(s.Timeout)
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-stopC:
				stopC = nil
				mu.Lock()
				interrupted = time.Now()
				mu.Unlock()
				_ = cmd.Process.Signal(os.Interrupt)
				grace := s.Grace
				if grace <= 0 {
					grace = 10 * time.Second
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(grace):
					mu.Lock()
					killed = true
					mu.Unlock()
					_ = syscall.Kill(-pid, syscall.SIGKILL)
				}
			case <-limitC:
				mu.Lock()
				timedOut = true
				mu.Unlock()
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				return
			}
		}
	}()
	err := cmd.Wait()
	end := time.Now()
	stop()
	wg.Wait()
	// Whatever the process left in its group (it should leave nothing).
	_ = syscall.Kill(-pid, syscall.SIGKILL)

	res.Wall = end.Sub(start)
	res.Output = out.bytes()
	res.Samples = samples
	mu.Lock()
	res.TimedOut, res.Killed = timedOut, killed
	if !interrupted.IsZero() {
		res.StopLatency = end.Sub(interrupted)
	}
	mu.Unlock()
	st := cmd.ProcessState
	if st == nil {
		return res, fmt.Errorf("running %s: %w", s.Path, err)
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		res.User = time.Duration(ru.Utime.Nano())
		res.Sys = time.Duration(ru.Stime.Nano())
		res.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	res.ExitCode = st.ExitCode()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return res, fmt.Errorf("running %s: %w", s.Path, err)
	}
	return res, nil
}

// procMemory reads a process's resident memory (VmRSS) and the anonymous
// part of it (RssAnon) from /proc, in bytes.
func procMemory(pid int) (rss, anon int64, ok bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	kb := func(rest string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		return n * 1024
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, found := strings.CutPrefix(sc.Text(), "VmRSS:"); found {
			rss, ok = kb(rest), true
		} else if rest, found := strings.CutPrefix(sc.Text(), "RssAnon:"); found {
			anon = kb(rest)
		}
	}
	return rss, anon, ok && rss > 0
}

// tail keeps the last max bytes written to it. The process's stdout and
// stderr goroutines both write, so a mutex guards buf.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

var _ io.Writer = (*tail)(nil)

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf)
}

// Describe says how a run ended, for error messages.
func (r Result) Describe() string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s", r.Wall.Round(time.Millisecond))
	case r.Signal != 0:
		return fmt.Sprintf("ended by %s", r.Signal)
	}
	return fmt.Sprintf("exit code %d", r.ExitCode)
}

// LastLines is the last n lines of the output, for error messages.
func (r Result) LastLines(n int) string {
	lines := strings.Split(strings.TrimRight(string(r.Output), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
