package strategy

import (
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// pending opens n connections to ln and waits until the kernel has
// completed them all: they are in the accept queue, none taken yet.
func pending(t *testing.T, ln net.Listener, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
}

// pendingListener listens on loopback with n connections pending (see
// pending); it is closed when the test ends.
func pendingListener(t *testing.T, n int) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	pending(t, ln, n)
	return ln
}

// take reads k connections from a, failing after 10 s.
func take(t *testing.T, a *acceptor, k int) {
	t.Helper()
	for i := 0; i < k; i++ {
		got := make(chan error, 1)
		go func() {
			c, err := a.Accept()
			if err == nil {
				c.Close()
			}
			got <- err
		}()
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("Accept %d of %d: %v", i+1, k, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Accept %d of %d: nothing after 10 s", i+1, k)
		}
	}
}

func accepts(evs []trace.Event, worker int) int {
	n := 0
	for _, e := range evs {
		if e.Worker == worker && e.Phase == trace.Accept && e.Thread == acceptorLane {
			n++
		}
	}
	return n
}

// Greedy: a uvicorn worker woken with connections pending takes every one
// of them, in one hold of its GIL (nobody else waits for it), after its
// loop's turn; a worker that starts on the same socket after that drain
// gets only what arrives later.
func TestAcceptGreedyDrainsPending(t *testing.T) {
	t.Parallel()
	const n = 8
	ln := pendingListener(t, n)
	rec := trace.NewRecorder(1000)
	a, err := newAcceptor(ln, AcceptGreedy, rec, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// A long switch interval: nothing forces the loop off the GIL however
	// slowly this machine hands the connections over.
	go a.run(pymodel.NewGIL(time.Minute, false))
	take(t, a, n)
	// The hold is traced once the loop finds the queue empty and lets go.
	tr := rec.Snapshot()
	for end := time.Now().Add(5 * time.Second); len(trace.Filter(tr.Events, trace.GIL)) == 0 && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
		tr = rec.Snapshot()
	}
	if got := accepts(tr.Events, 1); got != n {
		t.Errorf("worker 1 accepted %d; want all %d pending", got, n)
	}
	holds := trace.Filter(tr.Events, trace.GIL)
	if len(holds) != 1 {
		t.Fatalf("GIL held %d times for %d pending connections; want once (a drain)", len(holds), n)
	}
	for _, e := range trace.Filter(tr.Events, trace.Accept) {
		if e.Start < holds[0].Start || e.End > holds[0].End {
			t.Errorf("accept %+v outside the GIL hold %+v", e, holds[0])
		}
	}
	// A second worker waking now finds the queue empty: a new
	// connection is the first it gets.
	ln2, err := net.FileListener(mustFile(t, ln))
	if err != nil {
		t.Fatal(err)
	}
	b, err := newAcceptor(ln2, AcceptGreedy, rec, 2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a.Close()
	go b.run(pymodel.NewGIL(0, false))
	pending(t, ln, 1)
	take(t, b, 1)
	if got := accepts(rec.Snapshot().Events, 2); got != 1 {
		t.Errorf("worker 2 accepted %d; want the 1 that came after the drain", got)
	}
}

// gthread's loop (gunicorn 27): one accept and submit per poll, so each
// connection takes the GIL once, the accept inside that hold — idle, it
// still takes every pending connection.
func TestAcceptPerPollTakesOneTurnEach(t *testing.T) {
	t.Parallel()
	const n = 5
	ln := pendingListener(t, n)
	rec := trace.NewRecorder(1000)
	a, err := newAcceptor(ln, AcceptGreedy, rec, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.perPoll = true
	defer a.Close()
	go a.run(pymodel.NewGIL(time.Minute, false))
	take(t, a, n)
	// The n-th connection's hold ends before it is handed over.
	tr := rec.Snapshot()
	if got := accepts(tr.Events, 1); got != n {
		t.Errorf("accepted %d; want all %d pending", got, n)
	}
	holds := trace.Filter(tr.Events, trace.GIL)
	if len(holds) != n {
		t.Fatalf("GIL held %d times for %d connections; want %d (one poll each)", len(holds), n, n)
	}
	for i, e := range trace.Filter(tr.Events, trace.Accept) {
		if h := holds[i]; e.Start < h.Start || e.End > h.End {
			t.Errorf("accept %d %+v outside its poll's GIL hold %+v", i, e, h)
		}
	}
}

func mustFile(t *testing.T, ln net.Listener) *os.File {
	t.Helper()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Greedy under a busy GIL: the accept loop waits for the worker's GIL
// (gil_wait on the acceptor lane) while a thread holds it, and takes
// nothing until it gets it.
func TestAcceptGreedyWaitsForGIL(t *testing.T) {
	t.Parallel()
	ln := pendingListener(t, 3)
	gil := pymodel.NewGIL(time.Minute, false)
	gil.Acquire() // a thread burning Python
	rec := trace.NewRecorder(1000)
	a, err := newAcceptor(ln, "", rec, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	go a.run(gil)
	got := make(chan net.Conn, 1)
	go func() {
		c, err := a.Accept()
		if err == nil {
			got <- c
		}
	}()
	select {
	case c := <-got:
		c.Close()
		t.Fatal("a connection was handed over while another thread held the GIL")
	case <-time.After(50 * time.Millisecond):
	}
	gil.Release()
	select {
	case c := <-got:
		c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("no connection after the GIL was released")
	}
	take(t, a, 2)
	if n := len(trace.Filter(rec.Snapshot().Events, trace.GILWait)); n != 1 {
		t.Errorf("acceptor gil_wait intervals = %d; want 1", n)
	}
}

// Balanced: the accept turn goes round the workers, one connection each,
// so a burst of n over w workers gives each n/w (rounded either way),
// whoever is awake.
func TestAcceptBalancedTakesTurns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ workers, n int }{{2, 8}, {3, 12}, {3, 10}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		turns, err := turnRing(AcceptBalanced, c.workers)
		if err != nil {
			t.Fatal(err)
		}
		pending(t, ln, c.n)
		rec := trace.NewRecorder(1000)
		var as []*acceptor
		for i := 0; i < c.workers; i++ {
			a, err := newAcceptor(ln, AcceptBalanced, rec, i+1, turns[2*i], turns[2*((i+1)%c.workers)+1])
			if err != nil {
				t.Fatal(err)
			}
			as = append(as, a)
		}
		// Each worker's server takes what its acceptor hands over.
		var mu sync.Mutex
		got := 0
		done := make(chan struct{})
		for _, a := range as {
			go a.run(pymodel.NewGIL(0, false))
			go func() {
				for {
					conn, err := a.Accept()
					if err != nil {
						return
					}
					conn.Close()
					mu.Lock()
					got++
					if got == c.n {
						close(done)
					}
					mu.Unlock()
				}
			}()
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d workers: %d of %d connections accepted after 10 s", c.workers, got, c.n)
		}
		evs := rec.Snapshot().Events
		lo, hi := c.n/c.workers, (c.n+c.workers-1)/c.workers
		for w := 1; w <= c.workers; w++ {
			if k := accepts(evs, w); k < lo || k > hi {
				t.Errorf("%d workers, burst of %d: worker %d accepted %d; want %d..%d", c.workers, c.n, w, k, lo, hi)
			}
		}
		// The ring's pipes are the acceptors' to close (the read ends,
		// and each acceptor's write end); the rest here.
		for _, a := range as {
			a.Close()
		}
		ln.Close()
	}
}

func TestCheckAccept(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept string
		ok     bool
	}{{"", true}, {AcceptGreedy, true}, {AcceptBalanced, true}, {"round-robin", false}, {"Greedy", false}} {
		err := checkAccept("x", c.accept)
		if (err == nil) != c.ok {
			t.Errorf("checkAccept(%q) = %v; want ok %v", c.accept, err, c.ok)
		}
	}
}

// Two uvicorn workers on one socket: each asleep in poll, woken by the
// same connections; the one whose loop reaches accept first takes them —
// here the one whose GIL is free — each accept after its loop's turn in a
// hold of its GIL. Asleep again, they take no GIL; Close wakes them.
func TestAcceptAsyncioTwoWorkers(t *testing.T) {
	t.Parallel()
	ln := pendingListener(t, 0)
	ln2, err := net.FileListener(mustFile(t, ln))
	if err != nil {
		t.Fatal(err)
	}
	rec := trace.NewRecorder(1000)
	a, err := newAcceptor(ln, AcceptGreedy, rec, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newAcceptor(ln2, AcceptGreedy, rec, 2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	gilA, gilB := pymodel.NewGIL(time.Minute, false), pymodel.NewGIL(time.Minute, false)
	ended := make(chan struct{}, 2)
	gilA.Acquire() // worker 1's thread burns Python
	for _, w := range []struct {
		a   *acceptor
		gil *pymodel.GIL
	}{{a, gilA}, {b, gilB}} {
		go func() { w.a.run(w.gil); ended <- struct{}{} }()
	}
	pending(t, ln, 1)
	take(t, b, 1)
	gilA.Release()
	gilB.Acquire() // now worker 2's does
	pending(t, ln, 1)
	take(t, a, 1)
	gilB.Release()

	// A hold is traced when the loop lets the GIL go, after the handover.
	tr := rec.Snapshot()
	for end := time.Now().Add(5 * time.Second); len(holdsOf(tr.Events, 1))+len(holdsOf(tr.Events, 2)) < 2 && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
		tr = rec.Snapshot()
	}
	if n1, n2 := accepts(tr.Events, 1), accepts(tr.Events, 2); n1 != 1 || n2 != 1 {
		t.Errorf("accepts: worker 1 %d, worker 2 %d; want 1 each (the one with its GIL free)", n1, n2)
	}
	holds := trace.Filter(tr.Events, trace.GIL)
	for _, e := range trace.Filter(tr.Events, trace.Accept) {
		in := false
		for _, h := range holds {
			if h.Worker == e.Worker && h.Start <= e.Start && e.End <= h.End {
				in = true
				if turn := time.Duration(e.Start - h.Start); turn < asyncioWakeCost {
					t.Errorf("worker %d accepted %v into its GIL hold; want its loop's turn, %v, first", e.Worker, turn, asyncioWakeCost)
				}
			}
		}
		if !in {
			t.Errorf("accept %+v outside its worker's GIL holds %+v", e, holds)
		}
	}
	// Asleep in poll, a worker takes no GIL: a loop woken for nothing
	// would take it every turn, thousands of times in this interval.
	before := len(trace.Filter(rec.Snapshot().Events, trace.GIL))
	time.Sleep(300 * time.Millisecond)
	if extra := len(trace.Filter(rec.Snapshot().Events, trace.GIL)) - before; extra > 4 {
		t.Errorf("%d GIL holds in 300 ms with no connection pending; want the workers asleep", extra)
	}
	closed := make(chan struct{})
	go func() { a.Close(); b.Close(); close(closed) }()
	for _, c := range []chan struct{}{closed, ended, ended} {
		select {
		case <-c:
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not wake the accept loops asleep in poll within 10 s")
		}
	}
	if _, err := a.Accept(); err != net.ErrClosed {
		t.Errorf("Accept after Close: %v; want net.ErrClosed", err)
	}
}

// holdsOf is worker's GIL holds that hold an accept.
func holdsOf(evs []trace.Event, worker int) []trace.Event {
	var out []trace.Event
	for _, h := range trace.Filter(evs, trace.GIL) {
		for _, e := range trace.Filter(evs, trace.Accept) {
			if h.Worker == worker && e.Worker == worker && h.Start <= e.Start && e.End <= h.End {
				out = append(out, h)
				break
			}
		}
	}
	return out
}
