// Package coordinator is the CoordinatorService: the job registry of a
// node that leads (every node in local mode). It spawns a submitted job's
// JobMaster, keeps the status (and per-vertex metrics) of ended jobs, and
// answers status, metrics, wait and cancel requests (DESIGN §3).
//
// It never plans a job itself: the JobMaster resolves it off this actor's
// handler, so a job whose source takes long to resolve (a catalog query, a
// dead server) holds up no list, status or other submission; the submitter
// is answered here once the resolved job is recorded in the registry. Its supervision: a JobMaster that crashes is stopped,
// not restarted in place with empty state, and its job ends FAILED with the
// cause; a failure handling a message here is logged and the message
// dropped, the registry kept (DESIGN §3).
package coordinator

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/internal/timers"
	"github.com/stactor/stactor/actors/jobmaster"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
)

// Service is the actor.
// Registry keeps the job registry outside the leader (Consul KV in a
// cluster), so a new leader can resume the jobs. Save is called when a
// job is resolved (its submitter is answered once that succeeded: it is
// tried again meanwhile) and when a job ends (an error is logged).
type Registry interface {
	Save(spec *messages.JobSpec, status *messages.JobStatus) error
}

// History is a Registry that can also list the jobs it holds, as their
// records have them. The coordinator adds those it does not run itself to
// ListJobs and answers GetJobStatus and WaitJob for them: jobs that ended
// under an earlier leader, or that a new leader has not resumed yet.
type History interface {
	Jobs() ([]*messages.JobStatus, error)
}

// Service is the actor.
type Service struct {
	registry  Registry
	resources *actor.PID
	store     storage.Storage
	opts      jobmaster.Options
	log       zerolog.Logger
	jobs      map[string]*job
	order     []string
	specs     map[string]*messages.JobSpec
	// early are cancels and savepoints of jobs not resumed yet.
	early map[string]any
	// hist caches the registry's jobs for histTTL: ListJobs is polled
	// (the web page, /metrics), and each read is a Consul request made
	// inside this actor.
	hist    []*messages.JobStatus
	histAt  time.Time
	spawned int // JobMasters spawned, for their names
	// unsaved are resolved jobs not yet recorded in the registry (it could
	// not be written): their submitters wait, and the save is retried.
	unsaved map[string]*unsaved
	timers  *timers.Timers // the save retries'; made on first use
}

// unsaved is a resolved job's record waiting to be written, and the reply
// its submitter waits for.
type unsaved struct {
	m       *jobmaster.Resolved
	backoff time.Duration
}

// saveRetry retries writing an unsaved job's record.
type saveRetry struct{ id string }

// Bounds of the wait between tries to record a resolved job.
const (
	saveBackoff    = 250 * time.Millisecond
	saveBackoffMax = 4 * time.Second
)

type job struct {
	prev         *job // the ended run a restore replaces, kept if it is refused
	pid          *actor.PID
	final        *messages.JobStatus
	finalMetrics *messages.JobMetrics
	waiters      []*actor.PID
}

// New is the props producer of the service; slots come from the
// ResourceManager resources, checkpoints go to store, and opts configure
// every JobMaster.
func New(resources *actor.PID, store storage.Storage, opts jobmaster.Options, registry Registry, log zerolog.Logger) actor.Producer {
	return func() actor.Actor {
		return &Service{resources: resources, store: store, registry: registry, specs: map[string]*messages.JobSpec{}, early: map[string]any{}, opts: opts, log: log, jobs: map[string]*job{}}
	}
}

// Receive handles one message. A panic here (a bug) is logged and the
// message dropped; the registry and every job go on (DESIGN §3).
func (s *Service) Receive(ctx actor.Context) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error().Interface("panic", r).Str("message", fmt.Sprintf("%T", ctx.Message())).Str("stack", string(debug.Stack())).Msg("coordinator: handling a message failed")
		}
	}()
	switch m := ctx.Message().(type) {
	case *messages.SubmitJob:
		if r := s.submit(ctx, m); r != nil {
			ctx.Respond(r)
		}
	case *jobmaster.Resolved:
		s.resolved(ctx, m)
	case *saveRetry:
		if u := s.unsaved[m.id]; u != nil {
			s.resolved(ctx, u.m)
		}
	case *actor.Stopping:
		s.timers.Stop()
	case *jobmaster.Rejected:
		s.rejected(ctx, m)
	case *jobmaster.Ended:
		j := s.jobs[m.Status.JobId]
		if j == nil {
			return
		}
		// Stop the JobMaster behind any status request already forwarded
		// to it: a PoisonPill is queued in order (a Stop would overtake).
		if j.pid != nil {
			ctx.Poison(j.pid)
		}
		j.final, j.finalMetrics, j.pid = m.Status, m.Metrics, nil
		s.save(m.Status.JobId, m.Status)
		for _, w := range j.waiters {
			ctx.Send(w, m.Status)
		}
		j.waiters = nil
	case *messages.ListJobs:
		out := &messages.JobList{}
		for _, st := range s.history() {
			if s.jobs[st.JobId] == nil {
				out.Jobs = append(out.Jobs, st)
			}
		}
		for _, id := range s.order {
			j := s.jobs[id]
			if j.final != nil {
				out.Jobs = append(out.Jobs, j.final)
				continue
			}
			res, err := ctx.RequestFuture(j.pid, &messages.GetJobStatus{JobId: id}, 5*time.Second).Result()
			if st, ok := res.(*messages.JobStatus); ok && err == nil {
				out.Jobs = append(out.Jobs, st)
			}
		}
		ctx.Respond(out)
	case *messages.WaitJob:
		j := s.jobs[m.JobId]
		switch {
		case j == nil:
			st := s.recorded(m.JobId)
			if !state.JobEnded(st.State) && st.State != "UNKNOWN" {
				// Recorded as running, not resumed yet: nothing to wait on here.
				st = &messages.JobStatus{JobId: m.JobId, State: "UNKNOWN", Error: fmt.Sprintf("job %s is being resumed by the new leader; ask again", m.JobId)}
			}
			ctx.Respond(st)
		case j.final != nil:
			ctx.Respond(j.final)
		default:
			j.waiters = append(j.waiters, ctx.Sender())
		}
	case *messages.GetJobStatus:
		j := s.jobs[m.JobId]
		switch {
		case j == nil:
			ctx.Respond(s.recorded(m.JobId))
		case j.final != nil:
			ctx.Respond(j.final)
		default:
			ctx.RequestWithCustomSender(j.pid, m, ctx.Sender())
		}
	case *messages.GetJobMetrics:
		// A running job's JobMaster answers; an ended one's figures are
		// those it had at its end. A job this coordinator does not run has
		// none (the registry keeps none, so it is not read: /metrics asks
		// for every job at each scrape).
		j := s.jobs[m.JobId]
		switch {
		case j == nil:
			ctx.Respond(&messages.JobMetrics{JobId: m.JobId})
		case j.final != nil && j.finalMetrics != nil:
			ctx.Respond(j.finalMetrics)
		case j.final != nil:
			ctx.Respond(&messages.JobMetrics{JobId: m.JobId, State: j.final.State})
		default:
			ctx.RequestWithCustomSender(j.pid, m, ctx.Sender())
		}
	case *messages.CancelJob:
		s.forward(ctx, m.JobId, m)
	case *messages.Savepoint:
		s.forward(ctx, m.JobId, m)
	}
}

func (s *Service) save(id string, st *messages.JobStatus) {
	if s.registry == nil || s.specs[id] == nil {
		return
	}
	if err := s.registry.Save(s.specs[id], st); err != nil {
		s.log.Warn().Err(err).Str("job", id).Msg("saving the job in the registry")
	}
}

// forward hands a cancel or savepoint to the job's JobMaster. A job that
// the registry holds as running but that this new leader has not resumed
// yet gets it as soon as it is resumed, so a request made right after a
// takeover is not lost.
func (s *Service) forward(ctx actor.Context, id string, m any) {
	if j := s.jobs[id]; j != nil {
		if j.pid != nil {
			ctx.Send(j.pid, m)
		}
		return
	}
	if st := s.recorded(id); st.State != "UNKNOWN" && !state.JobEnded(st.State) {
		if _, canceled := s.early[id].(*messages.CancelJob); canceled {
			return // a cancel stands; a later savepoint does not undo it
		}
		s.log.Info().Str("job", id).Msgf("%T held until the job is resumed", m)
		s.early[id] = m
	}
}

// history is the registry's jobs, read at most every histTTL (none without
// a History registry; when the registry cannot be read, the error is
// logged and the last good read is used).
func (s *Service) history() []*messages.JobStatus {
	h, ok := s.registry.(History)
	if !ok {
		return nil
	}
	if time.Since(s.histAt) < histTTL {
		return s.hist
	}
	jobs, err := h.Jobs()
	if err != nil {
		s.log.Warn().Err(err).Msg("reading the job registry")
		return s.hist // the last good read, if any
	}
	s.hist, s.histAt = jobs, time.Now()
	return jobs
}

// histTTL is how long a read of the registry's jobs is used again.
const histTTL = 2 * time.Second

// recorded is the registry's status of a job this coordinator does not
// run, or UNKNOWN.
func (s *Service) recorded(id string) *messages.JobStatus {
	for _, st := range s.history() {
		if st.JobId == id {
			return st
		}
	}
	return unknown(id)
}

func unknown(id string) *messages.JobStatus {
	return &messages.JobStatus{JobId: id, State: "UNKNOWN", Error: fmt.Sprintf("no job %s", id)}
}

func (s *Service) submit(ctx actor.Context, m *messages.SubmitJob) *messages.SubmitJobReply {
	// A job that ended (a savepoint, a failure) may be restored under its
	// id; any other submit of a known id is refused.
	old, dup := s.jobs[m.JobId]
	if dup && (!m.Restore || old.final == nil) {
		return &messages.SubmitJobReply{JobId: m.JobId, Error: fmt.Sprintf("job %s exists already", m.JobId)}
	}
	if m.Tree == nil && m.Resolved == nil && !m.Restore {
		// (A restore without either continues the plan the job was
		// resolved with, from checkpoint storage.)
		return &messages.SubmitJobReply{JobId: m.JobId, Error: "the job has neither a configuration tree nor a resolved plan"}
	}
	spec := &messages.JobSpec{JobId: m.JobId, File: m.File, Vars: m.Vars, Name: m.Name, Tree: m.Tree, Resolved: m.Resolved}
	opts := s.opts
	opts.Restore = m.Restore
	// Numbered: the JobMaster of an earlier run of the id (a restore right
	// after a savepoint) may still be stopping.
	s.spawned++
	pid, err := ctx.SpawnNamed(actor.PropsFromProducer(jobmaster.New(spec, ctx.Sender(), s.resources, s.store, opts, s.log)),
		fmt.Sprintf("job/%s/%d", m.JobId, s.spawned))
	if err != nil {
		delete(s.early, m.JobId)
		return &messages.SubmitJobReply{JobId: m.JobId, Error: err.Error()}
	}
	s.jobs[m.JobId] = &job{pid: pid, prev: old}
	if early := s.early[m.JobId]; early != nil {
		delete(s.early, m.JobId)
		ctx.Send(pid, early)
	}
	if !dup {
		s.order = append(s.order, m.JobId)
	}
	s.log.Debug().Str("job", m.JobId).Str("state", state.JobCreated).Msg("job submitted")
	return nil // the JobMaster answers once the job is resolved
}

// resolved records a resolved job in the registry, as RUNNING, then
// answers its submitter. A record that cannot be written (Consul is down)
// is tried again with backoff, the submitter waiting, for as long as this
// leader leads: a job its submitter was told runs would otherwise be
// unknown to the next leader, never resumed. A job that ended meanwhile
// has had its final record written (or tried) instead.
func (s *Service) resolved(ctx actor.Context, m *jobmaster.Resolved) {
	id := m.Spec.JobId
	j := s.jobs[id]
	if j == nil {
		delete(s.unsaved, id)
		return
	}
	s.specs[id] = m.Spec
	if j.final == nil && s.registry != nil {
		err := s.registry.Save(m.Spec, &messages.JobStatus{JobId: id, Name: m.Name, State: state.JobRunning, StartUnixMs: time.Now().UnixMilli()})
		if err != nil {
			u := s.unsaved[id]
			if u == nil {
				u = &unsaved{m: m}
				if s.unsaved == nil {
					s.unsaved = map[string]*unsaved{}
				}
				s.unsaved[id] = u
			}
			u.backoff = min(max(2*u.backoff, saveBackoff), saveBackoffMax)
			s.log.Warn().Err(err).Str("job", id).Dur("retry_in", u.backoff).Msg("recording the job in the registry failed; its submitter waits")
			if s.timers == nil {
				s.timers = timers.New(ctx)
			}
			s.timers.After(u.backoff, &saveRetry{id: id})
			return
		}
	}
	delete(s.unsaved, id)
	if m.Submitter != nil {
		ctx.Send(m.Submitter, m.Reply)
	}
}

// rejected forgets a job that could not be resolved, as if it had never
// been submitted, then tells the submitter why; a restore that was refused
// leaves the job as it had ended.
func (s *Service) rejected(ctx actor.Context, m *jobmaster.Rejected) {
	if m.Submitter != nil {
		defer ctx.Send(m.Submitter, &messages.SubmitJobReply{JobId: m.JobID, Error: m.Cause})
	}
	j := s.jobs[m.JobID]
	if j == nil {
		return
	}
	if j.pid != nil {
		ctx.Poison(j.pid)
	}
	if j.prev != nil {
		s.jobs[m.JobID] = j.prev
		return
	}
	delete(s.jobs, m.JobID)
	delete(s.specs, m.JobID)
	for i, id := range s.order {
		if id == m.JobID {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}
