package harness

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
)

// Machine describes where the figures were taken.
type Machine struct {
	Cores     int
	CPU       string
	Memory    string
	Kernel    string
	GoVersion string
	// Load is /proc/loadavg's 1, 5 and 15 minute averages when the
	// benchmark started: other work on the machine shows in wall times.
	Load string
	// Pressure is /proc/pressure/cpu's "some" average over 60 s: the share
	// of time some runnable task waited for a CPU.
	Pressure string
}

// ReadMachine reads the machine's description.
func ReadMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), CPU: cpuModel(), GoVersion: goVersion()}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		m.Kernel = cstr(u.Sysname[:]) + " " + cstr(u.Release[:]) + " " + cstr(u.Machine[:])
	}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		m.Memory = fmt.Sprintf("%.1f GiB", float64(si.Totalram)*float64(si.Unit)/(1<<30))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	if b, err := os.ReadFile("/proc/pressure/cpu"); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if v, ok := strings.CutPrefix(f, "avg60="); ok {
				m.Pressure = v + "%"
				break
			}
		}
	}
	return m
}

// Busy tells whether other work was competing for the CPUs when the
// benchmark started (load above the core count): wall times then
// understate what the code does on an idle machine.
func (m Machine) Busy() bool {
	var l float64
	fmt.Sscan(m.Load, &l)
	return l > float64(m.Cores)
}

// Markdown is the machine as a short list.
func (m Machine) Markdown() string {
	s := fmt.Sprintf("- machine: %d cores, %s, %s memory, %s\n- Go: %s\n- load average at start (1/5/15 min): %s; CPU pressure (some, avg60): %s\n",
		m.Cores, m.CPU, m.Memory, m.Kernel, m.GoVersion, m.Load, m.Pressure)
	if m.Busy() {
		s += "- **the machine was busy** (load above its core count): wall-time figures are low; rows per CPU-second are the steadier figure\n"
	}
	return s
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// goVersion is the toolchain that builds the binaries (go on PATH), which
// may differ from the one that built the harness.
func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}

func cstr[T int8 | uint8](b []T) string {
	var s strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		s.WriteByte(byte(c))
	}
	return s.String()
}
