package consul_test

import "syscall"

// agentProcAttr kills the agent if the test binary dies first (a panic, a
// test timeout), so no agent outlives its tests.
func agentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
