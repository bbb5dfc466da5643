//go:build linux

package load

import (
	"container/heap"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/conclab/conclab/bench/metrics"
)

// The event loops: closed-model VUs over plain HTTP/1.1 on Linux run on a
// few epoll loops rather than a goroutine per VU, as wrk runs its
// connections. A loop owns its VUs' non-blocking sockets, registered once
// for readability (level-triggered), and turns each event into the next
// step of that VU: connect, write the request, read and parse the
// response (respParser), record it, think, send the next (the next
// requests of a batch of events after all its reads, as wrk's). Per
// request that is one write and one read, with epoll_wait shared by every connection
// ready at once — no goroutine parked and woken per request, no deadline
// timer set, no read that finds nothing — which is what lets the
// generator use less CPU per request than wrk, leaving more of a shared
// machine to the target. Behaviour is the goroutines' (the same counts, outcomes, errors
// and stops); request timeouts are checked every tenth of Timeout (at
// most 100 ms, at least 1 ms).

// loopsFor is how many event loops run n VUs: one per CPU the process may
// use (wrk's thread per core), at most one per VU.
func loopsFor(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n)) }

// A loop waits for its epoll instance through Go's own poller: the epoll
// descriptor is itself pollable (readable when one of its sockets is
// ready), so the loop looks with a non-blocking epoll_wait and, finding
// nothing, parks like any goroutine waiting for a socket, its P free for
// the rest of the process — an in-process server, the series cuts. A
// blocking epoll_wait would hold the P (a raw call) or, as an ordinary
// blocking call, keep the scheduler's monitor handing Ps over (twice the
// context switches a request). The wait's timeout is the file's read
// deadline.

// runLoops runs the closed-model VUs of p on event loops if it can: plain
// HTTP/1.1 over TCP, every VU active from the start (no ramp), a target
// address that resolves. It reports false, having done nothing, when it
// cannot; the caller then runs a goroutine per VU.
func (e *engine) runLoops(p vuPlan) bool {
	t, ok := e.tr.(*h1)
	if !ok || t.tlsConf != nil || p.schedule != nil || e.cfg.o.goroutinesOnly {
		return false
	}
	addr, err := net.ResolveTCPAddr("tcp", t.addr)
	if err != nil {
		return false
	}
	// A Sockaddr is written to by each connect: every loop has its own.
	sockaddr := func() (unix.Sockaddr, int) {
		if ip4 := addr.IP.To4(); ip4 != nil {
			s := &unix.SockaddrInet4{Port: addr.Port}
			copy(s.Addr[:], ip4)
			return s, unix.AF_INET
		}
		s := &unix.SockaddrInet6{Port: addr.Port}
		copy(s.Addr[:], addr.IP.To16())
		if addr.Zone != "" {
			if ifi, err := net.InterfaceByName(addr.Zone); err == nil {
				s.ZoneId = uint32(ifi.Index)
			}
		}
		return s, unix.AF_INET6
	}
	n := loopsFor(p.vus)
	loops := make([]*evloop, 0, n)
	for i := 0; i < n; i++ {
		sa, family := sockaddr()
		l, err := newEvloop(e, t, &p, addr, sa, family, i)
		if err != nil {
			for _, l := range loops {
				l.closeFDs()
			}
			return false
		}
		loops = append(loops, l)
	}
	var started atomic.Int64 // requests taken against p.total, by every loop
	for vu := 0; vu < p.vus; vu++ {
		l := loops[vu%n]
		l.conns = append(l.conns, &lconn{vu: vu, idx: len(l.conns), fd: -1, p: respParser{head: t.head}})
	}
	e.setLevel(float64(p.vus))
	ended := make(chan struct{})
	go func() { // the stops wake the loops
		for _, stop := range []<-chan struct{}{e.stopNew, e.hard.Done()} {
			select {
			case <-stop:
				for _, l := range loops {
					l.signal()
				}
			case <-ended:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for _, l := range loops {
		l.started = &started
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.run()
		}()
	}
	wg.Wait()
	close(ended)
	return true
}

// lstate is where a VU is in its request cycle.
type lstate uint8

const (
	lIdle       lstate = iota // between requests
	lConnecting               // a non-blocking connect in progress
	lWriting                  // the request partly written
	lReading                  // the response not yet complete
	lThinking                 // until wake
	lDone
)

// lconn is one VU of a loop: its connection and the request in flight.
type lconn struct {
	vu       int
	idx      int // in its loop's conns
	fd       int // -1: no connection
	st       lstate
	wantOut  bool // registered for writability (a connect, a partial write)
	off      int  // request bytes written
	dialed   time.Time
	sent     time.Time
	deadline time.Time
	wrote    time.Time // phases: when the request was written
	first    time.Time // phases: when the response began
	wake     time.Time // thinking until
	hidx     int       // index in the think heap
	iter     int
	cid      int64
	reused   bool // the request went out on a kept-alive connection
	retried  bool // and was retried once on a fresh one
	p        respParser
	s        metrics.Sample
	batch    []Request
}

type evloop struct {
	e       *engine
	pf      *os.File        // the epoll descriptor, in Go's poller
	rc      syscall.RawConn // its raw access
	dl      time.Time       // pf's read deadline
	t       *h1
	p       *vuPlan
	addr    *net.TCPAddr
	sa      unix.Sockaddr
	family  int
	started *atomic.Int64
	shard   int // the loop's own shard of the recorder: loops never share one
	ep      int // the epoll instance
	wake    int // an eventfd the stops write to
	conns   []*lconn
	events  []unix.EpollEvent
	// rbuf is the loop's one read buffer: a read is parsed before the
	// next (the parser copies a line cut by the end of a read), so the
	// VUs share it — a few cache lines that stay hot, where a buffer per
	// VU had each read land in lines of its own (8 MB at 1,000 VUs).
	rbuf  []byte
	think thinkHeap
	// While a batch of events is handled (batching), the VUs whose
	// response came wait in sendq and their next requests go out after the
	// batch: the reads together, then the writes together, so the target
	// finds them ready together, as wrk's requests (it writes in the pass
	// after its reads). At 1,000 connections that cost 3 % less CPU a
	// request, client and server together; at 50 the same.
	batching bool
	sendq    []*lconn
	// Requests taken from the run's shared counters in batches (and not
	// yet sent), and results not yet added to them: loops on different
	// CPUs then do not pass the counters' cache lines back and forth on
	// every request.
	tickets, totals int64 // of MaxRequests (engine.issued), of the total (started)
	done, errs      int64 // to add to engine.done, engine.errs
	live            int   // VUs not done
	busy            int   // VUs with a request in flight (connecting, writing, reading)
	soft            bool  // no new request
	hard            bool  // requests in flight are cut off
	scan            time.Duration
	scanAt          time.Time
	// poll is pollEvents as the func rc.Read takes, made once: a closure
	// made per wait would cost allocations on every park.
	poll    func(uintptr) bool
	polled  int   // what the last pollEvents found
	pollErr error // and its error
}

func newEvloop(e *engine, t *h1, p *vuPlan, addr *net.TCPAddr, sa unix.Sockaddr, family, shard int) (*evloop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: 0}); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, err
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, err
	}
	pf := os.NewFile(uintptr(ep), "epoll") // pollable: non-blocking
	rc, err := pf.SyscallConn()
	if err != nil {
		pf.Close()
		unix.Close(wake)
		return nil, err
	}
	scan := min(max(e.cfg.o.Timeout/10, time.Millisecond), 100*time.Millisecond)
	l := &evloop{e: e, t: t, p: p, addr: addr, sa: sa, family: family, shard: shard, ep: ep, wake: wake, pf: pf, rc: rc,
		events: make([]unix.EpollEvent, 256), rbuf: make([]byte, readBufSize), scan: scan}
	l.poll = l.pollEvents
	return l, nil
}

func (l *evloop) closeFDs() {
	l.pf.Close() // the epoll descriptor
	unix.Close(l.wake)
}

// signal wakes the loop to look at the stops.
func (l *evloop) signal() {
	one := [8]byte{1}
	_, _ = unix.Write(l.wake, one[:])
}

func (l *evloop) run() {
	defer l.closeFDs()
	defer l.settle()
	l.live = len(l.conns)
	l.scanAt = time.Now().Add(l.scan)
	l.onWake() // a run stopped before it started
	for _, c := range l.conns {
		if c.st != lDone {
			l.next(c)
		}
	}
	for l.live > 0 {
		n, err := l.wait()
		if err != nil {
			l.abort(err)
			return
		}
		l.batching = true
		for _, ev := range l.events[:n] {
			if ev.Fd == 0 {
				l.onWake()
				continue
			}
			c := l.conns[ev.Fd-1]
			switch c.st {
			case lConnecting:
				l.connected(c)
			case lWriting:
				l.write(c)
			case lReading:
				l.read(c)
			default: // idle or thinking: the server closed the kept-alive connection, or said more than asked
				l.closeConn(c)
			}
		}
		l.batching = false
		for i := 0; i < len(l.sendq); i++ { // the batch's next requests, together
			if c := l.sendq[i]; c.st == lIdle { // not ended by a stop meanwhile
				l.next(c)
			}
		}
		l.sendq = l.sendq[:0]
		l.timers(time.Now())
	}
}

// wait waits for events until the next think wake-up or timeout scan:
// a non-blocking epoll_wait, then, finding nothing, a park in Go's poller
// until the epoll descriptor is readable or the deadline passes.
func (l *evloop) wait() (int, error) {
	var next time.Time
	if len(l.think) > 0 {
		next = l.think[0].wake
	}
	if l.inFlight() && (next.IsZero() || l.scanAt.Before(next)) {
		next = l.scanAt
	}
	if !next.Equal(l.dl) {
		if err := l.pf.SetReadDeadline(next); err != nil {
			return 0, err
		}
		l.dl = next
	}
	l.polled, l.pollErr = 0, nil
	err := l.rc.Read(l.poll)
	n, werr := l.polled, l.pollErr
	switch {
	case werr != nil && werr != unix.EINTR:
		return 0, werr
	case err != nil && !errors.Is(err, os.ErrDeadlineExceeded):
		return 0, err
	}
	return n, nil
}

// pollEvents is the non-blocking look wait makes each time Go's poller
// says the epoll descriptor may be ready: done when it found events or
// failed.
func (l *evloop) pollEvents(uintptr) bool {
	l.polled, l.pollErr = epollPoll(l.ep, l.events)
	return l.polled > 0 || (l.pollErr != nil && l.pollErr != unix.EINTR)
}

// epollPoll is a non-blocking epoll_wait, without the scheduler's syscall
// bookkeeping (it cannot block).
func epollPoll(ep int, events []unix.EpollEvent) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func (l *evloop) inFlight() bool { return l.busy > 0 }

// set moves c to state st, keeping count of the requests in flight.
func (l *evloop) set(c *lconn, st lstate) {
	was, is := flying(c.st), flying(st)
	switch {
	case is && !was:
		l.busy++
	case was && !is:
		l.busy--
	}
	c.st = st
}

func flying(st lstate) bool { return st == lConnecting || st == lWriting || st == lReading }

// onWake looks at the stops: at the soft stop the VUs that are thinking
// end; at the hard stop the requests in flight are cut off too.
func (l *evloop) onWake() {
	var b [8]byte
	_, _ = unix.Read(l.wake, b[:])
	if !l.soft {
		select {
		case <-l.e.stopNew:
			l.soft = true
		default:
		}
	}
	if l.e.hard.Err() != nil {
		l.soft, l.hard = true, true
	}
	if !l.soft {
		return
	}
	for _, c := range l.conns {
		switch c.st {
		case lThinking:
			heap.Remove(&l.think, c.hidx)
			l.finish(c)
		case lIdle:
			l.finish(c)
		case lConnecting, lWriting, lReading:
			if l.hard {
				c.s.Outcome, c.s.Err = metrics.Interrupted, l.e.hard.Err()
				l.record(c, time.Now(), 0)
				l.finish(c)
			}
		}
	}
}

// next starts the VU's next request, or ends the VU when its iterations,
// the run's total or the run are over.
func (l *evloop) next(c *lconn) {
	p := l.p
	if l.soft || (p.iterations > 0 && c.iter >= p.iterations) || !l.take() {
		l.finish(c)
		return
	}
	c.iter++
	c.retried = false
	l.start(c)
}

// counterBatch is how many requests a loop takes from a shared counter at
// once while the counter is far from its bound; near it (within
// counterBatch per loop, four times over) it takes them one at a time, so
// the bounds stay exact.
const counterBatch = 64

// take takes one request against the run's total and MaxRequests. When
// MaxRequests runs out the VU ends (and the others as they come to it),
// with the result's warning; the model's end is not forced as in the
// goroutines' path, so that requests taken by other loops still go out
// and the run makes exactly MaxRequests.
func (l *evloop) take() bool {
	if l.e.stopped() {
		return false
	}
	p := l.p
	if p.total > 0 && l.totals == 0 {
		if l.totals = l.reserve(l.started, p.total, p.iterations == 0); l.totals == 0 {
			return false
		}
	}
	if l.tickets == 0 {
		if l.tickets = l.reserve(&l.e.issued, l.e.maxReq, true); l.tickets == 0 {
			l.e.reason.CompareAndSwap(nil, fmt.Sprintf("stopped at MaxRequests=%d", l.e.maxReq))
			return false
		}
	}
	if p.total > 0 {
		l.totals--
	}
	l.tickets--
	return true
}

// reserve takes up to counterBatch (one when near the bound, or when
// batch is false) from counter, bounded by limit; 0 when none is left.
func (l *evloop) reserve(counter *atomic.Int64, limit int64, batch bool) int64 {
	for {
		cur := counter.Load()
		free := limit - cur
		if free <= 0 {
			return 0
		}
		k := int64(1)
		if batch && free > 4*counterBatch*int64(loopsFor(l.p.vus)) {
			k = counterBatch
		}
		if counter.CompareAndSwap(cur, cur+k) {
			return k
		}
	}
}

// settle gives back what the loop took and did not use, and adds its
// results to the run's counts.
func (l *evloop) settle() {
	if l.tickets > 0 {
		l.e.issued.Add(-l.tickets)
		l.tickets = 0
	}
	if l.totals > 0 {
		l.started.Add(-l.totals)
		l.totals = 0
	}
	l.e.done.Add(l.done)
	l.e.errs.Add(l.errs)
	l.done, l.errs = 0, 0
}

// start sends the request, on the kept-alive connection or a new one.
func (l *evloop) start(c *lconn) {
	c.s = metrics.Sample{}
	c.reused = c.fd >= 0
	if c.fd >= 0 {
		l.send(c)
		return
	}
	c.dialed = time.Now()
	c.deadline = c.dialed.Add(l.t.timeout)
	fd, err := unix.Socket(l.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.fail(c, l.dialErr(os.NewSyscallError("socket", err)), time.Now())
		return
	}
	c.fd = fd
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT, Fd: int32(c.idx + 1)}); err != nil {
		l.fail(c, l.dialErr(os.NewSyscallError("epoll_ctl", err)), time.Now())
		return
	}
	c.wantOut = true
	switch err := unix.Connect(fd, l.sa); err {
	case nil:
		l.connected(c)
	case unix.EINPROGRESS:
		l.set(c, lConnecting)
	default:
		l.fail(c, l.dialErr(os.NewSyscallError("connect", err)), time.Now())
	}
}

// connected finishes a connect: it failed, or the request goes out.
func (l *evloop) connected(c *lconn) {
	if errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || errno != 0 {
		if err == nil {
			err = syscall.Errno(errno)
		}
		l.fail(c, l.dialErr(os.NewSyscallError("connect", err)), time.Now())
		return
	}
	c.cid = l.t.conns.Add(1)
	if l.t.phases {
		c.s.Connect = time.Since(c.dialed)
	}
	l.send(c)
}

func (l *evloop) dialErr(err error) error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: l.addr, Err: err}
}

func (l *evloop) send(c *lconn) {
	c.sent = time.Now()
	c.deadline = c.sent.Add(l.t.timeout)
	c.off = 0
	l.set(c, lWriting)
	l.write(c)
}

// write writes what is left of the request; a full socket buffer waits
// for writability (a large upload), then the response is awaited.
func (l *evloop) write(c *lconn) {
	raw := l.t.raw
	for c.off < len(raw) {
		n, err := rawIO(unix.SYS_WRITE, c.fd, raw[c.off:])
		switch {
		case err == unix.EAGAIN:
			l.wantWritable(c, true)
			return
		case err == unix.EINTR:
			continue
		case err != nil:
			l.fail(c, fmt.Errorf("write: %w", &net.OpError{Op: "write", Net: "tcp", Addr: l.addr, Err: os.NewSyscallError("write", err)}), time.Now())
			return
		}
		c.off += n
	}
	l.wantWritable(c, false)
	c.s.BytesOut = int64(len(raw))
	l.set(c, lReading)
	c.p.reset()
	if l.t.phases {
		c.wrote, c.first = time.Now(), time.Time{}
	}
}

func (l *evloop) wantWritable(c *lconn, want bool) {
	if c.wantOut == want {
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(c.idx + 1)}
	if want {
		ev.Events |= unix.EPOLLOUT
	}
	_ = unix.EpollCtl(l.ep, unix.EPOLL_CTL_MOD, c.fd, &ev)
	c.wantOut = want
}

// read reads what the socket holds of the response and parses it.
func (l *evloop) read(c *lconn) {
	for {
		n, err := rawIO(unix.SYS_READ, c.fd, l.rbuf)
		switch {
		case err == unix.EAGAIN:
			return
		case err == unix.EINTR:
			continue
		case err != nil:
			l.fail(c, fmt.Errorf("read: %w", &net.OpError{Op: "read", Net: "tcp", Addr: l.addr, Err: os.NewSyscallError("read", err)}), time.Now())
			return
		case n == 0: // the server closed the connection
			done, perr := c.p.eof()
			if done {
				l.complete(c, time.Now(), false)
			} else {
				l.fail(c, fmt.Errorf("read: %w", perr), time.Now())
			}
			return
		}
		if l.t.phases && c.first.IsZero() {
			c.first = time.Now()
		}
		used, done, perr := c.p.feed(l.rbuf[:n])
		if perr != nil {
			l.fail(c, fmt.Errorf("read: %w", perr), time.Now())
			return
		}
		if done {
			l.complete(c, time.Now(), c.p.keep && used == n) // bytes beyond the response: out of step
			return
		}
		if n < len(l.rbuf) {
			return // the rest comes in a later read
		}
	}
}

// complete records a response and moves the VU on.
func (l *evloop) complete(c *lconn, done time.Time, keep bool) {
	c.s.BytesIn = c.p.n
	c.s.Outcome = outcomeOf(c.p.status)
	if l.t.phases && !c.first.IsZero() {
		c.s.Wait, c.s.Read = c.first.Sub(c.wrote), done.Sub(c.first)
	}
	if !keep || l.t.closeConn {
		l.closeConn(c)
	}
	l.record(c, done, c.p.status)
	l.after(c, done)
}

// fail records a failed request — or, when a kept-alive connection the
// server had closed fails before any byte of the response, retries it
// once on a new connection, as net/http does — and moves the VU on.
func (l *evloop) fail(c *lconn, err error, now time.Time) {
	l.closeConn(c)
	if c.reused && !c.retried && !l.hard && c.p.n == 0 && isStaleConn(err) {
		c.retried = true
		l.start(c)
		return
	}
	c.s.Err = err
	var pe *protoError
	switch {
	case l.hard:
		c.s.Outcome = metrics.Interrupted
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.s.Outcome = metrics.Timeout
	case errors.As(err, &pe):
		c.s.Outcome = metrics.Other
	default:
		c.s.Outcome = metrics.Conn
	}
	c.s.BytesIn = c.p.n
	if c.sent.Before(c.dialed) {
		c.sent = c.dialed // it failed before it was sent
	}
	l.record(c, now, 0)
	l.after(c, now)
}

// after thinks, or sends the next request.
func (l *evloop) after(c *lconn, now time.Time) {
	if l.p.think > 0 && !l.soft {
		l.set(c, lThinking)
		c.wake = now.Add(l.p.think)
		heap.Push(&l.think, c)
		return
	}
	l.set(c, lIdle)
	if l.batching {
		l.sendq = append(l.sendq, c)
		return
	}
	l.next(c)
}

// record adds the request to the results (and the raw results).
func (l *evloop) record(c *lconn, done time.Time, status int) {
	e := l.e
	c.s.Latency = done.Sub(c.sent)
	c.s.Uncorrected = c.s.Latency
	e.rec.Record(l.shard, &c.s)
	if c.s.Outcome != metrics.Interrupted {
		l.done++
		if c.s.Outcome.IsError() {
			l.errs++
		}
		if l.done >= counterBatch {
			e.done.Add(l.done)
			e.errs.Add(l.errs)
			l.done, l.errs = 0, 0
		}
	}
	if e.reqs != nil {
		if c.batch == nil {
			c.batch = e.reqs.batch()
		}
		r := Request{Intended: c.sent, Start: c.sent, Status: status, Outcome: c.s.Outcome, BytesIn: c.s.BytesIn,
			BytesOut: c.s.BytesOut, Err: c.s.Err, Worker: c.vu, Conn: c.cid}
		if c.s.Outcome.HasLatency() {
			r.Latency, r.Uncorrected = c.s.Latency, c.s.Uncorrected
		}
		c.batch = append(c.batch, r)
		if len(c.batch) == cap(c.batch) {
			c.batch = e.reqs.submit(c.batch)
		}
	}
}

// finish ends the VU.
func (l *evloop) finish(c *lconn) {
	l.closeConn(c)
	l.set(c, lDone)
	l.live--
	if l.e.reqs != nil && len(c.batch) > 0 {
		c.batch = l.e.reqs.submit(c.batch)
	}
}

func (l *evloop) closeConn(c *lconn) {
	if c.fd >= 0 {
		_ = unix.Close(c.fd) // also leaves the epoll set
		c.fd, c.wantOut = -1, false
	}
}

// timers wakes the VUs whose think is over and times out requests past
// their deadline.
func (l *evloop) timers(now time.Time) {
	for len(l.think) > 0 && !l.think[0].wake.After(now) {
		c := heap.Pop(&l.think).(*lconn)
		l.set(c, lIdle)
		l.next(c)
	}
	if now.Before(l.scanAt) {
		return
	}
	l.scanAt = now.Add(l.scan)
	for _, c := range l.conns {
		if (c.st == lConnecting || c.st == lWriting || c.st == lReading) && now.After(c.deadline) {
			var err error = fmt.Errorf("read: %w", os.ErrDeadlineExceeded)
			if c.st == lConnecting {
				err = l.dialErr(os.ErrDeadlineExceeded)
			}
			c.reused = false // no retry
			l.fail(c, err, now)
		}
	}
}

// abort ends every VU after epoll itself failed (it does not, short of a
// bug): their requests are recorded as failed with the error.
func (l *evloop) abort(err error) {
	err = fmt.Errorf("event loop: %w", err)
	for _, c := range l.conns {
		switch c.st {
		case lConnecting, lWriting, lReading:
			c.s.Outcome, c.s.Err = metrics.Other, err
			l.record(c, time.Now(), 0)
		case lThinking:
			heap.Remove(&l.think, c.hidx)
		}
		if c.st != lDone {
			l.finish(c)
		}
	}
	l.e.stop(err.Error())
}

// rawIO is a read or write on a non-blocking socket, without the
// scheduler's syscall bookkeeping (it cannot block).
func rawIO(trap uintptr, fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// thinkHeap orders thinking VUs by wake-up time.
type thinkHeap []*lconn

func (h thinkHeap) Len() int           { return len(h) }
func (h thinkHeap) Less(i, j int) bool { return h[i].wake.Before(h[j].wake) }
func (h thinkHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx, h[j].hidx = i, j
}
func (h *thinkHeap) Push(x any) {
	c := x.(*lconn)
	c.hidx = len(*h)
	*h = append(*h, c)
}
func (h *thinkHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	c.hidx = -1
	return c
}
