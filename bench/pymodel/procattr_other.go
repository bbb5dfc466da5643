//go:build !linux

package pymodel

import "syscall"

// workerAttr is nothing where there is no parent-death signal: a worker
// ends when its pipes to the process that started it close.
func workerAttr() *syscall.SysProcAttr { return nil }
