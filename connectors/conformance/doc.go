// Package conformance is the connector conformance suite: the tests every
// source and sink runs with a few lines, in the spirit of Benthos's shared
// stream tests. It drives a connector as the engine does (DESIGN §5: an
// enumerator dealing splits to readers, readers polled and snapshotted
// between polls, writers preparing commit infos on a barrier and a
// committer making them visible) with the connector's factory made from
// an options body as a job file's block would be (options checked,
// Resolve, then Create), and reports what breaks the contracts of
// package connectors.
//
// A source's test fills a Source and calls RunSource:
//
//	conformance.RunSource(t, conformance.Source{
//		Factory: fake.Factory,
//		Types:   conformance.AllTypes(),
//		Table: func(dir string, schema *row.Schema, rows [][]any) (string, error) {
//			// write rows where the source reads them; return its options
//		},
//		BadOptions: []conformance.BadOption{{Name: "no schema", Body: "", Error: "schema"}},
//	})
//
// It checks, as subtests: a table of each supported type (a bigint id and
// a nullable column of the type, edge values and nulls: Rows, Value) is
// read back exactly (or, for a Generated source, as many rows of the
// right types, the same on every read), and the source's catalog table
// has those types; a table of all of them at once; Open and Close of the
// enumerator and a reader, with a cancelled context, an enumerator state
// or split it did not write (an error, never a panic), Close after that
// error; a reader replaced from its SnapshotState after every poll that
// emitted rows (every row exactly once); a checkpoint halfway, the
// readers' splits handed back to a new enumerator (AddSplitsBack) with the
// same, a larger and a smaller parallelism; a restore from the
// enumerator's state taken before any reader registered; the dealing of
// splits (each once, within the parallelism, to readers asking again after
// each split as the engine's do; "no more splits" to every
// reader and again to one that registers anew); every PollNext within its
// bound, also without splits; bad options failing at plan time with the
// expected error, and optionally a dead server failing within a bound.
//
// Readers' split requests and source events (connectors.SourceEventSender)
// reach the enumerator in the order sent, and a read completes a checkpoint
// (snapshot, then NotifyCheckpointComplete on the enumerator and every
// reader) every 200 ms, as the engine does: a CDC source hands out its
// stream split only after its chunks are in a completed checkpoint
// (Source.EndsAfterReading). Before a snapshot the messages in flight are
// settled, so an assignment made after the enumerator's snapshot is never
// also in a reader's state.
//
// A sink's test fills a Sink and calls RunSink: rows of each supported
// type written by parallel writers (every other batch as decoded from
// another node, its strings packed), committed (through the Committer or
// the AggregatedCommitter, as the engine's committer actor does) and read
// back with the case's ReadBack; a checkpoint without rows; a writer with
// a cancelled context; a commit info it did not make (an error); writers
// restored from their state after a committed checkpoint. A sink that
// claims exactly-once (ExactlyOnce) is also checked for nothing visible
// before the commit, a commit repeated without effect, an aborted
// checkpoint (AbortPrepare, Abort) never showing, and a crash after a
// prepare: the next attempt commits the restored infos again, aborts stale
// work (StaleAborter) and its restored writers write the rest, every row
// once.
//
// A connector that is both source and sink writes a source's test data
// with its own sink (Commit), so each source test is a round trip, and
// reads a sink's committed rows back with its source (ReadAll). A format
// that cannot keep some values says so in Expected (LocalFile's text
// reads a blank field as null, as SeaTunnel's does), a sink whose output
// cannot be parsed back compares ids only (IDsOnly: Console). Close is
// called once on every enumerator, reader and writer, as package
// connectors says, so the suite never calls it twice.
//
// A connector with a server (Jdbc, Kafka) starts its server in TestMain
// as the project's tests do, writes and reads test rows through its own
// client in Table and Target, leaves out the types it cannot map exactly
// (Without), and fills DeadServer with options pointing at a port where
// nothing listens.
//
// RunCrash is exactly-once through the real binary: it builds stactor,
// runs a job the case supplies, SIGKILLs it at random moments and
// restores it (Kills times: 3 by default so the suite stays fast, more
// under KillsEnv), and calls the case's Verify on what was committed
// (ExactlyOnce helps check ids). Sinks that claim exactly-once run it.
//
// The suite's own tests run it on deliberately broken connectors and
// check that it reports each (a recorder stands in for testing.T).
package conformance
