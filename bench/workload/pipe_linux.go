package workload

import "golang.org/x/sys/unix"

func setPipeSize(fd uintptr, n int) error {
	_, err := unix.FcntlInt(fd, unix.F_SETPIPE_SZ, n)
	return err
}
