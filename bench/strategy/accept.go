package strategy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// How the worker processes of a prefork server (Gunicorn, or Uvicorn with
// Workers > 1) share the connections arriving on their listening socket:
// the Accept field of those strategies.
const (
	// AcceptGreedy is what real gunicorn and uvicorn --workers do by
	// default: every worker waits on the one shared listening socket, a
	// connection wakes them all, and the first whose loop reaches accept
	// takes what is pending as fast as it can; the others find the queue
	// empty and sleep again. A
	// uvicorn worker (asyncio's accept callback; gunicorn's own asgi worker
	// accepts the same way) drains every pending connection in one hold of
	// its GIL, handing each to its loop, giving the GIL up only when a
	// thread of its own has waited a switch interval for it: a burst lands
	// mostly on one worker. A gthread worker (gunicorn's Flask rows) takes
	// one connection per poll of its selector and submits it to its pool
	// in the same turn (gunicorn 27), and each poll takes the GIL again:
	// idle, it drains a burst as greedily, but while its threads burn
	// Python it gets the GIL — so another connection — only every switch
	// interval or so, and the other workers take the rest.
	AcceptGreedy = "greedy"
	// AcceptReusePort is gunicorn's --reuse-port: each worker listens on a
	// socket of its own, bound to the same port with SO_REUSEPORT (Linux),
	// and the kernel spreads the connections over those sockets by a hash
	// of each one's addresses, whoever is busy; each worker then accepts
	// from its own socket as AcceptGreedy does. A burst of n over W workers
	// splits as n draws of 1..W: 10 over two came out 5/5 to 9/1, 6/4 most
	// often, in the real servers and here.
	AcceptReusePort = "reuseport"
	// AcceptBalanced is the "what if": the workers take turns, one
	// connection each in a fixed round (an accept token passed round the
	// processes through pipes), so every worker's share of a burst of n
	// is n/Workers rounded down or up.
	AcceptBalanced = "balanced"
)

// checkAccept reports an Accept value that is not one of the policies.
func checkAccept(label, accept string) error {
	switch accept {
	case "", AcceptGreedy, AcceptReusePort, AcceptBalanced:
		return nil
	}
	return fmt.Errorf("strategy %q: Accept must be %q, %q or %q (\"\" means %q), got %q",
		label, AcceptGreedy, AcceptReusePort, AcceptBalanced, AcceptGreedy, accept)
}

// The accept loop's own costs in a modelled worker process.
const (
	// acceptCost is the Python work of taking one connection, done holding
	// the worker's GIL: gthread's accept, TConn set-up and thread-pool
	// submit, all on one poll since gunicorn 27; the balanced policy's
	// accept, either server's. Measured on a 2-core machine as the gap
	// between two accepts of an idle real gthread worker draining a burst
	// of 10 (perf's accept4 exits, gunicorn 27.0.1 on CPython 3.11.2:
	// 19-35 µs, 25 typical; gunicorn 20.1's accept-then-submit on two
	// polls took 50-60 µs).
	acceptCost = 25 * time.Microsecond
	// asyncioAcceptCost is a uvicorn worker's (and gunicorn's asgi
	// worker's): asyncio's _accept_connection takes every pending
	// connection in one callback, each a sock.accept(), setblocking and a
	// task for the transport's set-up, which runs later. Measured on a
	// 2-core machine as the gap between accepts of an idle worker draining
	// a burst of 10 (perf's accept4 exits, CPython 3.11.2's asyncio:
	// uvicorn 0.54's worker 9-20 µs, 12 typical; gunicorn 27's asgi worker
	// and uvicorn --workers the same). The worker whose loop reaches
	// accept first so drains a burst before the others' turns get there,
	// as real ones do.
	asyncioAcceptCost = 12 * time.Microsecond
	// asyncioWakeCost is a uvicorn worker's loop turn from its selector's
	// wake to the accept callback's first accept, holding the GIL:
	// _run_once handling the selector's events and calling the reader's
	// handle. Measured on a 2-core machine as the gap from an idle
	// worker's epoll_wait return to its first accept4 for a burst of 10
	// (perf trace, uvicorn 0.54 on CPython 3.11.2): 108 µs median, perf's
	// own cost per traced syscall taken off. Every worker woken by the
	// same connection runs it before it can accept, so by then the burst
	// is queued and the first to reach accept takes most of it.
	asyncioWakeCost = 95 * time.Microsecond
	// workerConnections is gunicorn's --worker-connections default: a
	// gthread worker accepts while it has fewer connections open. asyncio
	// has no such bound (uvicorn's --limit-concurrency is off by default);
	// the same number bounds it here.
	workerConnections = 1000
)

// acceptorLane is the lane of a prefork worker's accept loop in traces.
const acceptorLane = "acceptor"

// acceptor is a prefork worker's accept loop over its share of the
// listening socket, as a net.Listener for the worker's HTTP server: run
// (started once the worker's runtime, hence its GIL, exists) accepts by the
// policy and hands each connection to Accept.
type acceptor struct {
	ln     *net.TCPListener
	raw    syscall.RawConn
	policy string
	// perPoll is gthread's loop (AcceptGreedy): one accept and submit per
	// poll, the GIL taken for each.
	perPoll bool
	rec     *trace.Recorder
	worker  int
	// turnIn and turnOut carry the balanced policy's accept token: read
	// one byte before accepting, write it on after.
	turnIn, turnOut *os.File

	// stopR wakes a poll for pending connections when Close closes stopW;
	// pollMu is held while polling, so that Close closes stopR only after.
	stopR, stopW *os.File
	stopFd       int
	pollMu       sync.Mutex

	conns chan net.Conn
	slots chan struct{} // open connections, up to workerConnections
	done  chan struct{}
	once  sync.Once
}

var _ net.Listener = (*acceptor)(nil)

func newAcceptor(ln net.Listener, policy string, rec *trace.Recorder, worker int, turnIn, turnOut *os.File) (*acceptor, error) {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return nil, fmt.Errorf("prefork worker: want a TCP listener, got %T", ln)
	}
	raw, err := tl.SyscallConn()
	if err != nil {
		return nil, err
	}
	if policy == "" {
		policy = AcceptGreedy
	}
	if policy == AcceptBalanced && (turnIn == nil || turnOut == nil) {
		return nil, errors.New("prefork worker: balanced accept without its turn pipes")
	}
	stopR, stopW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("prefork worker: %w", err)
	}
	return &acceptor{ln: tl, raw: raw, policy: policy, rec: rec, worker: worker, turnIn: turnIn, turnOut: turnOut,
		stopR: stopR, stopW: stopW, stopFd: int(stopR.Fd()),
		conns: make(chan net.Conn), slots: make(chan struct{}, workerConnections), done: make(chan struct{})}, nil
}

// Accept returns the next connection the loop took.
func (a *acceptor) Accept() (net.Conn, error) {
	select {
	case c := <-a.conns:
		return c, nil
	case <-a.done:
		return nil, net.ErrClosed
	}
}

// Close stops the loop and closes the socket. Safe to call twice.
func (a *acceptor) Close() error {
	var err error
	a.once.Do(func() {
		close(a.done)
		// Wake a poll first: the socket's Close waits for it to return.
		a.stopW.Close()
		err = a.ln.Close()
		if a.turnIn != nil {
			a.turnIn.Close()
			a.turnOut.Close()
		}
		a.pollMu.Lock()
		a.stopR.Close()
		a.pollMu.Unlock()
	})
	return err
}

func (a *acceptor) Addr() net.Addr { return a.ln.Addr() }

// run is the accept loop; it returns when the socket is closed. gil is the
// worker's GIL.
func (a *acceptor) run(gil *pymodel.GIL) {
	defer a.Close()
	turn := a.asyncioTurn
	switch {
	case a.policy == AcceptBalanced:
		turn = a.balancedTurn
	case a.perPoll:
		turn = a.pollTurn
	}
	for turn(gil) {
	}
}

// balancedTurn waits for the accept token, takes one connection, does the
// Python work of its accept and passes the token on. False when the loop
// is closing.
func (a *acceptor) balancedTurn(gil *pymodel.GIL) bool {
	tok := make([]byte, 1)
	if _, err := a.turnIn.Read(tok); err != nil {
		return false
	}
	c, err := a.accept(true)
	if err != nil {
		a.fail(err)
		return false
	}
	h := a.hold(gil)
	spin(acceptCost)
	a.rec.Span(0, a.worker, acceptorLane, trace.Accept, h)
	a.unhold(gil, h)
	_, werr := a.turnOut.Write(tok)
	return a.deliver(c) && werr == nil
}

// pollTurn is one poll of gthread's loop: one connection, accepted and
// submitted to the pool in the same turn; each poll returned from a
// select that released the GIL, and takes it again. False when the loop
// is closing.
func (a *acceptor) pollTurn(gil *pymodel.GIL) bool {
	c, err := a.accept(true)
	if err != nil {
		a.fail(err)
		return false
	}
	h := a.hold(gil)
	t0 := time.Now()
	spin(acceptCost)
	a.rec.Span(0, a.worker, acceptorLane, trace.Accept, t0)
	a.unhold(gil, h)
	return a.deliver(c)
}

// asyncioTurn is one turn of a uvicorn worker's loop on the socket
// (AcceptGreedy): asleep in its selector without the GIL until a
// connection is pending; woken, it takes the GIL, runs the loop's turn up
// to the accept callback, then accepts every pending connection, each
// handed to the server at once, letting a thread that has waited the
// switch interval have the GIL in between. A worker woken with the others
// by the same connection (no EPOLLEXCLUSIVE) may find the queue empty by
// the time its turn reaches accept: it sleeps again. False when the loop
// is closing.
func (a *acceptor) asyncioTurn(gil *pymodel.GIL) bool {
	if err := a.waitPending(); err != nil {
		a.fail(err)
		return false
	}
	h := a.hold(gil)
	defer func() { a.unhold(gil, h) }()
	spin(asyncioWakeCost)
	for {
		c, err := a.accept(false)
		if err != nil {
			a.fail(err)
			return false
		}
		if c == nil {
			return true
		}
		t0 := time.Now()
		spin(asyncioAcceptCost)
		a.rec.Span(0, a.worker, acceptorLane, trace.Accept, t0)
		if !a.deliver(c) {
			return false
		}
		if time.Since(h) >= gil.Interval() {
			// CPython's forced switch: a thread waiting this long gets
			// the GIL (with none waiting, it comes straight back).
			a.unhold(gil, h)
			h = a.hold(gil)
		}
	}
}

// waitPending sleeps, without the GIL, until a connection is pending on
// the socket and the worker has a connection slot free. It polls the socket
// (poll(2), level-triggered, not exclusive): every worker asleep on it
// wakes for the same connection, as asyncio's selectors do, and none takes
// it yet. Go's own Accept would take the connection the moment the poller
// wakes, before the loop's turn that a real worker runs first.
func (a *acceptor) waitPending() error {
	select {
	case a.slots <- struct{}{}:
		<-a.slots
	case <-a.done:
		return net.ErrClosed
	}
	a.pollMu.Lock()
	defer a.pollMu.Unlock()
	select {
	case <-a.done:
		return net.ErrClosed
	default:
	}
	var perr error
	// Control holds a reference to the socket: its Close waits for the
	// poll, which Close wakes through stopR first.
	if err := a.raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{
			{Fd: int32(fd), Events: unix.POLLIN},
			{Fd: int32(a.stopFd), Events: unix.POLLIN},
		}
		for {
			_, err := unix.Poll(fds, -1)
			switch {
			case err == unix.EINTR:
				continue
			case err != nil:
				perr = fmt.Errorf("prefork worker: poll: %w", err)
			case fds[1].Revents != 0:
				perr = net.ErrClosed
			}
			// Readable, or an error condition (POLLERR, POLLHUP,
			// POLLNVAL): the accept that follows finds a connection,
			// nothing, or the socket's error, and says which.
			return
		}
	}); err != nil {
		return err
	}
	return perr
}

// hold takes the GIL for the accept loop, tracing the wait, and returns
// when it got it.
func (a *acceptor) hold(gil *pymodel.GIL) time.Time {
	t0 := time.Now()
	gil.Acquire()
	got := time.Now()
	if got.Sub(t0) > 10*time.Microsecond && a.rec != nil {
		a.rec.Add(trace.Event{Worker: a.worker, Thread: acceptorLane, Phase: trace.GILWait, Start: t0.UnixNano(), End: got.UnixNano()})
	}
	return got
}

// unhold releases the GIL taken at since, tracing the interval held (inside
// the lock's own: the clock is read after taking and before releasing).
func (a *acceptor) unhold(gil *pymodel.GIL, since time.Time) {
	if a.rec != nil {
		a.rec.Add(trace.Event{Worker: a.worker, Thread: acceptorLane, Phase: trace.GIL, Start: since.UnixNano(), End: time.Now().UnixNano()})
	}
	gil.Release()
}

// fail reports an accept error other than the socket's closing on the
// worker's stderr (the parent shows its tail if the worker dies).
func (a *acceptor) fail(err error) {
	select {
	case <-a.done:
	default:
		if !errors.Is(err, net.ErrClosed) {
			fmt.Fprintln(os.Stderr, "strategy: prefork worker:", err)
		}
	}
}

// accept takes one connection off the socket: block waits until one is
// pending and a connection slot is free; otherwise it returns (nil, nil)
// when none is pending or no slot is free (a non-blocking accept4, as the
// Python loops make once awake).
func (a *acceptor) accept(block bool) (net.Conn, error) {
	if !block {
		// Draining while holding the GIL: with every connection slot
		// taken (worker_connections open), stop — as gthread stops
		// polling the socket — rather than wait for a slot that only a
		// handler, which needs the GIL, could free.
		select {
		case a.slots <- struct{}{}:
		case <-a.done:
			return nil, net.ErrClosed
		default:
			return nil, nil
		}
	} else {
		select {
		case a.slots <- struct{}{}:
		case <-a.done:
			return nil, net.ErrClosed
		}
	}
	if block {
		// Go's Accept tries accept4 and, finding nothing, waits in the
		// netpoller: the worker asleep on the socket.
		c, err := a.ln.Accept()
		if err != nil {
			<-a.slots
			return nil, err
		}
		return &slotConn{Conn: c, slots: a.slots}, nil
	}
	var nfd int
	var aerr error
	if err := a.raw.Control(func(fd uintptr) {
		nfd, aerr = acceptNonblock(int(fd))
	}); err != nil {
		<-a.slots
		return nil, err
	}
	if aerr == syscall.EAGAIN || aerr == syscall.EINTR || aerr == syscall.ECONNABORTED {
		<-a.slots
		return nil, nil
	}
	if aerr != nil {
		<-a.slots
		return nil, fmt.Errorf("prefork worker: accept: %w", aerr)
	}
	f := os.NewFile(uintptr(nfd), "conn")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		<-a.slots
		return nil, fmt.Errorf("prefork worker: accepted connection: %w", err)
	}
	return &slotConn{Conn: c, slots: a.slots}, nil
}

// deliver hands c to the worker's server; false when the loop is closing.
func (a *acceptor) deliver(c net.Conn) bool {
	select {
	case a.conns <- c:
		return true
	case <-a.done:
		c.Close()
		return false
	}
}

// slotConn frees its place among the worker's open connections on Close.
type slotConn struct {
	net.Conn
	slots chan struct{}
	once  sync.Once
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.slots })
	return err
}

// spin burns the CPU for d on the calling goroutine (the accept loop's
// Python work, done holding the GIL).
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
