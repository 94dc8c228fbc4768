package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/cluster/consul/consultest"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/tests/internal/netns"
)

// harness is one chaos run: the servers, the nodes, the jobs and what
// happened to them.
type harness struct {
	t     *testing.T
	dir   string
	net   *network
	agent *consultest.Agent
	nats  *natsProc
	pg    *dbtest.Postgres
	disk  *disk // under the LocalFile sinks' output
	store *disk // under nats-server's JetStream store: checkpoint storage
	c     *cluster

	jobs    []*job
	records []record
	rows    int // per job
	rate    int // rows per second per source subtask
}

// record is what one fault did.
type record struct {
	f         fault
	target    string
	err       error         // the fault could not be injected or undone
	recovered bool          // the committed output moved again in time
	took      time.Duration // from injection until it did
	failed    []string      // jobs that ended FAILED after it
	restores  int           // pipeline restores the nodes logged meanwhile
}

// recoverTimeout bounds the wait for the committed output to move after a
// fault was undone.
const recoverTimeout = 2 * time.Minute

func newHarness(t *testing.T) *harness {
	t.Helper()
	root, err := consultest.RepoRoot()
	mustf(t, err, "repo root")
	consulBin, err := consultest.Binary(root, os.Stderr)
	if err != nil {
		t.Skipf("no Consul %s agent (go tool task consul:build, or STACTOR_CONSUL_BIN): %v", consultest.Version, err)
	}
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, pg: servers.Postgres(t),
		rows: envInt("STACTOR_CHAOS_ROWS", 12000), rate: envInt("STACTOR_CHAOS_RATE", 200)}
	h.net = newNetwork(t)
	for _, slot := range []int{1, 2, 3, cliSlot} {
		h.net.add(slot)
	}
	// Named namespaces are files in the tmpfs on /run/netns: unmounted
	// (after the nodes are gone, cleanups run last first) they go away.
	h.agent, err = consultest.Start(consulBin, consultest.WithNode("chaos"), consultest.WithPersistence(),
		consultest.WithClientAddr("0.0.0.0"), consultest.WithDir(filepath.Join(dir, "consul")))
	mustf(t, err, "consul")
	t.Cleanup(h.agent.Stop)
	h.store = mountDisk(t, filepath.Join(dir, "nats", "store"), "64m")
	h.nats = startNATS(t, natsServer(t, dir), filepath.Join(dir, "nats"))
	h.disk = mountDisk(t, filepath.Join(dir, "out"), "24m")
	_, port, _ := strings.Cut(h.agent.Addr, ":")
	h.c = &cluster{t: t, dir: dir, consul: serviceIP + ":" + port, consulAPI: h.agent.Addr, nats: h.nats.url(), nodes: map[string]*node{}}
	for slot := 1; slot <= 3; slot++ {
		id := fmt.Sprintf("n%d", slot)
		h.c.nodes[id] = &node{id: id, slot: slot, log: filepath.Join(dir, id+".log")}
		h.c.start(id, 0)
	}
	t.Cleanup(func() {
		for _, id := range h.c.ids() {
			_ = h.c.signal(id, 18) // SIGCONT a paused one, so the kill ends it
			h.c.kill(id)
		}
		h.keepLogs(os.Getenv("STACTOR_CHAOS_LOGS"))
		if t.Failed() {
			for _, id := range h.c.ids() {
				t.Logf("log of node %s (last lines):\n%s", id, tail(readFile(h.c.nodes[id].log), 30))
			}
		}
	})
	mustf(t, h.c.waitReady(60*time.Second), "cluster")
	return h
}

// keepLogs copies the nodes' and the nats-server's logs into dir (none:
// nothing), which the run's own directory is not: it is removed.
func (h *harness) keepLogs(dir string) {
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Errorf("keeping the logs: %v", err)
		return
	}
	logs := map[string]string{"nats-server.log": h.nats.log}
	for _, id := range h.c.ids() {
		logs[id+".log"] = h.c.nodes[id].log
	}
	for name, from := range logs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(readFile(from)), 0o644); err != nil {
			h.t.Errorf("keeping the logs: %v", err)
		}
	}
}

// submit writes and submits a new job into sink.
func (h *harness) submit(sink string) {
	h.t.Helper()
	id := fmt.Sprintf("%s-%d", map[string]string{sinkLocalFile: "lf", sinkJdbc: "db"}[sink], len(h.jobs)+1)
	j, err := newJob(h.dir, id, sink, h.rows, h.rate, h.pg)
	mustf(h.t, err, "job %s", id)
	var r result
	for try := 0; try < 5; try++ {
		if r = h.c.cli(90*time.Second, "submit", "--async", "-c", j.file, "--job-id", id); r.code == 0 {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if r.code != 0 || strings.TrimSpace(r.stdout) != id {
		h.t.Fatalf("stactor submit %s: exit %d, stdout %q\n%s", id, r.code, r.stdout, tail(r.stderr, 10))
	}
	j.submitted = time.Now()
	h.jobs = append(h.jobs, j)
}

// running are the jobs not yet seen complete or ended.
func (h *harness) running() []*job {
	var js []*job
	for _, j := range h.jobs {
		if !j.over() {
			js = append(js, j)
		}
	}
	return js
}

// refill keeps one job of each sink running.
func (h *harness) refill() {
	for _, sink := range []string{sinkLocalFile, sinkJdbc} {
		busy := false
		for _, j := range h.running() {
			busy = busy || j.sink == sink
		}
		if !busy {
			h.submit(sink)
		}
	}
}

// counts are the committed rows of jobs (-1 where they cannot be read
// now: the database is down).
func (h *harness) counts(jobs []*job) []int {
	ns := make([]int, len(jobs))
	for i, j := range jobs {
		n, err := j.count(h.pg)
		if err != nil {
			n = -1
		}
		ns[i] = n
		if n == j.rows {
			j.complete = true
		}
	}
	return ns
}

// awaitProgress waits until every job running at the start has committed
// more rows than it had then, or all of them, or ended (its status is
// asked when it has not moved for a while); it returns whether all did
// within recoverTimeout, and the jobs that ended FAILED.
func (h *harness) awaitProgress() (bool, []string) {
	jobs := h.running()
	base := h.counts(jobs)
	var failed []string
	deadline := time.Now().Add(recoverTimeout)
	lastStatus := time.Now()
	for {
		now := h.counts(jobs)
		waiting := 0
		for i, j := range jobs {
			if j.over() || (now[i] > base[i] && base[i] >= 0) {
				continue
			}
			if base[i] < 0 && now[i] >= 0 {
				base[i] = now[i] // the database is back: count from here
			}
			waiting++
		}
		if waiting == 0 {
			return true, failed
		}
		if time.Since(lastStatus) > 10*time.Second {
			lastStatus = time.Now()
			for i, j := range jobs {
				if j.over() || now[i] > base[i] {
					continue
				}
				st, err := h.c.status(j.id)
				switch {
				case err == nil && ended(st.state):
					j.state, j.cause = st.state, st.cause
					if st.state == "FAILED" {
						failed = append(failed, j.id)
					}
				case err != nil && strings.Contains(err.Error(), "no job "+j.id):
					// Not waited for again: the run goes on without it.
					j.state, j.cause = lost, "the cluster does not know the job its submit was answered for: "+err.Error()
				}
			}
		}
		if time.Now().After(deadline) {
			h.reportStall(jobs, base, now)
			return false, failed
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// reportStall prints, for each job whose committed output did not move,
// its status (pipelines, attempts, cause) and the nodes' last warnings
// about it: what a stall needs to be diagnosed after the run's directory
// is gone.
func (h *harness) reportStall(jobs []*job, base, now []int) {
	for i, j := range jobs {
		if j.over() || now[i] > base[i] {
			continue
		}
		st, err := h.c.status(j.id)
		fmt.Printf("chaos: stalled job %s: %d rows committed, as many as %s ago; status (%v):\n%s", j.id, now[i], recoverTimeout, err, st.text)
		for _, id := range h.c.ids() {
			var last []string
			for _, line := range strings.Split(readFile(h.c.nodes[id].log), "\n") {
				if strings.Contains(line, `"`+j.id) && (strings.Contains(line, `"level":"warn"`) || strings.Contains(line, `"level":"error"`)) {
					last = append(last, line)
				}
			}
			last = last[max(0, len(last)-8):]
			fmt.Printf("chaos: node %s, last warnings about %s:\n%s\n", id, j.id, strings.Join(last, "\n"))
		}
	}
}

// lost is the harness's state of a job the cluster no longer knows.
const lost = "LOST"

// over: the job is no longer waited for (all committed, ended, or lost).
func (j *job) over() bool { return j.complete || ended(j.state) || j.state == lost }

// finish waits for every job to end and checks its committed output.
func (h *harness) finish(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for _, j := range h.jobs {
		for !ended(j.state) && j.state != lost {
			st, err := h.c.status(j.id)
			if err == nil {
				j.state, j.cause = st.state, st.cause
				if ended(st.state) {
					break
				}
			}
			if time.Now().After(deadline) {
				j.state, j.cause = "STUCK", fmt.Sprintf("still %s %s after the last fault (%v)", st.state, timeout, err)
				break
			}
			time.Sleep(time.Second)
		}
		seen, err := j.committed(h.pg)
		if err != nil {
			h.t.Errorf("reading the output of job %s: %v", j.id, err)
			continue
		}
		j.lost, j.dup = check(seen)
	}
}

func TestChaos(t *testing.T) {
	netns.Require(t)
	faults := envInt("STACTOR_CHAOS_FAULTS", 24)
	seed := int64(envInt("STACTOR_CHAOS_SEED", 0))
	if seed == 0 {
		seed = time.Now().UnixNano() % 1e9
	}
	from := envInt("STACTOR_CHAOS_FROM", 1)
	fmt.Printf("chaos: faults %d to %d, seed %d (STACTOR_CHAOS_SEED=%d replays the schedule, STACTOR_CHAOS_FROM=%d starts at this fault)\n", from, faults, seed, seed, from)
	h := newHarness(t)
	start := time.Now()
	for _, f := range schedule(seed, faults)[min(from, faults+1)-1:] {
		h.refill()
		injected, restores := time.Now(), h.c.restores()
		target, err := h.inject(f)
		rec := record{f: f, target: target, err: err}
		if err == nil {
			rec.recovered, rec.failed = h.awaitProgress()
			rec.took = time.Since(injected)
			if err := h.c.waitReady(time.Minute); err != nil {
				rec.err = fmt.Errorf("after the fault: %w", err)
			}
		}
		rec.restores = h.c.restores() - restores
		h.records = append(h.records, rec)
		fmt.Printf("chaos: fault %d/%d %s (%s, held %s): %s\n", f.n, faults, f.kind, target, f.hold.Round(time.Millisecond), rec.outcome())
		if rec.err != nil {
			t.Errorf("fault %d (%s on %s): %v", f.n, f.kind, target, rec.err)
		}
		time.Sleep(f.gap)
	}
	h.finish(4 * time.Minute)
	table := h.table(seed, time.Since(start))
	fmt.Print(table)
	if file := os.Getenv("STACTOR_CHAOS_REPORT"); file != "" {
		mustf(t, os.WriteFile(file, []byte(table), 0o644), "writing %s", file)
	}
	for _, j := range h.jobs {
		switch {
		case j.dup > 0:
			t.Errorf("job %s (%s): %d ids committed more than once", j.id, j.sink, j.dup)
		case j.state == "FINISHED" && j.lost > 0:
			t.Errorf("job %s (%s) FINISHED with %d ids not committed", j.id, j.sink, j.lost)
		case j.state == "STUCK", j.state == lost:
			t.Errorf("job %s (%s): %s", j.id, j.sink, j.cause)
		case j.state != "FINISHED" && j.cause == "":
			t.Errorf("job %s (%s) ended %s with no cause", j.id, j.sink, j.state)
		}
	}
	for _, r := range h.records {
		if !r.recovered && r.err == nil {
			t.Errorf("fault %d (%s on %s): the committed output did not move for %s after it", r.f.n, r.f.kind, r.target, recoverTimeout)
		}
	}
}

func (r record) outcome() string {
	switch {
	case r.err != nil:
		return "error: " + r.err.Error()
	case !r.recovered:
		return "no progress in " + recoverTimeout.String()
	case len(r.failed) > 0:
		return fmt.Sprintf("recovered in %s, %d pipeline restores; FAILED: %s", r.took.Round(100*time.Millisecond), r.restores, strings.Join(r.failed, ", "))
	}
	return fmt.Sprintf("recovered in %s, %d pipeline restores", r.took.Round(100*time.Millisecond), r.restores)
}
