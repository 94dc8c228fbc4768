// Package engine runs stactor in one process: an actor system with a
// CoordinatorService and a worker's TaskExecutionService, as the embedded
// default of `stactor run` (DESIGN §1). A cluster node (cluster/) builds the
// same actors on a remote-enabled system.
package engine

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/actors/coordinator"
	"github.com/stactor/stactor/actors/jobmaster"
	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/actors/task"
	"github.com/stactor/stactor/actors/worker"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/storage"
)

// Engine is a local engine.
type Engine struct {
	System      *actor.ActorSystem
	Coordinator *actor.PID
	Worker      *actor.PID
	Resources   *actor.PID

	resolveTimeout time.Duration
	localMu        sync.Mutex       // guards local
	local          resources.Worker // Start's local worker
}

// Config are the engine's settings.
type Config struct {
	Task       task.Options
	Checkpoint checkpoint.Config
	// Store keeps checkpoints; stactor run uses a localfile store under
	// STACTOR_HOME/checkpoints.
	Store storage.Storage
	// NoProgressTimeout is the no-progress watchdog's limit (0: off).
	NoProgressTimeout time.Duration
	// CancelTimeout is how long a canceled subtask may take to stop.
	CancelTimeout time.Duration
	// Remote, when set (host:port, port 0 for any), makes the actor system
	// reachable from other nodes over protoactor remote; Task.NATS then
	// carries channels between nodes.
	Remote string
	// RemoteTLS secures remote (mutual TLS with the cluster's CA).
	RemoteTLS RemoteTLS
	// Term is the leader's term (its Consul lock index; 0 in local mode).
	// A master fences every attempt it starts with it (DESIGN §6).
	Term uint64
	// ResolveTimeout bounds resolving a job on the master (0: 5 minutes).
	ResolveTimeout time.Duration
	// AcceptDuplicates lets a restore fall back past a completed checkpoint
	// that is corrupt or missing (jobmaster.Options.AcceptDuplicates).
	AcceptDuplicates bool
	// LocalTags are the tags of Start's local worker, which a job's
	// tag_filter matches (the engine setting tags of stactor run).
	LocalTags map[string]string
	// LocalSlots, when > 0, is the slot count of Start's local worker
	// (slot-num with dynamic-slot off); 0 is dynamic slots: LocalMemoryMB
	// cut into slots of SlotMemoryMB, or as many as the jobs need when
	// either is 0.
	LocalSlots int
	// LocalMemoryMB is the memory Start's local worker offers its slots
	// and SlotMemoryMB what one slot takes (slot.memory). Only memory is
	// counted locally: one process's subtasks share its CPUs, but each
	// holds its batches and state, so subtasks past what memory holds are
	// refused with a clear error instead of growing the process until it
	// is killed.
	LocalMemoryMB, SlotMemoryMB int64
	// Metrics, when set, gets every job's metrics snapshots (DESIGN §9:
	// <prefix>.metrics.<job>, monitor/metrics) every MetricsInterval (0:
	// jobmaster.DefaultMetricsInterval). Task.Taps is its companion for
	// the taps.
	Metrics         jobmaster.MetricsPublisher
	MetricsInterval time.Duration
	Log             zerolog.Logger
}

// DefaultConfig is the engine's defaults with logging off; Store must be
// set.
func DefaultConfig() Config {
	return Config{Task: task.DefaultOptions(), Checkpoint: checkpoint.DefaultConfig(), NoProgressTimeout: 10 * time.Minute, CancelTimeout: 10 * time.Second, Log: zerolog.Nop()}
}

// newSystem starts an actor system, with remote when cfg.Remote is set.
func newSystem(cfg Config) (*actor.ActorSystem, error) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	if cfg.Remote != "" {
		host, portText, err := net.SplitHostPort(cfg.Remote)
		if err != nil {
			return nil, fmt.Errorf("remote address %q: %w", cfg.Remote, err)
		}
		port, err := strconv.Atoi(portText)
		if err != nil {
			return nil, fmt.Errorf("remote address %q: bad port", cfg.Remote)
		}
		rc, err := RemoteConfig(host, port, cfg.RemoteTLS)
		if err != nil {
			return nil, err
		}
		r := remote.NewRemote(sys, rc)
		if err := StartRemote(r); err != nil {
			return nil, err
		}
	}
	return sys, nil
}

// StartRemote starts protoactor remote, which panics when it cannot listen.
func StartRemote(r *remote.Remote) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("starting remote: %v", p)
		}
	}()
	r.Start()
	return nil
}

// Worker is a worker-only node's actor system: a TaskExecutionService that
// a ResourceManager elsewhere hands slots of.
type Worker struct {
	System *actor.ActorSystem
	PID    *actor.PID
}

// StartWorker starts a worker-only actor system (cfg.Remote must be set).
func StartWorker(cfg Config) (*Worker, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("engine: no checkpoint storage")
	}
	sys, err := newSystem(cfg)
	if err != nil {
		return nil, err
	}
	w, err := SpawnWorker(sys, cfg)
	if err != nil {
		return nil, err
	}
	return &Worker{System: sys, PID: w}, nil
}

// Stop stops the worker's system.
func (w *Worker) Stop() { w.System.Shutdown() }

// AddWorker offers a worker's slots to the engine's ResourceManager.
func (e *Engine) AddWorker(w resources.Worker) {
	e.System.Root.Send(e.Resources, &resource.WorkerUp{Worker: w})
}

// RemoveWorker tells the ResourceManager a worker is gone.
func (e *Engine) RemoveWorker(id string) {
	e.System.Root.Send(e.Resources, &resource.WorkerDown{ID: id})
}

// Master is the leader's part of a node: the ResourceManager and the
// CoordinatorService.
type Master struct {
	Coordinator *actor.PID
	Resources   *actor.PID
}

// SpawnMaster starts a ResourceManager and a CoordinatorService on sys.
// reg, if not nil, keeps the job registry (Consul KV in a cluster).
func SpawnMaster(sys *actor.ActorSystem, cfg Config, rm resource.Options, reg coordinator.Registry) (*Master, error) {
	r, err := sys.Root.SpawnNamed(actor.PropsFromProducer(resource.New(rm, cfg.Log)), "resources")
	if err != nil {
		return nil, fmt.Errorf("starting the resource manager: %w", err)
	}
	c, err := sys.Root.SpawnNamed(actor.PropsFromProducer(coordinator.New(r, cfg.Store, jobmaster.Options{Checkpoint: cfg.Checkpoint,
		NoProgressTimeout: cfg.NoProgressTimeout, CancelTimeout: cfg.CancelTimeout, Term: cfg.Term, ResolveTimeout: cfg.ResolveTimeout,
		Metrics: cfg.Metrics, MetricsInterval: cfg.MetricsInterval, AcceptDuplicates: cfg.AcceptDuplicates}, reg, cfg.Log)), "coordinator")
	if err != nil {
		return nil, fmt.Errorf("starting the coordinator: %w", err)
	}
	return &Master{Coordinator: c, Resources: r}, nil
}

// Stop stops the master's actors (leadership was lost) and waits, up to
// 10 s, until they have stopped, so that a node that leads again can
// spawn them under the same names.
func (m *Master) Stop(sys *actor.ActorSystem) {
	c := sys.Root.StopFuture(m.Coordinator)
	r := sys.Root.StopFuture(m.Resources)
	_ = c.Wait()
	_ = r.Wait()
}

// NewSystem starts an actor system for a node (with remote when
// cfg.Remote is set).
func NewSystem(cfg Config) (*actor.ActorSystem, error) { return newSystem(cfg) }

// SpawnWorker starts a node's TaskExecutionService, named "worker".
func SpawnWorker(sys *actor.ActorSystem, cfg Config) (*actor.PID, error) {
	w, err := sys.Root.SpawnNamed(worker.Props(cfg.Task, cfg.Store, cfg.Log), "worker")
	if err != nil {
		return nil, fmt.Errorf("starting the worker: %w", err)
	}
	return w, nil
}

// Start starts a local engine: one actor system with a worker and a
// master whose only worker is that one.
func Start(cfg Config) (*Engine, error) {
	// One process, one worker: its slots are fixed by slot-num, as on a
	// cluster node, or cut from its memory, or as many as the jobs need.
	local := resources.Worker{ID: "local", FixedSlots: math.MaxInt32, Tags: cfg.LocalTags}
	ropts := resource.Options{Strategy: resources.SlotRatio}
	switch {
	case cfg.LocalSlots > 0:
		local.FixedSlots = cfg.LocalSlots
	case cfg.LocalMemoryMB > 0 && cfg.SlotMemoryMB > 0:
		local.FixedSlots = 0
		local.Profile = resources.Profile{MemoryMB: cfg.LocalMemoryMB}
		ropts.Slot = resources.Profile{MemoryMB: cfg.SlotMemoryMB}
	}
	e, err := StartWith(cfg, ropts, nil)
	if err != nil {
		return nil, err
	}
	local.Address = e.System.Address()
	e.local = local
	e.AddWorker(e.local)
	return e, nil
}

// SetLocalTags replaces the tags of Start's local worker (for tag_filter;
// /update-tags of stactor run --http).
func (e *Engine) SetLocalTags(tags map[string]string) {
	e.localMu.Lock()
	defer e.localMu.Unlock()
	e.local.Tags = tags
	e.AddWorker(e.local)
}

// StartWith starts one actor system with a worker and a master with the
// given ResourceManager options and job registry (nil: none), and no
// worker offered to it yet: AddWorker offers the local worker, or others.
func StartWith(cfg Config, rm resource.Options, reg coordinator.Registry) (*Engine, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("engine: no checkpoint storage")
	}
	sys, err := newSystem(cfg)
	if err != nil {
		return nil, err
	}
	w, err := SpawnWorker(sys, cfg)
	if err != nil {
		sys.Shutdown()
		return nil, err
	}
	m, err := SpawnMaster(sys, cfg, rm, reg)
	if err != nil {
		sys.Shutdown()
		return nil, err
	}
	return &Engine{System: sys, Coordinator: m.Coordinator, Worker: w, Resources: m.Resources, resolveTimeout: cfg.ResolveTimeout}, nil
}

// Stop shuts the engine down.
func (e *Engine) Stop() {
	e.System.Shutdown()
}

// Submit submits a job and waits until the master has resolved it; the
// error is the job's refusal (a bad job file, a source that cannot be
// resolved).
func (e *Engine) Submit(m *messages.SubmitJob) error {
	res, err := e.System.Root.RequestFuture(e.Coordinator, m, SubmitTimeout(e.resolveTimeout)).Result()
	if err != nil {
		return fmt.Errorf("submitting job: %w", err)
	}
	reply := res.(*messages.SubmitJobReply)
	if reply.Error != "" {
		return &RefusedError{Msg: reply.Error}
	}
	return nil
}

// SubmitTimeout is how long a submitter waits for its job to be resolved,
// for a master whose ResolveTimeout is resolve (0: the default).
func SubmitTimeout(resolve time.Duration) time.Duration {
	if resolve <= 0 {
		resolve = 5 * time.Minute
	}
	return resolve + 30*time.Second
}

// RefusedError is a job the coordinator would not run.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// Status asks for a job's status.
func (e *Engine) Status(jobID string) (*messages.JobStatus, error) {
	res, err := e.System.Root.RequestFuture(e.Coordinator, &messages.GetJobStatus{JobId: jobID}, 5*time.Second).Result()
	if err != nil {
		return nil, err
	}
	return res.(*messages.JobStatus), nil
}

// Wait blocks until the job has ended, or timeout passes (0: forever).
func (e *Engine) Wait(jobID string, timeout time.Duration) (*messages.JobStatus, error) {
	if timeout <= 0 {
		timeout = 100 * 365 * 24 * time.Hour
	}
	res, err := e.System.Root.RequestFuture(e.Coordinator, &messages.WaitJob{JobId: jobID}, timeout).Result()
	if err != nil {
		return nil, err
	}
	return res.(*messages.JobStatus), nil
}

// Cancel asks the job to cancel.
func (e *Engine) Cancel(jobID string) {
	e.System.Root.Send(e.Coordinator, &messages.CancelJob{JobId: jobID})
}

// Savepoint asks the job to take a savepoint and stop (SAVEPOINT_DONE).
func (e *Engine) Savepoint(jobID string) {
	e.System.Root.Send(e.Coordinator, &messages.Savepoint{JobId: jobID})
}

// JobFromText is what a submitting client makes of a job file's text
// (DESIGN §2): parsed, includes read and variables filled here, from vars
// and this process's environment, ready to Submit. Mistakes are
// *config.Error with the file, line and key.
func JobFromText(jobID, file string, src []byte, vars map[string]string) (*messages.SubmitJob, error) {
	tree, _, err := config.ParseForSubmit(file, src, vars)
	if err != nil {
		return nil, err
	}
	return &messages.SubmitJob{JobId: jobID, File: file, Tree: tree, Vars: vars}, nil
}
