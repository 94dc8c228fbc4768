package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interrupts handles the signals of stactor run on a goroutine of its own
// for the whole run, until stop: the first SIGINT or SIGTERM takes a
// savepoint, the second cancels, the third exits at once (130); SIGQUIT
// exits at once with 131 (128 + 3, not Go's 2, which means a bad job file
// here). Being apart from the main loop, a write that never returns — a
// Console sink, the progress line or the statistics into a pipe nobody
// reads — cannot keep the process from exiting.
func interrupts(jobID string, savepoint, cancel func()) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				if sig == syscall.SIGQUIT {
					exitNow(131, "stactor: quit (SIGQUIT): exiting at once")
				}
				n++
				switch n {
				case 1:
					savepoint()
					say(fmt.Sprintf("stactor: taking a savepoint of job %s and stopping (interrupt again to cancel at once)", jobID))
				case 2:
					cancel()
					say(fmt.Sprintf("stactor: cancelling job %s (interrupt again to exit at once)", jobID))
				default:
					exitNow(130, "stactor: exiting at once")
				}
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// say writes a line to stderr without waiting for a stderr nobody reads.
func say(msg string) {
	go fmt.Fprintln(os.Stderr, msg)
}

// exitNow exits with code, giving the message a moment to be written.
func exitNow(code int, msg string) {
	written := make(chan struct{})
	go func() {
		fmt.Fprintln(os.Stderr, msg)
		close(written)
	}()
	select {
	case <-written:
	case <-time.After(100 * time.Millisecond):
	}
	os.Exit(code)
}
