package task

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// sourceRun drives the chain's source reader: a Poll message to itself per
// PollNext, so every other message (credits, splits, barriers, cancel)
// gets its turn between two polls.
type sourceRun struct {
	t             *Task
	source        connectors.Source
	reader        connectors.Reader
	enum          *actor.PID
	noMore        bool // the reader called SignalNoMoreElement
	ended         bool // ... and the subtask has acted on it
	pollScheduled bool
	err           error // from Emit, reported after PollNext returns

	limit       readLimit
	polled      int   // rows emitted by the current PollNext
	polledBytes int64 // ... and their bytes
}

var _ connectors.ReaderContext = (*sourceRun)(nil)
var _ connectors.SourceEventSender = (*sourceRun)(nil)
var _ connectors.CheckpointRequester = (*sourceRun)(nil)
var _ connectors.Collector = (*sourceRun)(nil)

func (t *Task) openSource(ctx actor.Context, enum *actor.PID) error {
	head := t.chain.Head
	src, err := head.NewSource()
	if err != nil {
		return fmt.Errorf("%s: %w", head.Name, err)
	}
	s := &sourceRun{t: t, source: src, enum: enum, limit: readLimit{rowsPerSec: t.plan.Job.RowsPerSecond, jobRowsPerSec: t.plan.Job.RowsPerSecond, bytesPerSec: t.plan.Job.BytesPerSecond}}
	r, err := src.CreateReader(s)
	if err != nil {
		return fmt.Errorf("%s: creating reader: %w", head.Name, err)
	}
	s.reader = r
	t.src = s
	if err := r.Open(t.io); err != nil {
		return fmt.Errorf("%s: opening reader: %w", head.Name, err)
	}
	ctx.Send(enum, &messages.RegisterReader{Subtask: int32(t.index), Reader: messages.FromPID(t.self)})
	return nil
}

// Task identifies the subtask (ReaderContext).
func (s *sourceRun) Task() connectors.TaskInfo { return s.t.ops.taskInfo(s.t.chain.Head) }

// Boundedness is the source's (ReaderContext).
func (s *sourceRun) Boundedness() connectors.Boundedness { return s.source.Boundedness() }

// SendSplitRequest asks the enumerator for a split (ReaderContext).
func (s *sourceRun) SendSplitRequest() {
	s.t.system.Root.Send(s.enum, &messages.SplitRequest{Subtask: int32(s.t.index)})
}

// SendSourceEvent sends the reader's event to the enumerator
// (connectors.SourceEventSender), on the path of its split requests.
func (s *sourceRun) SendSourceEvent(data []byte) {
	s.t.system.Root.Send(s.enum, &messages.SourceEvent{Subtask: int32(s.t.index), Data: data})
}

// RequestCheckpoint asks the pipeline's coordinator for a checkpoint now
// (connectors.CheckpointRequester). Before the subtask knows its
// coordinator there is no checkpoint to hurry: the interval's comes.
func (s *sourceRun) RequestCheckpoint(reason string) {
	if c := s.t.cp.coordinator; c != nil {
		s.t.system.Root.Send(c, &messages.CheckpointRequest{Loc: s.t.loc, Reason: reason})
	}
}

// SignalNoMoreElement ends the reader's output (ReaderContext).
func (s *sourceRun) SignalNoMoreElement() { s.noMore = true }

// BatchSize is the rows per batch asked of the reader; under read_limit it
// is a tenth of a second's worth, so throttling is smooth (readLimit).
func (s *sourceRun) BatchSize() int { return s.limit.batchSize(s.t.opts.BatchSize) }

// Emit runs a batch the reader read through the chain (Collector).
func (s *sourceRun) Emit(b *row.Batch) {
	if b.IsSchemaChange() && s.err == nil {
		// In order with the rows, through the chain (schemachange.go).
		if err := s.t.ops.push(s.t.ops.ops[s.t.chain.Head.ID], b); err != nil {
			s.err = err
		}
		return
	}
	if b == nil || b.Len() == 0 || s.err != nil {
		return
	}
	n := int64(b.Len())
	s.polled += b.Len()
	s.t.metrics.readRows += n
	// Bytes are counted exactly only where a limit needs them; the
	// metric is estimated per column.
	var sz int64
	if s.limit.bytesPerSec > 0 {
		sz = int64(b.ByteSize())
	} else {
		sz = int64(b.ApproxByteSize())
	}
	s.polledBytes += sz
	s.t.metrics.readBytes += sz
	// The reader handed b over with its reference; push passes it on.
	if err := s.t.ops.push(s.t.ops.ops[s.t.chain.Head.ID], b); err != nil {
		s.err = err
	}
}

func (t *Task) schedulePoll(ctx actor.Context, d time.Duration) {
	s := t.src
	if s == nil || s.pollScheduled || s.noMore || t.closed {
		return
	}
	s.pollScheduled = true
	if d <= 0 {
		ctx.Send(t.self, &messages.Poll{})
		return
	}
	t.timers.After(d, &messages.Poll{})
}

func (t *Task) poll(ctx actor.Context) error {
	s := t.src
	if s == nil {
		return nil
	}
	s.pollScheduled = false
	if s.noMore || t.blocked() {
		return nil // credits resume polling
	}
	if w := s.limit.wait(time.Now()); w > 0 {
		t.schedulePoll(ctx, w) // woken early (credits came back): not yet
		return nil
	}
	s.polled, s.polledBytes = 0, 0
	start := time.Now()
	err := s.reader.PollNext(s)
	throttle := s.limit.read(time.Now(), int64(s.polled), s.polledBytes)
	if err != nil {
		return fmt.Errorf("%s: %w", t.chain.Head.Name, err)
	}
	if s.polled > 0 { // a poll that found nothing waited: idle, not busy
		t.metrics.busy(start)
	}
	if s.err != nil {
		return s.err
	}
	if s.noMore {
		s.ended = true
		return t.endOfInput(ctx)
	}
	if t.blocked() {
		return nil
	}
	var delay time.Duration
	if s.polled == 0 {
		delay = t.opts.IdlePoll
	}
	delay = max(delay, throttle)
	t.schedulePoll(ctx, delay)
	return nil
}

// onReadRate applies the read rate the JobMaster chose
// (read_limit.adaptive). A poll waiting out the old rate's pause is
// rescheduled under the new one when it comes.
func (t *Task) onReadRate(m *messages.ReadRate) error {
	if t.src == nil {
		return fmt.Errorf("a read rate for a subtask without a source")
	}
	t.src.limit.setRate(m.RowsPerSecond)
	return nil
}

func (t *Task) onAddSplits(m *messages.AddSplits) error {
	if t.src == nil {
		return fmt.Errorf("splits for a subtask without a source")
	}
	splits := make([]connectors.Split, len(m.Splits))
	for i, sp := range m.Splits {
		splits[i] = connectors.Split{ID: sp.Id, Data: sp.Data}
	}
	if err := t.src.reader.AddSplits(splits); err != nil {
		return fmt.Errorf("%s: adding splits: %w", t.chain.Head.Name, err)
	}
	return nil
}

func (t *Task) onNoMoreSplits() error {
	if t.src == nil {
		return fmt.Errorf("no-more-splits for a subtask without a source")
	}
	if err := t.src.reader.HandleNoMoreSplits(); err != nil {
		return fmt.Errorf("%s: %w", t.chain.Head.Name, err)
	}
	return nil
}

func (s *sourceRun) close() error {
	if s.reader == nil {
		return nil
	}
	err := s.reader.Close()
	s.reader = nil
	return err
}
