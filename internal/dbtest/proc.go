package dbtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// ErrNotInstalled is returned (wrapped, naming the binary) when a server's
// binaries are not on this machine; a test skips on it.
var ErrNotInstalled = errors.New("not installed")

// findBinary looks for name on PATH, then in extra folders (globs), newest
// first.
func findBinary(name string, globs ...string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, g := range globs {
		matches, _ := filepath.Glob(filepath.Join(g, name))
		sort.Sort(sort.Reverse(sort.StringSlice(matches)))
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return m, nil
			}
		}
	}
	return "", fmt.Errorf("%s: %w (looked on PATH and in %s)", name, ErrNotInstalled, strings.Join(globs, ", "))
}

// freePort is a TCP port on 127.0.0.1 that nothing listened on a moment
// ago. A server started on it may still lose a race; Start retries.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// runAs is who the PostgreSQL binaries run as: they refuse root, so under
// root they run as the system's postgres user (nil: as ourselves).
type runAs struct {
	uid, gid uint32
}

func pgUser() (*runAs, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root and there is no postgres user to run it as: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &runAs{uid: uint32(uid), gid: uint32(gid)}, nil
}

// apply makes cmd run as r.
func (r *runAs) apply(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if r == nil {
		return
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: r.uid, Gid: r.gid}
}

// chown gives r the folder tree at dir (and lets it reach dir through its
// parent, a temp dir that is private to us).
func (r *runAs) chown(dir string) error {
	if r == nil {
		return nil
	}
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(r.uid), int(r.gid))
	})
}

// run runs a setup command, returning its output with the error.
func run(as *runAs, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	as.apply(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(out))
	}
	return nil
}

// tail is the end of a log or output, for error messages.
func tail(b []byte) string {
	const max = 3000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

func readTail(path string) string {
	b, _ := os.ReadFile(path)
	return tail(b)
}
