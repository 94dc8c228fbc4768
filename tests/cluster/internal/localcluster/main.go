//go:build unix

// Command localcluster starts and stops a stactor cluster on this machine
// for trying things by hand (`go tool task cluster`, `go tool task
// cluster:stop`): a Consul agent in -dev mode, a NATS server with
// JetStream, and three `stactor node` processes (roles master,worker),
// all on 127.0.0.1 and in the background, their logs and pids in .cluster/.
// Each node serves the HTTP API and web page (--http, on -http-port and up:
// node1 on 8080, node2 on 8081, ...; -http-port 0 for any free ports) and
// has a data directory of its own (--data-dir .cluster/nodeN/data).
// It runs the binaries the Taskfile built into bin/: stactor, consul and
// nats-server.
//
//	localcluster start [-dir .cluster] [-nodes 3] [-consul-port 8500] [-nats-port 4222 | -nats-url URL] [-http-port 8080] [-cluster stactor]
//	localcluster stop  [-dir .cluster]
//
// The default ports are the CLI's defaults, so `bin/stactor submit -c
// job.conf` finds the cluster without flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/consul/api"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/cluster/consul"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: localcluster start|stop [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("localcluster "+os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", ".cluster", "directory for logs, pids and data")
	nodes := fs.Int("nodes", 3, "number of stactor nodes")
	consulPort := fs.Int("consul-port", 8500, "Consul HTTP port")
	natsPort := fs.Int("nats-port", 4222, "NATS port")
	natsURL := fs.String("nats-url", "", "use this NATS server (JetStream on) instead of starting one")
	httpPort := fs.Int("http-port", 8080, "HTTP port of the first node (the others count up from it); 0: any free ports")
	cluster := fs.String("cluster", "stactor", "cluster name")
	bin := fs.String("bin", "bin", "directory of the stactor, consul and nats-server binaries")
	_ = fs.Parse(os.Args[2:])
	var err error
	switch os.Args[1] {
	case "start":
		err = start(*dir, *bin, *cluster, *nodes, *consulPort, *natsPort, *natsURL, *httpPort)
	case "stop":
		err = stop(*dir)
	default:
		err = fmt.Errorf("unknown command %q: start or stop", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localcluster:", err)
		os.Exit(1)
	}
}

func start(dir, bin, cluster string, nodes, consulPort, natsPort int, natsURL string, httpPort int) error {
	if running := alive(dir); len(running) > 0 {
		return fmt.Errorf("already running (%s); stop it first: go tool task cluster:stop", strings.Join(running, ", "))
	}
	// A fresh cluster each time: no old checkpoints, logs or pids.
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ports := []int{consulPort}
	if natsURL == "" {
		ports = append(ports, natsPort)
	}
	for i := 0; httpPort > 0 && i < nodes; i++ {
		ports = append(ports, httpPort+i)
	}
	for _, p := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return fmt.Errorf("port %d is taken (another Consul, NATS or cluster? see -consul-port, -nats-port, -nats-url, -http-port): %w", p, err)
		}
		_ = l.Close()
	}
	ok := false
	defer func() {
		if !ok {
			_ = stop(dir)
		}
	}()
	consulAddr := "127.0.0.1:" + strconv.Itoa(consulPort)
	if err := spawn(dir, "consul", nil, filepath.Join(bin, "consul"), "agent", "-dev", "-node", "stactor-local",
		"-bind", "127.0.0.1", "-client", "127.0.0.1", "-http-port", strconv.Itoa(consulPort),
		"-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1", "-log-level", "warn"); err != nil {
		return err
	}
	if natsURL == "" {
		natsURL = "nats://127.0.0.1:" + strconv.Itoa(natsPort)
		if err := spawn(dir, "nats", nil, filepath.Join(bin, "nats-server"), "-a", "127.0.0.1", "-p", strconv.Itoa(natsPort),
			"-js", "-sd", filepath.Join(dir, "nats-data")); err != nil {
			return err
		}
	}
	cfg := api.DefaultConfig()
	cfg.Address = consulAddr
	client, err := api.NewClient(cfg)
	if err != nil {
		return err
	}
	if err := waitFor(30*time.Second, "Consul to elect itself", func() error {
		leader, err := client.Status().Leader()
		if err == nil && leader == "" {
			err = errors.New("no leader yet")
		}
		return err
	}); err != nil {
		return err
	}
	if err := waitFor(10*time.Second, "NATS at "+natsURL, func() error {
		nc, err := nats.Connect(natsURL)
		if err == nil {
			nc.Close()
		}
		return err
	}); err != nil {
		return err
	}
	stactor := filepath.Join(bin, "stactor")
	for i := 1; i <= nodes; i++ {
		id := fmt.Sprintf("node%d", i)
		env := []string{"STACTOR_HOME=" + filepath.Join(dir, id)}
		httpAddr := "127.0.0.1:0"
		if httpPort > 0 {
			httpAddr = "127.0.0.1:" + strconv.Itoa(httpPort+i-1)
		}
		if err := spawn(dir, id, env, stactor, "node", "--node-id", id, "--cluster", cluster, "--consul", consulAddr,
			"--nats", natsURL, "--bind", "127.0.0.1:0", "--http", httpAddr, "--data-dir", filepath.Join(dir, id, "data"),
			"--log-level", "info"); err != nil {
			return err
		}
	}
	leader := ""
	var members []consul.Member
	if err := waitFor(30*time.Second, fmt.Sprintf("%d healthy nodes and a leader", nodes), func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ms, err := consul.Members(ctx, client, cluster)
		if err != nil {
			return err
		}
		members = ms
		healthy := 0
		for _, m := range ms {
			if m.Healthy {
				healthy++
			}
		}
		if healthy < nodes {
			return fmt.Errorf("%d of %d nodes healthy", healthy, nodes)
		}
		leader, _, _, err = consul.CurrentLeader(ctx, client, cluster)
		return err
	}); err != nil {
		return err
	}
	ok = true
	flags := ""
	if consulPort != 8500 || cluster != "stactor" {
		flags = fmt.Sprintf(" --consul %s --cluster %s", consulAddr, cluster)
	}
	leaderURL, urls := "", ""
	for _, m := range members {
		if m.HTTP == "" {
			continue
		}
		urls += fmt.Sprintf("  %s  http://%s/\n", m.ID, m.HTTP)
		if m.ID == leader {
			leaderURL = "http://" + m.HTTP
		}
	}
	fmt.Printf(`stactor cluster %q is up: %d nodes (leader %s), Consul at %s, NATS at %s.
Logs and pids are in %s/ (node<N>.log is a node's log, node<N>.out what its Console sinks print).

The web page and REST API (any node redirects to the leader; /metrics is each node's own):
%s
  curl %s/overview
  curl -X POST --data-binary @configs/examples/fake_to_console.conf '%s/submit-job?jobName=quick'

  %s members%s
  %s submit%s -c configs/examples/fake_to_console.conf
  %s submit%s --async -c job.conf      # prints the job id
  %s list%s
  %s status%s JOB_ID
  %s savepoint%s JOB_ID ; %s restore%s JOB_ID -c job.conf

Stop it with: go tool task cluster:stop
`, cluster, nodes, leader, consulAddr, natsURL, dir, urls, leaderURL, leaderURL,
		stactor, flags, stactor, flags, stactor, flags, stactor, flags, stactor, flags, stactor, flags, stactor, flags)
	return nil
}

// spawn starts a program in the background in its own session (it
// outlives this command), its output in dir/name.log (and, for a node,
// its stdout in dir/name.out) and its pid in dir/name.pid.
func spawn(dir, name string, env []string, prog string, args ...string) error {
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	out := logf
	if strings.HasPrefix(name, "node") {
		if out, err = os.Create(filepath.Join(dir, name+".out")); err != nil {
			return err
		}
		defer out.Close()
	}
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w (built? go tool task cluster builds it)", prog, err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	return os.WriteFile(filepath.Join(dir, name+".pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

// stop stops what start started: the nodes first, all at once (SIGTERM:
// they leave the cluster), then NATS and Consul.
func stop(dir string) error {
	pids, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	var nodes, services []string
	for _, p := range pids {
		if strings.HasPrefix(filepath.Base(p), "node") {
			nodes = append(nodes, p)
		} else {
			services = append(services, p)
		}
	}
	err := errors.Join(terminate(nodes), terminate(services))
	if len(pids) > 0 {
		fmt.Printf("stopped %d processes; logs stay in %s/\n", len(pids), dir)
	}
	return err
}

// terminate sends SIGTERM to the processes of pidFiles, waits up to 10 s
// for them to exit, SIGKILLs any left, and removes the pid files.
func terminate(pidFiles []string) error {
	var errs []error
	var pids []int
	for _, f := range pidFiles {
		pid, err := readPid(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_ = os.Remove(f)
		if syscall.Kill(pid, syscall.SIGTERM) == nil {
			pids = append(pids, pid)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return errors.Join(errs...)
}

// alive lists the processes of dir's pid files that still run.
func alive(dir string) []string {
	pids, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	var running []string
	for _, p := range pids {
		if pid, err := readPid(p); err == nil && syscall.Kill(pid, 0) == nil {
			running = append(running, strings.TrimSuffix(filepath.Base(p), ".pid")+" "+strconv.Itoa(pid))
		}
	}
	return running
}

func readPid(pidFile string) (int, error) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

func waitFor(timeout time.Duration, what string, fn func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := fn()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: %w (see the logs)", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
