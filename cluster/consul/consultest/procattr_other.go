//go:build !linux

package consultest

import "syscall"

// procAttr: only Linux can tie a child's life to its parent's; elsewhere
// Stop is what ends the agent.
func procAttr() *syscall.SysProcAttr { return nil }
