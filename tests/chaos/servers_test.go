package chaos

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/sys/unix"
)

// natsProc is a nats-server process with JetStream, storing in dir, that
// the harness SIGKILLs and starts again on the same port and store.
type natsProc struct {
	bin, dir, log string
	port          int
	cmd           *exec.Cmd
	exited        chan struct{}
}

func startNATS(t *testing.T, bin, dir string) *natsProc {
	t.Helper()
	l, err := net.Listen("tcp", serviceIP+":0")
	mustf(t, err, "a port for NATS")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	mustf(t, os.MkdirAll(dir, 0o755), "mkdir %s", dir)
	n := &natsProc{bin: bin, dir: dir, log: filepath.Join(dir, "nats.log"), port: port}
	mustf(t, n.start(), "nats-server")
	t.Cleanup(n.kill)
	return n
}

// url is the server's, as the nodes reach it.
func (n *natsProc) url() string { return fmt.Sprintf("nats://%s:%d", serviceIP, n.port) }

// start runs the server and waits until it takes connections.
func (n *natsProc) start() error {
	logf, err := os.OpenFile(n.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(n.bin, "-a", "0.0.0.0", "-p", strconv.Itoa(n.port), "-js", "-sd", filepath.Join(n.dir, "store"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	n.cmd, n.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(n.exited)
	deadline := time.Now().Add(30 * time.Second)
	for {
		nc, err := nats.Connect(n.url(), nats.Timeout(time.Second))
		if err == nil {
			nc.Close()
			return nil
		}
		select {
		case <-n.exited:
			return fmt.Errorf("nats-server exited: %s", tail(readFile(n.log), 20))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nats-server not ready after 30 s: %v", err)
		}
	}
}

// kill SIGKILLs the server and waits for it.
func (n *natsProc) kill() {
	select {
	case <-n.exited:
	default:
		_ = n.cmd.Process.Signal(syscall.SIGKILL)
		<-n.exited
	}
}

// disk is a small tmpfs of the test's mount namespace (the nodes' mount
// namespaces are copies made after it, so they see it) that fill makes
// full and free empties again.
type disk struct {
	dir    string
	filler string
}

func mountDisk(t *testing.T, dir string, size string) *disk {
	t.Helper()
	mustf(t, os.MkdirAll(dir, 0o755), "mkdir %s", dir)
	mustf(t, unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size), "mount a tmpfs of %s on %s", size, dir)
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return &disk{dir: dir, filler: filepath.Join(dir, ".chaos-filler")}
}

// fill writes a file until the disk has no byte left (a dot file, which
// the output check skips like staging).
func (d *disk) fill() error {
	f, err := os.OpenFile(d.filler, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 4 << 10, 1} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if errors.Is(err, syscall.ENOSPC) {
					break
				}
				return err
			}
		}
	}
	return nil
}

// free removes the filler.
func (d *disk) free() error { return os.Remove(d.filler) }
