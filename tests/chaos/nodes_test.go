package chaos

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

// clusterName is the cluster's name in Consul, NATS and checkpoint storage.
const clusterName = "chaos"

// nodeEnv are every node's engine settings: the short Consul timings of
// tests/cluster (a dead or paused node noticed in seconds, a dead leader
// replaced in about ten), small batches, a short cancel timeout.
var nodeEnv = []string{
	"STACTOR_COMMIT_NODE_GONE_TIMEOUT=5s",
	"STACTOR_CONSUL_CHECK_TTL=1s",
	"STACTOR_CONSUL_SESSION_TTL=10s",
	"STACTOR_CONSUL_LOCK_DELAY=1s",
	"STACTOR_BATCH_SIZE=100",
	"STACTOR_TASK_CANCEL_TIMEOUT=2s",
}

// node is one `stactor node` process in its slot's namespace. pid is the
// node's own process (below unshare(1) when its clocks are offset).
type node struct {
	id     string
	slot   int
	log    string
	cmd    *exec.Cmd
	pid    int
	exited chan struct{}
	clock  time.Duration // the offset of its monotonic clocks (clock jumps)
}

// cluster is the harness's nodes n1..n3 (slots 1..3) and the CLI's slot.
type cluster struct {
	t         *testing.T
	dir       string
	consul    string // the agent's address as nodes and CLI reach it
	nats      string
	consulAPI string // the agent's address in the test's namespace
	nodes     map[string]*node
}

// cliSlot is the CLI's namespace: never cut, so the CLI reaches every
// node and every node reaches it (its answers).
const cliSlot = 99

func (c *cluster) ids() []string {
	ids := make([]string, 0, len(c.nodes))
	for id := range c.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// start starts node id (again, after a kill) with its monotonic and
// boot-time clocks offset by clock (0: none).
func (c *cluster) start(id string, clock time.Duration) {
	c.t.Helper()
	n := c.nodes[id]
	logf, err := os.OpenFile(n.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	mustf(c.t, err, "node log")
	defer logf.Close()
	args := []string{"node", "--node-id", id, "--consul", c.consul, "--cluster", clusterName, "--nats", c.nats,
		"--bind", hostIP(n.slot) + ":0", "--data-dir", filepath.Join(c.dir, id), "--log-level", "info"}
	prog := binary
	if clock > 0 {
		// A time namespace offsets the clocks of the processes started in
		// it, so unshare forks the node (and kills it if it dies itself).
		secs := strconv.Itoa(int(clock.Seconds()))
		args = append([]string{"--time", "--monotonic", secs, "--boottime", secs, "--fork", "--kill-child", "--", binary}, args...)
		prog = "unshare"
	}
	n.cmd = command(n.slot, prog, args...)
	n.cmd.Env = append(append(os.Environ(), "STACTOR_HOME="+filepath.Join(c.dir, id, "home")), nodeEnv...)
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	mustf(c.t, n.cmd.Start(), "start node %s", id)
	n.exited, n.pid, n.clock = make(chan struct{}), n.cmd.Process.Pid, clock
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(n.cmd, n.exited)
	fmt.Fprintf(logf, "--- chaos: started %s (clock offset %s) ---\n", id, clock)
	if clock > 0 {
		n.pid = c.child(n)
	}
}

// child waits for unshare's one child (the node) and returns its pid.
func (c *cluster) child(n *node) int {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", n.cmd.Process.Pid, n.cmd.Process.Pid))
		if f := strings.Fields(string(b)); len(f) == 1 {
			pid, _ := strconv.Atoi(f[0])
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("unshare of node %s started no child in 10 s", n.id)
	return 0
}

func (c *cluster) running(id string) bool {
	select {
	case <-c.nodes[id].exited:
		return false
	default:
		return true
	}
}

// kill SIGKILLs node id and waits until it is gone.
func (c *cluster) kill(id string) {
	n := c.nodes[id]
	if !c.running(id) {
		return
	}
	_ = syscall.Kill(n.pid, syscall.SIGKILL)
	<-n.exited
}

func (c *cluster) signal(id string, sig syscall.Signal) error {
	return syscall.Kill(c.nodes[id].pid, sig)
}

// leaderWait bounds how long a fault that needs the leader waits for one:
// just after a fault (the Consul agent restarted, the leader killed) the
// lock can be free for a session TTL and a lock delay.
const leaderWait = 45 * time.Second

// awaitLeader is the node holding the cluster's lock, waiting up to
// leaderWait for one to take it; it says how long there was none.
func (c *cluster) awaitLeader() (string, time.Duration, error) {
	start := time.Now()
	for {
		id, err := c.leader()
		if err == nil {
			return id, time.Since(start), nil
		}
		if time.Since(start) > leaderWait {
			return "", time.Since(start), fmt.Errorf("no leader for %s: %w", leaderWait, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// leader is the node holding the cluster's lock in Consul.
func (c *cluster) leader() (string, error) {
	client, err := consul.NewClient(consul.ClientSettings{Address: c.consulAPI})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	id, _, _, err := consul.CurrentLeader(ctx, client, clusterName)
	return id, err
}

// waitReady waits until every node is a healthy member and one leads.
func (c *cluster) waitReady(timeout time.Duration) error {
	client, err := consul.NewClient(consul.ClientSettings{Address: c.consulAPI})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		ms, err := consul.Members(ctx, client, clusterName)
		healthy := 0
		for _, m := range ms {
			if m.Healthy {
				healthy++
			}
		}
		if err == nil && healthy < len(c.nodes) {
			err = fmt.Errorf("%d of %d nodes healthy", healthy, len(c.nodes))
		}
		if err == nil {
			_, _, _, err = consul.CurrentLeader(ctx, client, clusterName)
		}
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not ready after %s: %w", timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// result is how a CLI command ended.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs a stactor command against the cluster from the CLI's
// namespace, bounded by timeout.
func (c *cluster) cli(timeout time.Duration, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args = append(append([]string{"netns", "exec", nsName(cliSlot), binary}, args...), "--consul", c.consul, "--cluster", clusterName)
	cmd := exec.CommandContext(ctx, "ip", args...)
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(c.dir, "cli-home"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	r := stactorbin.Run(ctx, cmd)
	if ctx.Err() != nil {
		r.Code = -1
	}
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// status is a job's `stactor status`: its state and cause.
type status struct {
	state, cause, text string
}

func (c *cluster) status(job string) (status, error) {
	r := c.cli(20*time.Second, "status", job)
	if r.code != 0 {
		return status{}, fmt.Errorf("stactor status %s: exit %d: %s", job, r.code, strings.TrimSpace(tail(r.stderr, 3)))
	}
	st := status{text: r.stdout}
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "job "):
			st.state = line[strings.LastIndex(line, " ")+1:]
		case strings.HasPrefix(line, "cause: "):
			st.cause = strings.TrimPrefix(line, "cause: ")
		}
	}
	return st, nil
}

// ended reports whether state is final.
func ended(state string) bool {
	switch state {
	case "FINISHED", "FAILED", "CANCELED", "SAVEPOINT_DONE":
		return true
	}
	return false
}

// restores counts the pipeline restores (from a checkpoint or from the
// start) in every node's log so far.
func (c *cluster) restores() int {
	n := 0
	for _, nd := range c.nodes {
		log := readFile(nd.log)
		n += strings.Count(log, "restoring pipeline from checkpoint") + strings.Count(log, "restarting pipeline from the start")
	}
	return n
}
