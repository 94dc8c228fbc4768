package httpapi

import (
	"context"
	"errors"

	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/messages"
)

// Coordinator is the leader's CoordinatorService and ResourceManager as
// the API sees them. The handler calls it from its request goroutines,
// concurrently; each call is bounded by its ctx. ErrUnavailable means
// the actors could not be asked (this node no longer leads, or they did
// not answer in time).
type Coordinator interface {
	// Submit asks the coordinator to run a job. A refusal (a bad job
	// file, a job id in use) is in the reply's Error, not in err.
	Submit(ctx context.Context, m *messages.SubmitJob) (*messages.SubmitJobReply, error)
	// Status is a job's status; State is "UNKNOWN" for a job the
	// coordinator does not know.
	Status(ctx context.Context, jobID string) (*messages.JobStatus, error)
	// Metrics are a job's per-vertex figures (messages.JobMetrics); none
	// for a job the coordinator does not run or ran.
	Metrics(ctx context.Context, jobID string) (*messages.JobMetrics, error)
	// List is every job the coordinator knows, running and ended, in
	// submit order.
	List(ctx context.Context) ([]*messages.JobStatus, error)
	// Cancel asks a job to cancel, Savepoint to take a savepoint and stop;
	// both return once the request is sent.
	Cancel(ctx context.Context, jobID string) error
	Savepoint(ctx context.Context, jobID string) error
	// Workers are the workers the ResourceManager hands slots of.
	Workers(ctx context.Context) ([]Worker, error)
}

// Worker is one worker of the ResourceManager's pool with its slots.
type Worker struct {
	ID   string
	Tags map[string]string
	// Slots is how many slots the worker has in all (its fixed slot-num,
	// or with dynamic slots how many slots of the slot profile its CPU and
	// memory hold); UsedSlots how many are handed out.
	Slots, UsedSlots int
}

// Checkpoints is the part of storage.Storage the API reads; every
// storage.Storage is one. Safe for concurrent use.
type Checkpoints interface {
	// List is every completed checkpoint of the job that reads back
	// intact, oldest first; none for an unknown job.
	List(job string) ([]*messages.CompletedCheckpoint, error)
	// LoadJob is the job's spec (file and variables), for its DAG;
	// storage.ErrNotFound when it is not stored.
	LoadJob(job string) (*messages.JobSpec, error)
}

// Members lists the cluster's nodes as Consul sees them, for /overview.
type Members func(ctx context.Context) ([]consul.Member, error)

// Leadership tells the handler whether its node leads. Called on every
// request, concurrently.
type Leadership interface {
	// Leading reports whether this node runs the cluster's coordinator now.
	Leading() bool
	// LeaderHTTP is the HTTP address (host:port) of the node that leads;
	// ErrNoLeader when no node leads or the leader serves no HTTP API, or
	// when this node leads per Consul but its coordinator is not running
	// (yet or any more).
	LeaderHTTP(ctx context.Context) (string, error)
}

// ErrUnavailable is returned by a Coordinator that could not ask the
// actors: this node does not lead (any more), or they did not answer in
// time. The API answers 503.
var ErrUnavailable = errors.New("the coordinator is not available on this node")

// ErrNoLeader is returned by Leadership.LeaderHTTP when there is no leader
// to redirect to.
var ErrNoLeader = errors.New("no leader with an HTTP API is known")
