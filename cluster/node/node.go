// Package node is a cluster node: `stactor node` (DESIGN §8). A node is a
// protoactor actor system with remote; it registers in Consul with its
// roles, resources and tags and passes a TTL check; a worker runs a
// TaskExecutionService; a master campaigns for the cluster's leader lock
// and, while it leads, runs the ResourceManager and the CoordinatorService,
// feeds the ResourceManager the workers that Consul says are healthy (and
// takes out at once a worker whose connection broke, workers.go),
// keeps the job registry in Consul KV, and on taking over resumes every job
// that was running from its latest checkpoint. Workers report their system
// load over NATS for SYSTEM_LOAD placement (load.go). Rows between nodes travel
// over NATS; checkpoints go to the NATS JetStream object store.
package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/hashicorp/consul/api"
	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/cluster/httpapi"
	"github.com/stactor/stactor/cluster/natsauth"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/monitor/metrics"
	"github.com/stactor/stactor/monitor/tap"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/jetstream"
)

// Config is a node's configuration (flags, stactor.yaml, STACTOR_*).
type Config struct {
	ID      string
	Cluster string
	Roles   []string // "master", "worker"
	Bind    string   // protoactor remote host:port (port 0: any)
	Consul  string   // Consul HTTP address
	NATS    string   // NATS URL
	// ConsulAuth are the ACL token and TLS files of the Consul agent at
	// Consul (its Address is ignored) (DESIGN §11).
	ConsulAuth consul.ClientSettings
	// Secrets, when set, seals the secrets of the jobs the node stores (the
	// job registry, checkpoint storage). Without it they are stored as
	// written (a warning says so at start).
	Secrets *config.Sealer
	// NATSAuth are the NATS credentials and TLS files (DESIGN §11).
	NATSAuth natsauth.Settings
	Tags     map[string]string
	CPU      float64
	MemoryMB int64
	// HTTP is where the node serves the HTTP API, /metrics and the web
	// page (host:port; empty: no HTTP server). See http.go.
	HTTP string
	// HTTPAuth are the API's credentials; without any, HTTP must be a
	// loopback address (DESIGN §11).
	HTTPAuth httpapi.Auth
	// HTTPTLS, when its certificate is set, serves the API over HTTPS.
	HTTPTLS HTTPTLS
	// DataDir is the node's own directory; it keeps the node's id when
	// ID is not given (see datadir.go). Empty: none.
	DataDir string
	// Version is the version the HTTP API reports.
	Version string
	// Taps tune the subtasks' taps (tap.* settings; zero: defaults).
	Taps tap.Options
	// FixedSlots > 0 turns dynamic slots off (slot-num).
	FixedSlots int
	Resources  resource.Options
	// HistoryExpire is how long ended jobs stay in the registry
	// (history-job-expire-minutes).
	HistoryExpire time.Duration
	// Consul timings: the node's TTL check, the leader session's TTL and
	// lock delay (short, so a dead leader is replaced in seconds).
	CheckTTL, SessionTTL, LockDelay time.Duration
	Engine                          engine.Config
}

// Node is a running node.
type Node struct {
	cfg    Config
	log    zerolog.Logger
	sys    *actor.ActorSystem
	nc     *nats.Conn
	client *api.Client
	reg    *consul.Registration
	// tagReg is reg for /update-tags, which the HTTP server (started
	// before the registration) may serve at any time.
	tagReg atomic.Pointer[consul.Registration]
	cancel context.CancelFunc
	wg     sync.WaitGroup // the leader loop and the load reporter
	web    *webServer     // nil without --http

	mu     sync.Mutex // guards master
	master *engine.Master
	// masterFails counts failures to start the master in a row (used by
	// the lead goroutine only), for the backoff.
	masterFails int
}

// Has tells whether the node has a role.
func (c Config) Has(role string) bool { return slices.Contains(c.Roles, role) }

// Start starts a node: NATS, checkpoint storage, the actor system, the
// worker, the Consul registration, and (for a master) the leader campaign.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if !cfg.Has("master") && !cfg.Has("worker") {
		return nil, fmt.Errorf("--roles must name master, worker or both (got %q)", strings.Join(cfg.Roles, ","))
	}
	id, err := resolveID(cfg.ID, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	cfg.ID = id
	n := &Node{cfg: cfg, log: cfg.Engine.Log.With().Str("node", cfg.ID).Logger()}
	natsOpts, err := cfg.NATSAuth.Options()
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(cfg.NATS, append(natsOpts, nats.Name("stactor-"+cfg.ID), nats.MaxReconnects(-1))...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s: %w", cfg.NATS, err)
	}
	n.nc = nc
	store, err := jetstream.New(ctx, nc, "stactor_"+cfg.Cluster)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("checkpoint storage on NATS JetStream (is JetStream enabled on %s?): %w", cfg.NATS, err)
	}
	cfg.Engine.Store = store
	if cfg.Secrets != nil {
		cfg.Engine.Store = storage.WithSealedJobs(store, cfg.Secrets)
	} else if slices.Contains(cfg.Roles, "master") {
		n.log.Warn().Msg("no secrets.key: passwords and tokens in jobs are stored unencrypted in the job registry and checkpoint storage; set secrets.key (the same on every master) to seal them")
	}
	cfg.Engine.Task.NATS = nc
	cfg.Engine.Task.Prefix = "stactor." + cfg.Cluster
	// Taps and metrics snapshots share the node's connection (DESIGN §9).
	cfg.Engine.Task.Taps = tap.NewHub(nc, cfg.Engine.Task.Prefix, cfg.Taps, n.log)
	cfg.Engine.Metrics = metrics.NewPublisher(nc, cfg.Engine.Task.Prefix, n.log)
	cfg.Engine.Remote = cfg.Bind
	n.cfg = cfg
	sys, err := engine.NewSystem(cfg.Engine)
	if err != nil {
		nc.Close()
		return nil, err
	}
	n.sys = sys
	if cfg.Has("worker") {
		if _, err := engine.SpawnWorker(sys, cfg.Engine); err != nil {
			n.Stop()
			return nil, err
		}
	}
	cs := cfg.ConsulAuth
	cs.Address = cfg.Consul
	client, err := consul.NewClient(cs)
	if err != nil {
		n.Stop()
		return nil, err
	}
	n.client = client
	if err := n.startHTTP(); err != nil {
		n.Stop()
		return nil, err
	}
	// The registration's heartbeat lives as long as the node (lctx), not
	// as long as ctx, which only bounds the start; ctx ending during the
	// registration request still aborts it.
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n.cancel = cancel
	stopAbort := context.AfterFunc(ctx, cancel)
	reg, err := consul.Register(lctx, client, consul.Node{ID: cfg.ID, Cluster: cfg.Cluster, Address: sys.Address(), Roles: cfg.Roles,
		CPU: cfg.CPU, MemoryMB: cfg.MemoryMB, Tags: cfg.Tags, HTTP: n.HTTPAddr()}, n.opts()...)
	if !stopAbort() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		n.reg = reg
		n.Stop()
		return nil, fmt.Errorf("registering in Consul at %s: %w", cfg.Consul, err)
	}
	n.reg = reg
	n.tagReg.Store(reg)
	if cfg.Has("master") {
		n.wg.Add(1)
		go n.lead(lctx)
	}
	if cfg.Has("worker") {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			reportLoad(lctx, n.nc, cfg.Engine.Task.Prefix, cfg.ID, loadInterval, &loadSampler{proc: "/proc"}, n.log)
		}()
	}
	n.log.Info().Str("address", sys.Address()).Strs("roles", cfg.Roles).Msg("node started")
	return n, nil
}

func (n *Node) opts() []consul.Option {
	o := []consul.Option{consul.WithLogger(n.log)}
	if n.cfg.CheckTTL > 0 {
		o = append(o, consul.WithTTL(n.cfg.CheckTTL))
	}
	if n.cfg.SessionTTL > 0 {
		o = append(o, consul.WithSessionTTL(n.cfg.SessionTTL))
	}
	if n.cfg.LockDelay > 0 {
		o = append(o, consul.WithLockDelay(n.cfg.LockDelay))
	}
	return o
}

// Address is the node's actor system address.
func (n *Node) Address() string { return n.sys.Address() }

// Stop leaves the cluster: resign, deregister, stop the actors.
func (n *Node) Stop() {
	n.stopHTTP()
	if n.cancel != nil {
		n.cancel()
		n.wg.Wait()
	}
	if n.reg != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = n.reg.Deregister(ctx)
		cancel()
	}
	if n.sys != nil {
		n.sys.Shutdown()
	}
	if n.nc != nil {
		n.nc.Close()
	}
}

// lead campaigns for leadership again and again until the node stops.
func (n *Node) lead(ctx context.Context) {
	defer n.wg.Done()
	for ctx.Err() == nil {
		// The address in the leader key is where clients send requests.
		opts := append(n.opts(), consul.WithAddress(n.sys.Address()))
		l, err := consul.Campaign(ctx, n.client, n.cfg.Cluster, n.cfg.ID, n.reg.CheckID(), opts...)
		if err != nil {
			if ctx.Err() == nil {
				n.log.Warn().Err(err).Msg("campaign for leadership failed; retrying")
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
				}
			}
			continue
		}
		n.serve(ctx, l)
	}
}

// serve runs the master's actors while l holds the lock.
func (n *Node) serve(ctx context.Context, l *consul.Leader) {
	n.log.Info().Uint64("term", l.Term()).Msg("acquired leadership")
	reg := &registry{jobs: consul.NewJobRegistry(n.client, n.cfg.Cluster), term: l.Term(), secrets: n.cfg.Secrets}
	ecfg := n.cfg.Engine
	ecfg.Term = l.Term()
	m, err := engine.SpawnMaster(n.sys, ecfg, n.cfg.Resources, reg)
	if err != nil {
		// Give the leadership to another node, and wait before this one
		// campaigns again (longer after each failure in a row), so a role
		// that cannot start is retried with backoff, not in a tight loop.
		n.masterFails++
		wait := min(time.Duration(1<<min(n.masterFails, 6))*250*time.Millisecond, 15*time.Second)
		n.log.Error().Err(err).Dur("retry_in", wait).Msg("starting the master failed; resigning the leadership")
		_ = l.Resign(context.Background())
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		return
	}
	n.masterFails = 0
	n.mu.Lock()
	n.master = m
	n.mu.Unlock()
	wctx, stopWatch := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	fed := make(chan struct{})
	go func() { defer wg.Done(); n.feedWorkers(wctx, m, fed) }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		feedLoads(wctx, n.nc, n.cfg.Engine.Task.Prefix, n.sys.Root, m.Resources, n.log)
	}()
	// Resume once the ResourceManager knows the workers: a restore's
	// commits go to the nodes that wrote, found among them.
	select {
	case <-fed:
	case <-time.After(10 * time.Second):
		n.log.Warn().Msg("no membership from Consul after 10s; resuming jobs anyway")
	case <-ctx.Done():
	}
	n.resume(ctx, m, reg)
	if n.cfg.HistoryExpire > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); n.expireHistory(wctx, reg.jobs) }()
	}
	select {
	case <-l.Lost():
		n.log.Warn().Msg("lost leadership")
	case <-ctx.Done():
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = l.Resign(rctx)
		cancel()
	}
	stopWatch()
	wg.Wait()
	m.Stop(n.sys)
	n.mu.Lock()
	n.master = nil
	n.mu.Unlock()
}

// resume restarts, from their latest checkpoints, the jobs the registry
// says were running under an earlier leader.
func (n *Node) resume(ctx context.Context, m *engine.Master, reg *registry) {
	recs, err := reg.jobs.ListJobs(ctx)
	if err != nil {
		n.log.Warn().Err(err).Msg("reading the job registry")
		return
	}
	for _, r := range recs {
		if r.Ended() {
			continue
		}
		reg.mu.Lock()
		if reg.index == nil {
			reg.index = map[string]uint64{}
		}
		reg.index[r.ID] = r.Index
		reg.mu.Unlock()
		raw, err := reg.jobs.Plan(ctx, r)
		if err != nil {
			n.log.Warn().Err(err).Str("job", r.ID).Msg("reading the job's resolved plan; it cannot be resumed")
			continue
		}
		resolved := &messages.ResolvedJob{}
		if err := proto.Unmarshal(raw, resolved); err != nil || len(raw) == 0 {
			n.log.Warn().Str("job", r.ID).Msg("the registry has no resolved plan for the job; it cannot be resumed")
			continue
		}
		if n.cfg.Secrets != nil {
			spec, err := n.cfg.Secrets.OpenSpec(&messages.JobSpec{JobId: r.ID, Resolved: resolved})
			if err != nil {
				n.log.Warn().Err(err).Str("job", r.ID).Msg("resuming job")
				continue
			}
			resolved = spec.Resolved
		}
		n.log.Info().Str("job", r.ID).Msg("resuming job from its latest checkpoint")
		res, err := n.sys.Root.RequestFuture(m.Coordinator, &messages.SubmitJob{JobId: r.ID, File: r.File, Resolved: resolved,
			Vars: r.Vars, Name: r.Name, Restore: true}, engine.SubmitTimeout(n.cfg.Engine.ResolveTimeout)).Result()
		if err != nil {
			n.log.Warn().Err(err).Str("job", r.ID).Msg("resuming job")
			continue
		}
		if rep, ok := res.(*messages.SubmitJobReply); ok && rep.Error != "" {
			n.log.Warn().Str("job", r.ID).Str("error", rep.Error).Msg("resuming job")
		}
	}
}

// expireHistory removes ended jobs older than history-job-expire-minutes
// from the registry, now and then every minute while the node leads.
func (n *Node) expireHistory(ctx context.Context, jobs *consul.JobRegistry) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if gone, err := jobs.ExpireHistory(ctx, n.cfg.HistoryExpire); err != nil && ctx.Err() == nil {
			n.log.Warn().Err(err).Msg("expiring job history")
		} else if gone > 0 {
			n.log.Info().Int("jobs", gone).Msg("expired job history")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// registry is the coordinator's job registry in Consul KV.
type registry struct {
	jobs    *consul.JobRegistry
	term    uint64
	secrets *config.Sealer // seals the jobs' secrets; nil: stored as written
	mu      sync.Mutex     // guards index
	// index is each job's last ModifyIndex, for check-and-set: a stale
	// leader cannot overwrite a newer leader's record.
	index map[string]uint64
}

// Jobs lists the registry's jobs as their records have them, oldest
// submit first (the coordinator's History).
func (r *registry) Jobs() ([]*messages.JobStatus, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	recs, err := r.jobs.ListJobs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*messages.JobStatus, 0, len(recs))
	for _, rec := range recs {
		out = append(out, rec.Status())
	}
	slices.SortStableFunc(out, func(a, b *messages.JobStatus) int { return cmp.Compare(a.StartUnixMs, b.StartUnixMs) })
	return out, nil
}

// Save writes the job's record (check-and-set on its last index).
func (r *registry) Save(spec *messages.JobSpec, st *messages.JobStatus) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index == nil {
		r.index = map[string]uint64{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	idx, known := r.index[spec.JobId]
	if !known {
		if cur, err := r.jobs.GetJob(ctx, spec.JobId); err == nil {
			idx = cur.Index
		} else if !errors.Is(err, consul.ErrNotFound) {
			return err
		}
	}
	if r.secrets != nil {
		sealed, err := r.secrets.SealSpec(spec)
		if err != nil {
			return err
		}
		spec = sealed
	}
	var resolved []byte
	if spec.Resolved != nil {
		var err error
		if resolved, err = proto.Marshal(spec.Resolved); err != nil {
			return fmt.Errorf("job %s: encoding its resolved plan: %w", spec.JobId, err)
		}
	}
	rec := consul.JobRecord{ID: spec.JobId, Name: st.Name, File: spec.File, Resolved: resolved, Vars: spec.Vars,
		State: st.State, Error: st.Error, Term: r.term, Index: idx,
		SubmitTime: time.UnixMilli(st.StartUnixMs), ReadRows: st.ReadRows, WriteRows: st.WriteRows,
		FailedRows: st.FailedRows, ReadBytes: st.ReadBytes, WriteBytes: st.WriteBytes}
	if st.EndUnixMs > 0 {
		rec.EndTime = time.UnixMilli(st.EndUnixMs)
	}
	for _, p := range st.Pipelines {
		rec.Pipelines = append(rec.Pipelines, consul.PipelineRecord{ID: p.Id, State: p.State, Attempt: p.Attempt})
	}
	newIdx, err := r.jobs.PutJob(ctx, rec)
	if errors.Is(err, consul.ErrConflict) {
		// The record changed since this leader last wrote it. Written by a
		// newer leader: this one was replaced and must not overwrite it.
		// Deleted (history expired, then the id restored) or written by
		// this or an older term: write over it once more.
		cur, gerr := r.jobs.GetJob(ctx, spec.JobId)
		switch {
		case errors.Is(gerr, consul.ErrNotFound):
			rec.Index = 0
		case gerr != nil:
			return gerr
		case cur.Term > r.term:
			return fmt.Errorf("job %s: the registry record is a newer leader's (term %d, this leader's is %d): %w", spec.JobId, cur.Term, r.term, err)
		default:
			rec.Index = cur.Index
		}
		newIdx, err = r.jobs.PutJob(ctx, rec)
	}
	if err != nil {
		return err
	}
	r.index[spec.JobId] = newIdx
	return nil
}
