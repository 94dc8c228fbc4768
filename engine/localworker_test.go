package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/state"
)

// TestLocalWorkerTagsAndSlots: Start's local worker carries the tags and
// fixed slot count it is given, so a local run honours a job's tag_filter
// and slot-num as a cluster node does.
func TestLocalWorkerTagsAndSlots(t *testing.T) {
	job := func(key, env string, par int) string {
		return fmt.Sprintf(`env { job.mode = BATCH, parallelism = %d%s }
source { EngineTestSource { rows = 10 } }
sink { EngineTestSink { key = %q } }`, par, env, key)
	}
	cases := []struct {
		name  string
		tags  map[string]string
		slots int
		env   string
		par   int
		fail  string // "" when the job must finish
	}{
		{"tags match", map[string]string{"group": "platform", "zone": "a"}, 0, `, tag_filter { group = platform }`, 1, ""},
		{"tags differ", map[string]string{"group": "other"}, 0, `, tag_filter { group = platform }`, 1, "workers matching"},
		{"no tags", nil, 0, `, tag_filter { group = platform }`, 1, "workers matching"},
		{"slots enough", nil, 2, ``, 2, ""},
		{"slots too few", nil, 2, ``, 3, "3 slots"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := start(t, 16, func(cfg *engine.Config) { cfg.LocalTags, cfg.LocalSlots = c.tags, c.slots })
			key := "localworker-" + strings.ReplaceAll(c.name, " ", "-")
			submit(t, e, key, job(key, c.env, c.par))
			st := wait(t, e, key)
			switch {
			case c.fail == "" && st.State != state.JobFinished:
				t.Fatalf("state %s: %s", st.State, st.Error)
			case c.fail != "" && (st.State != state.JobFailed || !strings.Contains(st.Error, c.fail)):
				t.Fatalf("want a failure with %q, got %s: %s", c.fail, st.State, st.Error)
			}
		})
	}
}
