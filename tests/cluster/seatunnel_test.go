package cluster

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// completed is a line of `stactor checkpoints --nats`: a completed
// checkpoint in the cluster's checkpoint storage.
type completed struct {
	id, pipeline, attempt int
	kind                  string
}

// checkpoints lists job's completed checkpoints (the retained ones) from
// the cluster's checkpoint storage, oldest first.
func (c *testCluster) checkpoints(job string) ([]completed, error) {
	out, err := exec.Command(binary, "checkpoints", job, "--nats", c.natsURL(), "--cluster", c.name).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("stactor checkpoints %s: %v\n%s", job, err, out)
	}
	var cps []completed
	for _, line := range strings.Split(string(out), "\n")[1:] {
		var cp completed
		if _, err := fmt.Sscanf(line, "%d %d %d %s", &cp.id, &cp.pipeline, &cp.attempt, &cp.kind); err == nil {
			cps = append(cps, cp)
		}
	}
	return cps, nil
}

// SeaTunnel #8859: after a leader change the checkpoint coordinator was not
// restored, and a streaming job ran on with no checkpoint completing again
// (an exactly-once sink then commits nothing more). Here the leader of a
// cluster running a STREAMING exactly-once job is SIGKILLed: a standby
// takes over and resumes the job, whose checkpoints then complete again
// (newer ids, of the new attempt) and whose committed output grows while
// it runs; it finishes with every id committed exactly once.
func TestSeaTunnel8859CheckpointsCompleteAfterLeaderChange(t *testing.T) {
	c := newCluster(t)
	leader := c.start(3)
	// 2 readers at 1,000 rows/s: about 20 s of reading, most of it after
	// the takeover
	j := newJobOf(t, t.TempDir(), jobShape{mode: "STREAMING", rows: 40000, rate: 1000})
	const id = "st8859"
	c.submitAsync(j, id)
	c.waitWritten(id, 3000)
	var last completed
	eventually(t, 30*time.Second, "a completed checkpoint before the kill", func() error {
		cps, err := c.checkpoints(id)
		if err != nil || len(cps) == 0 {
			return fmt.Errorf("none yet (%v)", err)
		}
		last = cps[len(cps)-1]
		return nil
	})
	before := c.leaderships()
	killed := time.Now()
	c.kill(leader)
	next := c.waitTakeover(before, killed)
	base := j.checkAtMostOnce(t)

	var now completed
	eventually(t, 60*time.Second, "checkpoints completing under the new leader while the job runs", func() error {
		st, err := c.status(id)
		if err != nil {
			return err
		}
		if st.state != "RUNNING" {
			t.Fatalf("job %s is %s before a checkpoint completed under the new leader; the test needs it running:\n%s", id, st.state, st.text)
		}
		cps, err := c.checkpoints(id)
		if err != nil {
			return err
		}
		if len(cps) > 0 {
			now = cps[len(cps)-1]
		}
		if now.id < last.id+3 || now.attempt <= last.attempt {
			return fmt.Errorf("latest completed checkpoint %d of attempt %d, before the kill %d of attempt %d", now.id, now.attempt, last.id, last.attempt)
		}
		if part := j.checkAtMostOnce(t); part <= base {
			return fmt.Errorf("%d ids committed, as many as at the takeover", part)
		}
		return nil
	})
	t.Logf("checkpoint %d (attempt %d) before the kill; %d (attempt %d) completed under %s %s after it",
		last.id, last.attempt, now.id, now.attempt, next, time.Since(killed).Round(100*time.Millisecond))
	if c.logged(next, id, "resuming job from its latest checkpoint") == 0 {
		t.Fatalf("the new leader %s did not log resuming the job", next)
	}
	st := c.waitState(id, "FINISHED", 2*time.Minute)
	c.logRestores(next, id)
	j.checkExactlyOnce(t)
	if st.read != int64(j.rows) {
		t.Fatalf("the job counts %d rows read, want %d:\n%s", st.read, j.rows, st.text)
	}
}
