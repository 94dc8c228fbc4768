// Package benchmarks holds stactor's benchmarks (DESIGN §4's performance
// goal: ≥ 10 M rows/s end to end on a fused pipeline) and their figures,
// RESULTS.md.
//
// The Go microbenchmarks in this package measure the hot paths with the
// project's own packages: the batch codec, a fused chain driven through the
// connector API, a channel with credits inside a running engine, and the
// Sql evaluator; go tool task bench runs them. The programs under cmd/ run
// the stactor binary as a user would: cmd/peers against Benthos (built from
// the separate module peers/, so this module does not depend on it) and
// cmd/figures for single figures (start-up time, read_limit, flow control,
// fused throughput). See the bench:* tasks in Taskfile.yml.
package benchmarks
