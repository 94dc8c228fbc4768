package consultest

import "syscall"

// procAttr kills the agent if the test binary dies first (a panic, a test
// timeout), so no agent outlives its tests.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
