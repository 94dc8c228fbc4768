package natschan

import "time"

// Option configures a Sender or a Receiver.
type Option func(*options)

type options struct {
	prefix       string
	pendingMsgs  int
	pendingBytes int
	flushTimeout time.Duration
	edges        []int32 // nil: every edge
}

func newOptions(opts []Option) options {
	o := options{
		prefix: DefaultPrefix,
		// The credit windows bound what is pending; the limits only catch a
		// receiver that stopped reading. Counting messages adds nothing.
		pendingMsgs:  -1,
		pendingBytes: 256 << 20,
		flushTimeout: 5 * time.Second,
	}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithPrefix sets the subject prefix (DefaultPrefix when not given): one or
// more dot-separated tokens of letters, digits, '-' and '_'.
func WithPrefix(p string) Option { return func(o *options) { o.prefix = p } }

// WithPendingLimits sets a Receiver's subscription pending limits (NATS
// SetPendingLimits; a negative value means unlimited). The default is no
// message limit and 256 MiB; it must hold the credit windows of all of the
// receiver's channels (window × batch bytes × channels). Going over is a slow
// consumer, which fails the pipeline.
func WithPendingLimits(msgs, bytes int) Option {
	return func(o *options) { o.pendingMsgs, o.pendingBytes = msgs, bytes }
}

// WithSubscribeTimeout bounds how long NewReceiver waits for the server to
// confirm the subscription, and Sender.Flush without a deadline (5 s by
// default).
func WithSubscribeTimeout(d time.Duration) Option { return func(o *options) { o.flushTimeout = d } }

// WithEdges limits a Receiver to the channels of the given edges, with one
// subscription per edge instead of a wildcard over edges. The subtasks of a
// pipeline's chains with the same index share the wildcard, so without it a
// subtask's node also receives (and decodes, and drops) what other chains'
// subtasks of that index are sent; pass the chain's input edges.
func WithEdges(edges ...int32) Option {
	return func(o *options) { o.edges = append([]int32(nil), edges...) }
}
