// Package connectors is the connector API: the shapes of SeaTunnel's
// Source (a SplitEnumerator and Readers), Sink (Writers, Committer,
// AggregatedCommitter) and Transform, plus the registry through which a
// connector package makes itself known. Each connector or transform is one
// small package under connectors/ that calls Register* from init(); the
// binary imports connectors/all.
//
// Threading, for every interface here: the engine calls one instance from
// one actor at a time (an enumerator from its host actor, a reader, the
// transforms and a writer from their subtask actor, a committer from the
// committer actor), so an implementation needs no locks of its own unless it
// starts goroutines. A call must not block for long: a reader's PollNext
// returns within about 100 ms even when it has nothing (DESIGN §3).
//
// Delivery (guarantee.go): every source and sink factory declares its
// guarantee — exactly-once, idempotent, at-least-once or none — and, when
// it hangs on options, how (Delivery.Of, with the checked options). The
// planner combines them per pipeline (plan.Guarantees); `stactor plugins`
// and the README's connector table show the declared summary.
//
// Errors: an error returned by any call fails the subtask (or enumerator,
// or committer); the engine reports it to the JobMaster, which fails over the
// pipeline from its latest checkpoint or fails the job with that error as
// the cause. Errors should name what failed (file, table, offset).
package connectors
