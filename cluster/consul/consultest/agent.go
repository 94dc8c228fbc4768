package consultest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/consul/api"
)

// Agent is a running `consul agent -dev` (or, WithPersistence, a
// one-server cluster that keeps its state on disk).
type Agent struct {
	Addr   string      // its HTTP address, host:port
	Client *api.Client // a client of it

	bin, node, log string
	args           []string
	temp           bool // dir is Start's own: Stop removes it
	dir            string
	cmd            *exec.Cmd
	exited         chan struct{} // closed when cmd has exited
}

// Option configures Start.
type Option func(*config)

type config struct {
	node    string
	dir     string
	acl     string    // management token; "" for no ACLs
	tls     [3]string // CA, certificate, key; empty for plain HTTP
	persist bool
	client  string // the address the HTTP API listens on
}

// WithTLS makes the agent serve its HTTP API over HTTPS only, with cert and
// key, verifying clients' certificates against ca; the agent's Client uses
// cert as its own.
func WithTLS(ca, cert, key string) Option {
	return func(c *config) { c.tls = [3]string{ca, cert, key} }
}

// WithACL turns the agent's ACLs on, denying by default, with token as its
// management token; the agent's Client uses it.
func WithACL(token string) Option { return func(c *config) { c.acl = token } }

// WithNode names the agent's node (default "stactor-test").
func WithNode(name string) Option { return func(c *config) { c.node = name } }

// WithDir keeps the agent's data and its log, consul.log, in dir (created
// if missing) and leaves them there after Stop. By default they go to a
// temp dir that Stop removes.
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithPersistence runs a server that keeps its state (the KV store,
// sessions, services) in its data dir instead of -dev's memory, so a Kill
// and Restart lose nothing: what a real agent does when its process dies
// (tests/chaos kills it).
func WithPersistence() Option { return func(c *config) { c.persist = true } }

// WithClientAddr makes the HTTP API listen on addr (an IP, 0.0.0.0 for
// all) instead of 127.0.0.1, for clients in other network namespaces; Addr
// still names 127.0.0.1.
func WithClientAddr(addr string) Option { return func(c *config) { c.client = addr } }

// Start runs bin as `consul agent -dev` on free loopback ports and returns
// once the agent has a leader and its node's serfHealth passes (sessions
// need both), or with the agent's log when it exits or is not ready within
// 30 s. The caller must Stop it; on Linux it also dies with the test
// binary.
func Start(bin string, opts ...Option) (*Agent, error) {
	cfg := config{node: "stactor-test", client: "127.0.0.1"}
	for _, o := range opts {
		o(&cfg)
	}
	dir, temp := cfg.dir, cfg.dir == ""
	var err error
	if temp {
		dir, err = os.MkdirTemp("", "stactor-consul-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return nil, err
	}
	ports := make([]int, 4) // http, server, serf lan, serf wan
	for i := range ports {
		if ports[i], err = freePort(i >= 2); err != nil {
			return nil, err
		}
	}
	mode := []string{"-dev"}
	if cfg.persist {
		// A server of its own: elects itself, keeps raft and the KV on
		// disk; short raft timings so a restart leads again in about a
		// second.
		mode = []string{"-server", "-bootstrap-expect", "1", "-ui=false",
			"-hcl", `performance { raft_multiplier = 1 }`}
	}
	args := append([]string{"agent"}, mode...)
	args = append(args,
		"-node", cfg.node,
		"-bind", "127.0.0.1", "-client", cfg.client,
		"-http-port", strconv.Itoa(ports[0]),
		"-server-port", strconv.Itoa(ports[1]),
		"-serf-lan-port", strconv.Itoa(ports[2]),
		"-serf-wan-port", strconv.Itoa(ports[3]),
		"-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1",
		"-data-dir", filepath.Join(dir, "data"),
		"-log-level", "warn",
	)
	if cfg.acl != "" {
		args = append(args, "-hcl", fmt.Sprintf(`acl { enabled = true, default_policy = "deny", tokens { initial_management = %q, agent = %q } }`, cfg.acl, cfg.acl))
	}
	scheme := "http"
	if cfg.tls[0] != "" {
		// The HTTP port found above serves HTTPS; plain HTTP is off. The
		// streaming backend of blocking queries needs the gRPC TLS port,
		// which a test agent leaves off: without this, a blocking health
		// query never returns on a change (seen with Watch).
		scheme = "https"
		for i, a := range args {
			if a == "-http-port" {
				args[i+1] = "-1"
			}
		}
		args = append(args, "-hcl", fmt.Sprintf(`ports { https = %d }`, ports[0]),
			"-hcl", fmt.Sprintf(`tls { defaults { ca_file = %q, cert_file = %q, key_file = %q, verify_incoming = true } }`, cfg.tls[0], cfg.tls[1], cfg.tls[2]),
			"-hcl", `use_streaming_backend = false`)
	}
	a := &Agent{Addr: "127.0.0.1:" + strconv.Itoa(ports[0]), bin: bin, node: cfg.node, args: args,
		log: filepath.Join(dir, "consul.log"), dir: dir, temp: temp}
	apiCfg := api.DefaultConfig()
	apiCfg.Address = a.Addr
	apiCfg.Token = cfg.acl
	if scheme == "https" {
		apiCfg.Scheme = "https"
		apiCfg.TLSConfig = api.TLSConfig{CAFile: cfg.tls[0], CertFile: cfg.tls[1], KeyFile: cfg.tls[2]}
	}
	if a.Client, err = api.NewClient(apiCfg); err != nil {
		if temp {
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	if err := a.start(); err != nil {
		if temp {
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	return a, nil
}

// start runs the agent process and waits until it is ready.
func (a *Agent) start() error {
	logf, err := os.OpenFile(a.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own descriptor
	cmd := exec.Command(a.bin, a.args...)
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start consul: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	a.cmd, a.exited = cmd, exited
	deadline := time.Now().Add(30 * time.Second)
	for !ready(a.Client, a.node) {
		select {
		case <-exited:
			log, _ := os.ReadFile(a.log)
			return fmt.Errorf("consul agent exited:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(a.log)
			a.signal(os.Kill)
			return fmt.Errorf("consul agent not ready after 30s:\n%s", log)
		}
	}
	return nil
}

// Stop interrupts the agent, kills it if it has not exited after 5 s, and
// waits for it; a temp dir of Start's own is removed.
func (a *Agent) Stop() {
	if a.cmd != nil {
		_ = a.cmd.Process.Signal(os.Interrupt)
		select {
		case <-a.exited:
		case <-time.After(5 * time.Second):
			a.signal(os.Kill)
		}
	}
	if a.temp {
		_ = os.RemoveAll(a.dir)
	}
}

// Kill SIGKILLs the agent and waits for it to be gone; Restart starts it
// again.
func (a *Agent) Kill() { a.signal(os.Kill) }

// signal sends sig and waits for the process to exit.
func (a *Agent) signal(sig os.Signal) {
	select {
	case <-a.exited:
		return
	default:
	}
	_ = a.cmd.Process.Signal(sig)
	<-a.exited
}

// Restart starts the agent again after Kill, on the same ports and data
// dir, and waits until it is ready (WithPersistence: with its state).
func (a *Agent) Restart() error {
	select {
	case <-a.exited:
	default:
		return fmt.Errorf("consul agent (pid %d) is still running", a.cmd.Process.Pid)
	}
	return a.start()
}

// ready reports whether the agent has a leader and node's serfHealth
// passes.
func ready(client *api.Client, node string) bool {
	leader, err := client.Status().Leader()
	if err != nil || leader == "" {
		return false
	}
	checks, _, err := client.Health().Node(node, nil)
	if err != nil {
		return false
	}
	for _, c := range checks {
		if c.CheckID == "serfHealth" && c.Status == api.HealthPassing {
			return true
		}
	}
	return false
}
