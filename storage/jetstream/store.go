// Package jetstream is the checkpoint storage backend for a cluster (DESIGN
// §8): the NATS JetStream the cluster already runs, shared by every node, so
// a pipeline restored on another node finds its checkpoints.
//
// Two buckets, named after a prefix:
//
//	<prefix>_checkpoints  object store: the blobs, named like localfile's files
//	    <job>/job                                   the JobSpec (framed)
//	    <job>/pipeline-<p>/state/<id>/<attempt>-<name>   state blobs (the handle is the part after <job>/)
//	    <job>/pipeline-<p>/completed/<id, 20 digits>     completed checkpoints (framed)
//	<prefix>_meta         KV: what must be atomic, and an index of the objects
//	    <job>.pipeline-<p>                          the pipeline's register (register.go)
//	    <job>.job                                   marks that the job has a spec
//	    <job>.pipeline-<p>.state.<id>.<attempt>.<name>  marks a state object
//	    <job>.pipeline-<p>.completed.<id>           marks a completed-checkpoint object
//
// Job ids and state names are escaped into single tokens (tokenNames).
//
// The register is the only thing that decides: a completed-checkpoint object
// counts only once its id is in the register's committed set, which Complete
// adds by compare-and-set after checking the fence against the same
// revision. Everything else is written before it counts and removed after it
// stops counting, each object announced by its marker before it is written,
// so Retain finds everything it has to delete by listing the pipeline's
// markers (the object store itself can only be listed whole).
//
// Reads go to each stream's leader (New turns direct gets off), so a read
// after a write anywhere in the cluster sees it. Objects are read and deleted
// through the object store's stream (ADR-20 layout: meta on
// $O.<bucket>.M.<name>, chunks on $O.<bucket>.C.<nuid>) rather than through
// ObjectStore.Get and Delete: Get waits for its timeout when Retain purges
// the chunks under it, and Delete leaves a tombstone per object forever.
//
// Durability is JetStream's: a write is acknowledged once stored, by a
// quorum of replicas when the buckets are replicated (WithReplicas). A
// single server writes through to its files but fsyncs only every
// sync_interval (2 minutes by default) unless configured with
// `sync_interval: always`.
package jetstream

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stactor/stactor/storage"
)

// Store is a storage.Storage on NATS JetStream.
type Store struct {
	js        jetstream.JetStream
	kv        jetstream.KeyValue
	kvStream  jetstream.Stream
	obs       jetstream.ObjectStore
	objStream jetstream.Stream
	kvBucket  string
	objBucket string

	timeout  time.Duration
	replicas int

	ctx    context.Context // cancelled by Close; every call's context derives from it
	cancel context.CancelFunc

	mu sync.Mutex // protects locks
	// locks are the pipelines' in-process locks: a channel of one, held
	// while it holds a token (lock).
	locks map[pipeKey]chan struct{}

	// testHookBeforeCommit, when set, runs in Complete between writing the
	// metadata object and committing it in the register.
	testHookBeforeCommit func()
}

var _ storage.Storage = (*Store)(nil)

type pipeKey struct {
	job      string // escaped
	pipeline int
}

// Option configures a Store.
type Option func(*Store)

// WithTimeout bounds each call of the Store (default 30 s): a call that
// cannot reach JetStream in time fails instead of hanging its caller. The
// calls that take a context (Complete, Retain, NextCheckpointID) end at
// its deadline when that comes first.
func WithTimeout(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// WithReplicas sets the replicas of the buckets New creates (default 1; 3
// in a cluster, so that a checkpoint survives the loss of a server). It does
// not change buckets that exist.
func WithReplicas(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.replicas = n
		}
	}
}

var validPrefix = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// New opens the store in the buckets named after bucketPrefix, creating
// them if needed. nc stays the caller's: Close does not close it.
func New(ctx context.Context, nc *nats.Conn, bucketPrefix string, opts ...Option) (*Store, error) {
	if nc == nil || !validPrefix.MatchString(bucketPrefix) {
		return nil, fmt.Errorf("checkpoint storage: %w: bucket prefix %q (letters, digits, '-' and '_') and a connection are needed", storage.ErrInvalid, bucketPrefix)
	}
	s := &Store{
		kvBucket:  bucketPrefix + "_meta",
		objBucket: bucketPrefix + "_checkpoints",
		timeout:   30 * time.Second,
		replicas:  1,
		locks:     make(map[pipeKey]chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	fail := func(err error) (*Store, error) {
		return nil, fmt.Errorf("checkpoint storage in JetStream buckets %s, %s: %w", s.objBucket, s.kvBucket, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return fail(err)
	}
	s.js = js
	if err := s.ensureBuckets(ctx); err != nil {
		return fail(err)
	}
	// Bound after ensureBuckets turned direct gets off: the clients cache
	// the streams' configuration and read the way it says.
	if s.kv, err = js.KeyValue(ctx, s.kvBucket); err != nil {
		return fail(err)
	}
	if s.obs, err = js.ObjectStore(ctx, s.objBucket); err != nil {
		return fail(err)
	}
	if s.kvStream, err = js.Stream(ctx, "KV_"+s.kvBucket); err != nil {
		return fail(err)
	}
	if s.objStream, err = js.Stream(ctx, "OBJ_"+s.objBucket); err != nil {
		return fail(err)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// ensureBuckets creates the buckets that are missing and turns direct gets
// off on both streams. A direct get may be answered by any replica,
// including one that has not yet applied the latest write; the leader has
// it, so a pipeline restored right after a checkpoint completed on another
// node sees that checkpoint.
func (s *Store) ensureBuckets(ctx context.Context) error {
	if _, err := s.js.KeyValue(ctx, s.kvBucket); errors.Is(err, jetstream.ErrBucketNotFound) {
		_, err = s.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      s.kvBucket,
			Description: "stactor checkpoint storage: pipeline registers and object markers",
			History:     1,
			Storage:     jetstream.FileStorage,
			Replicas:    s.replicas,
		})
		if err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
			return err
		}
	} else if err != nil {
		return err
	}
	if _, err := s.js.ObjectStore(ctx, s.objBucket); errors.Is(err, jetstream.ErrBucketNotFound) {
		_, err = s.js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      s.objBucket,
			Description: "stactor checkpoint storage: state blobs, checkpoint metadata, job specs",
			Storage:     jetstream.FileStorage,
			Replicas:    s.replicas,
		})
		if err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
			return err
		}
	} else if err != nil {
		return err
	}
	for _, name := range []string{"KV_" + s.kvBucket, "OBJ_" + s.objBucket} {
		st, err := s.js.Stream(ctx, name)
		if err != nil {
			return err
		}
		cfg := st.CachedInfo().Config
		if !cfg.AllowDirect {
			continue
		}
		cfg.AllowDirect = false
		if _, err := s.js.UpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("turn direct gets off on stream %s: %w", name, err)
		}
	}
	return nil
}

// Close ends the Store: calls in flight fail and later calls fail at once.
// The connection stays open.
func (s *Store) Close() error {
	s.cancel()
	return nil
}

// op returns the context for one call of the Store: the caller's ctx,
// bounded by the Store's timeout and cancelled by Close.
func (s *Store) op(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// lock takes the pipeline's in-process lock and returns its release; it
// gives up when ctx is done, so that a call stuck behind one that JetStream
// does not answer fails at its own deadline. It only keeps this process's
// calls from racing each other's compare-and-sets (and serializes Retain's
// keep); correctness across processes comes from the register's
// compare-and-set alone.
func (s *Store) lock(ctx context.Context, job string, p int) (func(), error) {
	s.mu.Lock()
	k := pipeKey{job, p}
	l := s.locks[k]
	if l == nil {
		l = make(chan struct{}, 1)
		s.locks[k] = l
	}
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case l <- struct{}{}:
		return func() { <-l }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for an earlier call on the pipeline, which JetStream has not answered: %w", ctx.Err())
	}
}
