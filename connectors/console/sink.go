// Package console is SeaTunnel's Console sink: it prints every row it is
// given, one line per row in ConsoleSinkWriter's format, or — with
// log.print.data = false — only counts them, which makes it the cheap
// discard sink of benchmarks.
//
// Console commits nothing: it has no committer and PrepareCommit returns
// no commit info. Lines reach the output as batches arrive, before any
// checkpoint, exactly as SeaTunnel logs them (so a replay after a failover
// prints rows again).
package console

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	connectors.RegisterSink(Factory)
}

// Factory makes Console sinks.
var Factory = connectors.SinkFactory{
	Name: "Console",
	Options: []config.Option{
		{Key: "log.print.data", Type: config.TypeBool, Default: true, Doc: "print each row; false only counts them"},
		{Key: "log.print.delay.ms", Type: config.TypeInt, Default: int64(0), Doc: "ms to wait after each row (a deliberately slow sink)"},
	},
	Delivery: connectors.Delivery{Summary: "none: prints rows as they arrive; a restore prints some again", Best: connectors.None},
	Create:   create,
}

// output is where every Console writer prints. Parallel writers share it;
// the mutex keeps each write (a batch of lines) whole.
var output = struct {
	sync.Mutex // guards w and each write to it
	w          io.Writer
}{w: os.Stdout}

// setOutput redirects every Console writer (for tests) and returns a
// function that restores the previous writer.
func setOutput(w io.Writer) (restore func()) {
	output.Lock()
	old := output.w
	output.w = w
	output.Unlock()
	return func() {
		output.Lock()
		output.w = old
		output.Unlock()
	}
}

func write(p []byte) error {
	output.Lock()
	defer output.Unlock()
	_, err := output.w.Write(p)
	return err
}

func create(cfg *config.PluginConfig, inputs []*row.Schema, _ []byte, job connectors.JobContext) (connectors.Sink, error) {
	delay := cfg.Int("log.print.delay.ms")
	if delay < 0 {
		return nil, cfg.Errorf("log.print.delay.ms", "must not be negative, got %d", delay)
	}
	return &sink{print: cfg.Bool("log.print.data"), delay: time.Duration(delay) * time.Millisecond}, nil
}

type sink struct {
	print bool
	delay time.Duration
}

var _ connectors.Sink = (*sink)(nil)

func (s *sink) CreateWriter(_ context.Context, task connectors.TaskInfo, states [][]byte) (connectors.Writer, error) {
	return &writer{task: task, print: s.print, delay: s.delay, sleep: time.Sleep, counters: map[string]int64{}}, nil
}

// writer is one subtask's ConsoleSinkWriter. SeaTunnel's multi-table sink
// has a writer per table, so the row index counts per table.
type writer struct {
	task     connectors.TaskInfo
	print    bool
	delay    time.Duration
	sleep    func(time.Duration)
	counters map[string]int64 // rows printed so far, per table
	rows     int64            // rows written, printed or not
	buf      []byte
}

var _ connectors.Writer = (*writer)(nil)
var _ connectors.BatchBorrower = (*writer)(nil)

// BorrowsBatches: Write prints or counts a batch and keeps nothing of it.
func (w *writer) BorrowsBatches() {}

// Write prints the batch as one write to the output, or row by row with
// log.print.delay.ms between rows. The delay blocks the subtask, which is
// what SeaTunnel's slow Console does too: backpressure reaches the source.
func (w *writer) Write(b *row.Batch) error {
	n := b.Len()
	w.rows += int64(n)
	if !w.print {
		if w.delay > 0 {
			for i := 0; i < n; i++ {
				w.sleep(w.delay)
			}
		}
		return nil
	}
	w.buf = w.buf[:0]
	for i := 0; i < n; i++ {
		w.buf = w.appendLine(w.buf, b, i)
		if w.delay > 0 {
			if err := write(w.buf); err != nil {
				return err
			}
			w.buf = w.buf[:0]
			w.sleep(w.delay)
		}
	}
	if len(w.buf) > 0 {
		if err := write(w.buf); err != nil {
			return err
		}
	}
	if cap(w.buf) > 1<<20 {
		w.buf = nil // do not keep a huge buffer after one huge batch
	}
	return nil
}

// appendLine renders row i as ConsoleSinkWriter logs it:
//
//	"subtaskIndex={}  rowIndex={}:  SeaTunnelRow#tableId={} SeaTunnelRow#kind={} : {}"
//
// with the fields joined by ", " (StringUtils.join, so a null field is
// empty).
func (w *writer) appendLine(buf []byte, b *row.Batch, i int) []byte {
	table := b.Schema.TableID
	w.counters[table]++
	buf = append(buf, "subtaskIndex="...)
	buf = strconv.AppendInt(buf, int64(w.task.SubtaskIndex), 10)
	buf = append(buf, "  rowIndex="...)
	buf = strconv.AppendInt(buf, w.counters[table], 10)
	buf = append(buf, ":  SeaTunnelRow#tableId="...)
	buf = append(buf, table...)
	buf = append(buf, " SeaTunnelRow#kind="...)
	buf = append(buf, b.Kind(i).String()...)
	buf = append(buf, " : "...)
	for j, c := range b.Cols {
		if j > 0 {
			buf = append(buf, ", "...)
		}
		if c.IsNull(i) {
			continue
		}
		buf = appendField(buf, c.Type, c, i)
	}
	return append(buf, '\n')
}

// PrepareCommit has nothing to commit: Console prints as it goes.
func (w *writer) PrepareCommit(checkpointID int64) ([]byte, error) { return nil, nil }

// SnapshotState keeps nothing: like SeaTunnel's, a restored writer counts
// rows from 1 again.
func (w *writer) SnapshotState(checkpointID int64) ([][]byte, error) { return nil, nil }

func (w *writer) AbortPrepare() error { return nil }

func (w *writer) Close() error { return nil }
