package jobmaster

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
)

// committedPast checks a restore against the pipeline's high-water mark of
// completed checkpoints (storage LastCompleted). Falling back past a
// checkpoint that completed — its metadata corrupt or deleted — would
// commit again what it and the ones after it committed: every row between
// the fallback and it would be in the output twice. A restore that finds
// no checkpoint at all although some completed would start afresh over
// committed output, the same. Both are refused with the cause, unless the
// user accepted the duplicates (Options.AcceptDuplicates, stactor run
// --accept-duplicates).
//
// When every sink of the pipeline can take its commits back
// (connectors.CommitUndoer, undoable), the restore goes on and they undo
// what checkpoints after the fallback committed, so nothing is written
// twice: undo is set.
//
// It returns the refusal ("" to go on), the warning to log, and whether
// the sinks undo.
func committedPast(jobID string, pipeline int, cp *messages.CompletedCheckpoint, last int64, warnings []string, accept, undoable bool) (refusal, warning string, undo bool) {
	from := int64(-1)
	if cp != nil {
		from = cp.Id
	}
	if last <= from {
		return "", "", false
	}
	what := fmt.Sprintf("checkpoint %d of job %s pipeline %d completed, and its commits may have run, but it is not readable", last, jobID, pipeline)
	if len(warnings) > 0 {
		what += " (" + strings.Join(warnings, "; ") + ")"
	} else {
		what += " (its metadata is gone)"
	}
	cost := "restoring from the start would write again every row already committed"
	if cp != nil {
		cost = fmt.Sprintf("restoring from checkpoint %d would write again every row committed after it", cp.Id)
	}
	if undoable {
		return "", fmt.Sprintf("%s; restoring from %s: the sinks take back what checkpoints %d to %d committed, so nothing is written twice", what, fromText(cp), from+1, last), true
	}
	if accept {
		return "", what + "; " + cost + ": accepted (--accept-duplicates)", false
	}
	return what + "; " + cost + " (duplicates in the output), so the restore is refused: put the checkpoint back, or restore with --accept-duplicates to take the duplicates", "", false
}

func fromText(cp *messages.CompletedCheckpoint) string {
	if cp == nil {
		return "the start"
	}
	return fmt.Sprintf("checkpoint %d", cp.Id)
}

// sinksUndo tells whether every sink of p can take its commits back.
func sinksUndo(p *plan.Pipeline) bool {
	sinks := p.Sinks()
	for _, v := range sinks {
		u, ok := v.Sink.(connectors.CommitUndoer)
		if !ok || !u.UndoesCommits() {
			return false
		}
	}
	return len(sinks) > 0
}
