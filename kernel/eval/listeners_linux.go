package eval

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sockets are the socket inodes of this process's open file descriptors:
// inode -> descriptor.
type sockets map[string]int

// openSockets lists this process's sockets (/proc/self/fd).
func openSockets() sockets {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	out := make(sockets, len(ents))
	for _, e := range ents {
		t, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.HasPrefix(t, "socket:[") {
			continue
		}
		if fd, err := strconv.Atoi(e.Name()); err == nil {
			out[strings.TrimSuffix(strings.TrimPrefix(t, "socket:["), "]")] = fd
		}
	}
	return out
}

// listening are the inodes of the listening TCP (IPv4, IPv6) and Unix
// stream sockets of the network namespace.
func listening() map[string]bool {
	out := map[string]bool{}
	scan := func(path string, listen func(cols []string) (string, bool)) {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			if inode, ok := listen(strings.Fields(sc.Text())); ok {
				out[inode] = true
			}
		}
	}
	tcp := func(cols []string) (string, bool) {
		return safeCol(cols, 9), len(cols) > 9 && cols[3] == "0A" // TCP_LISTEN
	}
	scan("/proc/net/tcp", tcp)
	scan("/proc/net/tcp6", tcp)
	scan("/proc/net/unix", func(cols []string) (string, bool) {
		// Num RefCount Protocol Flags Type St Inode [Path]; Flags has
		// __SO_ACCEPTCON (0x10000) for a listening socket.
		flags, err := strconv.ParseUint(safeCol(cols, 3), 16, 32)
		return safeCol(cols, 6), err == nil && flags&0x10000 != 0
	})
	return out
}

func safeCol(cols []string, i int) string {
	if i < len(cols) {
		return cols[i]
	}
	return ""
}

// shutDownNewListeners shuts down the listening sockets this process opened
// since before was taken: their ports are free at once, and the goroutines
// accepting on them get an error (http.Serve returns). It returns how many.
func shutDownNewListeners(before sockets) int {
	if before == nil {
		return 0
	}
	now := openSockets()
	var fresh []int
	for inode, fd := range now {
		if _, old := before[inode]; !old {
			fresh = append(fresh, fd)
		}
	}
	if len(fresh) == 0 {
		return 0
	}
	listen := listening()
	n := 0
	for inode, fd := range now {
		if _, old := before[inode]; old || !listen[inode] {
			continue
		}
		if syscall.Shutdown(fd, syscall.SHUT_RDWR) == nil {
			n++
		}
	}
	return n
}
