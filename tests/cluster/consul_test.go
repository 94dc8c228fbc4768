package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/consul/api"
)

// consulVersion is the tools module's Consul (the last MPL-2.0 release).
const consulVersion = "v1.14.11"

// consulBinary returns STACTOR_CONSUL_BIN, or <repo>/bin/consul if it is
// the pinned version, or builds it there from the tools module (a few
// minutes the first time), as cluster/consul's tests do.
func consulBinary(root string) (string, error) {
	if bin := os.Getenv("STACTOR_CONSUL_BIN"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(root, "bin", "consul")
	if out, err := exec.Command(bin, "version").Output(); err == nil && strings.Contains(string(out), "Consul "+consulVersion) {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	// Build next to the target and rename, so that concurrent test binaries
	// never run a half-written file.
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	start := time.Now()
	fmt.Fprintf(os.Stderr, "building Consul %s into %s (a few minutes the first time)...\n", consulVersion, bin)
	cmd := exec.Command("go", "build", "-o", tmp, "github.com/hashicorp/consul")
	cmd.Dir = filepath.Join(root, "tools")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("go build in %s: %w\n%s", cmd.Dir, err, out.String())
	}
	fmt.Fprintf(os.Stderr, "built Consul in %s\n", time.Since(start).Round(time.Second))
	return bin, os.Rename(tmp, bin)
}

// startConsul runs `consul agent -dev` on free loopback ports with its data
// and log in dir, sets consulAddr, and waits until the agent has a leader
// and its node is healthy (sessions need both).
func startConsul(bin, dir string) (stop func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ports := make([]int, 4) // http, server, serf lan, serf wan
	for i := range ports {
		if ports[i], err = freePort(i >= 2); err != nil {
			return nil, err
		}
	}
	const node = "stactor-cluster-test"
	logf, err := os.Create(filepath.Join(dir, "consul.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "agent", "-dev",
		"-node", node,
		"-bind", "127.0.0.1", "-client", "127.0.0.1",
		"-http-port", strconv.Itoa(ports[0]),
		"-server-port", strconv.Itoa(ports[1]),
		"-serf-lan-port", strconv.Itoa(ports[2]),
		"-serf-wan-port", strconv.Itoa(ports[3]),
		"-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1",
		"-data-dir", filepath.Join(dir, "data"),
		"-log-level", "warn",
	)
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start consul: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logf.Close()
	}
	consulAddr = "127.0.0.1:" + strconv.Itoa(ports[0])
	cfg := api.DefaultConfig()
	cfg.Address = consulAddr
	client, err := api.NewClient(cfg)
	if err != nil {
		stop()
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for !agentReady(client, node) {
		select {
		case <-exited:
			stop()
			return nil, fmt.Errorf("consul agent exited:\n%s", readFile(logf.Name()))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("consul agent not ready after 30s:\n%s", readFile(logf.Name()))
		}
	}
	return stop, nil
}

// agentReady reports whether the agent has a leader and its node's
// serfHealth passes.
func agentReady(client *api.Client, node string) bool {
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

// freePort returns a loopback port the OS says is free for TCP (and UDP).
func freePort(udp bool) (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !udp {
			return port, nil
		}
		u, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			_ = u.Close()
			return port, nil
		}
	}
	return 0, errors.New("no free port")
}
