package pymodel

import "syscall"

// workerAttr makes a worker process die with the one that started it: the
// kernel sends it SIGKILL when its parent goes, however that ends.
func workerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
