//go:build unix && !linux

package eval

import "syscall"

func setDeathSignal(*syscall.SysProcAttr) {}
