package checkpoint

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/storage"
)

// RestorePreview says, before anything runs, what a restore of a job
// would do (`stactor restore ID --preview`): per pipeline, the checkpoint
// it would start from (as the JobMaster picks it: storage.Latest), how
// old it is, the splits still to read, the commits still pending, and
// the parallelism changes the plan to run implies.
type RestorePreview struct {
	JobID     string
	Pipelines []PipelinePreview
	// Incompatible is why the plan to run cannot continue from the
	// stored state (plan.CheckCompatible: a source's table or column is
	// gone), "" when it can.
	Incompatible string
}

// PipelinePreview is one pipeline's part of a RestorePreview.
type PipelinePreview struct {
	Pipeline int
	// Checkpoint is nil when the pipeline has none: it would start afresh.
	Checkpoint *messages.CompletedCheckpoint
	Age        time.Duration
	Warnings   []string // a corrupt newer checkpoint skipped, ...
	Sources    []SourcePreview
	Commits    []CommitPreview
	Changes    []ParallelismChange
}

// SourcePreview is what a source vertex has left to read.
type SourcePreview struct {
	Vertex string `json:"vertex"`
	// Reading are the splits its readers held (and go on with from their
	// positions); Unassigned the splits its enumerator had not handed
	// out. Discovered is false when the enumerator had not listed its
	// splits yet: it lists them afresh.
	Reading    []string `json:"reading"`
	Unassigned []string `json:"unassigned"`
	Discovered bool     `json:"discovered"`
	// Opaque is set when the enumerator's state is not the built-in
	// sources' encoding: its unassigned splits cannot be listed.
	Opaque bool `json:"opaque,omitempty"`
}

// CommitPreview is a sink's commit infos still to commit.
type CommitPreview struct {
	Vertex      string  `json:"vertex"`
	Infos       int     `json:"infos"`
	Checkpoints []int64 `json:"checkpoints"`
}

// ParallelismChange is a vertex whose parallelism differs between the
// checkpoint and the plan to run (a rescale: DESIGN §5).
type ParallelismChange struct {
	Vertex string `json:"vertex"`
	From   int    `json:"from"`
	To     int    `json:"to"`
}

// PreviewRestore previews a restore of job spec from store. run is the
// plan the restore would run: the job as resolved (from spec), or a job
// file re-resolved (`restore ID -c FILE`). It only reads.
func PreviewRestore(store storage.Storage, spec *messages.JobSpec, run *plan.Plan, now time.Time) (*RestorePreview, error) {
	p := &RestorePreview{JobID: spec.JobId}
	var stored *plan.Plan
	if spec.Resolved != nil {
		sp, err := plan.FromResolved(spec.JobId, spec.File, spec.Name, spec.Resolved)
		if err != nil {
			return nil, fmt.Errorf("rebuilding the plan job %s was resolved with: %w", spec.JobId, err)
		}
		stored = sp
		if run != nil {
			if err := plan.CheckCompatible(spec.Resolved, run); err != nil {
				p.Incompatible = err.Error()
			}
		}
	}
	if run == nil {
		run = stored
	}
	if run == nil {
		return nil, fmt.Errorf("job %s was never resolved (it failed or was stopped before it ran): give the job file", spec.JobId)
	}
	// The names of vertices as checkpointed are the stored plan's.
	names := map[int]string{}
	for _, src := range []*plan.Plan{run, stored} {
		if src == nil {
			continue
		}
		for _, v := range src.Vertices {
			if _, ok := names[v.ID]; !ok || src == stored {
				names[v.ID] = v.Name
			}
		}
	}
	name := func(id int32) string {
		if n, ok := names[int(id)]; ok {
			return n
		}
		return fmt.Sprintf("vertex %d", id)
	}
	for _, pl := range run.Pipelines {
		pp := PipelinePreview{Pipeline: pl.ID}
		cp, warnings, err := store.Latest(spec.JobId, pl.ID)
		if err != nil {
			return nil, fmt.Errorf("pipeline %d: %w", pl.ID, err)
		}
		pp.Warnings = warnings
		if cp == nil {
			p.Pipelines = append(p.Pipelines, pp)
			continue
		}
		pp.Checkpoint, pp.Age = cp, now.Sub(time.UnixMilli(cp.CompleteUnixMs))
		states, err := storage.ReadSubtaskStates(store, cp)
		if err != nil {
			return nil, fmt.Errorf("pipeline %d: %w", pl.ID, err)
		}
		bySource := map[int32]*SourcePreview{}
		source := func(v int32) *SourcePreview {
			if bySource[v] == nil {
				bySource[v] = &SourcePreview{Vertex: name(v), Discovered: true}
			}
			return bySource[v]
		}
		for _, st := range states {
			for _, vs := range st.Vertices {
				for _, s := range vs.Splits {
					sp := source(vs.Vertex)
					sp.Reading = append(sp.Reading, s.Id)
				}
			}
		}
		for _, e := range cp.Enumerators {
			sp := source(e.Vertex)
			discovered, splits, err := connectors.DecodeEnumeratorState(e.State)
			if err != nil {
				sp.Opaque = true
				continue
			}
			sp.Discovered = discovered
			for _, s := range splits {
				sp.Unassigned = append(sp.Unassigned, splitName(s))
			}
		}
		for _, sp := range bySource {
			sort.Strings(sp.Reading)
			pp.Sources = append(pp.Sources, *sp)
		}
		sort.Slice(pp.Sources, func(a, b int) bool { return pp.Sources[a].Vertex < pp.Sources[b].Vertex })
		byVertex := map[int32]*CommitPreview{}
		for _, c := range cp.Pending {
			cv := byVertex[c.Vertex]
			if cv == nil {
				cv = &CommitPreview{Vertex: name(c.Vertex)}
				byVertex[c.Vertex] = cv
			}
			cv.Infos++
			if n := len(cv.Checkpoints); n == 0 || cv.Checkpoints[n-1] != c.CheckpointId {
				cv.Checkpoints = append(cv.Checkpoints, c.CheckpointId)
			}
		}
		for _, cv := range byVertex {
			pp.Commits = append(pp.Commits, *cv)
		}
		sort.Slice(pp.Commits, func(a, b int) bool { return pp.Commits[a].Vertex < pp.Commits[b].Vertex })
		for _, v := range pl.Vertices {
			if was, ok := cp.Parallelism[int32(v.ID)]; ok && int(was) != v.Parallelism {
				pp.Changes = append(pp.Changes, ParallelismChange{Vertex: v.Name, From: int(was), To: v.Parallelism})
			}
		}
		p.Pipelines = append(p.Pipelines, pp)
	}
	return p, nil
}

// splitName is an unassigned split as the preview shows it: its bytes
// when they are text (the built-in sources' split ids mostly are), else
// their size.
func splitName(b []byte) string {
	s := string(b)
	printable := len(s) > 0 && len(s) <= 200
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			printable = false
			break
		}
	}
	if printable {
		return s
	}
	return fmt.Sprintf("(%d bytes)", len(b))
}

// String is the preview as `stactor restore --preview` prints it.
func (p *RestorePreview) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "restore of job %s would start from:\n", p.JobID)
	if p.Incompatible != "" {
		fmt.Fprintf(&b, "  the job file cannot continue from the stored state: %s\n", p.Incompatible)
	}
	for _, pp := range p.Pipelines {
		for _, w := range pp.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
		cp := pp.Checkpoint
		if cp == nil {
			fmt.Fprintf(&b, "pipeline %d: no checkpoint; it would start from the beginning\n", pp.Pipeline)
			continue
		}
		fmt.Fprintf(&b, "pipeline %d: %s %d (attempt %d), completed %s, %s ago\n", pp.Pipeline, strings.ToLower(cp.Type), cp.Id, cp.Attempt,
			time.UnixMilli(cp.CompleteUnixMs).Format(time.DateTime), pp.Age.Round(time.Second))
		if cp.Type == TypeFinal {
			b.WriteString("  the pipeline had finished: the restore only commits what is pending\n")
		}
		fmt.Fprintf(&b, "  read %d rows and wrote %d up to it\n", cp.ReadRows, cp.WriteRows)
		for _, s := range pp.Sources {
			switch {
			case s.Opaque:
				fmt.Fprintf(&b, "  %s: reading %d splits %s; its enumerator's unassigned splits are in a form this preview cannot read\n", s.Vertex, len(s.Reading), list(s.Reading))
			case !s.Discovered:
				fmt.Fprintf(&b, "  %s: its splits were not listed yet; the enumerator lists them afresh\n", s.Vertex)
			default:
				fmt.Fprintf(&b, "  %s: %d splits in progress %s, %d not started %s\n", s.Vertex, len(s.Reading), list(s.Reading), len(s.Unassigned), list(s.Unassigned))
			}
		}
		if len(pp.Commits) == 0 {
			b.WriteString("  no commits pending\n")
		}
		for _, c := range pp.Commits {
			fmt.Fprintf(&b, "  %s: %d commit infos of checkpoints %s, committed (again, idempotently) before anything runs\n", c.Vertex, c.Infos, ids(c.Checkpoints))
		}
		if len(pp.Changes) == 0 {
			b.WriteString("  parallelism unchanged\n")
		}
		for _, c := range pp.Changes {
			fmt.Fprintf(&b, "  %s: parallelism %d -> %d (state is redistributed)\n", c.Vertex, c.From, c.To)
		}
	}
	return b.String()
}

// list shows up to 10 names.
func list(names []string) string {
	if len(names) == 0 {
		return ""
	}
	if len(names) > 10 {
		return "[" + strings.Join(names[:10], ", ") + fmt.Sprintf(", ... %d more]", len(names)-10)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

func ids(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
