//go:build unix && !linux

package strategy

import "syscall"

// acceptNonblock takes one pending connection off the listening socket fd
// (non-blocking itself) without waiting, as a non-blocking, close-on-exec
// descriptor; EAGAIN when none is pending. Without accept4 the flags are set
// after the accept, under ForkLock so that no child is started in between
// and inherits the descriptor.
func acceptNonblock(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, _, err := syscall.Accept(fd)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(nfd)
	if err := syscall.SetNonblock(nfd, true); err != nil {
		syscall.Close(nfd)
		return -1, err
	}
	return nfd, nil
}
