package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Sink is the case a sink's test fills in to run the suite (see the
// package comment).
type Sink struct {
	Factory connectors.SinkFactory
	// Target returns the options body of a sink block that writes a
	// table of schema (dir is a new temporary directory for it), and a
	// function that reads back every row the sink has committed there so
	// far, in any order. ReadBack is nil for a sink whose output cannot
	// be read (Console): the suite then checks only that writing and
	// committing succeed.
	Target func(dir string, schema *row.Schema) (body string, readBack func() ([][]any, error), err error)
	// Types are the row types the sink writes (AllTypes, or fewer).
	Types []*row.Type
	// IDsOnly: ReadBack gives each committed row as its id alone (the
	// bigint column 0 of every table the suite writes), for a sink whose
	// output renders values in a form that cannot be parsed back
	// (Console): the ids are compared, each exactly once.
	IDsOnly bool
	// Expected, optional, maps rows written to the rows ReadBack is known
	// to give when the format cannot keep every value (see Source's).
	Expected func(schema *row.Schema, rows [][]any) [][]any
	// ExactlyOnce: the sink claims exactly-once delivery. The suite
	// checks that nothing is visible before a commit, that a commit
	// repeated (after a crash) changes nothing, and that aborted work
	// never shows.
	ExactlyOnce bool
	// Mode is the job mode (BATCH when empty).
	Mode connectors.JobMode
	// Rows per table (60 when 0), Parallelism the writers (2 when 0),
	// BatchSize the rows of a batch written (7 when 0).
	Rows, Parallelism, BatchSize int
	BadOptions                   []BadOption
	// DeadServer, for a connector with a server: options that point at
	// a server that is not there; the error may come from the factory,
	// HandleSaveMode, CreateWriter, Write, PrepareCommit or Commit.
	DeadServer *BadOption
}

func (c *Sink) defaults() {
	if c.Mode == "" {
		c.Mode = connectors.Batch
	}
	if c.Rows == 0 {
		c.Rows = 60
	}
	if c.Parallelism == 0 {
		c.Parallelism = 2
	}
	if c.BatchSize == 0 {
		c.BatchSize = 7
	}
}

// RunSink runs the suite's sink tests on c, as subtests of t.
func RunSink(t *testing.T, c Sink) { runSink(realT{t}, c) }

func runSink(t tb, c Sink) {
	t.Helper()
	c.defaults()
	t.Run("Types", func(t tb) {
		for _, typ := range c.Types {
			t.Run(typ.String(), func(t tb) { c.writeCommit(t, TypeSchema(typ)) })
		}
	})
	all := AllTypesSchema(c.Types)
	t.Run("AllTypes", func(t tb) { c.writeCommit(t, all) })
	t.Run("OpenClose", func(t tb) { c.openClose(t, all) })
	t.Run("RestoredWriter", func(t tb) { c.restoredWriter(t, all) })
	if c.ExactlyOnce {
		t.Run("CommitTwice", func(t tb) { c.commitTwice(t, all) })
		t.Run("Abort", func(t tb) { c.abort(t, all) })
		t.Run("CrashAfterPrepare", func(t tb) { c.crashAfterPrepare(t, all) })
	}
	for _, bad := range c.BadOptions {
		t.Run("BadOptions/"+bad.Name, func(t tb) { c.badOption(t, bad, false) })
	}
	if c.DeadServer != nil {
		t.Run("DeadServer", func(t tb) { c.badOption(t, *c.DeadServer, true) })
	}
}

func (c *Sink) job() connectors.JobContext {
	return connectors.JobContext{JobID: "conformance", JobName: "conformance", Mode: c.Mode, Parallelism: c.Parallelism}
}

// target is one sink made for a schema, with its read-back.
type target struct {
	sink     connectors.Sink
	readBack func() ([][]any, error)
	schema   *row.Schema
	c        *Sink
	attempt  int
}

func (c *Sink) target(t tb, schema *row.Schema) *target {
	t.Helper()
	body, readBack, err := c.Target(t.TempDir(), schema)
	if err != nil {
		t.Fatalf("preparing the target: %v", err)
	}
	s, err := NewSink(c.Factory, body, []*row.Schema{schema}, c.job())
	if err != nil {
		t.Fatalf("making the sink: %v\noptions:\n%s", err, body)
	}
	if h, ok := s.(connectors.SaveModeHandler); ok {
		if err := guardErr(func() error { return h.HandleSaveMode(context.Background()) }); err != nil {
			t.Fatalf("HandleSaveMode: %v", err)
		}
	}
	return &target{sink: s, readBack: readBack, schema: schema, c: c, attempt: 1}
}

func (tg *target) task(i int) connectors.TaskInfo {
	return connectors.TaskInfo{JobID: "conformance", Pipeline: 1, Attempt: tg.attempt, SubtaskIndex: i, Parallelism: tg.c.Parallelism, Node: "local"}
}

func (tg *target) cc(checkpoint int64) connectors.CommitContext {
	return connectors.CommitContext{JobID: "conformance", Pipeline: 1, Attempt: tg.attempt, CheckpointID: checkpoint, Node: "local"}
}

// writers are the parallel writers of one attempt.
type writers struct {
	tg *target
	ws []connectors.Writer
}

func (tg *target) open(states [][][]byte) (*writers, error) {
	w := &writers{tg: tg}
	for i := 0; i < tg.c.Parallelism; i++ {
		var st [][]byte
		if states != nil {
			st = states[i]
		}
		wr, err := guard(func() (connectors.Writer, error) { return tg.sink.CreateWriter(context.Background(), tg.task(i), st) })
		if err != nil {
			w.close()
			return nil, fmt.Errorf("CreateWriter(%d): %w", i, err)
		}
		w.ws = append(w.ws, wr)
	}
	return w, nil
}

// write deals rows to the writers round-robin, a batch at a time. Every
// other batch is written as the row codec decodes it, as a batch from
// another node arrives: its string columns packed (row/packed.go).
func (w *writers) write(rows [][]any) error {
	batches, err := Batches(w.tg.schema, rows, w.tg.c.BatchSize)
	if err != nil {
		return err
	}
	for k, b := range batches {
		if k%2 == 1 {
			if b, _, err = row.NewDecoder().Decode(row.AppendBatch(nil, b)); err != nil {
				return fmt.Errorf("batch %d: decode: %w", k, err)
			}
		}
		i := k % len(w.ws)
		if err := guardErr(func() error { return w.ws[i].Write(b) }); err != nil {
			return fmt.Errorf("writer %d Write: %w", i, err)
		}
	}
	return nil
}

// prepare is checkpoint n's barrier: every writer's commit info (nil ones
// left out, as the engine does) and state.
func (w *writers) prepare(n int64) (infos [][]byte, states [][][]byte, err error) {
	for i, wr := range w.ws {
		info, err := guard(func() ([]byte, error) { return wr.PrepareCommit(n) })
		if err != nil {
			return nil, nil, fmt.Errorf("writer %d PrepareCommit(%d): %w", i, n, err)
		}
		if info != nil {
			infos = append(infos, info)
		}
		st, err := guard(func() ([][]byte, error) { return wr.SnapshotState(n) })
		if err != nil {
			return nil, nil, fmt.Errorf("writer %d SnapshotState(%d): %w", i, n, err)
		}
		states = append(states, st)
	}
	return infos, states, nil
}

func (w *writers) close() error {
	var first error
	for i, wr := range w.ws {
		if err := guardErr(wr.Close); err != nil && first == nil {
			first = fmt.Errorf("writer %d Close: %w", i, err)
		}
	}
	return first
}

// commit commits infos of checkpoint n as the engine's committer actor
// does: through the AggregatedCommitter (combined) or the Committer.
func (tg *target) commit(n int64, infos [][]byte, abort bool) error {
	ctx := context.Background()
	cc := tg.cc(n)
	cc.Final = true
	if s, ok := tg.sink.(connectors.SinkWithAggregatedCommitter); ok {
		ac, err := guard(s.CreateAggregatedCommitter)
		if err != nil {
			return fmt.Errorf("CreateAggregatedCommitter: %w", err)
		}
		defer func() { _ = guardErr(ac.Close) }()
		combined, err := guard(func() ([]byte, error) { return ac.Combine(infos) })
		if err != nil {
			return fmt.Errorf("Combine: %w", err)
		}
		if abort {
			return guardErr(func() error { return ac.Abort(ctx, cc, [][]byte{combined}) })
		}
		return guardErr(func() error { return ac.Commit(ctx, cc, [][]byte{combined}) })
	}
	if s, ok := tg.sink.(connectors.SinkWithCommitter); ok {
		cm, err := guard(s.CreateCommitter)
		if err != nil {
			return fmt.Errorf("CreateCommitter: %w", err)
		}
		if len(infos) == 0 {
			return nil
		}
		if abort {
			return guardErr(func() error { return cm.Abort(ctx, cc, infos) })
		}
		return guardErr(func() error { return cm.Commit(ctx, cc, infos) })
	}
	if len(infos) > 0 {
		return errors.New("writers prepared commit infos but the sink has no committer (the engine fails such a job)")
	}
	return nil
}

// run writes rows in one attempt, checkpoint n, and commits.
func (tg *target) run(rows [][]any, n int64) ([][]byte, error) {
	w, err := tg.open(nil)
	if err != nil {
		return nil, err
	}
	if err := w.write(rows); err != nil {
		w.close()
		return nil, err
	}
	infos, _, err := w.prepare(n)
	if cerr := w.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := tg.checkInvisible(); err != nil {
		return nil, err
	}
	return infos, tg.commit(n, infos, false)
}

// checkInvisible: an exactly-once sink shows nothing before its commit.
func (tg *target) checkInvisible() error {
	if !tg.c.ExactlyOnce || tg.readBack == nil {
		return nil
	}
	got, err := tg.readBack()
	if err != nil {
		return fmt.Errorf("reading back before the commit: %w", err)
	}
	if len(got) > 0 {
		return fmt.Errorf("%d rows visible before the commit of an exactly-once sink", len(got))
	}
	return nil
}

func (tg *target) expect(t tb, want [][]any, what string) {
	t.Helper()
	if tg.readBack == nil {
		return
	}
	got, err := tg.readBack()
	if err != nil {
		t.Fatalf("reading back %s: %v", what, err)
	}
	if tg.c.Expected != nil {
		want = tg.c.Expected(tg.schema, want)
	}
	if tg.c.IDsOnly {
		ids := make([][]any, len(want))
		for i, r := range want {
			ids[i] = []any{r[0]}
		}
		want = ids
	}
	if d := Diff(want, got); d != "" {
		t.Fatalf("committed rows %s: %s", what, d)
	}
}

// writeCommit writes rows of schema with parallel writers, commits, and
// reads them back.
func (c *Sink) writeCommit(t tb, schema *row.Schema) {
	tg := c.target(t, schema)
	rows := Rows(schema, c.Rows)
	if _, err := tg.run(rows, 1); err != nil {
		t.Fatalf("%v", err)
	}
	tg.expect(t, rows, "after one checkpoint")
}

// openClose: a writer opened and closed without rows; one opened with a
// cancelled context; a commit of infos the sink did not make is an error,
// not a panic.
func (c *Sink) openClose(t tb, schema *row.Schema) {
	tg := c.target(t, schema)
	t.Run("Empty", func(t tb) {
		w, err := tg.open(nil)
		if err != nil {
			t.Fatalf("%v", err)
		}
		infos, _, err := w.prepare(1)
		if cerr := w.close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("%v", err)
		}
		if err := tg.commit(1, infos, false); err != nil {
			t.Fatalf("committing a checkpoint without rows: %v", err)
		}
		tg.expect(t, nil, "after a checkpoint without rows")
	})
	t.Run("CancelledContext", func(t tb) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		w, err := guard(func() (connectors.Writer, error) { return tg.sink.CreateWriter(ctx, tg.task(0), nil) })
		if err != nil {
			if strings.HasPrefix(err.Error(), "panic") {
				t.Fatalf("CreateWriter with a cancelled context: %v", err)
			}
			return
		}
		if err := guardErr(w.Close); err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("Close: %v", err)
		}
	})
	t.Run("ForeignCommitInfo", func(t tb) {
		_, agg := tg.sink.(connectors.SinkWithAggregatedCommitter)
		_, com := tg.sink.(connectors.SinkWithCommitter)
		if !agg && !com {
			t.Skipf("the sink has no committer")
		}
		err := tg.commit(1, [][]byte{{0xff, 0xfe, 0x01}}, false)
		if err == nil || strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("a commit info the sink did not make must be an error, got %v", err)
		}
	})
}

// restoredWriter: checkpoint 1 committed, the writers replaced by new ones
// made from their checkpoint-1 state (a restore), more rows under
// checkpoint 2: both parts, each once.
func (c *Sink) restoredWriter(t tb, schema *row.Schema) {
	tg := c.target(t, schema)
	rows := Rows(schema, c.Rows)
	first, rest := rows[:len(rows)/2], rows[len(rows)/2:]
	w, err := tg.open(nil)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := w.write(first); err != nil {
		w.close()
		t.Fatalf("%v", err)
	}
	infos, states, err := w.prepare(1)
	w.close()
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := tg.commit(1, infos, false); err != nil {
		t.Fatalf("commit of checkpoint 1: %v", err)
	}
	tg.attempt = 2
	w2, err := tg.open(states)
	if err != nil {
		t.Fatalf("restoring the writers: %v", err)
	}
	if err := w2.write(rest); err != nil {
		w2.close()
		t.Fatalf("%v", err)
	}
	infos2, _, err := w2.prepare(2)
	if cerr := w2.close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := tg.commit(2, infos2, false); err != nil {
		t.Fatalf("commit of checkpoint 2: %v", err)
	}
	tg.expect(t, rows, "by a writer and the writer restored from its state")
}

// commitTwice: committing the same infos again (the engine does after a
// crash between the commit and its record) changes nothing.
func (c *Sink) commitTwice(t tb, schema *row.Schema) {
	tg := c.target(t, schema)
	rows := Rows(schema, c.Rows)
	infos, err := tg.run(rows, 1)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := tg.commit(1, infos, false); err != nil {
		t.Fatalf("committing the same infos again: %v", err)
	}
	tg.expect(t, rows, "after the same commit twice")
}

// abort: checkpoint 1 committed, checkpoint 2 prepared and aborted (its
// checkpoint failed), and a writer's prepared work discarded by
// AbortPrepare: only checkpoint 1's rows show.
func (c *Sink) abort(t tb, schema *row.Schema) {
	tg := c.target(t, schema)
	rows := Rows(schema, c.Rows)
	first, rest := rows[:len(rows)/2], rows[len(rows)/2:]
	w, err := tg.open(nil)
	if err != nil {
		t.Fatalf("%v", err)
	}
	defer w.close()
	if err := w.write(first); err != nil {
		t.Fatalf("%v", err)
	}
	infos, _, err := w.prepare(1)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := tg.commit(1, infos, false); err != nil {
		t.Fatalf("commit of checkpoint 1: %v", err)
	}
	if err := w.write(rest); err != nil {
		t.Fatalf("%v", err)
	}
	infos, _, err = w.prepare(2)
	if err != nil {
		t.Fatalf("%v", err)
	}
	for i, wr := range w.ws {
		if err := guardErr(wr.AbortPrepare); err != nil {
			t.Fatalf("writer %d AbortPrepare: %v", i, err)
		}
	}
	if err := tg.commit(2, infos, true); err != nil {
		t.Fatalf("Abort of checkpoint 2: %v", err)
	}
	tg.expect(t, first, "after checkpoint 2 was aborted")
}

// abortStale runs the committer's AbortStale, when it has one, as the
// engine does on a restore once the restored infos are committed.
func (tg *target) abortStale(n int64) (bool, error) {
	var c any
	if s, ok := tg.sink.(connectors.SinkWithAggregatedCommitter); ok {
		ac, err := guard(s.CreateAggregatedCommitter)
		if err != nil {
			return false, fmt.Errorf("CreateAggregatedCommitter: %w", err)
		}
		defer func() { _ = guardErr(ac.Close) }()
		c = ac
	} else if s, ok := tg.sink.(connectors.SinkWithCommitter); ok {
		cm, err := guard(s.CreateCommitter)
		if err != nil {
			return false, fmt.Errorf("CreateCommitter: %w", err)
		}
		c = cm
	}
	sa, ok := c.(connectors.StaleAborter)
	if !ok {
		return false, nil
	}
	return true, guardErr(func() error { return sa.AbortStale(context.Background(), tg.cc(n)) })
}

// crashAfterPrepare: attempt 1 commits checkpoint 1, prepares checkpoint
// 2 and dies before its commit; attempt 2 restores checkpoint 1 (commits
// its infos again, aborts stale work), and its writers, made from the
// checkpoint-1 state, write the rest under checkpoint 2: every row once,
// and nothing of attempt 1's checkpoint 2.
func (c *Sink) crashAfterPrepare(t tb, schema *row.Schema) {
	tg := c.target(t, schema)
	rows := Rows(schema, c.Rows)
	first, rest := rows[:len(rows)/2], rows[len(rows)/2:]
	w, err := tg.open(nil)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := w.write(first); err != nil {
		t.Fatalf("%v", err)
	}
	infos1, states1, err := w.prepare(1)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := tg.commit(1, infos1, false); err != nil {
		t.Fatalf("commit of checkpoint 1: %v", err)
	}
	if err := w.write(rest); err != nil {
		t.Fatalf("%v", err)
	}
	if _, _, err := w.prepare(2); err != nil {
		t.Fatalf("%v", err)
	}
	// attempt 1 dies here: its writers are never closed
	tg.attempt = 2
	if err := tg.commit(1, infos1, false); err != nil {
		t.Fatalf("attempt 2 committing the restored checkpoint 1 again: %v", err)
	}
	if _, err := tg.abortStale(1); err != nil {
		t.Fatalf("AbortStale: %v", err)
	}
	tg.expect(t, first, "after the restore of checkpoint 1")
	w2, err := tg.open(states1)
	if err != nil {
		t.Fatalf("restoring the writers: %v", err)
	}
	defer w2.close()
	if err := w2.write(rest); err != nil {
		t.Fatalf("%v", err)
	}
	infos2, _, err := w2.prepare(2)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := tg.commit(2, infos2, false); err != nil {
		t.Fatalf("commit of attempt 2's checkpoint 2: %v", err)
	}
	tg.expect(t, rows, "after attempt 2's checkpoint 2")
}

// badOption makes the sink and writes and commits a few rows until the
// first error, which must contain bad.Error.
func (c *Sink) badOption(t tb, bad BadOption, dead bool) {
	within := bad.Within
	if within == 0 {
		within = 30 * time.Second
	}
	res := make(chan error, 1)
	go func() { res <- c.firstError(bad.Body, dead) }()
	select {
	case err := <-res:
		checkBadError(t, bad, err)
	case <-time.After(within):
		t.Fatalf("no error within %v", within)
	}
}

func (c *Sink) firstError(body string, dead bool) error {
	schema := AllTypesSchema(c.Types)
	s, err := NewSink(c.Factory, body, []*row.Schema{schema}, c.job())
	if err != nil || !dead {
		return err
	}
	if h, ok := s.(connectors.SaveModeHandler); ok {
		if err := guardErr(func() error { return h.HandleSaveMode(context.Background()) }); err != nil {
			return err
		}
	}
	tg := &target{sink: s, schema: schema, c: c, attempt: 1}
	_, err = tg.run(Rows(schema, 3), 1)
	return err
}

// Commit writes rows of schema through f's sink made from body, with one
// writer and one checkpoint, and commits them: a source's test writes its
// test data this way with the sink of the same connector, which makes
// every source test a round trip.
func Commit(f connectors.SinkFactory, body string, schema *row.Schema, rows [][]any) error {
	s, err := NewSink(f, body, []*row.Schema{schema}, connectors.JobContext{JobID: "conformance-data", Mode: connectors.Batch, Parallelism: 1})
	if err != nil {
		return err
	}
	c := &Sink{Factory: f}
	c.defaults()
	c.Parallelism = 1
	if h, ok := s.(connectors.SaveModeHandler); ok {
		if err := guardErr(func() error { return h.HandleSaveMode(context.Background()) }); err != nil {
			return fmt.Errorf("HandleSaveMode: %w", err)
		}
	}
	tg := &target{sink: s, schema: schema, c: c, attempt: 1}
	_, err = tg.run(rows, 1)
	return err
}
