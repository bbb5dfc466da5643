package eval

import (
	"syscall"
	"unsafe"
)

// pendingBytes returns the number of bytes waiting in the pipe fd
// (FIONREAD), or -1 when unknown.
func pendingBytes(fd uintptr) int {
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
		return -1
	}
	return int(n)
}

const haveRawRead = true

func rawRead(fd uintptr, b []byte) (int, error) { return syscall.Read(int(fd), b) }
