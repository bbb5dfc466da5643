package strategy

import "syscall"

// acceptNonblock takes one pending connection off the listening socket fd
// without waiting, as a non-blocking, close-on-exec descriptor; EAGAIN when
// none is pending.
func acceptNonblock(fd int) (int, error) {
	nfd, _, err := syscall.Accept4(fd, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
	return nfd, err
}
