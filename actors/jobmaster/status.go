package jobmaster

import (
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

// What the JobMaster tells of its job: its status and PENDING.

func (j *JobMaster) status() *messages.JobStatus {
	name := j.spec.Name
	if j.plan != nil {
		name = j.plan.Job.Name
	}
	s := &messages.JobStatus{JobId: j.spec.JobId, Name: name, State: j.state, Error: j.cause,
		StartUnixMs: j.start.UnixMilli()}
	if !j.end.IsZero() {
		s.EndUnixMs = j.end.UnixMilli()
	}
	for _, p := range j.pipelines {
		s.Pipelines = append(s.Pipelines, &messages.PipelineStatus{Id: int32(p.p.ID), State: p.state, Attempt: int32(p.attempt)})
		s.ReadRows += p.baseRead
		s.WriteRows += p.baseWrite
		for _, t := range p.tasks {
			if t.metrics != nil {
				s.ReadRows += t.metrics.ReadRows
				s.WriteRows += t.metrics.WriteRows
				s.ReadBytes += t.metrics.ReadBytes
				s.WriteBytes += t.metrics.WriteBytes
			}
		}
	}
	return s
}

// updatePending shows the job PENDING, as SeaTunnel does, while every
// pipeline that has not ended waits for slots, and RUNNING otherwise.
func (j *JobMaster) updatePending() {
	if j.state != state.JobRunning && j.state != state.JobPending {
		return
	}
	waiting, live := 0, 0
	for _, p := range j.pipelines {
		switch p.state {
		case state.PipelineFinished, state.PipelineFailed, state.PipelineCanceled:
			continue
		}
		live++
		if p.queued {
			waiting++
		}
	}
	if live > 0 && waiting == live {
		j.state = state.JobPending
	} else {
		j.state = state.JobRunning
	}
}
