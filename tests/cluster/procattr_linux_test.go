package cluster

import "syscall"

// childAttr kills a child (the Consul agent, a node) if the test binary
// dies first (a panic, a test timeout), so nothing outlives the tests.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
