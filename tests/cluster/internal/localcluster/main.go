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
//	localcluster start [-dir .cluster] [-nodes 3] [-consul-port 8500] [-nats-port 4222 | -nats-url URL] [-http-port 8080] [-cluster stactor] [-tls]
//	localcluster stop  [-dir .cluster]
//
// The default ports are the CLI's defaults, so `bin/stactor submit -c
// job.conf` finds the cluster without flags.
//
// With -tls every link has credentials and TLS (DESIGN §11): `stactor dev
// certs` makes a CA, a node certificate, tokens and a secrets key in
// .cluster/tls, whose stactor.env the nodes get (and the CLI needs: source
// it); NATS wants TLS with a client certificate, Consul has ACLs on (deny by
// default) with a generated token, the API is HTTPS with bearer tokens,
// remote is mutual TLS.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
	"github.com/stactor/stactor/cluster/natsauth"
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
	secure := fs.Bool("tls", false, "credentials and TLS on every link (HTTP, NATS, Consul ACLs, remote)")
	_ = fs.Parse(os.Args[2:])
	if *secure && *natsURL != "" {
		fmt.Fprintln(os.Stderr, "localcluster: -tls starts its own NATS server; drop -nats-url")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "start":
		err = start(*dir, *bin, *cluster, *nodes, *consulPort, *natsPort, *natsURL, *httpPort, *secure)
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

func start(dir, bin, cluster string, nodes, consulPort, natsPort int, natsURL string, httpPort int, secure bool) error {
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
	stactor := filepath.Join(bin, "stactor")
	var tlsEnv []string
	var tlsFiles map[string]string
	consulArgs := []string{"agent", "-dev", "-node", "stactor-local",
		"-bind", "127.0.0.1", "-client", "127.0.0.1", "-http-port", strconv.Itoa(consulPort),
		"-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1", "-log-level", "warn"}
	natsArgs := []string{"-a", "127.0.0.1", "-p", strconv.Itoa(natsPort), "-js", "-sd", filepath.Join(dir, "nats-data")}
	consulToken := ""
	if secure {
		var err error
		if tlsEnv, tlsFiles, err = devCerts(stactor, filepath.Join(dir, "tls")); err != nil {
			return err
		}
		consulToken = randomToken()
		consulArgs = append(consulArgs, "-hcl", fmt.Sprintf(`acl { enabled = true, default_policy = "deny", tokens { initial_management = %q, agent = %q } }`, consulToken, consulToken))
		tlsEnv = append(tlsEnv, "STACTOR_CONSUL_TOKEN="+consulToken)
		if err := appendEnv(filepath.Join(dir, "tls", "stactor.env"), "STACTOR_CONSUL_TOKEN="+consulToken); err != nil {
			return err
		}
		natsArgs = append(natsArgs, "--tls", "--tlscert", tlsFiles["cert"], "--tlskey", tlsFiles["key"], "--tlscacert", tlsFiles["ca"], "--tlsverify")
	}
	if err := spawn(dir, "consul", nil, filepath.Join(bin, "consul"), consulArgs...); err != nil {
		return err
	}
	if natsURL == "" {
		natsURL = "nats://127.0.0.1:" + strconv.Itoa(natsPort)
		if err := spawn(dir, "nats", nil, filepath.Join(bin, "nats-server"), natsArgs...); err != nil {
			return err
		}
	}
	cfg := api.DefaultConfig()
	cfg.Address = consulAddr
	cfg.Token = consulToken
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
	natsOpts, err := natsauth.Settings{CAFile: tlsFiles["ca"], CertFile: tlsFiles["cert"], KeyFile: tlsFiles["key"]}.Options()
	if err != nil {
		return err
	}
	if err := waitFor(10*time.Second, "NATS at "+natsURL, func() error {
		nc, err := nats.Connect(natsURL, natsOpts...)
		if err == nil {
			nc.Close()
		}
		return err
	}); err != nil {
		return err
	}
	for i := 1; i <= nodes; i++ {
		id := fmt.Sprintf("node%d", i)
		env := append([]string{"STACTOR_HOME=" + filepath.Join(dir, id)}, tlsEnv...)
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
	scheme, curl := "http", "curl"
	if secure {
		scheme = "https"
		curl = fmt.Sprintf(`. %s/tls/stactor.env; curl --cacert %s -H "Authorization: Bearer $STACTOR_HTTP_TOKEN"`, dir, tlsFiles["ca"])
		fmt.Printf("Every link has TLS and credentials; the CLI needs them too: . %s/tls/stactor.env\n", dir)
	}
	leaderURL, urls := "", ""
	for _, m := range members {
		if m.HTTP == "" {
			continue
		}
		urls += fmt.Sprintf("  %s  %s://%s/\n", m.ID, scheme, m.HTTP)
		if m.ID == leader {
			leaderURL = scheme + "://" + m.HTTP
		}
	}
	fmt.Printf(`stactor cluster %q is up: %d nodes (leader %s), Consul at %s, NATS at %s.
Logs and pids are in %s/ (node<N>.log is a node's log, node<N>.out what its Console sinks print).

The web page and REST API (any node redirects to the leader; /metrics is each node's own):
%s
  %s %s/overview
  %s -X POST --data-binary @configs/examples/fake_to_console.conf '%s/submit-job?jobName=quick'

  %s members%s
  %s submit%s -c configs/examples/fake_to_console.conf
  %s submit%s --async -c job.conf      # prints the job id
  %s list%s
  %s status%s JOB_ID
  %s savepoint%s JOB_ID ; %s restore%s JOB_ID -c job.conf

Stop it with: go tool task cluster:stop
`, cluster, nodes, leader, consulAddr, natsURL, dir, urls, curl, leaderURL, curl, leaderURL,
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

// devCerts runs `stactor dev certs dir` and returns the settings it wrote
// (stactor.env) as environment entries, and the CA, certificate and key.
func devCerts(stactor, dir string) ([]string, map[string]string, error) {
	if out, err := exec.Command(stactor, "dev", "certs", dir).CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("stactor dev certs: %w\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "stactor.env"))
	if err != nil {
		return nil, nil, err
	}
	var env []string
	files := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		kv, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		env = append(env, kv)
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "STACTOR_REMOTE_TLS_CA":
			files["ca"] = v
		case "STACTOR_REMOTE_TLS_CERT":
			files["cert"] = v
		case "STACTOR_REMOTE_TLS_KEY":
			files["key"] = v
		}
	}
	return env, files, nil
}

// appendEnv adds an export line to a settings file.
func appendEnv(file, kv string) error {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, werr := fmt.Fprintln(f, "export "+kv)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
