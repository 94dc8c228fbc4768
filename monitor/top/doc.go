// Package top is `stactor top` (DESIGN §9), in the spirit of `vector
// top`: a live terminal view of the running jobs, their pipelines' last
// checkpoints, their vertices' rates and busy / idle / backpressured time,
// and optionally every subtask with its queues, from the metrics
// snapshots on `<prefix>.metrics.*` (package monitor/metrics).
//
// It draws plain text with a few ANSI sequences (alternate screen, cursor
// home, clear to end of line): no colours, no mouse, nothing a terminal
// over SSH lacks. Model keeps the latest snapshot of each job; Render
// draws a frame from snapshots and is tested from recorded ones; Run
// owns the terminal: raw mode for single keys (q or Ctrl-C quits, s
// shows or hides subtasks), a redraw every second, and the terminal
// restored on the way out, whatever ends it.
package top
