package proctree_test

import (
	"fmt"
	"strconv"
	"strings"
)

func fmtSscan(s string, pid *int) (int, error) { return fmt.Sscan(strings.TrimSpace(s), pid) }

func itoa(n int) string { return strconv.Itoa(n) }

// isZombie reports whether a /proc/PID/stat line is a zombie's ("Z" state).
func isZombie(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
