package strategy

import (
	"context"
	"net"
	"os"
	"sync"

	"github.com/conclab/conclab/internal/reuseport"
)

// reservedListener holds the port of an AcceptReusePort server in the
// parent: a bound socket that never listens, so it takes no connections
// (its Accept waits for Close) while the worker processes listen on
// sockets of their own bound beside it.
type reservedListener struct {
	f    *os.File
	addr *net.TCPAddr
	done chan struct{}
	once sync.Once
}

var _ net.Listener = (*reservedListener)(nil)

// reserve holds addr's port for the workers (reuseport.Reserve).
func reserve(addr string) (*reservedListener, error) {
	f, a, err := reuseport.Reserve(addr)
	if err != nil {
		return nil, err
	}
	return &reservedListener{f: f, addr: a, done: make(chan struct{})}, nil
}

func (l *reservedListener) Accept() (net.Conn, error) {
	<-l.done
	return nil, net.ErrClosed
}

func (l *reservedListener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		err = l.f.Close()
	})
	return err
}

func (l *reservedListener) Addr() net.Addr { return l.addr }

// listenOwn is a reuseport worker's own listening socket on the port the
// parent reserved (the socket passed as reserved).
func listenOwn(reserved *os.File) (net.Listener, error) {
	a, err := reuseport.Addr(reserved)
	if err != nil {
		return nil, err
	}
	return reuseport.Listen(context.Background(), a.String())
}
