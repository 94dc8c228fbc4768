package task

import (
	"github.com/stactor/stactor/monitor/tap"
)

// attachTaps gives each operator of the chain its tap point (package
// tap): the only cost on the batch path is the point's flag, read once
// per batch in emit and, for a sink, before its write. A subtask whose
// taps cannot subscribe (NATS closed) runs without them: watching must
// never fail a job.
func (t *Task) attachTaps() {
	if t.opts.Taps == nil {
		return
	}
	vs := make([]tap.Vertex, 0, len(t.chain.Vertices))
	for _, v := range t.chain.Vertices {
		tv := tap.Vertex{ID: v.ID, Name: v.Name}
		if v.Plugin != nil {
			tv.Plugin = v.Plugin.Name
			if v.Plugin.Output != "" {
				tv.Tables = append(tv.Tables, v.Plugin.Output)
			}
		}
		for _, s := range v.OutTables {
			tv.Tables = append(tv.Tables, s.TableID)
		}
		vs = append(vs, tv)
	}
	l := t.loc
	s, err := t.opts.Taps.Attach(tap.Location{Job: l.JobId, Pipeline: l.Pipeline, Attempt: l.Attempt, Subtask: l.Subtask}, vs)
	if err != nil {
		t.log.Warn().Err(err).Msg("running without taps")
		return
	}
	t.taps = s
	for _, p := range t.ops.list {
		p.tap = s.Point(p.v.ID)
	}
}

// closeTaps ends the subtask's taps.
func (t *Task) closeTaps() {
	if t.taps != nil {
		t.taps.Close()
		t.taps = nil
	}
}
