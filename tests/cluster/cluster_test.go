package cluster

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// submitAsync submits the job with `stactor submit --async` and returns
// its id.
func (c *testCluster) submitAsync(j job, id string) {
	c.t.Helper()
	r := c.cli(90*time.Second, "submit", "--async", "-c", j.file, "--job-id", id)
	if r.code != 0 || strings.TrimSpace(r.stdout) != id {
		c.t.Fatalf("stactor submit --async: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}

// leaderships counts, per live node, the times it logged acquiring the
// leadership.
func (c *testCluster) leaderships() map[string]int {
	n := map[string]int{}
	for _, id := range c.alive() {
		n[id] = c.logged(id, "acquired leadership")
	}
	return n
}

// waitTakeover waits up to 15 s after the leader was killed for a live
// node to log acquiring the leadership once more than in before, and
// returns it.
func (c *testCluster) waitTakeover(before map[string]int, killed time.Time) string {
	c.t.Helper()
	var next string
	eventually(c.t, 15*time.Second-time.Since(killed), "a standby taking the leadership", func() error {
		for id, n := range c.leaderships() {
			if n > before[id] {
				next = id
				return nil
			}
		}
		return fmt.Errorf("no live node (%v) logged \"acquired leadership\"", c.alive())
	})
	c.t.Logf("node %s took the leadership %s after the kill", next, time.Since(killed).Round(100*time.Millisecond))
	if l := c.leader(); l != next {
		c.t.Fatalf("stactor members marks %q as the leader, want %s", l, next)
	}
	return next
}

// A job whose redistributing edge crosses nodes runs to the end; its
// committed output holds every id once, and list and status say FINISHED.
func TestSubmitListStatus(t *testing.T) {
	c := newCluster(t)
	c.start(3)
	j := newJob(t, t.TempDir(), 12000)
	data := c.countData()
	start := time.Now()
	r := c.cli(3*time.Minute, "submit", "-c", j.file, "--job-id", "first")
	if r.code != 0 {
		t.Fatalf("stactor submit: exit %d\n%s\n%s", r.code, r.stdout, tail(r.stderr, 20))
	}
	t.Logf("the job ran in %s", time.Since(start).Round(100*time.Millisecond))
	if !strings.Contains(r.stdout, "Job Statistic Information") || !strings.Contains(r.stderr, "job first submitted") {
		t.Fatalf("stactor submit printed:\n%s\n%s", r.stdout, r.stderr)
	}
	j.checkExactlyOnce(t)

	l := c.cli(30*time.Second, "list")
	found := false
	for _, line := range strings.Split(l.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "first" {
			found = true
			if !strings.Contains(line, "FINISHED") {
				t.Fatalf("stactor list: %q", line)
			}
		}
	}
	if l.code != 0 || !found {
		t.Fatalf("stactor list: exit %d, no job first:\n%s\n%s", l.code, l.stdout, l.stderr)
	}
	st, err := c.status("first")
	if err != nil {
		t.Fatal(err)
	}
	if st.state != "FINISHED" || st.read != int64(j.rows) {
		t.Fatalf("stactor status first:\n%s", st.text)
	}
	if data.Load() == 0 {
		t.Fatal("no rows crossed nodes over NATS: every subtask ran on one node")
	}
	for _, id := range c.ids() {
		t.Logf("node %s printed %d rows", id, c.printed(id))
	}
}

// SIGKILL a worker (not the leader) that runs part of the job: its
// pipeline is restored on the remaining workers and the job finishes,
// exactly once. Its row counts are those of one pass, not of the rows
// read again after the restore (SeaTunnel #7735, where they doubled after
// a failover, here in a cluster).
func TestWorkerFailure(t *testing.T) {
	c := newCluster(t)
	leader := c.start(3)
	j := newJob(t, t.TempDir(), 15000)
	c.submitAsync(j, "worker-lost")
	// a worker other than the leader that runs subtasks of the sink chain
	var victim string
	eventually(t, 60*time.Second, "a worker running the sink chain", func() error {
		for _, id := range c.alive() {
			if id != leader && c.printed(id) >= 1000 {
				victim = id
				return nil
			}
		}
		return fmt.Errorf("no worker but the leader %s has printed rows", leader)
	})
	if st, err := c.status("worker-lost"); err != nil || st.state != "RUNNING" {
		t.Fatalf("the job is not running before the kill: %v\n%s", err, st.text)
	}
	c.kill(victim)
	st := c.waitState("worker-lost", "FINISHED", 2*time.Minute)
	if len(st.attempts) == 0 || st.attempts[0] < 1 {
		t.Fatalf("the pipeline was not restored:\n%s", st.text)
	}
	c.logRestores(leader, "worker-lost")
	if c.logged(leader, "worker left or failed", `"worker":"`+victim+`"`) == 0 {
		t.Fatalf("the leader did not log that worker %s failed", victim)
	}
	if c.logged(leader, "worker-lost", "restoring pipeline from checkpoint")+c.logged(leader, "worker-lost", "restarting pipeline from the start") == 0 {
		t.Fatal("the leader did not log restoring the pipeline")
	}
	j.checkExactlyOnce(t)
	// both sinks (LocalFile and Console) write every row
	if st.read != int64(j.rows) || st.written != 2*int64(j.rows) {
		t.Fatalf("after the failover the job counts %d rows read and %d written, want %d and %d:\n%s", st.read, st.written, j.rows, 2*j.rows, st.text)
	}
}

// SIGKILL the leader while a job runs: a standby takes the lock within
// 15 s, resumes the job from its latest checkpoint and finishes it, exactly
// once. Then again with a `stactor submit` that waits for the job: it
// follows the leader change and exits 0.
func TestLeaderFailure(t *testing.T) {
	c := newCluster(t)
	leader := c.start(3)
	dir := t.TempDir()

	// --async, then status against the new leader
	ja := newJob(t, filepath.Join(dir, "a"), 15000)
	c.submitAsync(ja, "leader-a")
	c.waitWritten("leader-a", 3000) // some checkpoints completed
	before := c.leaderships()
	killed := time.Now()
	c.kill(leader)
	next := c.waitTakeover(before, killed)
	c.waitState("leader-a", "FINISHED", 2*time.Minute)
	c.logRestores(next, "leader-a")
	if c.logged(next, "leader-a", "resuming job from its latest checkpoint") == 0 {
		t.Fatalf("the new leader %s did not log resuming the job", next)
	}
	if c.logged(next, "leader-a", "restoring pipeline from checkpoint") == 0 {
		t.Fatalf("the new leader %s did not restore the pipeline from a checkpoint", next)
	}
	ja.checkExactlyOnce(t)

	// a waiting submit follows the leader change
	c.startNode("n4")
	c.waitReady(3)
	jb := newJob(t, filepath.Join(dir, "b"), 15000)
	done := make(chan result, 1)
	go func() { done <- c.cli(3*time.Minute, "submit", "-c", jb.file, "--job-id", "leader-b") }()
	c.waitWritten("leader-b", 3000)
	before = c.leaderships()
	killed = time.Now()
	c.kill(next)
	third := c.waitTakeover(before, killed)
	r := <-done // bounded by the command's own timeout
	if r.code != 0 || !strings.Contains(r.stdout, "Job Statistic Information") {
		t.Fatalf("stactor submit across the leader change: exit %d\n%s\n%s", r.code, r.stdout, tail(r.stderr, 20))
	}
	c.logRestores(third, "leader-b")
	jb.checkExactlyOnce(t)

	// leader-a ended under an earlier leader: this one answers for it from
	// the job registry, counts included.
	st, err := c.status("leader-a")
	if err != nil || st.state != "FINISHED" || st.read != int64(ja.rows) {
		t.Fatalf("status of a job that ended under an earlier leader: %v\n%s", err, st.text)
	}
}

// A job whose resolved plan is larger than a Consul value may be (a
// LocalFile source listing 30,000 files with random names) is submitted,
// resumed by a new leader after the leader is killed, and finished,
// exactly once: the job registry stores the plan apart from the record,
// in parts.
func TestLargePlanLeaderFailure(t *testing.T) {
	c := newCluster(t)
	leader := c.start(3)
	dir := t.TempDir()
	j := newJobOf(t, dir, jobShape{mode: "BATCH", rows: 30000, rate: 2500, files: 30000})
	in := filepath.Join(dir, "in")
	ents, err := os.ReadDir(in)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for _, e := range ents {
		// Names deflate cannot fold into back-references, as a writer's
		// task ids and uuids are.
		name := fmt.Sprintf("%s-%016x.csv", strings.TrimSuffix(e.Name(), ".csv"), rng.Uint64())
		if err := os.Rename(filepath.Join(in, e.Name()), filepath.Join(in, name)); err != nil {
			t.Fatal(err)
		}
	}
	c.submitAsync(j, "large-plan")
	c.waitWritten("large-plan", 6000)
	before := c.leaderships()
	killed := time.Now()
	c.kill(leader)
	next := c.waitTakeover(before, killed)
	c.waitState("large-plan", "FINISHED", 3*time.Minute)
	if c.logged(next, "large-plan", "resuming job from its latest checkpoint") == 0 {
		t.Fatalf("the new leader %s did not log resuming the job", next)
	}
	j.checkExactlyOnce(t)
}

// `stactor savepoint` stops a job with a savepoint (SAVEPOINT_DONE);
// `stactor restore` continues it to the end, exactly once overall.
func TestSavepointRestore(t *testing.T) {
	c := newCluster(t)
	leader := c.start(3)
	j := newJob(t, t.TempDir(), 15000)
	c.submitAsync(j, "sp")
	c.waitWritten("sp", 3000)
	r := c.cli(90*time.Second, "savepoint", "sp")
	if r.code != 0 || !strings.Contains(r.stdout, "job sp: SAVEPOINT_DONE") {
		t.Fatalf("stactor savepoint: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if st, err := c.status("sp"); err != nil || st.state != "SAVEPOINT_DONE" {
		t.Fatalf("after the savepoint: %v\n%s", err, st.text)
	}
	// The savepoint is listed from the cluster's checkpoint storage.
	ls, err := exec.Command(binary, "checkpoints", "sp", "--nats", natsURL, "--cluster", c.name).CombinedOutput()
	if err != nil || !strings.Contains(string(ls), "SAVEPOINT") {
		t.Fatalf("stactor checkpoints sp --nats: %v\n%s", err, ls)
	}
	part := j.checkAtMostOnce(t)
	t.Logf("%d of %d ids committed at the savepoint", part, j.rows)
	if part == 0 || part == j.rows {
		t.Fatalf("%d of %d ids committed at the savepoint; the test needs a job stopped part way", part, j.rows)
	}
	r = c.cli(3*time.Minute, "restore", "sp", "-c", j.file)
	if r.code != 0 {
		t.Fatalf("stactor restore: exit %d\n%s\n%s", r.code, r.stdout, tail(r.stderr, 20))
	}
	c.logRestores(leader, "sp")
	if c.logged(leader, "sp", "restoring pipeline from checkpoint", `"type":"SAVEPOINT"`) == 0 {
		t.Fatal("the leader did not log restoring from the savepoint")
	}
	j.checkExactlyOnce(t)
	if st, err := c.status("sp"); err != nil || st.state != "FINISHED" {
		t.Fatalf("after the restore: %v\n%s", err, st.text)
	}
}

// `stactor members` lists roles and tags and marks the leader with *; a
// job with tag_filter runs only on the matching worker, and one that no
// worker matches fails with no slots.
func TestMembersAndTagFilter(t *testing.T) {
	c := newCluster(t)
	c.startNode("n1")
	c.startNode("n2")
	c.startNode("n3", "--roles", "worker", "--tags", "zone=a")
	leader := c.waitReady(3)
	ms, err := c.members()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		want := member{id: m.id, address: m.address, roles: "master,worker", health: "passing", leader: m.id == leader}
		if m.id == "n3" {
			want.roles, want.tags = "worker", "zone=a"
		}
		if m != want {
			t.Errorf("stactor members: %+v, want %+v", m, want)
		}
	}
	if leader == "n3" || c.logged("n3", "acquired leadership") > 0 {
		t.Fatal("a worker-only node took the leadership")
	}

	data := c.countData()
	j := newJob(t, t.TempDir(), 6000, `tag_filter { zone = "a" }`)
	r := c.cli(3*time.Minute, "submit", "-c", j.file, "--job-id", "zone-a")
	if r.code != 0 {
		t.Fatalf("stactor submit: exit %d\n%s\n%s", r.code, r.stdout, tail(r.stderr, 20))
	}
	j.checkExactlyOnce(t)
	if n1, n2, n3 := c.printed("n1"), c.printed("n2"), c.printed("n3"); n1 != 0 || n2 != 0 || n3 != j.rows {
		t.Fatalf("rows printed by n1 %d, n2 %d, n3 (zone=a) %d; want all %d by n3", n1, n2, n3, j.rows)
	}
	if n := data.Load(); n != 0 {
		t.Fatalf("%d messages crossed nodes over NATS: a subtask ran outside zone a", n)
	}

	jb := newJob(t, t.TempDir(), 100, `tag_filter { zone = "b" }`)
	r = c.cli(time.Minute, "submit", "-c", jb.file, "--job-id", "zone-b")
	if r.code != 1 || !strings.Contains(r.stderr, "no slots") {
		t.Fatalf("a job no worker matches: exit %d, want 1 and no slots\n%s", r.code, r.stderr)
	}
}

// pause SIGSTOPs node id; unpause SIGCONTs it. A paused node is not
// killed: it is still counted alive, and comes back with its old state.
func (c *testCluster) pause(id string) {
	c.t.Helper()
	c.t.Logf("SIGSTOP node %s", id)
	if err := c.nodes[id].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		c.t.Fatalf("SIGSTOP %s: %v", id, err)
	}
}

func (c *testCluster) unpause(id string) {
	c.t.Helper()
	c.t.Logf("SIGCONT node %s", id)
	_ = c.nodes[id].cmd.Process.Signal(syscall.SIGCONT)
}

// contOnCleanup SIGCONTs every node when the test ends, before
// newCluster's cleanup kills them (cleanups run last registered first).
func (c *testCluster) contOnCleanup() {
	c.t.Cleanup(func() {
		for _, n := range c.nodes {
			select {
			case <-n.exited:
			default:
				_ = n.cmd.Process.Signal(syscall.SIGCONT)
			}
		}
	})
}

// pipelines are the pipeline states and attempts of a status.
func (st status) pipelines() (states []string, attempts []int) {
	for _, line := range strings.Split(st.text, "\n") {
		var p, a int
		var state string
		if _, err := fmt.Sscanf(line, "pipeline %d: %s (attempt %d)", &p, &state, &a); err == nil {
			states = append(states, state)
			attempts = append(attempts, a)
		}
	}
	return states, attempts
}

// restores counts the restores (from a checkpoint or from the start) node
// id logged for job.
func (c *testCluster) restores(id, job string) int {
	return c.logged(id, job, "restoring pipeline from checkpoint") + c.logged(id, job, "restarting pipeline from the start")
}

// SIGSTOP a worker (not the leader) that runs part of the job for longer
// than its Consul check TTL: the leader declares it failed and restores
// its pipeline elsewhere. SIGCONT it afterwards: the stale worker must not
// break the job, which finishes with every id committed exactly once.
func TestWorkerPaused(t *testing.T) {
	c := newCluster(t)
	c.contOnCleanup()
	leader := c.start(3)
	j := newJob(t, t.TempDir(), 15000)
	c.submitAsync(j, "worker-paused")
	var victim string
	eventually(t, 20*time.Second, "a worker running the sink chain", func() error {
		for _, id := range c.alive() {
			if id != leader && c.printed(id) >= 1000 {
				victim = id
				return nil
			}
		}
		return fmt.Errorf("no worker but the leader %s has printed rows", leader)
	})
	if st, err := c.status("worker-paused"); err != nil || st.state != "RUNNING" {
		t.Fatalf("the job is not running before the pause: %v\n%s", err, st.text)
	}
	restoresBefore := c.restores(leader, "worker-paused")
	stopped := time.Now()
	c.pause(victim)
	eventually(t, 15*time.Second, "the leader declaring the paused worker failed", func() error {
		if c.logged(leader, "worker left or failed", `"worker":"`+victim+`"`) == 0 {
			return fmt.Errorf("leader %s has not logged worker %s failed", leader, victim)
		}
		return nil
	})
	t.Logf("the leader declared %s failed %s after SIGSTOP", victim, time.Since(stopped).Round(100*time.Millisecond))
	eventually(t, 20*time.Second, "the pipeline restored elsewhere and RUNNING", func() error {
		if c.restores(leader, "worker-paused") <= restoresBefore {
			return errors.New("no restore logged yet")
		}
		st, err := c.status("worker-paused")
		if err != nil {
			return err
		}
		if st.state == "FINISHED" {
			return nil // restored and already done
		}
		states, attempts := st.pipelines()
		restarted := false
		for i, s := range states {
			if s != "RUNNING" && s != "FINISHED" {
				return fmt.Errorf("pipeline %d %s:\n%s", i, s, st.text)
			}
			restarted = restarted || attempts[i] >= 1
		}
		if !restarted {
			return fmt.Errorf("no pipeline past attempt 0:\n%s", st.text)
		}
		return nil
	})
	t.Logf("pipeline RUNNING again %s after SIGSTOP of %s", time.Since(stopped).Round(100*time.Millisecond), victim)
	c.unpause(victim)
	st := c.waitState("worker-paused", "FINISHED", 40*time.Second)
	t.Logf("finished %s after SIGSTOP:\n%s", time.Since(stopped).Round(100*time.Millisecond), st.text)
	c.logRestores(leader, "worker-paused")
	j.checkExactlyOnce(t)
}

// SIGSTOP the leader past its Consul session TTL: a standby takes the
// leadership and resumes the job. SIGCONT the old leader afterwards: it
// must step down, and the job finishes exactly once.
func TestLeaderPaused(t *testing.T) {
	c := newCluster(t)
	c.contOnCleanup()
	leader := c.start(3)
	j := newJob(t, t.TempDir(), 15000)
	c.submitAsync(j, "leader-paused")
	c.waitWritten("leader-paused", 3000)
	before := c.leaderships()
	stopped := time.Now()
	c.pause(leader)
	// no CLI while the leader is paused: it would wait on the leader
	var next string
	eventually(t, 35*time.Second, "a standby taking the leadership", func() error {
		for id, n := range c.leaderships() {
			if id != leader && n > before[id] {
				next = id
				return nil
			}
		}
		return errors.New(`no standby logged "acquired leadership"`)
	})
	t.Logf("node %s took the leadership %s after SIGSTOP of %s", next, time.Since(stopped).Round(100*time.Millisecond), leader)
	c.unpause(leader)
	st := c.waitState("leader-paused", "FINISHED", 45*time.Second-time.Since(stopped))
	t.Logf("finished %s after SIGSTOP:\n%s", time.Since(stopped).Round(100*time.Millisecond), st.text)
	if l := c.leader(); l != next {
		t.Fatalf("stactor members marks %q as the leader after SIGCONT, want %s", l, next)
	}
	if c.logged(leader, "lost leadership") == 0 {
		t.Fatalf("the old leader %s did not log losing the leadership after SIGCONT", leader)
	}
	if c.logged(next, "leader-paused", "resuming job from its latest checkpoint") == 0 {
		t.Fatalf("the new leader %s did not log resuming the job", next)
	}
	c.logRestores(next, "leader-paused")
	j.checkExactlyOnce(t)
}

// With job-schedule-strategy WAIT, a job no worker matches waits for
// slots instead of failing; a matching worker joining runs it to the end.
func TestWaitStrategy(t *testing.T) {
	t.Setenv("STACTOR_JOB_SCHEDULE_STRATEGY", "WAIT") // the nodes inherit it
	c := newCluster(t)
	c.start(2)
	j := newJob(t, t.TempDir(), 3000, `tag_filter { zone = "b" }`)
	c.submitAsync(j, "wait-b")
	time.Sleep(4 * time.Second)
	st, err := c.status("wait-b")
	if err != nil {
		t.Fatal(err)
	}
	if st.state != "PENDING" || st.read != 0 {
		t.Fatalf("with no zone=b worker the job should wait (PENDING), it is %s:\n%s", st.state, st.text)
	}
	t.Logf("with no zone=b worker, 4s after submit:\n%s", st.text)
	if n := c.printed("n1") + c.printed("n2"); n != 0 {
		t.Fatalf("%d rows printed outside zone b", n)
	}
	joined := time.Now()
	c.startNode("n3", "--roles", "worker", "--tags", "zone=b")
	st = c.waitState("wait-b", "FINISHED", 40*time.Second)
	t.Logf("finished %s after the zone=b worker started:\n%s", time.Since(joined).Round(100*time.Millisecond), st.text)
	if n := c.printed("n3"); n != j.rows {
		t.Fatalf("n3 (zone=b) printed %d rows, want %d", n, j.rows)
	}
	j.checkExactlyOnce(t)
}
