package jobmaster

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/messages"
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
// It returns the refusal ("" to go on) and, when the user accepted,
// the warning to log.
func committedPast(jobID string, pipeline int, cp *messages.CompletedCheckpoint, last int64, warnings []string, accept bool) (refusal, warning string) {
	from := int64(-1)
	if cp != nil {
		from = cp.Id
	}
	if last <= from {
		return "", ""
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
	if accept {
		return "", what + "; " + cost + ": accepted (--accept-duplicates)"
	}
	return what + "; " + cost + " (duplicates in the output), so the restore is refused: put the checkpoint back, or restore with --accept-duplicates to take the duplicates", ""
}
