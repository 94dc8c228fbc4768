package harness

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot finds the main module's root (the directory of the go.mod
// that declares github.com/stactor/stactor) from the working directory up.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/stactor/stactor\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the stactor module (no go.mod of github.com/stactor/stactor above %s)", dir)
		}
		dir = parent
	}
}

// BuildStactor builds ./cmd/stactor of the module at root into dir.
func BuildStactor(root, dir string) (string, error) {
	out := filepath.Join(dir, "stactor")
	return out, goBuild(root, out, "./cmd/stactor")
}

// BuildBenthos builds Benthos from benchmarks/peers, the separate module
// that has it as a tool, so the main module does not depend on it.
func BuildBenthos(root, dir string) (string, error) {
	out := filepath.Join(dir, "benthos")
	return out, goBuild(filepath.Join(root, "benchmarks", "peers"), out, "github.com/redpanda-data/benthos/v4/cmd/benthos")
}

// goBuild builds pkg and installs it at out (Install), so that what runs
// is an ordinary copy, not the file as the linker left it. Both tools are
// built static, with CGO_ENABLED=0, as the Taskfile's build task builds
// stactor and Benthos's CI builds Benthos: a dynamically linked build
// maps libc and the loader too (1.2-1.5 MiB of resident memory).
func goBuild(dir, out, pkg string) error {
	linked := out + ".linked"
	cmd := exec.Command("go", "build", "-o", linked, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s (in %s): %w\n%s", pkg, dir, err, b)
	}
	defer os.Remove(linked)
	return Install(linked, out)
}

// Install copies the executable src to dst in writes of 64 KiB.
//
// Why: a process's peak RSS counts the pages of its executable that the
// kernel maps into it, and how many it maps depends on how the file sits
// in the page cache. On Linux 6.18 (ext4) large page-cache folios are
// mapped whole on a fault, and a file written in large writes is cached
// in large folios: in workload 1 the same stactor bytes showed 43 MiB of
// file-backed RSS straight from the linker (which writes its output
// through a memory map), 54 MiB copied in 1 MiB writes, and 35 MiB copied
// in 4 or 64 KiB writes (Benthos, a smaller binary, in workload 2: 24
// MiB against 21). Small writes leave the file in base pages, where a
// fault maps the 64 KiB around it (fault-around), so the figure is about
// the code a tool runs and not about how its file was written. Both tools
// are installed so.
func Install(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	// Not io.Copy, which would use copy_file_range, in large chunks.
	buf := make([]byte, 64<<10)
	for {
		n, rerr := in.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				out.Close()
				return err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			out.Close()
			return rerr
		}
	}
	return out.Close()
}
