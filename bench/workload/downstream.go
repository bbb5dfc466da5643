package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/metrics"
)

// Downstream defaults and bounds (source 002: a mock /health that sleeps
// 200 ms, called 100 times).
const (
	DefaultDownstreamLatency = 200 * time.Millisecond
	MaxDownstreamLatency     = 10 * time.Minute
	MaxFanOutCalls           = 100_000
	DefaultFanOutTimeout     = 60 * time.Second
)

// Fan-out modes.
const (
	FanSequential = "sequential" // one call after another (requests in a loop)
	FanPool       = "pool"       // Workers goroutines share the calls (ThreadPoolExecutor(W))
	FanAll        = "all"        // every call at once (asyncio.gather)
)

// Downstream is a mock downstream service on 127.0.0.1: GET /health waits
// its latency, then answers {"status":"ok"}; /health?ms=N waits N ms
// instead. Safe for concurrent use; the caller must call Close.
type Downstream struct {
	srv     *http.Server
	ln      net.Listener
	url     string
	latency atomic.Int64
	calls   atomic.Int64
	active  atomic.Int64
	peak    atomic.Int64
	stop    chan struct{}
	served  chan struct{}
	unwatch func() bool

	closeOnce sync.Once
	closeErr  error
}

// StartDownstream starts the mock service on 127.0.0.1:0 with the given
// latency (0 answers at once). Cancelling ctx closes it, like Close.
func StartDownstream(ctx context.Context, latency time.Duration) (*Downstream, error) {
	if latency < 0 || latency > MaxDownstreamLatency {
		return nil, fmt.Errorf("workload: downstream latency %v, want 0..%v", latency, MaxDownstreamLatency)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("workload: start downstream: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("workload: downstream listen: %w", err)
	}
	d := &Downstream{ln: ln, url: "http://" + ln.Addr().String(), stop: make(chan struct{}), served: make(chan struct{})}
	d.latency.Store(int64(latency))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", d.health)
	d.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(d.served)
		_ = d.srv.Serve(ln)
	}()
	d.unwatch = context.AfterFunc(ctx, func() { _ = d.Close() })
	return d, nil
}

func (d *Downstream) health(w http.ResponseWriter, r *http.Request) {
	d.calls.Add(1)
	n := d.active.Add(1)
	defer d.active.Add(-1)
	for {
		p := d.peak.Load()
		if n <= p || d.peak.CompareAndSwap(p, n) {
			break
		}
	}
	wait := time.Duration(d.latency.Load())
	if v := r.URL.Query().Get("ms"); v != "" {
		var msv float64
		if _, err := fmt.Sscanf(v, "%g", &msv); err != nil || msv < 0 || time.Duration(msv*float64(time.Millisecond)) > MaxDownstreamLatency {
			http.Error(w, "ms must be a number of milliseconds from 0 to 600000", http.StatusBadRequest)
			return
		}
		wait = time.Duration(msv * float64(time.Millisecond))
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-d.stop:
			http.Error(w, "downstream closing", http.StatusServiceUnavailable)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":"ok"}`)
}

// URL is the base URL, http://127.0.0.1:PORT.
func (d *Downstream) URL() string { return d.url }

// HealthURL is URL()+"/health".
func (d *Downstream) HealthURL() string { return d.url + "/health" }

// SetLatency changes the latency of later calls; out-of-range values are
// clamped to 0..MaxDownstreamLatency.
func (d *Downstream) SetLatency(latency time.Duration) {
	d.latency.Store(int64(max(0, min(latency, MaxDownstreamLatency))))
}

// Latency is the current latency.
func (d *Downstream) Latency() time.Duration { return time.Duration(d.latency.Load()) }

// Calls is the number of /health calls received.
func (d *Downstream) Calls() int64 { return d.calls.Load() }

// PeakInFlight is the most /health calls that were in progress at once:
// the concurrency the client really achieved.
func (d *Downstream) PeakInFlight() int64 { return d.peak.Load() }

// Close stops the service: calls still waiting are answered 503, the
// listener and every connection are closed, and the serving goroutine has
// exited when Close returns. Safe to call twice.
func (d *Downstream) Close() error {
	d.closeOnce.Do(func() {
		d.unwatch()
		close(d.stop)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := d.srv.Shutdown(ctx); err != nil {
			_ = d.srv.Close()
		}
		<-d.served
	})
	return d.closeErr
}

// noKeepAlive is the transport CallDownstream uses when given no client:
// a new connection per call, like requests.get without a Session, and no
// idle connection (or goroutine) left behind.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}

// CallDownstream makes one GET to rawURL (a loopback address) with client
// (nil: a new connection per call), reads the whole body, and returns the
// call's latency. A status other than 200 is an error.
func CallDownstream(ctx context.Context, client *http.Client, rawURL string) (time.Duration, error) {
	if err := checkLoopback(rawURL); err != nil {
		return 0, err
	}
	d, _, err := call(ctx, client, rawURL)
	return d, err
}

// call makes one GET and returns its latency and status (0 when no
// response came).
func call(ctx context.Context, client *http.Client, rawURL string) (time.Duration, int, error) {
	if client == nil {
		client = noKeepAlive
	}
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("workload: downstream request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return time.Since(start), 0, fmt.Errorf("workload: downstream call: %w", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return d, resp.StatusCode, fmt.Errorf("workload: downstream read: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return d, resp.StatusCode, fmt.Errorf("workload: downstream answered %s", resp.Status)
	}
	return d, resp.StatusCode, nil
}

func checkLoopback(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("workload: downstream URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("workload: downstream URL %q: want http:// or https://", rawURL)
	}
	h := u.Hostname()
	if h == "localhost" {
		return nil
	}
	if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("workload: downstream URL %q: the lab only calls loopback hosts (127.0.0.0/8, ::1, localhost)", rawURL)
	}
	return nil
}

// FanOut calls a downstream URL Calls times, in one of the fan-out modes
// (source 002: sequential, a thread pool of W, asyncio.gather). The zero
// Mode is FanSequential.
type FanOut struct {
	URL     string        // a loopback URL, e.g. Downstream.HealthURL()
	Calls   int           // 1..MaxFanOutCalls
	Mode    string        // FanSequential, FanPool or FanAll
	Workers int           // FanPool's pool size, 1..Calls (larger is clamped)
	Timeout time.Duration // bound on the whole run (0: DefaultFanOutTimeout)
}

// FanOutResult is a finished fan-out.
type FanOutResult struct {
	Mode    string
	Workers int           // calls that could be in flight at once
	Elapsed time.Duration // first call start to last call end
	Errors  int
	// Calls has one row per call, in call order: call, worker, start_ms
	// (from the run's start), latency_ms, ok (1 or 0), error.
	Calls *frame.Frame
	// Result is every call recorded through bench/metrics, the lab's one
	// instrument: its percentiles (HDR), avg and rps (every call over
	// Elapsed) are the ones bench.Run's frames report under the same
	// names. Its labels: strategy (the mode, "pool 5" for a pool of 5),
	// workload "fan-out", load ("10 calls").
	Result *metrics.Result
}

// Run makes the calls and returns their timings. It returns an error only
// for bad settings; failed calls are counted in Errors and described in
// the Calls frame. A fresh connection pool sized to the concurrency is used
// and closed at the end, so no connection outlives Run.
func (f FanOut) Run(ctx context.Context) (*FanOutResult, error) {
	if f.Mode == "" {
		f.Mode = FanSequential
	}
	if f.Calls < 1 || f.Calls > MaxFanOutCalls {
		return nil, fmt.Errorf("workload: fan-out calls = %d, want 1..%d", f.Calls, MaxFanOutCalls)
	}
	if err := checkLoopback(f.URL); err != nil {
		return nil, err
	}
	if f.Timeout < 0 {
		return nil, fmt.Errorf("workload: fan-out timeout %v, want >= 0", f.Timeout)
	}
	if f.Timeout == 0 {
		f.Timeout = DefaultFanOutTimeout
	}
	workers := 1
	switch f.Mode {
	case FanSequential:
	case FanPool:
		if f.Workers < 1 {
			return nil, fmt.Errorf("workload: fan-out pool needs workers >= 1, got %d", f.Workers)
		}
		workers = min(f.Workers, f.Calls)
	case FanAll:
		workers = f.Calls
	default:
		return nil, fmt.Errorf("workload: fan-out mode %q, want %q, %q or %q", f.Mode, FanSequential, FanPool, FanAll)
	}
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: workers, MaxIdleConns: workers, IdleConnTimeout: f.Timeout}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	type rec struct {
		worker     int
		start, lat time.Duration
		status     int
		err        error
	}
	recs := make([]rec, f.Calls)
	t0 := time.Now()
	one := func(i, worker int) {
		s := time.Since(t0)
		lat, status, err := call(ctx, client, f.URL)
		recs[i] = rec{worker: worker, start: s, lat: lat, status: status, err: err}
	}
	var wg sync.WaitGroup
	switch f.Mode {
	case FanSequential:
		for i := range f.Calls {
			one(i, 0)
		}
	case FanPool:
		next := make(chan int)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					one(i, w)
				}
			}()
		}
		for i := range f.Calls {
			next <- i
		}
		close(next)
	case FanAll:
		for i := range f.Calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				one(i, i)
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(t0)
	mr, err := metrics.NewRecorder(t0, metrics.Options{Shards: 1})
	if err != nil {
		return nil, fmt.Errorf("workload: fan-out: %w", err)
	}
	res := &FanOutResult{Mode: f.Mode, Workers: workers, Elapsed: elapsed, Calls: newFrame("fan-out calls ("+f.Mode+")", map[string]bool{"error": true}, "call", "worker", "start_ms", "latency_ms", "ok", "error")}
	for i, r := range recs {
		msg, ok := "", 1
		if r.err != nil {
			res.Errors++
			msg, ok = r.err.Error(), 0
			if errors.Is(r.err, context.DeadlineExceeded) {
				msg = "timeout: " + msg
			}
		}
		mr.Record(0, &metrics.Sample{Outcome: outcome(r.status, r.err), Latency: r.lat, Err: r.err})
		res.Calls.MustAppend(frame.Row{"call": i, "worker": r.worker, "start_ms": ms(r.start), "latency_ms": ms(r.lat), "ok": ok, "error": msg})
	}
	label := f.Mode
	if f.Mode == FanPool {
		label = fmt.Sprintf("pool %d", workers)
	}
	res.Result = mr.Finish(t0.Add(elapsed), 0, map[string]string{
		metrics.LabelStrategy: label, metrics.LabelWorkload: "fan-out", metrics.LabelLoad: fmt.Sprintf("%d calls", f.Calls)})
	return res, nil
}

// outcome classifies a call as bench/metrics does a load request.
func outcome(status int, err error) metrics.Outcome {
	switch {
	case err == nil:
		return metrics.OK
	case status >= 500:
		return metrics.Status5xx
	case status >= 400:
		return metrics.Status4xx
	case status > 0:
		return metrics.Other
	case errors.Is(err, context.DeadlineExceeded):
		return metrics.Timeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return metrics.Timeout
	}
	return metrics.Conn
}

// Summary is Result's one-row summary frame (bench/metrics' columns:
// strategy, workload, load, count, errors, ..., elapsed_s, rps, min_ms ...
// max_ms, ...) with mode and workers added.
func (r *FanOutResult) Summary() *frame.Frame {
	f := r.Result.Summary().With("mode", r.Mode)
	f.Name = "fan-out"
	_ = f.AddColumn("workers", frame.Number)
	out := frame.New(f.Name)
	for _, c := range f.Columns() {
		k, _ := f.KindOf(c)
		_ = out.AddColumn(c, k)
	}
	for _, row := range f.Rows() {
		row["workers"] = r.Workers
		out.MustAppend(row)
	}
	return out
}
