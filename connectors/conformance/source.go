package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Source is the case a source's test fills in to run the suite (see the
// package comment).
type Source struct {
	Factory connectors.SourceFactory
	// Table returns the options body of a source block that reads a table
	// of schema holding rows. A source that reads data kept elsewhere
	// (files, a database, a topic) writes rows there first (dir is a new
	// temporary directory for it) and must read back exactly those rows;
	// a Generated source is asked for len(rows) rows of schema and may
	// make up their values.
	Table func(dir string, schema *row.Schema, rows [][]any) (string, error)
	// Generated: the source makes its rows (FakeSource); the suite then
	// checks their count and types, and that every read of the same
	// options gives the same rows.
	Generated bool
	// Types are the row types the source reads (AllTypes, or fewer).
	Types []*row.Type
	// Mode is the job mode the source is made for (BATCH when empty); a
	// source unbounded in it is read until it has given every row.
	Mode connectors.JobMode
	// Rows per table (60 when 0); Parallelism of the readers (2 when 0);
	// BatchSize the collector suggests (7 when 0: several polls a split).
	Rows, Parallelism, BatchSize int
	// PollBound is the longest a PollNext may take (250 ms when 0: the
	// engine's ~100 ms with room for a loaded machine; three times that
	// under the race detector).
	PollBound time.Duration
	// Expected, optional, maps the rows written to the rows the source
	// is known to read back when its format cannot keep every value (text
	// reads a blank field as null, as SeaTunnel does). Keep it to what
	// the format documents.
	Expected func(schema *row.Schema, rows [][]any) [][]any
	// ReadsAs, optional, is the type the source's catalog table gives a
	// column written as t, when the format reads it back as another type
	// (Parquet and ORC read a timestamp_tz, written as its instant, as a
	// timestamp); nil, or t itself, when it keeps the type.
	ReadsAs func(t *row.Type) *row.Type
	// EndsAfterReading: the enumerator tells readers there are no more
	// splits only once they have read what they were given and reported
	// back (source events) and a checkpoint has completed after that
	// (CDC's stream split follows the snapshot's chunks). The Assignment
	// case then checks only that each split is dealt once.
	EndsAfterReading bool
	// BadOptions are options bodies that must fail, each with its error.
	BadOptions []BadOption
	// DeadServer, for a connector with a server: options that point at a
	// server that is not there. The error must come from the factory,
	// the enumerator's Open or a reader's first polls, within Within.
	DeadServer *BadOption
}

// BadOption is an options body and a piece of the error it must give.
type BadOption struct {
	Name  string // the subtest's name
	Body  string
	Error string // a substring of the error
	// Within bounds how long a dead server may take to be reported
	// (30 s when 0).
	Within time.Duration
}

func (c *Source) defaults() {
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
	if c.PollBound == 0 {
		c.PollBound = raceSlowdown * 250 * time.Millisecond
	}
}

// RunSource runs the suite's source tests on c, as subtests of t.
func RunSource(t *testing.T, c Source) { runSource(realT{t}, c) }

func runSource(t tb, c Source) {
	t.Helper()
	c.defaults()
	t.Run("Types", func(t tb) {
		for _, typ := range c.Types {
			t.Run(typ.String(), func(t tb) { c.checkTable(t, TypeSchema(typ)) })
		}
	})
	all := AllTypesSchema(c.Types)
	t.Run("AllTypes", func(t tb) { c.checkTable(t, all) })
	t.Run("OpenClose", func(t tb) { c.openClose(t, all) })
	t.Run("SnapshotEveryPoll", func(t tb) { c.snapshotRestore(t, all, readOpts{restartEachPoll: true}) })
	t.Run("SnapshotHalfway", func(t tb) { c.rescale(t, all, c.Parallelism, c.Parallelism) })
	t.Run("RescaleUp", func(t tb) { c.rescale(t, all, c.Parallelism, c.Parallelism+1) })
	t.Run("RescaleDown", func(t tb) { c.rescale(t, all, c.Parallelism, 1) })
	t.Run("RestoreBeforeRun", func(t tb) { c.restoreBeforeRun(t, all) })
	t.Run("Assignment", func(t tb) { c.assignment(t, all) })
	t.Run("IdlePoll", func(t tb) { c.idlePoll(t, all) })
	for _, bad := range c.BadOptions {
		t.Run("BadOptions/"+bad.Name, func(t tb) { c.badOption(t, bad, false) })
	}
	if c.DeadServer != nil {
		t.Run("DeadServer", func(t tb) { c.badOption(t, *c.DeadServer, true) })
	}
}

func (c *Source) job(p int) connectors.JobContext {
	return connectors.JobContext{JobID: "conformance", JobName: "conformance", Mode: c.Mode, Parallelism: p}
}

// make writes rows of schema through c.Table and makes the source.
func (c *Source) make(t tb, schema *row.Schema, p int) (connectors.Source, [][]any) {
	t.Helper()
	src, rows, _ := c.makeBody(t, schema, p)
	return src, rows
}

func (c *Source) makeBody(t tb, schema *row.Schema, p int) (connectors.Source, [][]any, string) {
	t.Helper()
	rows := Rows(schema, c.Rows)
	body, err := c.Table(t.TempDir(), schema, rows)
	if err != nil {
		t.Fatalf("writing the test table: %v", err)
	}
	src, err := NewSource(c.Factory, body, c.job(p))
	if err != nil {
		t.Fatalf("making the source: %v\noptions:\n%s", err, body)
	}
	return src, rows, body
}

// readAll reads src with p readers from a fresh start.
func (c *Source) readAll(t tb, src connectors.Source, p int, o readOpts) [][]any {
	t.Helper()
	pl, err := startPipeline(src, p, c.BatchSize, c.PollBound, nil, nil)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if src.Boundedness() != connectors.Bounded {
		o.want = c.Rows
	}
	err = pl.read(o)
	c.checkPolls(t, pl)
	if cerr := pl.close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	return pl.out.rows
}

func (c *Source) checkPolls(t tb, pl *pipeline) {
	t.Helper()
	if pl.slowest > c.PollBound {
		t.Errorf("PollNext must return within %v: %s", c.PollBound, pl.slowestWhat)
	}
}

// reference is what a plain read of src gives, checked against rows.
func (c *Source) reference(t tb, src connectors.Source, schema *row.Schema, rows [][]any) [][]any {
	t.Helper()
	got := c.readAll(t, src, c.Parallelism, readOpts{})
	c.checkRows(t, schema, rows, got)
	return got
}

func (c *Source) checkRows(t tb, schema *row.Schema, want, got [][]any) {
	t.Helper()
	if c.Generated {
		if len(got) != len(want) {
			t.Fatalf("asked for %d rows, read %d", len(want), len(got))
		}
		if err := CheckRows(schema, got); err != nil {
			t.Fatalf("rows do not match the schema %s: %v", schema, err)
		}
		return
	}
	if c.Expected != nil {
		want = c.Expected(schema, want)
	}
	if d := Diff(want, got); d != "" {
		t.Fatalf("rows read differ from the rows written: %s", d)
	}
}

// checkTable reads a table of schema and checks the source's catalog
// table, the rows, and that a second read gives the same rows.
func (c *Source) checkTable(t tb, schema *row.Schema) {
	src, rows := c.make(t, schema, c.Parallelism)
	tables := src.Tables()
	if len(tables) != 1 {
		t.Fatalf("Tables() has %d tables, want 1", len(tables))
	}
	if got := tables[0]; got.Len() != schema.Len() {
		t.Errorf("Tables()[0] is %s, want the fields of %s", got, schema)
	} else {
		for j, f := range schema.Fields {
			want := f.Type
			if c.ReadsAs != nil {
				want = c.ReadsAs(want)
			}
			if !got.Fields[j].Type.Equal(want) || !strings.EqualFold(got.Fields[j].Name, f.Name) {
				t.Errorf("Tables()[0] field %d is %s %s, want %s %s", j, got.Fields[j].Name, got.Fields[j].Type, f.Name, want)
			}
		}
	}
	first := c.reference(t, src, schema, rows)
	if d := Diff(first, c.readAll(t, src, c.Parallelism, readOpts{})); d != "" {
		t.Fatalf("a second read of the same source differs: %s", d)
	}
}

// openClose: Open with a context and Close; Close after an error; an
// Open with a cancelled context fails or succeeds but never panics.
func (c *Source) openClose(t tb, schema *row.Schema) {
	src, _ := c.make(t, schema, c.Parallelism)
	t.Run("EnumeratorOpenClose", func(t tb) {
		en, err := guard(func() (connectors.SplitEnumerator, error) {
			return src.CreateEnumerator(newEnumCtx(c.Parallelism), nil)
		})
		if err != nil {
			t.Fatalf("CreateEnumerator: %v", err)
		}
		if err := guardErr(func() error { return en.Open(context.Background()) }); err != nil {
			t.Fatalf("Open: %v", err)
		}
		if err := guardErr(en.Close); err != nil {
			t.Fatalf("Close: %v", err)
		}
	})
	t.Run("BadEnumeratorState", func(t tb) {
		_, err := guard(func() (connectors.SplitEnumerator, error) {
			return src.CreateEnumerator(newEnumCtx(c.Parallelism), []byte{0xff, 0xfe, 0x01})
		})
		if err == nil || strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("an enumerator state it did not write must be an error, got %v", err)
		}
	})
	t.Run("BadSplitThenClose", func(t tb) {
		ctx := &readerCtx{bounded: src.Boundedness(), task: connectors.TaskInfo{JobID: "conformance", Parallelism: 1}}
		r, err := guard(func() (connectors.Reader, error) { return src.CreateReader(ctx) })
		if err != nil {
			t.Fatalf("CreateReader: %v", err)
		}
		if err := guardErr(func() error { return r.Open(context.Background()) }); err != nil {
			t.Fatalf("Open: %v", err)
		}
		err = guardErr(func() error {
			return r.AddSplits([]connectors.Split{{ID: "not-a-split", Data: []byte{0xff, 0xfe, 0x01}}})
		})
		if err == nil || strings.HasPrefix(err.Error(), "panic") {
			t.Errorf("a split it did not encode must be an error, got %v", err)
		}
		if err := guardErr(r.Close); err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("Close after an error: %v", err)
		}
	})
	t.Run("CancelledOpen", func(t tb) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		en, err := guard(func() (connectors.SplitEnumerator, error) { return src.CreateEnumerator(newEnumCtx(1), nil) })
		if err != nil {
			t.Fatalf("CreateEnumerator: %v", err)
		}
		if err := guardErr(func() error { return en.Open(ctx) }); err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Errorf("enumerator Open with a cancelled context: %v", err)
		}
		if err := guardErr(en.Close); err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Errorf("enumerator Close: %v", err)
		}
		r, err := guard(func() (connectors.Reader, error) {
			return src.CreateReader(&readerCtx{bounded: src.Boundedness(), task: connectors.TaskInfo{Parallelism: 1}})
		})
		if err != nil {
			t.Fatalf("CreateReader: %v", err)
		}
		if err := guardErr(func() error { return r.Open(ctx) }); err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Errorf("reader Open with a cancelled context: %v", err)
		}
		if err := guardErr(r.Close); err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Errorf("reader Close: %v", err)
		}
	})
}

// snapshotRestore reads with o (a reader replaced from its snapshot after
// every poll that emitted): every row exactly once.
func (c *Source) snapshotRestore(t tb, schema *row.Schema, o readOpts) {
	src, rows := c.make(t, schema, c.Parallelism)
	ref := c.reference(t, src, schema, rows)
	got := c.readAll(t, src, c.Parallelism, o)
	if d := Diff(ref, got); d != "" {
		t.Fatalf("read with a snapshot and restore after every poll: %s", d)
	}
}

// rescale reads part with p1 readers, snapshots enumerator and readers,
// and reads the rest from that checkpoint with p2 readers: the readers'
// splits go back to the enumerator (AddSplitsBack), as on a restore.
func (c *Source) rescale(t tb, schema *row.Schema, p1, p2 int) {
	src, rows, body := c.makeBody(t, schema, p1)
	ref := c.reference(t, src, schema, rows)
	pl, err := startPipeline(src, p1, c.BatchSize, c.PollBound, nil, nil)
	if err != nil {
		t.Fatalf("%v", err)
	}
	// about half of the polls a full read takes
	half := max(1, c.Rows/c.BatchSize/2)
	if err := pl.read(readOpts{stopAfter: half}); err != nil {
		pl.close()
		t.Fatalf("reading the first part: %v", err)
	}
	state, back, err := pl.snapshot()
	if err != nil {
		pl.close()
		t.Fatalf("%v", err)
	}
	before := pl.out.rows
	c.checkPolls(t, pl)
	if err := pl.close(); err != nil {
		t.Fatalf("%v", err)
	}
	// the restored job is planned anew with the new parallelism
	src2, err := NewSource(c.Factory, body, c.job(p2))
	if err != nil {
		t.Fatalf("making the source again: %v", err)
	}
	pl2, err := startPipeline(src2, p2, c.BatchSize, c.PollBound, state, back)
	if err != nil {
		t.Fatalf("restoring with parallelism %d: %v", p2, err)
	}
	o := readOpts{}
	if src.Boundedness() != connectors.Bounded {
		o.want = c.Rows - len(before)
	}
	err = pl2.read(o)
	c.checkPolls(t, pl2)
	if cerr := pl2.close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("reading the rest with parallelism %d: %v", p2, err)
	}
	if d := Diff(ref, append(before, pl2.out.rows...)); d != "" {
		t.Fatalf("read %d rows with %d readers, snapshot, the rest with %d readers: %s", len(before), p1, p2, d)
	}
}

// restoreBeforeRun restores from a checkpoint taken after the
// enumerator's Open and before any reader registered, with another
// parallelism: the enumerator's state alone must hold every split.
func (c *Source) restoreBeforeRun(t tb, schema *row.Schema) {
	src, rows, body := c.makeBody(t, schema, c.Parallelism)
	ref := c.reference(t, src, schema, rows)
	ec := newEnumCtx(c.Parallelism)
	en, err := guard(func() (connectors.SplitEnumerator, error) { return src.CreateEnumerator(ec, nil) })
	if err != nil {
		t.Fatalf("CreateEnumerator: %v", err)
	}
	if err := guardErr(func() error { return en.Open(context.Background()) }); err != nil {
		t.Fatalf("enumerator Open: %v", err)
	}
	state, err := guard(func() ([]byte, error) { return en.SnapshotState(1) })
	_ = guardErr(en.Close)
	if err != nil {
		t.Fatalf("enumerator SnapshotState: %v", err)
	}
	p2 := c.Parallelism + 1
	src2, err := NewSource(c.Factory, body, c.job(p2))
	if err != nil {
		t.Fatalf("making the source again: %v", err)
	}
	pl, err := startPipeline(src2, p2, c.BatchSize, c.PollBound, state, nil)
	if err != nil {
		t.Fatalf("restoring with parallelism %d: %v", p2, err)
	}
	o := readOpts{}
	if src.Boundedness() != connectors.Bounded {
		o.want = c.Rows
	}
	err = pl.read(o)
	c.checkPolls(t, pl)
	if cerr := pl.close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("reading after the restore: %v", err)
	}
	if d := Diff(ref, pl.out.rows); d != "" {
		t.Fatalf("restored from the enumerator's state before Run with %d readers: %s", p2, d)
	}
}

// assignment checks the enumerator's dealing: every split to one reader
// of the parallelism, no split twice, "no more splits" to every reader of
// a bounded source and again to one that registers anew.
func (c *Source) assignment(t tb, schema *row.Schema) {
	src, _ := c.make(t, schema, c.Parallelism)
	ec := newEnumCtx(c.Parallelism)
	en, err := guard(func() (connectors.SplitEnumerator, error) { return src.CreateEnumerator(ec, nil) })
	if err != nil {
		t.Fatalf("CreateEnumerator: %v", err)
	}
	defer func() { _ = guardErr(en.Close) }()
	if err := guardErr(func() error { return en.Open(context.Background()) }); err != nil {
		t.Fatalf("enumerator Open: %v", err)
	}
	// readers register one by one, the last after Run, as they come up
	for i := 0; i < c.Parallelism-1; i++ {
		ec.registered[i] = true
		if err := guardErr(func() error { return en.RegisterReader(i) }); err != nil {
			t.Fatalf("RegisterReader(%d): %v", i, err)
		}
	}
	if err := guardErr(en.Run); err != nil {
		t.Fatalf("Run: %v", err)
	}
	last := c.Parallelism - 1
	ec.registered[last] = true
	if err := guardErr(func() error { return en.RegisterReader(last) }); err != nil {
		t.Fatalf("RegisterReader(%d): %v", last, err)
	}
	// Readers ask as the engine's do: again after each split they get
	// (a lazy enumerator deals one split per request), until told there
	// are no more or given nothing new.
	for round := 0; round < 100000; round++ {
		progressed := false
		for i := 0; i < c.Parallelism; i++ {
			if ec.noMore[i] > 0 {
				continue
			}
			before := len(ec.assigned[i])
			if err := guardErr(func() error { return en.HandleSplitRequest(i) }); err != nil {
				t.Fatalf("HandleSplitRequest(%d): %v", i, err)
			}
			progressed = progressed || len(ec.assigned[i]) > before
		}
		if !progressed {
			break
		}
	}
	seen := map[string]int{}
	total := 0
	for r, splits := range ec.assigned {
		if r < 0 || r >= c.Parallelism {
			t.Errorf("assigned %d splits to reader %d of %d", len(splits), r, c.Parallelism)
		}
		for _, s := range splits {
			if prev, dup := seen[s.ID]; dup {
				t.Errorf("split %q assigned twice (readers %d and %d)", s.ID, prev, r)
			}
			seen[s.ID] = r
			total++
		}
	}
	if total == 0 {
		t.Fatalf("no split assigned to %d registered readers", c.Parallelism)
	}
	if src.Boundedness() == connectors.Bounded && !c.EndsAfterReading {
		for i := 0; i < c.Parallelism; i++ {
			if ec.noMore[i] == 0 {
				t.Errorf("reader %d was not told there are no more splits", i)
			}
		}
		told := ec.noMore[0]
		if err := guardErr(func() error { return en.RegisterReader(0) }); err != nil {
			t.Fatalf("RegisterReader(0) again: %v", err)
		}
		if ec.noMore[0] == told {
			t.Errorf("reader 0 registered again (after a restore) was not told again that there are no more splits")
		}
	}
	for r, splits := range ec.assigned {
		for _, s := range splits {
			if seen[s.ID] != r {
				t.Errorf("split %q assigned again after reader 0 registered again", s.ID)
			}
		}
	}
}

// idlePoll: a reader with no split, not told there are no more, returns
// from PollNext within the bound, again and again.
func (c *Source) idlePoll(t tb, schema *row.Schema) {
	src, _ := c.make(t, schema, 1)
	ctx := &readerCtx{bounded: src.Boundedness(), task: connectors.TaskInfo{JobID: "conformance", Parallelism: 1}}
	r, err := guard(func() (connectors.Reader, error) { return src.CreateReader(ctx) })
	if err != nil {
		t.Fatalf("CreateReader: %v", err)
	}
	if err := guardErr(func() error { return r.Open(context.Background()) }); err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer func() { _ = guardErr(r.Close) }()
	out := &collector{size: c.BatchSize}
	for i := 0; i < 3; i++ {
		res := make(chan error, 1)
		start := time.Now()
		go func() { res <- guardErr(func() error { return r.PollNext(out) }) }()
		select {
		case err := <-res:
			if err != nil {
				t.Fatalf("PollNext without splits: %v", err)
			}
			if d := time.Since(start); d > c.PollBound {
				t.Fatalf("PollNext without splits took %v (bound %v)", d.Round(time.Millisecond), c.PollBound)
			}
		case <-time.After(10 * c.PollBound):
			t.Fatalf("PollNext without splits did not return within %v", 10*c.PollBound)
		}
	}
	if len(out.rows) > 0 || ctx.ended > 0 {
		t.Fatalf("a reader without splits emitted %d rows / ended %d times before it was told there are no more splits", len(out.rows), ctx.ended)
	}
}

// badOption makes the source from bad.Body and runs it until the first
// error, which must contain bad.Error. A bad option must fail when the
// source is made (plan time); a dead server may fail later, in the
// enumerator's Open or a reader, within bad.Within.
func (c *Source) badOption(t tb, bad BadOption, dead bool) {
	within := bad.Within
	if within == 0 {
		within = 30 * time.Second
	}
	res := make(chan error, 1)
	start := time.Now()
	go func() { res <- c.firstError(bad.Body, dead, within) }()
	var err error
	select {
	case err = <-res:
	case <-time.After(within + time.Second):
	}
	// the polls stop at within; a call that blocks past it is the finding
	if d := time.Since(start); d > within+c.PollBound {
		t.Fatalf("no error within %v (a call blocked %v)", within, d.Round(time.Millisecond))
	}
	checkBadError(t, bad, err)
}

func checkBadError(t tb, bad BadOption, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatalf("options were accepted; want an error with %q\noptions:\n%s", bad.Error, bad.Body)
	case strings.HasPrefix(err.Error(), "panic"):
		t.Fatalf("connector panicked: %v", err)
	case !strings.Contains(err.Error(), bad.Error):
		t.Fatalf("error %q does not say %q", err, bad.Error)
	}
}

func (c *Source) firstError(body string, dead bool, within time.Duration) error {
	src, err := NewSource(c.Factory, body, c.job(1))
	if err != nil || !dead {
		return err
	}
	pl, err := startPipeline(src, 1, c.BatchSize, c.PollBound, nil, nil)
	if err != nil {
		return err
	}
	defer pl.close()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) && !pl.readers[0].ended {
		if _, err := pl.poll(pl.readers[0]); err != nil {
			return err
		}
	}
	return nil
}

// ReadAll makes f's source from body (a BATCH job, one reader) and reads
// it to its end: a sink's ReadBack when the connector is a source too.
func ReadAll(f connectors.SourceFactory, body string) ([][]any, error) {
	src, err := NewSource(f, body, connectors.JobContext{JobID: "conformance-read", Mode: connectors.Batch, Parallelism: 1})
	if err != nil {
		return nil, err
	}
	pl, err := startPipeline(src, 1, 1024, time.Minute, nil, nil)
	if err != nil {
		return nil, err
	}
	err = pl.read(readOpts{})
	if cerr := pl.close(); err == nil {
		err = cerr
	}
	return pl.out.rows, err
}
