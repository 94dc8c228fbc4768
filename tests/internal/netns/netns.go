// Package netns runs a test binary inside network and mount namespaces of
// its own, so that SeaTunnel's e2e job files can run byte for byte
// unchanged: they name their servers by Docker network alias and the
// server's usual port (jdbc:postgresql://postgresql:5432/test,
// jdbc:mysql://mysql-e2e:3306/seatunnel). In a fresh network namespace
// every loopback port is free, so the private test servers can listen on
// 5432 and 3306 without touching the machine's own servers, and a private
// /etc/hosts (bind-mounted in the private mount namespace) resolves the
// aliases to 127.0.0.1. Everything the tests start — the servers, the
// stactor binary — inherits both namespaces; nothing outside sees them.
//
// Main re-executes the test binary under unshare(1) and returns its exit
// code. Where namespaces cannot be made (not root, no unshare, a
// container that forbids them) the tests run outside and Require skips
// them, naming the reason.
package netns

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// envInside marks the re-executed binary; envUnavailable carries why no
// namespace could be made.
const (
	envInside      = "STACTOR_NETNS_INSIDE"
	envUnavailable = "STACTOR_NETNS_UNAVAILABLE"
)

// Main runs run inside new network and mount namespaces where the given
// host names resolve to 127.0.0.1, and returns the exit code. It is a
// TestMain body; run is called in the re-executed child only (or, when no
// namespace can be made, here, with Require skipping the tests).
func Main(run func() int, hosts ...string) int {
	if os.Getenv(envInside) != "" {
		if err := setUp(hosts); err != nil {
			fmt.Fprintln(os.Stderr, "netns:", err)
			return 1
		}
		return run()
	}
	if why := unavailable(); why != "" {
		os.Setenv(envUnavailable, why)
		return run()
	}
	args := append([]string{"--net", "--mount", "--propagation", "private", "--", os.Args[0]}, os.Args[1:]...)
	cmd := exec.Command("unshare", args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envInside+"=1")
	// The child dies with us (a test timeout kills this process).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "netns:", err)
		return 1
	}
	return 0
}

// Require skips t when the tests could not be put in namespaces.
func Require(t interface {
	Helper()
	Skipf(string, ...any)
}) {
	t.Helper()
	if why := os.Getenv(envUnavailable); why != "" && os.Getenv(envInside) == "" {
		t.Skipf("needs its own network namespace: %s", why)
	}
}

// unavailable says why namespaces cannot be made here ("" when they can).
func unavailable() string {
	if _, err := exec.LookPath("unshare"); err != nil {
		return "unshare(1) is not installed (Debian package util-linux)"
	}
	out, err := exec.Command("unshare", "--net", "--mount", "--propagation", "private", "--", "true").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("unshare --net --mount: %v: %s (run the tests as root)", err, strings.TrimSpace(string(out)))
	}
	return ""
}

// setUp brings loopback up in the new network namespace and mounts a
// hosts file naming hosts over /etc/hosts in the new mount namespace.
func setUp(hosts []string) error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	dir, err := os.MkdirTemp("", "stactor-netns-")
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "hosts")
	content := "127.0.0.1 localhost " + strings.Join(hosts, " ") + "\n::1 localhost\n"
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		return err
	}
	if err := unix.Mount(file, "/etc/hosts", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mount %s on /etc/hosts: %w", file, err)
	}
	return nil
}

// loopbackUp sets IFF_UP on lo, which a new network namespace has down.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
