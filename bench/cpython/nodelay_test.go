package cpython

import (
	"net"
	"syscall"
	"testing"
)

// TestNoDelayIsInherited: the listener handed to uvicorn as --fd has
// TCP_NODELAY, and the connections the kernel accepts on it have it too —
// what the real servers rely on, since asyncio does not set it on sockets
// it takes for Unix ones.
func TestNoDelayIsInherited(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := noDelay(ln.(*net.TCPListener)); err != nil {
		t.Fatal(err)
	}
	lf, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// accept(2) on the raw descriptor, as Python does: Go's Accept would
	// set TCP_NODELAY itself.
	nfd, _, err := syscall.Accept(int(lf.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(nfd)
	for name, fd := range map[string]int{"listener": int(lf.Fd()), "accepted": nfd} {
		v, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
		if err != nil {
			t.Fatal(err)
		}
		if v == 0 {
			t.Errorf("%s socket: TCP_NODELAY off", name)
		}
	}
}
