//go:build !linux

package consul_test

import "syscall"

func agentProcAttr() *syscall.SysProcAttr { return nil }
