// Package natsserver serves NATS's core protocol for a local `stactor
// run` that was given no --nats (DESIGN §9): its taps and metrics
// subjects then live on a server in the run's own process, on loopback,
// which `stactor tap` and `stactor top` on the same machine (or any NATS
// client given the run's token, such as `nats sub 'stactor.>'`) reach.
// The run's own client talks to it through an in-process pipe
// (InProcessConn).
//
// Design decision: the server is stactor's own, not the nats-server
// library embedded. A local run needs core NATS only — publish,
// subscribe with wildcards and queue groups, request and reply (with no
// responders), headers — and no accounts, clustering, JetStream,
// monitoring or TLS. Linking nats-server for that put 3.9 MB of code
// and 190 KB of package initialisation into every stactor process, and
// starting it cost about 4 MiB of resident pages, so a local run served
// it lazily on the first client. Without it the executable is 13 MB
// smaller, `stactor version` peaks at 24.9 MiB instead of 27.2, and
// workload 2 at 39.5–40.4 MiB instead of 41.7–43.5 (benchmarks/
// RESULTS.md, "The local run's NATS server"). This one is a few hundred
// lines, costs nothing to start and so starts with the run. A cluster uses a real NATS server (--nats), and so do the tests
// of everything that talks NATS (internal/natstest); this package's own
// tests run the same client exchanges against it and against
// nats-server and require the same messages.
//
// A local run gives its server a token (WithToken) that it writes, with
// the URL, into a file only its user can read, so that the rows its taps
// carry are not open to every user of the machine. What the server does
// not do, for a loopback monitor: users and permissions, TLS, JetStream
// (a JetStream call gets no responders), server-initiated pings (a client
// that vanishes without closing its socket is found by the next write
// that times out). A client that falls behind by more than
// MaxPending bytes of messages is a slow consumer and is disconnected, as
// nats-server disconnects one, so that a stuck `stactor tap` costs the run
// no more than that.
package natsserver
