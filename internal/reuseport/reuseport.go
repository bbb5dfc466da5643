// Package reuseport gives several processes listening sockets of their own
// on one TCP port (Linux's SO_REUSEPORT), as gunicorn's --reuse-port does:
// the kernel then spreads incoming connections over the listening sockets
// by a hash of each connection's addresses, instead of every process
// waiting on one shared socket.
//
// Reserve holds a port without taking connections (a bound socket that
// never listens), so that workers started later can Listen on it with no
// race for the port. Both are Linux only; elsewhere they return
// ErrUnsupported.
package reuseport

import "errors"

// ErrUnsupported is returned where SO_REUSEPORT does not spread
// connections (every system but Linux).
var ErrUnsupported = errors.New("reuseport: SO_REUSEPORT's load spreading needs Linux")
