//go:build !linux

package eval

// sockets are unknown off Linux: an interrupt leaves listeners to the
// contexts that reach them.
type sockets map[string]int

func openSockets() sockets { return nil }

func shutDownNewListeners(sockets) int { return 0 }
