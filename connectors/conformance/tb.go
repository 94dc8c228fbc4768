package conformance

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// tb is the part of testing.T the suite uses. The exported entry points
// take a *testing.T; the suite's own tests run it on a recorder instead,
// to check that it reports a broken connector (testing.TB cannot be
// implemented outside package testing).
type tb interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	TempDir() string
	Cleanup(func())
	Name() string
	Run(name string, f func(t tb)) bool
}

// realT runs the suite on a *testing.T.
type realT struct{ *testing.T }

func (t realT) Run(name string, f func(t tb)) bool {
	return t.T.Run(name, func(t *testing.T) { f(realT{t}) })
}

// recorder is a tb that records failures instead of reporting them: a
// Fatalf ends the (sub)test's goroutine as testing's does.
type recorder struct {
	name     string
	mu       *sync.Mutex
	failures *[]string
	cleanups []func()
	skipped  bool
}

func newRecorder(name string) *recorder {
	return &recorder{name: name, mu: &sync.Mutex{}, failures: &[]string{}}
}

func (r *recorder) Helper()                  {}
func (r *recorder) Name() string             { return r.name }
func (r *recorder) Logf(string, ...any)      {}
func (r *recorder) Cleanup(f func())         { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Skipf(f string, a ...any) { r.skipped = true; runtime.Goexit() }

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.failures = append(*r.failures, r.name+": "+fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) TempDir() string {
	dir, err := os.MkdirTemp("", "conformance-")
	if err != nil {
		r.Fatalf("temp dir: %v", err)
	}
	r.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Run runs f as a subtest in its own goroutine, so that its Fatalf ends
// only it, then runs its cleanups (last first).
func (r *recorder) Run(name string, f func(t tb)) bool {
	sub := &recorder{name: r.name + "/" + name, mu: r.mu, failures: r.failures}
	before := r.count()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			for i := len(sub.cleanups) - 1; i >= 0; i-- {
				sub.cleanups[i]()
			}
		}()
		f(sub)
	}()
	<-done
	return r.count() == before
}

// run runs f at the top level, like Run.
func (r *recorder) run(f func(t tb)) {
	r.Run("", func(t tb) { f(t) })
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(*r.failures)
}

// report is every failure recorded, one a line.
func (r *recorder) report() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(*r.failures, "\n")
}
