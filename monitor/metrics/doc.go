// Package metrics carries jobs' metrics snapshots over NATS (DESIGN §8,
// §9): every JobMaster publishes its job's messages.JobMetrics on
// `<prefix>.metrics.<job>` every few seconds (jobmaster.Options.Metrics,
// 2 s by default) and once more when the job ends; `stactor top` and any
// other tool subscribe to `<prefix>.metrics.*`.
//
// There is one source of the numbers: the JobMaster builds JobMetrics
// from its subtasks' TaskMetrics reports, and the same message answers
// the leader's HTTP API (/job-info, /metrics) and goes out here, so every
// view agrees. A snapshot is protobuf's JSON form of JobMetrics
// (protojson: lowerCamelCase names, 64-bit integers as strings, zero
// values included), readable with `nats sub 'stactor.stactor.metrics.>'`;
// messages/stactor.proto documents every field.
package metrics
