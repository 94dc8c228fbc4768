package jobmaster

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/state"
)

// read_limit.adaptive: the control loop (see the package comment).
//
// A pipeline's checkpoint takes the time its slowest part needs for the
// work in front of the barrier: a sink that flushes in prepareCommit what
// it buffered since the last checkpoint, a write in progress when the
// barrier comes. That time grows with the rows the sources read per
// second and shrinks with the rows per second the slowest sink can take.
// The controller so predicts the next checkpoint's duration from the last
// one's, scaled by how the sink's capacity moved since:
//
//	predicted = took × (capacity then / capacity now)
//
// (at least the age of a checkpoint still in flight, and a timed-out one
// counts as the whole timeout; a sink's commit latency counts like a
// checkpoint duration). capacity is the slowest sink's rows per busy
// second, in source rows: the sources' read rate over the largest busy
// share of a subtask with a sink (Flink's busy time: a subtask blocked in
// a slow sink's write or flush is busy, its upstream backpressured), both
// averaged over a few seconds. Above highShare of checkpoint.timeout it
// cuts the sources' rate so that the prediction comes to targetShare;
// below lowShare it raises a limit (at most maxRaise times per checkpoint)
// and lifts it once the sources no longer reach it or it passes the job's
// read_limit.rows_per_second. The rate it scales is the one the last
// checkpoint ran at, whose duration says what the sink took at that rate.
// Between the two shares it holds, so the rate does not flap.

const (
	highShare   = 0.4
	targetShare = 0.3
	lowShare    = 0.2
	maxRaise    = 4.0
	// maxCut bounds a cut, and maxGrowth how much longer than the last
	// checkpoint the next is predicted to take, so that one step's
	// estimates, however wrong, cannot stop the sources.
	maxCut    = 4.0
	maxGrowth = 4.0
	// bindShare: sources that read less than this share of their limit
	// are held back by something else; the limit does not bind.
	bindShare = 0.7
	// minBusy keeps the capacity of a nearly idle sink finite: at most
	// 1/minBusy times what it takes now.
	minBusy = 0.1
	// smoothing is the weight of a step's rate and busy share in their
	// running averages: a sink's work is lumpy (a flush at each
	// checkpoint), so its capacity is the ratio of averages over a few
	// seconds, not of one interval.
	smoothing = 0.3
	// settleSteps are the steps after a change whose rates were
	// measured, at least in part, under the old limit.
	settleSteps = 2
)

// AdaptiveInterval is how often the JobMaster runs the control loop: the
// subtasks' metrics interval, whose reports it reads.
const AdaptiveInterval = time.Second

type adaptiveTick struct{}

// adaptive is the control loop's state for one pipeline (across its
// attempts: what it learnt holds for the next).
type adaptive struct {
	timeout time.Duration // the pipeline's checkpoint.timeout
	jobCap  float64       // read_limit.rows_per_second × source subtasks; 0: none
	floor   float64       // the least limit: a row per second per source subtask
	limit   float64       // rows/s for all the pipeline's sources; 0: none

	rate, busy float64 // running averages (0: none yet)
	last       float64 // the latest step's read rate
	capacity   float64 // rate / busy: the slowest sink's, in source rows/s
	ref        *outcome
	basis      *outcome  // ref when the limit last changed
	inflight   time.Time // when the checkpoint in flight began; zero: none
	settle     int       // steps left before rates show the last change
}

// outcome is the latest checkpoint's duration and the estimates when it
// ended.
type outcome struct {
	id             int64
	took           time.Duration
	rate, capacity float64
}

// observation is one step's input: the sources' read rate and the
// largest busy share (0..1) of a subtask with a sink over the last metrics
// interval (negative: unknown).
type observation struct {
	now        time.Time
	rate, busy float64
}

func newAdaptive(timeout time.Duration, jobRowsPerSecond int64, sources int) *adaptive {
	return &adaptive{timeout: timeout, jobCap: float64(jobRowsPerSecond) * float64(sources), floor: float64(max(1, sources))}
}

// triggered, completed, aborted and committed are the checkpoint events.
func (a *adaptive) triggered(at time.Time) { a.inflight = at }

func (a *adaptive) completed(id int64, took time.Duration) {
	a.inflight = time.Time{}
	a.ref = &outcome{id: id, took: took, rate: a.rate, capacity: a.capacity}
}

func (a *adaptive) aborted(timedOut bool) {
	a.inflight = time.Time{}
	if timedOut {
		a.ref = &outcome{took: a.timeout, rate: a.rate, capacity: a.capacity}
	}
}

func (a *adaptive) committed(id int64, took time.Duration) {
	if a.ref != nil && a.ref.id == id && took > a.ref.took {
		a.ref.took = took
	}
}

// predict is the next checkpoint's expected duration; 0: nothing to go by.
func (a *adaptive) predict(now time.Time) time.Duration {
	var p float64
	if r := a.ref; r != nil {
		p = float64(r.took)
		if r.capacity > 0 && a.capacity > 0 {
			p *= min(r.capacity/a.capacity, maxGrowth)
		}
	}
	if !a.inflight.IsZero() {
		p = max(p, float64(now.Sub(a.inflight)))
	}
	return time.Duration(p)
}

// step runs the loop once; it returns why the limit changed ("" if it
// did not). The rate it scales is the one the last checkpoint ran at, so
// the same evidence gives the same cut however often it is looked at.
// After a change it waits for a checkpoint under the new limit before it
// raises again, and settleSteps before it lifts: the rates of the steps
// between were measured, at least in part, under the old limit.
func (a *adaptive) step(o observation) string {
	a.last = o.rate
	if o.busy >= 0 {
		if a.busy == 0 && a.rate == 0 {
			a.rate, a.busy = o.rate, o.busy
		} else {
			a.rate += smoothing * (o.rate - a.rate)
			a.busy += smoothing * (o.busy - a.busy)
		}
		if a.rate > 0 {
			a.capacity = a.rate / max(a.busy, minBusy)
		}
	}
	if a.settle > 0 {
		a.settle--
	}
	pred := a.predict(o.now)
	if pred <= 0 || a.timeout <= 0 {
		return ""
	}
	fresh := a.ref != a.basis // a checkpoint ended since the last change
	share := pred.Seconds() / a.timeout.Seconds()
	base := a.rate
	if a.ref != nil && a.ref.rate > 0 {
		base = a.ref.rate
	}
	if base == 0 {
		base = a.limit
	}
	why := ""
	switch {
	case share > highShare:
		if base <= 0 {
			return "" // nothing read yet: no rate to scale
		}
		n := max(a.floor, base*targetShare/share, base/maxCut)
		if a.limit > 0 && n >= a.limit {
			return ""
		}
		a.limit = n
		why = fmt.Sprintf("the next checkpoint would take about %s, %.0f%% of checkpoint.timeout", pred.Round(time.Millisecond), 100*share)
	case share < lowShare && a.limit > 0 && a.settle == 0:
		if a.last < bindShare*a.limit {
			a.limit = 0
			why = "the sources read less than the limit: something else holds them back"
			break
		}
		if !fresh {
			return ""
		}
		n := min(a.limit*maxRaise, base*targetShare/share)
		if n <= a.limit {
			return ""
		}
		a.limit = n
		why = fmt.Sprintf("checkpoints take about %s, %.0f%% of checkpoint.timeout", pred.Round(time.Millisecond), 100*share)
		if a.jobCap > 0 && n >= a.jobCap {
			a.limit = 0
			why += ": back to read_limit.rows_per_second"
		}
	default:
		return ""
	}
	a.settle = settleSteps
	a.basis = a.ref
	return why
}

// observe is the pipeline's sources' read rate and the largest busy share
// of its subtasks with a sink (negative: none reported) over the
// subtasks' last interval.
func (p *pipelineRun) observe(pl *plan.Plan) (rate, busiest float64) {
	busiest = -1
	for _, t := range p.tasks {
		dt := t.interval()
		if dt <= 0 {
			continue
		}
		prev := map[int32]int64{}
		for _, c := range t.prev.Vertices {
			prev[c.Vertex] = c.RowsOut
		}
		chain := pl.Chains[t.loc.Chain]
		sink := false
		for _, v := range chain.Vertices {
			sink = sink || v.Kind == plan.SinkVertex
		}
		if chain.Head.Kind == plan.SourceVertex {
			for _, c := range t.metrics.Vertices {
				if int(c.Vertex) == chain.Head.ID {
					rate += perSecond(c.RowsOut, prev[c.Vertex], dt)
				}
			}
		}
		if sink {
			busy, _, _ := t.times()
			busiest = max(busiest, busy/1000)
		}
	}
	return rate, busiest
}

// startAdaptive gives each pipeline of a job with read_limit.adaptive its
// control loop and starts the ticks.
func (j *JobMaster) startAdaptive() {
	if !j.plan.Job.AdaptiveReadLimit {
		return
	}
	timeout := j.checkpointConfig().Timeout
	for _, p := range j.pipelines {
		n := 0
		for _, v := range p.p.Sources() {
			n += v.Parallelism
		}
		p.adaptive = newAdaptive(timeout, j.plan.Job.RowsPerSecond, n)
	}
	j.timers.Every(AdaptiveInterval, &adaptiveTick{})
}

// adaptiveStep runs every pipeline's loop once and sends a changed rate
// to its running source subtasks (and the current one to those that
// started since).
func (j *JobMaster) adaptiveStep(ctx actor.Context) {
	if j.ended {
		return
	}
	now := time.Now()
	for _, p := range j.pipelines {
		a := p.adaptive
		if a == nil || p.state != state.PipelineRunning {
			continue
		}
		rate, busy := p.observe(j.plan)
		if why := a.step(observation{now: now, rate: rate, busy: busy}); why != "" {
			ev := j.log.Info().Int("pipeline", p.p.ID).Str("why", why).Float64("read_rows_per_second", rate)
			if a.limit > 0 {
				ev.Float64("rows_per_second", a.limit).Msg("read_limit.adaptive: new rate")
			} else {
				ev.Msg("read_limit.adaptive: limit lifted")
			}
		}
		j.sendReadRate(ctx, p)
	}
}

// sendReadRate tells each running source subtask of p its share of the
// limit, when it does not have it yet.
func (j *JobMaster) sendReadRate(ctx actor.Context, p *pipelineRun) {
	per := p.adaptive.limit / p.adaptive.floor
	for _, t := range p.tasks {
		if t.pid == nil || t.gone || t.state != state.TaskRunning || t.rate == per || j.plan.Chains[t.loc.Chain].Head.Kind != plan.SourceVertex {
			continue
		}
		t.rate = per
		ctx.Send(t.pid, &messages.ReadRate{RowsPerSecond: per})
	}
}

// onCheckpointEvent feeds the loop of the event's pipeline.
func (j *JobMaster) onCheckpointEvent(m any) {
	var pipe, attempt int
	switch m := m.(type) {
	case *checkpoint.Triggered:
		pipe, attempt = m.Pipeline, m.Attempt
	case *checkpoint.Aborted:
		pipe, attempt = m.Pipeline, m.Attempt
	case *checkpoint.CommitsDone:
		pipe, attempt = m.Pipeline, m.Attempt
	case *checkpoint.Completed:
		pipe, attempt = int(m.Checkpoint.Pipeline), int(m.Checkpoint.Attempt)
	}
	p := j.pipeline(pipe, attempt)
	if p == nil {
		return
	}
	if a, ok := m.(*checkpoint.Aborted); ok {
		p.checkpointsFailed++
		if p.adaptive != nil {
			p.adaptive.aborted(a.TimedOut)
		}
		return
	}
	a := p.adaptive
	if a == nil {
		return
	}
	switch m := m.(type) {
	case *checkpoint.Triggered:
		a.triggered(m.At)
	case *checkpoint.CommitsDone:
		a.committed(m.ID, m.Took)
	case *checkpoint.Completed:
		cp := m.Checkpoint
		a.completed(cp.Id, time.Duration(cp.CompleteUnixMs-cp.TriggerUnixMs)*time.Millisecond)
	}
}
