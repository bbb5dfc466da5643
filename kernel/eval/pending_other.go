//go:build !linux

package eval

import "errors"

// pendingBytes is unknown off Linux: sync always uses its marker.
func pendingBytes(fd uintptr) int { return -1 }

const haveRawRead = false

func rawRead(fd uintptr, b []byte) (int, error) { return 0, errors.New("raw reads unsupported") }
