package cluster

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stactor/stactor/tests/internal/output"
)

// workerKills is how often TestWorkerKillRecoveryTime kills a worker, and
// workerRecoveryBound how soon after each kill the committed output must
// move again: the retry interval (1 s), the restore, a checkpoint (every
// 300 ms) to commit, and the restarted worker's part of the restored
// checkpoint committed on it once it is back (up to 1.8 s after the kill).
const (
	workerKills         = 8
	workerRecoveryBound = 5 * time.Second
)

// SIGKILL a worker (not the leader) that runs part of the job, again and
// again, restarting it after a moment as an operator's supervisor would:
// every time, the job's committed output moves again within
// workerRecoveryBound of the kill, and in the end every id is committed
// exactly once. The nodes' Consul check TTL is 5 s (the default), longer
// than the retry interval: the leader must learn of the death from the
// broken connection, not from Consul, and must not wait on the dead
// worker's address (protoactor's connect retries to it last 10 s, what a
// kill cost before, benchmarks/RESULTS.md) — neither while Consul still
// lists it nor after.
func TestWorkerKillRecoveryTime(t *testing.T) {
	c := newCluster(t)
	c.allEnv = []string{"STACTOR_CONSUL_CHECK_TTL=5s"}
	leader := c.start(3)
	// 2 sources × 400 rows/s for a minute: the job outlasts the kills.
	j := newJobOf(t, t.TempDir(), jobShape{mode: "BATCH", rows: 48000, rate: 400}, "job.retry.times = 100")
	c.submitAsync(j, "worker-kills")
	c.waitWritten("worker-kills", 2000)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0)) //nolint:gosec // a test's choice of victims
	committed := func() int {
		ids, err := output.IDs(j.out)
		if err != nil {
			return -1 // a file being renamed into place: ask again
		}
		return len(ids)
	}
	var took []time.Duration
	for round := 0; len(took) < workerKills; round++ {
		if round == 2*workerKills {
			t.Fatalf("only %d of %d kills hit a worker running part of the job", len(took), workerKills)
		}
		victim := c.sinkWorker(leader)
		if victim == "" {
			t.Logf("no worker but the leader %s runs the sink chain now; waiting", leader)
			time.Sleep(time.Second)
			continue
		}
		restores := c.restores(leader, "worker-kills")
		killed := time.Now()
		c.kill(victim)
		hold := time.Duration(300+rng.IntN(1500)) * time.Millisecond
		restarted := false
		base := -1 // the committed ids when the restore was logged
		eventually(t, time.Minute, fmt.Sprintf("committed output moving after kill %d of %s, after a restore", len(took)+1, victim), func() error {
			if !restarted && time.Since(killed) >= hold {
				restarted = true
				c.startNode(victim)
			}
			if base < 0 {
				if c.restores(leader, "worker-kills") == restores {
					return errors.New("no restore logged yet")
				}
				if base = committed(); base < 0 {
					return errors.New("reading the committed output")
				}
			}
			if n := committed(); n <= base {
				if st, err := c.status("worker-kills"); err == nil && st.state == "FINISHED" {
					t.Fatalf("the job finished before kill %d recovered; it needs more rows:\n%s", len(took)+1, st.text)
				}
				return fmt.Errorf("%d ids committed, as many as at the restore", n)
			}
			return nil
		})
		d := time.Since(killed)
		took = append(took, d)
		t.Logf("kill %d of %s (back after %s): committed output moving again %s after the kill", len(took), victim, hold.Round(time.Millisecond), d.Round(10*time.Millisecond))
		for !restarted {
			if time.Since(killed) >= hold {
				restarted = true
				c.startNode(victim)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if c.waitReady(3) != leader {
			t.Fatalf("the leadership moved from %s during kill %d", leader, len(took))
		}
	}
	sorted := slices.Sorted(slices.Values(took))
	t.Logf("recovery after %d worker kills: min %s, median %s, max %s", len(took), sorted[0].Round(10*time.Millisecond),
		sorted[len(sorted)/2].Round(10*time.Millisecond), sorted[len(sorted)-1].Round(10*time.Millisecond))
	for k, d := range took {
		if d > workerRecoveryBound {
			t.Errorf("kill %d: the committed output moved again %s after the kill, want at most %s", k+1, d.Round(10*time.Millisecond), workerRecoveryBound)
		}
	}
	c.waitState("worker-kills", "FINISHED", 3*time.Minute)
	j.checkExactlyOnce(t)
}

// sinkWorker is a worker other than the leader whose Console sink printed
// rows in the last half second: one that runs a subtask of the sink chain
// ("" if none does).
func (c *testCluster) sinkWorker(leader string) string {
	before := map[string]int{}
	for _, id := range c.ids() {
		before[id] = c.printed(id)
	}
	time.Sleep(500 * time.Millisecond)
	for _, id := range c.ids() {
		if id != leader && c.printed(id) > before[id] {
			return id
		}
	}
	return ""
}
