//go:build !linux

package cluster

import "syscall"

// childAttr: only Linux can tie a child's life to its parent's; elsewhere
// the tests' cleanups stop what they started.
func childAttr() *syscall.SysProcAttr { return nil }
