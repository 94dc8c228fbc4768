package cluster

import "syscall"

// childAttr kills a child (a node) if the test binary dies first (a panic,
// a test timeout), so nothing outlives the tests; consultest does the same
// for the Consul agent.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
