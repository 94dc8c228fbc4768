package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

// nodeEnv are the engine settings of every test node: short Consul timings,
// so a dead node is noticed and a dead leader replaced in seconds; small
// batches, so a slowed chain reaches a barrier soon; a short cancel
// timeout, so a pipeline on a dead worker is given up on quickly; and a
// killed worker's files (one filesystem here) committed from the leader
// 5 s after it left rather than 20.
var nodeEnv = []string{
	"STACTOR_COMMIT_NODE_GONE_TIMEOUT=5s",
	"STACTOR_CONSUL_CHECK_TTL=1s",
	"STACTOR_CONSUL_SESSION_TTL=10s",
	"STACTOR_CONSUL_LOCK_DELAY=1s",
	"STACTOR_BATCH_SIZE=100",
	"STACTOR_TASK_CANCEL_TIMEOUT=2s",
}

// testCluster is one test's nodes, under a cluster name of its own.
type testCluster struct {
	t     *testing.T
	name  string
	dir   string
	nodes map[string]*node
	// env are extra environment variables of a node's process, by id.
	env map[string][]string
	// allEnv are extra environment variables of every node and CLI
	// command; consul and nats, when set, replace the shared agent and
	// server (a test with its own, secured).
	allEnv       []string
	consul, nats string
	consulToken  string    // the ACL token of c.consul's agent
	consulTLS    [3]string // CA, certificate and key for c.consul's agent (HTTPS)
}

func (c *testCluster) consulAddr() string {
	if c.consul != "" {
		return c.consul
	}
	return consulAddr
}

func (c *testCluster) natsURL() string {
	if c.nats != "" {
		return c.nats
	}
	return natsURL
}

// node is a `stactor node` process. Its stderr is its log (JSON lines);
// its stdout is what its Console sinks print.
type node struct {
	id     string
	cmd    *exec.Cmd
	log    string // path of stderr
	out    string // path of stdout
	exited chan struct{}
	killed bool
}

// newCluster returns a cluster with no nodes yet; every node it starts is
// killed when the test ends.
func newCluster(t *testing.T) *testCluster {
	t.Helper()
	need(t)
	name := fmt.Sprintf("%s-%s", strings.ToLower(strings.TrimPrefix(t.Name(), "Test")), strconv.FormatInt(time.Now().UnixNano()%1e8, 36))
	c := &testCluster{t: t, name: name, dir: t.TempDir(), nodes: map[string]*node{}}
	t.Cleanup(func() {
		for _, n := range c.nodes {
			n.kill()
		}
		if t.Failed() {
			for _, id := range c.ids() {
				t.Logf("log of node %s:\n%s", id, tail(readFile(c.nodes[id].log), 40))
			}
		}
	})
	return c
}

// start starts nodes n1..nN (roles master,worker) and waits until all are
// healthy members and one leads; it returns the leader's id.
func (c *testCluster) start(n int) string {
	c.t.Helper()
	for i := 1; i <= n; i++ {
		c.startNode(fmt.Sprintf("n%d", i))
	}
	return c.waitReady(n)
}

// startNode starts a node with extra flags (--tags, --roles).
func (c *testCluster) startNode(id string, flags ...string) *node {
	c.t.Helper()
	n := &node{id: id, log: filepath.Join(c.dir, id+".log"), out: filepath.Join(c.dir, id+".out"), exited: make(chan struct{})}
	stderr, err := os.Create(n.log)
	if err != nil {
		c.t.Fatal(err)
	}
	stdout, err := os.Create(n.out)
	if err != nil {
		c.t.Fatal(err)
	}
	args := append([]string{"node", "--node-id", id, "--consul", c.consulAddr(), "--cluster", c.name, "--nats", c.natsURL(),
		"--bind", "127.0.0.1:0", "--log-level", "info"}, flags...)
	n.cmd = exec.Command(binary, args...)
	n.cmd.Dir = c.dir
	n.cmd.Env = append(append(append(append(os.Environ(), "STACTOR_HOME="+filepath.Join(c.dir, "home-"+id)), nodeEnv...), c.allEnv...), c.env[id]...)
	n.cmd.Stdout, n.cmd.Stderr = stdout, stderr
	n.cmd.SysProcAttr = childAttr()
	if err := n.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		_ = n.cmd.Wait()
		stdout.Close()
		stderr.Close()
		close(n.exited)
	}()
	c.nodes[id] = n
	return n
}

// kill SIGKILLs the node and waits for it to be gone.
func (n *node) kill() {
	select {
	case <-n.exited:
		return
	default:
	}
	n.killed = true
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.exited
}

// kill SIGKILLs node id.
func (c *testCluster) kill(id string) {
	c.t.Helper()
	c.t.Logf("SIGKILL node %s", id)
	c.nodes[id].kill()
}

// alive are the ids of the nodes not killed, sorted.
func (c *testCluster) alive() []string {
	var ids []string
	for id, n := range c.nodes {
		if !n.killed {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (c *testCluster) ids() []string {
	var ids []string
	for id := range c.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// member is a line of `stactor members`.
type member struct {
	id, address, roles, tags, health string
	leader                           bool
}

// members runs `stactor members` and parses its table.
func (c *testCluster) members() ([]member, error) {
	r := c.cli(20*time.Second, "members")
	if r.code != 0 {
		return nil, fmt.Errorf("stactor members: exit %d: %s", r.code, r.stderr)
	}
	var ms []member
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for _, line := range lines[1:] {
		// NODE ADDRESS ROLES CPU MEMORY("2048 MiB") TAGS HEALTH; TAGS may be
		// empty, so read from both ends.
		f := strings.Fields(line)
		if len(f) < 7 {
			return nil, fmt.Errorf("stactor members: bad line %q", line)
		}
		m := member{id: f[0], address: f[1], roles: f[2], health: f[len(f)-1]}
		if len(f) == 8 {
			m.tags = f[6]
		}
		m.id, m.leader = strings.CutPrefix(m.id, "*")
		ms = append(ms, m)
	}
	return ms, nil
}

// waitReady waits until n nodes pass their checks and one of them leads
// (marked * by `stactor members`, and it logged "acquired leadership");
// it returns the leader's id.
func (c *testCluster) waitReady(n int) string {
	c.t.Helper()
	var leader string
	eventually(c.t, 30*time.Second, "cluster ready", func() error {
		ms, err := c.members()
		if err != nil {
			return err
		}
		passing, leaders := 0, []string{}
		for _, m := range ms {
			if m.health == "passing" {
				passing++
			}
			if m.leader {
				leaders = append(leaders, m.id)
			}
		}
		if passing != n || len(leaders) != 1 {
			return fmt.Errorf("%d healthy members, leaders %v, want %d and one: %+v", passing, leaders, n, ms)
		}
		leader = leaders[0]
		if !strings.Contains(readFile(c.nodes[leader].log), "acquired leadership") {
			return fmt.Errorf("leader %s has not logged acquiring leadership", leader)
		}
		return nil
	})
	return leader
}

// leader is the node `stactor members` marks as the leader ("" if none).
func (c *testCluster) leader() string {
	ms, err := c.members()
	if err != nil {
		return ""
	}
	for _, m := range ms {
		if m.leader {
			return m.id
		}
	}
	return ""
}

// result is how a CLI command ended.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs a stactor command against the cluster, bounded by timeout.
func (c *testCluster) cli(timeout time.Duration, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(args, "--consul", c.consulAddr(), "--cluster", c.name)...)
	cmd.Dir = c.dir
	cmd.Env = append(append(os.Environ(), "STACTOR_HOME="+filepath.Join(c.dir, "home-cli")), c.allEnv...)
	cmd.SysProcAttr = childAttr()
	r := stactorbin.Run(ctx, cmd)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// status is a job's `stactor status`.
type status struct {
	state         string
	read, written int64
	attempts      []int // per pipeline
	text          string
}

func (c *testCluster) status(id string) (status, error) {
	r := c.cli(40*time.Second, "status", id)
	if r.code != 0 {
		return status{}, fmt.Errorf("stactor status %s: exit %d: %s", id, r.code, strings.TrimSpace(r.stderr))
	}
	st := status{text: r.stdout}
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "job "):
			st.state = line[strings.LastIndex(line, " ")+1:]
		case strings.HasPrefix(line, "read "):
			_, _ = fmt.Sscanf(line, "read %d, written %d", &st.read, &st.written)
		case strings.HasPrefix(line, "pipeline "):
			var p, a int
			var state string
			if _, err := fmt.Sscanf(line, "pipeline %d: %s (attempt %d)", &p, &state, &a); err == nil {
				st.attempts = append(st.attempts, a)
			}
		}
	}
	return st, nil
}

// waitState polls the job's status until it is want; an ended job in
// another state fails the test.
func (c *testCluster) waitState(id, want string, timeout time.Duration) status {
	c.t.Helper()
	var st status
	eventually(c.t, timeout, "job "+id+" "+want, func() error {
		var err error
		if st, err = c.status(id); err != nil {
			return err
		}
		switch st.state {
		case want:
			return nil
		case "FINISHED", "FAILED", "CANCELED", "SAVEPOINT_DONE":
			c.t.Fatalf("job %s ended %s, want %s:\n%s", id, st.state, want, st.text)
		}
		return fmt.Errorf("state %s", st.state)
	})
	return st
}

// waitWritten polls until the job has written at least rows (both sinks
// count), so it is running with data in flight. A job still starting
// (CREATED, INITIALIZING, SCHEDULED) is waited for; one that has ended is
// a failure.
func (c *testCluster) waitWritten(id string, rows int64) {
	c.t.Helper()
	eventually(c.t, 60*time.Second, fmt.Sprintf("job %s writing %d rows", id, rows), func() error {
		st, err := c.status(id)
		if err != nil {
			return err
		}
		switch st.state {
		case "RUNNING":
		case "FINISHED", "FAILED", "CANCELED", "CANCELING", "SAVEPOINT_DONE", "FAILING":
			c.t.Fatalf("job %s is %s before it wrote %d rows; the test needs it running:\n%s", id, st.state, rows, st.text)
		default: // still starting: a submit that is not --async returns no earlier
			return fmt.Errorf("state %s", st.state)
		}
		if st.written < rows {
			return fmt.Errorf("written %d", st.written)
		}
		return nil
	})
}

// printed counts the rows node id's Console sinks printed.
func (c *testCluster) printed(id string) int {
	return strings.Count(readFile(c.nodes[id].out), "subtaskIndex=")
}

// logged counts the lines of node id's log that hold every one of subs.
func (c *testCluster) logged(id string, subs ...string) int {
	n := 0
	for _, line := range strings.Split(readFile(c.nodes[id].log), "\n") {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}

// logRestores reports the restores node id logged for job: the
// checkpoint each started from and the in-flight batches it held.
func (c *testCluster) logRestores(id, job string) {
	c.t.Helper()
	for _, line := range strings.Split(readFile(c.nodes[id].log), "\n") {
		var rec struct {
			Job            string `json:"job"`
			Message        string `json:"message"`
			Attempt        int    `json:"attempt"`
			Checkpoint     int64  `json:"checkpoint"`
			Type           string `json:"type"`
			ChannelBatches int64  `json:"channel_batches"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Job != job ||
			(rec.Message != "restoring pipeline from checkpoint" && rec.Message != "restarting pipeline from the start: no checkpoint completed") {
			continue
		}
		c.t.Logf("%s: %s (attempt %d, %s %d, %d channel batches)", id, rec.Message, rec.Attempt, rec.Type, rec.Checkpoint, rec.ChannelBatches)
	}
}

// countData counts the messages on the cluster's NATS data subjects (rows
// between subtasks on different nodes) from now on.
func (c *testCluster) countData() *atomic.Int64 {
	c.t.Helper()
	nc, err := nats.Connect(c.natsURL())
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(nc.Close)
	var n atomic.Int64
	if _, err := nc.Subscribe("stactor."+c.name+".data.>", func(*nats.Msg) { n.Add(1) }); err != nil {
		c.t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		c.t.Fatal(err)
	}
	return &n
}

// eventually polls fn until it returns nil, failing the test with fn's
// last error after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %v", what, timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
