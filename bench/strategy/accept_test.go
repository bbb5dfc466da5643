package strategy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// perWorker counts the handled requests of each worker process in a trace.
func perWorker(evs []trace.Event) map[int]int {
	out := map[int]int{}
	for _, e := range trace.Filter(evs, trace.Handler) {
		out[e.Worker]++
	}
	return out
}

// A burst over prefork workers, end to end through real worker processes:
// whatever the split, every request is handled once, by one of the
// workers, and accepted once by its acceptor lane; balanced gives each
// worker exactly its turn's share.
func TestPreforkAcceptSplit(t *testing.T) {
	t.Parallel()
	cpu := pymodel.Workload{Steps: []pymodel.Step{pymodel.Burn(20 * time.Millisecond)}}
	cases := []struct {
		name    string
		s       strategy.Strategy
		workers int
		n       int
		exact   bool // balanced: n/workers each
	}{
		{"gunicorn greedy", strategy.Gunicorn{Workers: 2, Threads: 5}, 2, 8, false},
		{"uvicorn greedy", strategy.Uvicorn{Workers: 3}, 3, 12, false},
		{"gunicorn balanced", strategy.Gunicorn{Workers: 3, Threads: 5, Accept: strategy.AcceptBalanced}, 3, 12, true},
		{"uvicorn balanced", strategy.Uvicorn{Workers: 2, Accept: strategy.AcceptBalanced}, 2, 8, true},
		{"gunicorn reuseport", strategy.Gunicorn{Workers: 2, Threads: 5, Accept: strategy.AcceptReusePort}, 2, 8, false},
		{"uvicorn reuseport", strategy.Uvicorn{Workers: 3, Accept: strategy.AcceptReusePort}, 3, 12, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := startTraced(t, c.s, cpu)
			burst(t, srv.URL(), c.n)
			tr := snapshot(t, srv)
			counts := perWorker(tr.Events)
			sum := 0
			for w, k := range counts {
				if w < 1 || w > c.workers {
					t.Errorf("requests on worker %d; want workers 1..%d", w, c.workers)
				}
				if c.exact && k != c.n/c.workers {
					t.Errorf("balanced: worker %d handled %d; want %d (split %v)", w, k, c.n/c.workers, counts)
				}
				sum += k
			}
			if sum != c.n {
				t.Errorf("handled %d requests (split %v); want %d", sum, counts, c.n)
			}
			if c.exact && len(counts) != c.workers {
				t.Errorf("balanced: %d workers handled requests (split %v); want all %d", len(counts), counts, c.workers)
			}
			acc := map[int]int{}
			for _, e := range trace.Filter(tr.Events, trace.Accept) {
				if e.Thread != "acceptor" || e.Request != 0 {
					t.Errorf("accept interval %+v; want the worker's acceptor lane, no request", e)
				}
				acc[e.Worker]++
			}
			for w, k := range counts {
				if acc[w] != k {
					t.Errorf("worker %d: %d accepts for %d requests (accepts %v)", w, acc[w], k, acc)
				}
			}
			if got := trace.MaxOverlapPerWorker(tr.Events, trace.GIL); got != 1 {
				t.Errorf("GIL holders at once in a worker = %d; want 1 (the acceptor's turns included)", got)
			}
		})
	}
}

// With reuseport each worker listens on a socket of its own and the kernel
// picks the socket by a hash of the connection's addresses, busy or not:
// 40 connections one after another (each from a new source port) all
// reach one worker with probability 2^-39, while with the shared socket
// an idle machine may give them all to whichever worker's loop reaches
// accept first.
func TestReusePortSpreadsOneAtATime(t *testing.T) {
	t.Parallel()
	for _, s := range []strategy.Strategy{
		strategy.Gunicorn{Workers: 2, Threads: 2, Accept: strategy.AcceptReusePort},
		strategy.Uvicorn{Workers: 2, Accept: strategy.AcceptReusePort},
	} {
		t.Run(s.Label(), func(t *testing.T) {
			t.Parallel()
			srv := startTraced(t, s, pymodel.Workload{})
			for i := 0; i < 40; i++ {
				burst(t, srv.URL(), 1)
			}
			counts := perWorker(snapshot(t, srv).Events)
			if len(counts) != 2 || counts[1]+counts[2] != 40 {
				t.Errorf("40 connections one at a time split %v; want both workers, 40 in all", counts)
			}
		})
	}
}

func TestAcceptValidate(t *testing.T) {
	t.Parallel()
	for _, s := range []strategy.Strategy{
		strategy.Gunicorn{Workers: 2, Accept: "round-robin"},
		strategy.Uvicorn{Workers: 2, Accept: "Balanced"},
	} {
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), "Accept must be \"greedy\", \"reuseport\" or \"balanced\"") {
			t.Errorf("%s: Validate() = %v; want the Accept field named", s.Label(), err)
		}
		if _, err := s.Start(t.Context(), pymodel.Workload{}, strategy.StartOptions{}); err == nil {
			t.Errorf("%s: Start with a bad Accept succeeded", s.Label())
		}
	}
	for _, s := range []strategy.Strategy{strategy.Gunicorn{Accept: strategy.AcceptGreedy}, strategy.Uvicorn{Workers: 3, Accept: strategy.AcceptBalanced}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v", s.Label(), err)
		}
	}
}
