package s001

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// The book's exercise 3: two async def handlers that differ only in their
// dependency, which opens a connection with a blocking connect (Wait).
const (
	DepDef   = "/dep-def"   // def get_conn(): FastAPI runs it on AnyIO's limiter
	DepAsync = "/dep-async" // async def get_conn_async(): time.sleep on the loop
)

// Dependencies is exercise 3 on the model and the real app: N requests at
// once on /dep-def and /dep-async, whose dependency's connect waits Wait
// (Knobs.Deps shortens it), each model beside "real " + endpoint. A bad
// knob is an error naming it.
func (k Knobs) Dependencies() (bench.Experiment, error) {
	if err := k.Validate(); err != nil {
		return bench.Experiment{}, err
	}
	connect := pymodel.Sleep(k.Wait)
	connect.Name = "connect"
	def, blocking := connect, connect
	def.Call, blocking.Call = pymodel.Threadpool, pymodel.Block
	py := strategy.Python{CPUs: k.CPUs}
	e := bench.Experiment{
		Name:     fmt.Sprintf("source 001, exercise 3: %d requests at once, a dependency's connect of %v", k.N, k.Wait),
		Workload: pymodel.Workload{Name: "connect", Steps: []pymodel.Step{connect}},
		Workloads: map[string]pymodel.Workload{
			DepDef:   {Name: "def get_conn", Steps: []pymodel.Step{def}},
			DepAsync: {Name: "async def get_conn_async", Steps: []pymodel.Step{blocking}},
		},
		Load: load.Burst{N: k.N},
	}
	for _, ep := range []string{DepDef, DepAsync} {
		e.Strategies = append(e.Strategies, strategy.Uvicorn{Name: ep, Limiter: k.Limiter, Async: true, Python: py},
			k.Real(ep, cpython.Options{Trace: true}))
	}
	return e, nil
}

// DependenciesEstimate is exercise 3's arithmetic: the def dependency runs
// through AnyIO's limiter, ⌈N / tokens⌉ waves of the connect; the async
// def one blocks the loop, N connects one after another.
func (k Knobs) DependenciesEstimate() *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 001 estimated: %d requests, a connect of %v", k.N, k.Wait), "strategy", "at_once", "waves", "elapsed_s")
	for _, r := range []struct {
		ep string
		at int
	}{{DepDef, min(k.N, k.Limiter)}, {DepAsync, 1}} {
		waves := (k.N + r.at - 1) / r.at
		f.MustAppend(frame.Row{"strategy": r.ep, "at_once": r.at, "waves": waves, "elapsed_s": float64(waves) * k.Wait.Seconds()})
	}
	return f
}

// The book's exercise 4: endpoints that call an external API Calls times
// per request.
const (
	APIRequestsAsync = "/api-requests-async" // async def + requests: blocks the loop
	APIRequestsDef   = "/api-requests-def"   // def + requests: blocks one of AnyIO's threads
	APIHttpxInTurn   = "/api-httpx-in-turn"  // async def + httpx, one await after another
	APIHttpxGather   = "/api-httpx-gather"   // async def + httpx, gathered
)

// APIEndpoints are exercise 4's endpoints, in the lesson's order.
func APIEndpoints() []string {
	return []string{APIRequestsAsync, APIRequestsDef, APIHttpxInTurn, APIHttpxGather}
}

// API is exercise 4's external API: each request calls it Calls times, and
// it answers after Latency. The lab's stand-in is a loopback server of
// its own, started beside each real app.
type API struct {
	Calls   int
	Latency time.Duration
}

// Validate reports a bad calls or latency, naming it.
func (a API) Validate() error {
	switch {
	case a.Calls < 1 || a.Calls > 100:
		return fmt.Errorf("s001: calls must be in 1..100, got %d", a.Calls)
	case a.Latency <= 0 || a.Latency > 10*time.Second:
		return fmt.Errorf("s001: latency must be in (0, 10s], got %v", a.Latency)
	}
	return nil
}

// APIRun is exercise 4 for some knobs: its Experiment sends N requests at
// once to each endpoint of APIEndpoints, the model beside the real app
// (whose calls go to a loopback server answering after Latency), and on
// each server, once it is ready and before the burst, one request alone,
// timed (Alone). On the model a call is a wait of Latency: blocking on
// the loop, blocking on AnyIO's thread, awaited in turn, or one wait for
// the gathered calls.
type APIRun struct {
	k     Knobs
	api   API
	alone *aloneTimes
}

// ExternalAPI is exercise 4 with these knobs and API; bad knobs are an
// error naming them.
func (k Knobs) ExternalAPI(a API) (*APIRun, error) {
	if err := errors.Join(k.Validate(), a.Validate()); err != nil {
		return nil, err
	}
	return &APIRun{k: k, api: a, alone: &aloneTimes{took: map[string]aloneTime{}}}, nil
}

// Experiment is the run: the burst of N on every endpoint's model and
// real app, each first sent one request alone.
func (r *APIRun) Experiment() bench.Experiment {
	k, a := r.k, r.api
	call := pymodel.Sleep(a.Latency)
	call.Name = "GET the API"
	calls := func(c pymodel.Call) []pymodel.Step {
		s := call
		s.Call = c
		return slices.Repeat([]pymodel.Step{s}, a.Calls)
	}
	gathered := call
	gathered.Name, gathered.Call = fmt.Sprintf("gather of %d GETs", a.Calls), pymodel.Await
	py := strategy.Python{CPUs: k.CPUs}
	e := bench.Experiment{
		Name:     fmt.Sprintf("exercise 4, %d at once", k.N), // short: charts.Beside's legend tells the sides apart by it
		Workload: pymodel.Workload{Name: "calls", Steps: calls(pymodel.Block)},
		Workloads: map[string]pymodel.Workload{
			APIRequestsAsync: {Name: "requests on the loop", Steps: calls(pymodel.Block)},
			APIRequestsDef:   {Name: "requests on a thread", Steps: calls(pymodel.Block)},
			APIHttpxInTurn:   {Name: "httpx awaited in turn", Steps: calls(pymodel.Await)},
			APIHttpxGather:   {Name: "httpx gathered", Steps: []pymodel.Step{gathered}},
		},
		Load: load.Burst{N: k.N},
	}
	for _, ep := range APIEndpoints() {
		m := strategy.Uvicorn{Name: ep, Limiter: k.Limiter, Async: ep != APIRequestsDef, Python: py}
		e.Strategies = append(e.Strategies, aloneFirst{Strategy: m, path: "/work", rec: r.alone},
			apiReal{Real: k.Real(ep, cpython.Options{Trace: true}), api: a, rec: r.alone})
	}
	return e
}

// Estimate is the arithmetic for n requests at once (ExternalAPIEstimate
// with N = n), named "estimated, alone" for n = 1, else "estimated, n at
// once": Estimate(1) for the request alone.
func (r *APIRun) Estimate(n int) *frame.Frame {
	k := r.k
	k.N = n
	f := k.ExternalAPIEstimate(r.api)
	f.Name = fmt.Sprintf("estimated, %d at once", n)
	if n == 1 {
		f.Name = "estimated, alone"
	}
	return f
}

// Alone is what the requests sent alone took, one row per server the
// Experiment has run so far, in its order: strategy, errors (0 or 1),
// elapsed_s. Its name is "exercise 4, alone".
func (r *APIRun) Alone() *frame.Frame {
	f := frame.Of("exercise 4, alone", "strategy", "errors", "elapsed_s")
	r.alone.mu.Lock()
	defer r.alone.mu.Unlock()
	for _, l := range r.alone.order {
		t := r.alone.took[l]
		errs := 0
		if t.err != nil {
			errs = 1
		}
		f.MustAppend(frame.Row{"strategy": l, "errors": errs, "elapsed_s": t.d.Seconds()})
	}
	return f
}

// AtOnce is, per real app the Experiment has run so far, the most calls
// its external API stand-in was answering at the same moment while the
// request alone ran (alone) and during the burst (burst): gathered calls
// overlap, calls awaited in turn do not, and requests inside async def
// block the loop, one call at a time for the whole burst. Its name is
// "exercise 4, API calls at once".
func (r *APIRun) AtOnce() *frame.Frame {
	f := frame.Of("exercise 4, API calls at once", "strategy", "alone", "burst")
	for _, row := range r.alone.atOnceRows() {
		f.MustAppend(row)
	}
	return f
}

type aloneTime struct {
	d   time.Duration
	err error
}

// aloneTimes are the requests sent alone, by strategy label, and for the
// real apps the most calls their API stand-in answered at once.
type aloneTimes struct {
	mu     sync.Mutex
	order  []string
	took   map[string]aloneTime
	atOnce map[string]*[2]int // alone, burst
	labels []string           // atOnce's, in order
}

// atOnceRows are the calls at once recorded so far, a row per label.
func (a *aloneTimes) atOnceRows() []frame.Row {
	a.mu.Lock()
	defer a.mu.Unlock()
	rows := make([]frame.Row, 0, len(a.labels))
	for _, l := range a.labels {
		v := a.atOnce[l]
		rows = append(rows, frame.Row{"strategy": l, "alone": v[0], "burst": v[1]})
	}
	return rows
}

// setAtOnce records n as the most calls at once of label's stand-in, alone
// (i 0) or in the burst (i 1).
func (a *aloneTimes) setAtOnce(label string, i, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.atOnce == nil {
		a.atOnce = map[string]*[2]int{}
	}
	v, ok := a.atOnce[label]
	if !ok {
		v = new([2]int)
		a.atOnce[label] = v
		a.labels = append(a.labels, label)
	}
	v[i] = n
}

// measure sends one GET of url alone and records what it took under label.
func (a *aloneTimes) measure(ctx context.Context, label, url string) {
	start := time.Now()
	err := get(ctx, url)
	d := time.Since(start)
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, seen := a.took[label]; !seen {
		a.order = append(a.order, label)
	}
	a.took[label] = aloneTime{d: d, err: err}
}

// get is one GET on a connection of its own, its body read; a status
// other than 200 is an error.
func get(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return err
}

// aloneFirst is a model strategy whose Start, once its server is ready,
// sends one request alone to path and records it.
type aloneFirst struct {
	strategy.Strategy
	path string
	rec  *aloneTimes
}

func (s aloneFirst) Start(ctx context.Context, w pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	srv, err := s.Strategy.Start(ctx, w, o)
	if err == nil {
		s.rec.measure(ctx, s.Label(), srv.URL()+s.path)
	}
	return srv, err
}

// ExternalAPIEstimate is exercise 4's arithmetic for N requests at once:
// requests inside async def, N × Calls × Latency (the loop runs one call
// at a time); inside def, ⌈N / tokens⌉ × Calls × Latency; httpx awaited
// in turn, Calls × Latency; gathered, one Latency.
func (k Knobs) ExternalAPIEstimate(a API) *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 001 estimated: %d at once, %d calls of %v", k.N, a.Calls, a.Latency), "strategy", "calls_in_a_row", "elapsed_s")
	tokens := max(k.Limiter, 1)
	for _, r := range []struct {
		ep  string
		row int
	}{
		{APIRequestsAsync, k.N * a.Calls},
		{APIRequestsDef, (k.N + tokens - 1) / tokens * a.Calls},
		{APIHttpxInTurn, a.Calls},
		{APIHttpxGather, 1},
	} {
		f.MustAppend(frame.Row{"strategy": r.ep, "calls_in_a_row": r.row, "elapsed_s": float64(r.row) * a.Latency.Seconds()})
	}
	return f
}

// apiReal is the real app with the external API's stand-in: Start first
// starts a loopback HTTP server answering every request after the API's
// Latency, and gives the app its URL and the calls per request.
type apiReal struct {
	cpython.Real
	api API
	rec *aloneTimes
}

func (r apiReal) Start(ctx context.Context, w pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("s001: the external API's stand-in: %w", err)
	}
	latency := r.api.Latency
	// Calls at once are counted per phase (0: the request alone, 1: the
	// burst), each call in the phase it started in.
	var phase atomic.Int32
	var inFlight, peak [2]atomic.Int64
	mock := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ph := phase.Load()
		n := inFlight[ph].Add(1)
		defer inFlight[ph].Add(-1)
		for p := peak[ph].Load(); n > p && !peak[ph].CompareAndSwap(p, n); p = peak[ph].Load() {
		}
		t := time.NewTimer(latency)
		defer t.Stop()
		select {
		case <-t.C:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok": true}`)
		case <-req.Context().Done():
		}
	}), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = mock.Serve(ln) }()
	stop := func() {
		_ = mock.Close()
		<-done
	}
	real := r.Real
	real.App.Env = maps.Clone(real.App.Env)
	real.App.Env["CONCLAB_API_URL"] = "http://" + ln.Addr().String() + "/"
	real.App.Env["CONCLAB_API_CALLS"] = strconv.Itoa(r.api.Calls)
	srv, err := real.Start(ctx, w, o)
	if err != nil {
		stop()
		return nil, err
	}
	label := r.Label()
	if r.rec != nil {
		r.rec.measure(ctx, label, srv.URL()+r.Endpoint)
		r.rec.setAtOnce(label, 0, int(peak[0].Load()))
	}
	phase.Store(1)
	return &apiServer{Server: srv, stop: func() {
		stop()
		if r.rec != nil {
			r.rec.setAtOnce(label, 1, int(peak[1].Load()))
		}
	}}, nil
}

// apiServer is the real app and its stand-in; Close stops both.
type apiServer struct {
	strategy.Server
	stop func()
}

func (s *apiServer) Close() error {
	err := s.Server.Close()
	s.stop()
	return err
}

// FirstWave is the first wave's extra time: /sync-sleep's model and the
// real app on a fresh server, sent two bursts of N, the second 200 ms
// after the first has ended, traced. AnyIO starts its worker threads as
// the first burst needs them and reuses them in the second; FirstWaveExtra
// reads what that cost.
func (k Knobs) FirstWave() (bench.Experiment, error) {
	if err := k.Validate(); err != nil {
		return bench.Experiment{}, err
	}
	m, _ := k.Strategy(SyncSleep)
	return bench.Experiment{
		Name:       fmt.Sprintf("source 001: two bursts of %d on a fresh /sync-sleep, %v each", k.N, k.Wait),
		Strategies: []strategy.Strategy{m, k.Real(SyncSleep, cpython.Options{Trace: true})},
		Workload:   k.Workload(),
		Load:       load.Bursts{N: k.N, Count: 2, Pause: 200 * time.Millisecond},
	}, nil
}

// FirstWaveExtra reads a FirstWave run: per row, each burst's time from
// its first request's arrival to its last answer as the trace saw it
// (first_s, second_s), extra_ms = first − second, and the distinct
// threads that ran each burst's handlers and how many of the second's
// were new (new_threads_second: 0 when the first burst's were reused). A
// row whose trace does not hold two bursts of N is left out.
func (k Knobs) FirstWaveExtra(res *bench.Result) *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 001: the first burst of %d on a fresh server, beside the second", k.N),
		"strategy", "first_s", "second_s", "extra_ms", "threads_first", "threads_second", "new_threads_second")
	if res == nil || res.Summary == nil || k.N < 1 {
		return f
	}
	for _, row := range res.Summary.Texts("strategy") {
		type span struct {
			start, end int64
			threads    []string
		}
		reqs := map[int64]*span{}
		for _, ev := range res.Events(row) {
			if ev.Request == 0 {
				continue
			}
			s := reqs[ev.Request]
			if s == nil {
				s = &span{start: ev.Start, end: ev.End}
				reqs[ev.Request] = s
			}
			s.start, s.end = min(s.start, ev.Start), max(s.end, ev.End)
			if ev.Phase == trace.Handler {
				s.threads = append(s.threads, ev.Thread)
			}
		}
		all := slices.Collect(maps.Values(reqs))
		if len(all) < 2*k.N {
			continue
		}
		sort.Slice(all, func(i, j int) bool { return all[i].start < all[j].start })
		all = all[len(all)-2*k.N:] // earlier ones are readiness probes
		var secs [2]float64
		var threads [2]map[string]bool
		for b := range 2 {
			burst := all[b*k.N : (b+1)*k.N]
			from, to := burst[0].start, burst[0].end
			threads[b] = map[string]bool{}
			for _, s := range burst {
				from, to = min(from, s.start), max(to, s.end)
				for _, t := range s.threads {
					threads[b][t] = true
				}
			}
			secs[b] = float64(to-from) / 1e9
		}
		fresh := 0
		for t := range threads[1] {
			if !threads[0][t] {
				fresh++
			}
		}
		f.MustAppend(frame.Row{"strategy": row, "first_s": secs[0], "second_s": secs[1], "extra_ms": (secs[0] - secs[1]) * 1000,
			"threads_first": len(threads[0]), "threads_second": len(threads[1]), "new_threads_second": fresh})
	}
	return f
}
