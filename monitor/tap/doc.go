// Package tap lets a user watch the rows leaving a vertex of a running job
// (DESIGN §8, §9): `stactor tap JOB [VERTEX]`.
//
// A tap costs nothing while no one listens. Each subtask attaches one
// Point per vertex of its chain (Hub.Attach) and checks the point's flag
// once per batch (Point.On, one atomic load); nothing else runs on the
// subtask's goroutine until a listener appears.
//
// Listeners announce themselves through NATS: a Listener publishes an
// Interest on `<prefix>.tapctl.<job>` at once and then every
// InterestInterval; each subtask of the job is subscribed there, turns on
// the points that match the interest's vertex selector (an id, a vertex
// name such as Source[0]-FakeSource, a plugin name, or a plugin_output
// table; empty for every vertex) and answers with an Ack naming them. A
// point turns itself off when no interest arrived for InterestTTL (three
// intervals): a listener that dies without saying goodbye costs the job
// nothing after that. A goodbye turns it off at once.
//
// A tap never slows or blocks the job. While on, a point hands each batch
// (immutable once emitted, row.Batch) to its subtask's tap goroutine
// through a bounded queue without waiting; when the queue is full the
// batch's rows are counted as dropped. The goroutine samples the rows
// (every 1/R-th row for a sample rate R, the largest any listener asked
// for), caps them at RowsPerSecond per point (the rest are dropped and
// counted too: this bounds what a listener can cost a job, in CPU and in
// NATS bandwidth shared with the data channels) and publishes them as JSON
// Messages on `<prefix>.tap.<job>.<vertex id>`.
//
// Every message carries its point's sequence number and cumulative
// counters of rows sent and dropped, so a listener that misses messages
// (a slow listener, a NATS slow-consumer drop) or rows the point dropped
// learns exactly how many rows it missed (Listener reports them as
// Missed events). The counters are per point instance: a restored
// pipeline's subtasks (a new attempt) start new streams.
//
// The wire format is JSON so that `nats sub 'stactor.stactor.tap.>'` is
// readable too; Message documents it.
package tap
