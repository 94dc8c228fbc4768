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

// Agent is a running `consul agent -dev`.
type Agent struct {
	Addr   string      // its HTTP address, host:port
	Client *api.Client // a client of it

	stop func()
}

// Option configures Start.
type Option func(*config)

type config struct {
	node string
	dir  string
	acl  string    // management token; "" for no ACLs
	tls  [3]string // CA, certificate, key; empty for plain HTTP
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

// Start runs bin as `consul agent -dev` on free loopback ports and returns
// once the agent has a leader and its node's serfHealth passes (sessions
// need both), or with the agent's log when it exits or is not ready within
// 30 s. The caller must Stop it; on Linux it also dies with the test
// binary.
func Start(bin string, opts ...Option) (*Agent, error) {
	cfg := config{node: "stactor-test"}
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
	logf, err := os.Create(filepath.Join(dir, "consul.log"))
	if err != nil {
		return nil, err
	}
	args := []string{"agent", "-dev",
		"-node", cfg.node,
		"-bind", "127.0.0.1", "-client", "127.0.0.1",
		"-http-port", strconv.Itoa(ports[0]),
		"-server-port", strconv.Itoa(ports[1]),
		"-serf-lan-port", strconv.Itoa(ports[2]),
		"-serf-wan-port", strconv.Itoa(ports[3]),
		"-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1",
		"-data-dir", filepath.Join(dir, "data"),
		"-log-level", "warn",
	}
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
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start consul: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	a := &Agent{Addr: "127.0.0.1:" + strconv.Itoa(ports[0])}
	a.stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logf.Close()
		if temp {
			_ = os.RemoveAll(dir)
		}
	}
	apiCfg := api.DefaultConfig()
	apiCfg.Address = a.Addr
	apiCfg.Token = cfg.acl
	if scheme == "https" {
		apiCfg.Scheme = "https"
		apiCfg.TLSConfig = api.TLSConfig{CAFile: cfg.tls[0], CertFile: cfg.tls[1], KeyFile: cfg.tls[2]}
	}
	if a.Client, err = api.NewClient(apiCfg); err != nil {
		a.Stop()
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for !ready(a.Client, cfg.node) {
		select {
		case <-exited:
			log, _ := os.ReadFile(logf.Name())
			a.Stop()
			return nil, fmt.Errorf("consul agent exited:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			a.Stop()
			return nil, fmt.Errorf("consul agent not ready after 30s:\n%s", log)
		}
	}
	return a, nil
}

// Stop interrupts the agent, kills it if it has not exited after 5 s, and
// waits for it.
func (a *Agent) Stop() { a.stop() }

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
