//go:build !linux

package workload

import "errors"

func setPipeSize(fd uintptr, n int) error {
	return errors.New("setting a pipe's size needs Linux")
}
