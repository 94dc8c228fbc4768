package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSlowSinkDiagnosis: a checkpoint slowed by a deliberately slow sink
// (Console's log.print.delay.ms blocks its subtask in each write) is
// attributed, by `stactor checkpoints ID --detail`, to that sink's vertex,
// waiting for barriers: its barrier came while it was busy writing.
func TestSlowSinkDiagnosis(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `env { job.mode = "BATCH", parallelism = 2, checkpoint.interval = 200 }
source { FakeSource { row.num = 12, split.num = 3, schema = { fields { id = bigint } } } }
sink { Console { parallelism = 1, log.print.delay.ms = 250 } }
`)
	r := run(t, dir, "run", "--job-id", "slow-sink", job)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	r = run(t, dir, "checkpoints", "slow-sink", "--detail")
	if r.code != 0 {
		t.Fatalf("checkpoints --detail: exit %d\n%s", r.code, r.stderr)
	}
	head := regexp.MustCompile(`(?m)^(?:SLOW )?checkpoint (\d+) \(pipeline 1, (\w+)\) took ([0-9.]+)(ms|s)[^;\n]*(?:; delayed most by (.*))?$`)
	bySink := 0
	for _, m := range head.FindAllStringSubmatch(r.stdout, -1) {
		if m[5] == "" {
			t.Errorf("checkpoint %s names no delay:\n%s", m[1], r.stdout)
		}
		took, _ := strconv.ParseFloat(m[3], 64)
		if m[4] == "s" {
			took *= 1000
		}
		// A write blocks the sink up to 250 ms a row: a checkpoint that
		// took 100 ms or more was slowed (the others take a few ms).
		if m[2] != "CHECKPOINT" || took < 100 {
			continue
		}
		switch {
		case strings.HasPrefix(m[5], "Sink[0]-Console #0: waiting for barriers ("):
			bySink++
		case strings.Contains(m[5], ": writing state ("), strings.HasPrefix(m[5], "checkpoint storage: reserving the checkpoint id ("):
			// A loaded machine's fsync took longer still, writing the
			// state or handing out the id before the triggers: that is
			// named.
			t.Logf("checkpoint %s: delayed most by %s", m[1], m[5])
		default:
			t.Errorf("slow checkpoint %s: delayed by %q, want the Console sink waiting for barriers:\n%s", m[1], m[5], r.stdout)
		}
	}
	if bySink == 0 {
		t.Fatalf("no checkpoint is attributed to the slow sink:\n%s", r.stdout)
	}
	// Console commits nothing, so its checkpoints carry no commit times
	// (a checkpoint with nothing to commit is stored once, without them).
	for _, want := range []string{"SUBTASK", "Source[0]-FakeSource #1", "Sink[0]-Console #0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in:\n%s", want, r.stdout)
		}
	}
}
