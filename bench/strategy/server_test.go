package strategy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/internal/tracecheck"
)

const wait = 200 * time.Millisecond // the sources' 1 s, scaled (≥ 100 ms)

var sleepW = pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(wait)}}

func start(t testing.TB, s strategy.Strategy, w pymodel.Workload) strategy.Server {
	t.Helper()
	srv, err := s.Start(context.Background(), w, strategy.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func client(n int) *http.Client {
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0, DisableKeepAlives: false}}
}

// burst sends n GETs at once, each on a connection of its own (a late
// goroutine must not reuse an earlier one's), and returns the time until
// the last answered.
func burst(t testing.TB, url string, n int) time.Duration {
	t.Helper()
	c := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	begin := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(url + "/work")
			if err != nil {
				errs <- err
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Errorf("status %d: %s", resp.StatusCode, body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return time.Since(begin)
}

func preset(t testing.TB, name string) strategy.Strategy {
	t.Helper()
	s, err := strategy.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// While /async-block is busy, /health on the same server waits; on
// /sync-sleep it does not.
func TestHealthDuringBlockedLoop(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		blocked bool
	}{{"/async-block", true}, {"/sync-sleep", false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := start(t, preset(t, c.name), sleepW)
			done := make(chan time.Duration, 1)
			go func() { done <- burst(t, srv.URL(), 3) }()
			time.Sleep(wait / 4)
			t0 := time.Now()
			resp, err := http.Get(srv.URL() + strategy.HealthPath)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			h := time.Since(t0)
			<-done
			if c.blocked && h < wait {
				t.Errorf("/health took %v while the loop was blocked; want ≥ %v", h, wait)
			}
			if !c.blocked && h > wait/2 {
				t.Errorf("/health took %v beside /sync-sleep; want < %v", h, wait/2)
			}
			if st := srv.Stats(); c.blocked && (st.SlowCallbacks < 3 || st.LoopBlockedMax < wait) {
				t.Errorf("loop stats %+v; want 3 slow callbacks of ≥ %v", st, wait)
			}
		})
	}
}

// CPU-bound work over HTTP, read from the servers' traces: exact facts that
// hold whatever else the machine runs. The threads of one worker take turns
// under its GIL, so the burst takes at least the work; two worker processes
// each have their own GIL, so one step of each runs at once; free threading
// and goroutines run all n steps at once. Not parallel: its burns would
// load the package's other tests.
func TestCPUParallelism(t *testing.T) {
	const n = 4
	const burn = 100 * time.Millisecond
	w := pymodel.Workload{Steps: []pymodel.Step{pymodel.Burn(burn)}}
	// run bursts n requests at a traced server of s and returns its
	// trace, its stats and the burst's time.
	run := func(t *testing.T, s strategy.Strategy) ([]trace.Event, strategy.Stats, time.Duration) {
		t.Helper()
		srv := startTraced(t, s, w)
		d := burst(t, srv.URL(), n)
		return snapshot(t, srv).Events, srv.Stats(), d
	}
	// ranFully checks that each of the n requests traced its CPU runs and
	// that they add up to the burn: a run's wall time is at least the
	// thread CPU time it burnt (5 % for what the hand-offs between runs
	// cost, and do not trace).
	ranFully := func(t *testing.T, evs []trace.Event) {
		t.Helper()
		got := trace.PerRequest(evs, trace.CPU)
		if len(got) != n {
			t.Errorf("CPU runs of %d requests traced; want %d", len(got), n)
		}
		for req, d := range got {
			if d < burn*95/100 {
				t.Errorf("request %d: CPU runs add up to %v; want ≥ %v (the burn)", req, d, burn)
			}
		}
	}
	requests := func(evs []trace.Event, p trace.Phase) map[int64]bool {
		out := map[int64]bool{}
		for _, e := range trace.Filter(evs, p) {
			if e.Request != 0 {
				out[e.Request] = true
			}
		}
		return out
	}

	t.Run("GIL threads", func(t *testing.T) {
		evs, st, d := run(t, preset(t, "flask 1w x 10t"))
		if got := trace.MaxOverlap(evs, trace.GIL); got != 1 {
			t.Errorf("threads holding the GIL at once = %d; want 1", got)
		}
		if got := trace.MaxOverlap(evs, trace.CPU); got != 1 {
			t.Errorf("CPU runs at once = %d; want 1 (each holds the GIL)", got)
		}
		ranFully(t, evs)
		if got := len(requests(evs, trace.GILWait)); got != n {
			t.Errorf("requests that waited for the GIL = %d; want %d (the holder hands it over every switch interval)", got, n)
		}
		if st.Handoffs == 0 {
			t.Errorf("stats %+v; want forced GIL hand-offs", st)
		}
		// The runs never overlap and add up to the work, so the burst
		// cannot take less: a lower bound any load keeps.
		if work := time.Duration(n) * burn * 95 / 100; d < work {
			t.Errorf("burst took %v; %d serialised burns of %v take at least %v", d, n, burn, work)
		}
	})

	t.Run("gunicorn 2w x 5t", func(t *testing.T) {
		// Balanced: real gunicorn's greedy accept may hand the whole
		// burst to one worker (TestPreforkAcceptSplit); this is about
		// what two processes can run at once.
		evs, _, _ := run(t, strategy.Gunicorn{Name: "gunicorn 2w x 5t", Workers: 2, Threads: 5, Accept: strategy.AcceptBalanced})
		if got := trace.MaxOverlapPerWorker(evs, trace.GIL); got != 1 {
			t.Errorf("threads of one process holding its GIL at once = %d; want 1", got)
		}
		if got := trace.MaxOverlapPerWorker(evs, trace.CPU); got != 1 {
			t.Errorf("CPU runs at once in one process = %d; want 1", got)
		}
		// Each worker burns two requests' 100 ms in turns; the other's
		// start long before it is done, on any machine.
		if got := trace.MaxOverlap(evs, trace.GIL); got != 2 {
			t.Errorf("GIL holders at once across the workers = %d; want 2, one a process", got)
		}
		if got := trace.MaxOverlap(evs, trace.CPU); got != 2 {
			t.Errorf("CPU runs at once across the workers = %d; want 2", got)
		}
		ranFully(t, evs)
		per := map[int]map[int64]bool{}
		for _, e := range trace.Filter(evs, trace.CPU) {
			if per[e.Worker] == nil {
				per[e.Worker] = map[int64]bool{}
			}
			per[e.Worker][e.Request] = true
		}
		if len(per) != 2 || len(per[1]) != n/2 || len(per[2]) != n/2 {
			t.Errorf("requests burnt by worker = %v; want %d in each of workers 1 and 2 (balanced accept)", per, n/2)
		}
	})

	for _, c := range []struct {
		name string
		s    strategy.Strategy
	}{
		{"free-threaded", preset(t, "free-threaded 1w x 10t")},
		{"goroutines", preset(t, "goroutines")},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, _, _ := run(t, c.s)
			tracecheck.NoGIL(t, evs)
			tracecheck.AllAtOnce(t, evs, trace.CPU, n)
			ranFully(t, evs)
		})
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	good := preset(t, "goroutines")
	cases := []struct {
		name string
		s    strategy.Strategy
		w    pymodel.Workload
		want string
	}{
		{"negative threads", strategy.Gunicorn{Name: "x", Threads: -1}, sleepW, "Threads"},
		{"negative workers", strategy.Gunicorn{Name: "x", Workers: -2}, sleepW, "Workers"},
		{"negative limiter", strategy.Uvicorn{Name: "x", Limiter: -1}, sleepW, "Limiter"},
		{"negative cpus", strategy.Uvicorn{Name: "x", Python: strategy.Python{CPUs: -1}}, sleepW, "CPUs"},
		{"negative switch interval", strategy.Gunicorn{Name: "x", Python: strategy.Python{SwitchInterval: -time.Millisecond}}, sleepW, "SwitchInterval"},
		{"unknown call", strategy.Uvicorn{Name: "x", IOCall: "yield_from"}, sleepW, "yield_from"},
		{"zero limit", strategy.Bounded{Name: "x"}, sleepW, "Limit"},
		{"negative pool", strategy.GoProcessPool{Name: "x", Workers: -1}, sleepW, "Workers"},
		{"zero sleep", good, pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(0)}}, "duration"},
		{"negative cpu", good, pymodel.Workload{Steps: []pymodel.Step{pymodel.CPU(-5)}}, "n must be positive"},
		{"custom in prefork", preset(t, "gunicorn 2w x 5t"), pymodel.Workload{Steps: []pymodel.Step{pymodel.Custom("f", true, func(context.Context) error { return nil })}}, "worker process"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, err := c.s.Start(context.Background(), c.w, strategy.StartOptions{})
			if err == nil {
				srv.Close()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Start: err = %v; want one mentioning %q", err, c.want)
			}
		})
	}
	if _, err := strategy.Preset("uwsgi 3w"); err == nil || !strings.Contains(err.Error(), "unknown preset") {
		t.Errorf("Preset(unknown) = %v", err)
	}
	if _, err := pymodel.ParseWorkload("nap=1s"); err == nil || !strings.Contains(err.Error(), "nap") {
		t.Errorf("ParseWorkload(unknown kind) = %v", err)
	}
}

func TestCustomStepFromFunc(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	w := pymodel.Workload{Steps: []pymodel.Step{pymodel.Custom("count", true, func(ctx context.Context) error {
		mu.Lock()
		calls++
		mu.Unlock()
		return nil
	})}}
	for _, name := range []string{"asyncio", "sync", "goroutines", "flask 1w x 5t"} {
		srv := start(t, preset(t, name), w)
		burst(t, srv.URL(), 3)
		srv.Close()
	}
	if calls != 12 {
		t.Errorf("custom step ran %d times; want 12", calls)
	}
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

func childPIDs() map[int]bool {
	out := map[int]bool{}
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == self && f[0] != "Z" {
			out[pid] = true
		}
	}
	return out
}

// Lifecycle: after Close, and after cancelling Start's context, no
// goroutine, listener or child process is left.
func TestLifecycleLeavesNothing(t *testing.T) {
	// Not parallel: it counts the process's goroutines and children.
	w := pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(wait)}}
	wPool := pymodel.Workload{Steps: []pymodel.Step{{Kind: pymodel.KindSleep, Duration: wait, Call: pymodel.ProcessExecutor}}}
	cases := []struct {
		name string
		s    strategy.Strategy
		w    pymodel.Workload
	}{
		{"asyncio", preset(t, "asyncio"), w},
		{"sync", preset(t, "sync"), w},
		{"ProcessPool", preset(t, "ProcessPool"), wPool},
		{"gunicorn 2w x 5t", preset(t, "gunicorn 2w x 5t"), w},
		{"go process pool", preset(t, "go process pool"), w},
		{"bounded 10", preset(t, "bounded 10"), w},
	}
	for _, c := range cases {
		for _, how := range []string{"close", "cancel"} {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				before := runtime.NumGoroutine()
				kids := len(childPIDs())
				fds := openFDs()
				// Strategies and their worker processes use $TMPDIR.
				tmpDir := t.TempDir()
				t.Setenv("TMPDIR", tmpDir)
				ctx, cancel := context.WithCancel(context.Background())
				srv, err := c.s.Start(ctx, c.w, strategy.StartOptions{})
				if err != nil {
					t.Fatal(err)
				}
				url := srv.URL()
				// Leave requests in flight; they may fail.
				c := client(4)
				var fired sync.WaitGroup
				for i := 0; i < 4; i++ {
					fired.Add(1)
					go func() {
						defer fired.Done()
						if resp, err := c.Get(url + "/work"); err == nil {
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					}()
				}
				time.Sleep(wait / 2)
				if how == "close" {
					srv.Close()
					srv.Close()
				} else {
					cancel()
				}
				fired.Wait()
				c.CloseIdleConnections()
				deadline := time.Now().Add(5 * time.Second)
				for time.Now().Before(deadline) {
					if len(childPIDs()) == kids && runtime.NumGoroutine() <= before {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				cancel()
				if n := len(childPIDs()); n != kids {
					t.Errorf("%d child processes left (before: %d)", n, kids)
				}
				if g := runtime.NumGoroutine(); g > before {
					buf := make([]byte, 1<<16)
					t.Errorf("%d goroutines, %d before:\n%s", g, before, buf[:runtime.Stack(buf, true)])
				}
				if resp, err := http.Get(url + "/health"); err == nil {
					resp.Body.Close()
					t.Errorf("%s still answers after %s", url, how)
				}
				http.DefaultClient.CloseIdleConnections()
				if n := openFDs(); n > fds {
					t.Errorf("%d open file descriptors (listeners, pipes), %d before", n, fds)
				}
				if ents, _ := os.ReadDir(tmpDir); len(ents) > 0 {
					t.Errorf("%d entries left in the temp dir: %v", len(ents), ents)
				}
			})
		}
	}
}

// A prefork worker that cannot start fails Start, leaving nothing running.
func TestPreforkWorkerCannotStart(t *testing.T) {
	kids := len(childPIDs())
	strategy.WorkerCommand = []string{"/bin/sh", "-c", "echo no python here >&2; exit 7"}
	defer func() { strategy.WorkerCommand = nil }()
	srv, err := preset(t, "gunicorn 2w x 5t").Start(context.Background(), sleepW, strategy.StartOptions{})
	if err == nil {
		srv.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "no python here") {
		t.Fatalf("Start = %v; want the worker's stderr in the error", err)
	}
	if n := len(childPIDs()); n != kids {
		t.Errorf("%d children left, want %d", n, kids)
	}
}

// Killing a process-pool worker mid-request fails that request; the pool
// replaces it and the run completes.
func TestPoolWorkerKilled(t *testing.T) {
	ProcessPool := preset(t, "ProcessPool").(strategy.Uvicorn)
	ProcessPool.ProcessWorkers = 1
	for _, s := range []strategy.Strategy{strategy.GoProcessPool{Workers: 1}, ProcessPool} {
		t.Run(s.Label(), func(t *testing.T) {
			step := pymodel.Sleep(600 * time.Millisecond)
			step.Call = pymodel.ProcessExecutor // ignored by the Go pool: every portable step goes there
			kids := childPIDs()
			srv := start(t, s, pymodel.Workload{Steps: []pymodel.Step{step}})
			var worker []int
			for pid := range childPIDs() {
				if !kids[pid] {
					worker = append(worker, pid)
				}
			}
			if len(worker) != 1 {
				t.Fatalf("new children %v; want 1 pool worker", worker)
			}
			code := make(chan int, 1)
			go func() {
				resp, err := http.Get(srv.URL() + "/work")
				if err != nil {
					code <- -1
					return
				}
				resp.Body.Close()
				code <- resp.StatusCode
			}()
			time.Sleep(200 * time.Millisecond)
			if err := syscall.Kill(worker[0], syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if c := <-code; c != http.StatusInternalServerError {
				t.Errorf("request on the killed worker: status %d; want 500", c)
			}
			// The run goes on with the replacement worker.
			burst(t, srv.URL(), 2)
			if st := srv.Stats(); st.Processes != 1 || st.Errors != 1 || st.PoolTasks != 3 {
				t.Errorf("stats %+v; want 1 replaced worker, 1 error, 3 pool tasks", st)
			}
		})
	}
}
