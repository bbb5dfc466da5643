package proctree

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Kill sends SIGKILL to every process but this one and those in except
// whose environment holds key=token, until none is left, in a bounded
// number of passes. It returns how many processes it killed.
func Kill(key, token string, except ...int) int {
	needle := []byte(key + "=" + token + "\x00")
	self := os.Getpid()
	killed := 0
	for pass := 0; pass < 20; pass++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return killed
		}
		found := 0
	next:
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			for _, x := range except {
				if pid == x {
					continue next
				}
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !(bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				found++
			}
		}
		killed += found
		if found == 0 {
			return killed
		}
		time.Sleep(10 * time.Millisecond) // a killed process's environ reads empty once it is a zombie
	}
	return killed
}
