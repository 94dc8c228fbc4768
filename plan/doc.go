// Package plan turns a parsed job into the plans of DESIGN §2:
//
//	JobConfig ──▶ LogicalDag ──▶ pipelines and fused chains
//
// A job is resolved once, on the master (Resolve): every plugin's options
// are checked, every source's and sink's resolve step runs (it may do I/O:
// catalog tables, server checks), the plugins are created from what they
// resolved to so that the schemas between them are checked, plugin_output /
// plugin_input are wired into edges, the DAG is split into pipelines
// (connected parts, each its own checkpoint and failure domain) and
// vertices are fused into chains: a vertex joins its upstream's chain when
// its only input is a forward edge (same parallelism, no redistribution).
// Only edges between chains are channels.
//
// The result's Resolved (messages.ResolvedJob) is what the master ships and
// keeps: the client's tree and, per vertex, the connector's resolved bytes
// and output tables. FromResolved rebuilds the same plan from it on any
// node with no I/O and no environment — a worker deploying a subtask, a
// node committing its writers' infos, a new leader, a restore, the HTTP
// DAG — and checks that it came out the same. There is one way to plan
// (build); the two entry points differ only in where a vertex's resolved
// bytes come from. CheckCompatible tells whether a job re-resolved from a
// changed file can continue from the state of the plan it was resolved
// with; Evolved names the tables of schema-changing sources that were
// altered since, for which the plan it was resolved with continues.
//
// Guarantees (guarantee.go) are what each pipeline, as written, guarantees
// about delivery: the least of its sources' and sinks' declared guarantees
// with their options, naming the connector that limits it. A sink whose
// options ask for exactly-once in any connector's spelling
// (is_exactly_once, semantics = EXACTLY_ONCE, is_enable_transaction, ...)
// when it or its pipeline's sources cannot give it is a warning of the
// plan, so run --check and submit show it.
package plan
