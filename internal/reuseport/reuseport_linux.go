//go:build linux

package reuseport

import (
	"context"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Reserve binds a TCP socket with SO_REUSEPORT to addr (an IPv4 host:port,
// port 0 for any free one) without listening, and returns it with the
// address it got. Sockets of the same user that set SO_REUSEPORT (Listen,
// gunicorn --reuse-port) can bind the same port beside it; it takes no
// connections itself — only listening sockets do — and keeps the port
// from anyone else until it is closed. The caller must close the file.
func Reserve(addr string) (*os.File, *net.TCPAddr, error) {
	ta, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("reuseport: reserve %q: %w", addr, err)
	}
	ip := ta.IP.To4()
	if ip == nil {
		ip = net.IPv4zero.To4()
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("reuseport: socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), "reserved "+addr)
	fail := func(what string, err error) (*os.File, *net.TCPAddr, error) {
		f.Close()
		return nil, nil, fmt.Errorf("reuseport: reserve %q: %s: %w", addr, what, err)
	}
	if err := setReuse(fd); err != nil {
		return fail("setsockopt", err)
	}
	sa := &unix.SockaddrInet4{Port: ta.Port}
	copy(sa.Addr[:], ip)
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	got, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	in4, ok := got.(*unix.SockaddrInet4)
	if !ok {
		return fail("getsockname", fmt.Errorf("bound to %T", got))
	}
	return f, &net.TCPAddr{IP: net.IP(append([]byte(nil), in4.Addr[:]...)), Port: in4.Port}, nil
}

// Addr is the address a reserved socket (Reserve's file) is bound to.
func Addr(f *os.File) (*net.TCPAddr, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("reuseport: %w", err)
	}
	var sa unix.Sockaddr
	var serr error
	if err := rc.Control(func(fd uintptr) { sa, serr = unix.Getsockname(int(fd)) }); err != nil {
		return nil, fmt.Errorf("reuseport: %w", err)
	}
	if serr != nil {
		return nil, fmt.Errorf("reuseport: getsockname: %w", serr)
	}
	in4, ok := sa.(*unix.SockaddrInet4)
	if !ok {
		return nil, fmt.Errorf("reuseport: socket bound to %T, want IPv4", sa)
	}
	return &net.TCPAddr{IP: net.IP(append([]byte(nil), in4.Addr[:]...)), Port: in4.Port}, nil
}

// Listen opens a listening socket of this process's own on addr with
// SO_REUSEPORT (and TCP_NODELAY, inherited by its connections), beside any
// others bound to the port the same way.
func Listen(ctx context.Context, addr string) (*net.TCPListener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = setReuse(int(fd)) }); err != nil {
			return err
		}
		return serr
	}}
	ln, err := lc.Listen(ctx, "tcp4", addr)
	if err != nil {
		return nil, fmt.Errorf("reuseport: listen %q: %w", addr, err)
	}
	return ln.(*net.TCPListener), nil
}

func setReuse(fd int) error {
	for _, opt := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT} {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 1); err != nil {
			return err
		}
	}
	return nil
}
